import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// Batch input: NDJSON detection and streaming, order under parallel parsing, bounded memory.
@Suite struct BatchInputTests {
  static func temporaryFile(_ name: String, _ text: String) throws -> String {
    let path = Scratch.directory.appendingPathComponent("batch-\(getpid())-\(name)").path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// Runs `InputDocuments.forEach` and returns (line, first bytes) per document, or the error message.
  static func documents(_ path: String, ndjson: Bool = false) -> ([String], [String]) {
    var seen: [String] = []
    var notices: [String] = []
    let notice: (String) -> Void = { notices.append($0) }
    InputDocuments.forEach(paths: [path], forceNDJSON: ndjson, notice: notice) { doc, error in
      if let doc { seen.append("\(doc.line.map(String.init) ?? "-"):\(String(decoding: doc.bytes, as: UTF8.self))") }
      if let error { seen.append("error:\(error.message)") }
    }
    return (seen, notices)
  }

  @Test func pretty_printed_document_is_one_document() throws {
    let path = try Self.temporaryFile("pretty.json", "{\n  \"status\": 0\n}\n")
    let (docs, notices) = Self.documents(path)
    #expect(docs == ["-:{\n  \"status\": 0\n}\n"])
    #expect(notices.isEmpty)
  }

  @Test func one_line_document_is_not_ndjson() throws {
    let path = try Self.temporaryFile("one.json", "{\"status\": 0}\n\n")
    #expect(Self.documents(path).0 == ["-:{\"status\": 0}\n\n"])
  }

  @Test func several_lines_are_ndjson_with_physical_line_numbers_and_blank_lines_reported() throws {
    let path = try Self.temporaryFile("lines.txt", "{\"a\": \"}{\"}\n\n[1]\r\n{broken\n   \n{\"z\":1}")
    let (docs, notices) = Self.documents(path)
    #expect(docs == ["1:{\"a\": \"}{\"}", "3:[1]\r", "4:{broken", "6:{\"z\":1}"])
    #expect(notices.count == 1)
    #expect(notices.first?.contains("2 blank lines skipped") == true)
  }

  @Test func ndjson_flag_and_extension_force_line_mode() throws {
    let path = try Self.temporaryFile("single.ndjson", "{\"a\":1}\n")
    #expect(Self.documents(path).0 == ["1:{\"a\":1}"])
    let plain = try Self.temporaryFile("single.json", "{\"a\":\n1}\n")
    #expect(Self.documents(plain, ndjson: true).0 == ["1:{\"a\":", "2:1}"])
  }

  @Test func lines_longer_than_a_chunk_are_read_whole() throws {
    let long = "{\"k\":\"" + String(repeating: "x", count: ChunkReader.chunkSize * 2 + 17) + "\"}"
    let path = try Self.temporaryFile("long.ndjson", "\(long)\n{}\n\(long)\n")
    let docs = Self.documents(path).0
    #expect(docs.count == 3)
    #expect(docs.first == "1:" + long)
    #expect(docs.last == "3:" + long)
  }

  @Test func missing_file_is_reported_and_the_rest_go_on() throws {
    let path = try Self.temporaryFile("ok.json", "{}")
    var seen: [String] = []
    InputDocuments.forEach(paths: ["/nonexistent/x.json", path], forceNDJSON: false) { doc, error in
      seen.append(doc != nil ? "doc" : "error \(error?.exitStatus.rawValue ?? 0)")
    }
    #expect(seen == ["error 66", "doc"])
  }

  /// Documents of very different sizes finish out of order on two threads; output must not.
  @Test func output_keeps_input_order_under_parallel_processing() throws {
    let count = 1_000
    var text = ""
    for i in 0..<count {
      text += SyntheticReceipts.verifyReceipt(index: i, transactions: i % 10 == 0 ? 40 : 1) + "\n"
    }
    let path = try Self.temporaryFile("order.ndjson", text)
    let outPath = path + ".out"
    let fd = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    try #require(fd >= 0)
    let context = CommandContext(
      environment: ProcessEnvironment(variables: [:], stdoutIsTerminal: false),
      stdout: OutputSink(fd: fd), stderr: OutputSink(fd: 2))
    let status = DocumentRunner.run(
      InputOptions(paths: [path], forceNDJSON: false, quiet: false), format: .ndjson, context: context
    ) { (input) throws(ReceiptError) in
      let doc = try ReceiptDecoder.decode(input.bytes, source: input.label)
      return DocumentOutput(
        text: "", json: .object([("line", .int(input.line)), ("transactions", .int(doc.transactions.count))]))
    }
    context.stdout.flush()
    close(fd)
    #expect(status == .ok)
    let lines = try String(contentsOfFile: outPath, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == count)
    let expected = (0..<count).map { i in "{\"line\":\(i + 1),\"transactions\":\(i % 10 == 0 ? 40 : 1)}" }
    #expect(lines.map(String.init) == expected)
  }

  // MARK: Error positions

  /// The decoder counts lines from the document's start; messages give the place in the file.
  @Test func an_ndjson_line_error_names_the_file_line_and_the_column_within_it() throws {
    let doc = InputDocument(source: "batch.ndjson", line: 2, bytes: Array("{broken".utf8))
    var syntaxError: ReceiptToolError?
    do throws(ReceiptError) {
      _ = try ReceiptDecoder.decode(doc.bytes, source: doc.label)
    } catch {
      syntaxError = .input(error)
    }
    let syntax = try #require(syntaxError)
    #expect(syntax.message == "batch.ndjson:2:1:2: unexpected character 'b'; expected a string key")
    #expect(doc.locatedInFile(syntax).message == "batch.ndjson:2:2: unexpected character 'b'; expected a string key")

    let field = ReceiptToolError.input(
      .field(source: doc.label, path: "receipt.in_app[0].expires_date_ms", message: "bad", line: 1, column: 91))
    #expect(doc.locatedInFile(field).message == "batch.ndjson:2:91: receipt.in_app[0].expires_date_ms: bad")
    // Without a position the document label is the place: file and line.
    let unplaced = ReceiptToolError.input(.field(source: doc.label, path: "$", message: "bad", line: nil, column: nil))
    #expect(doc.locatedInFile(unplaced).message == "batch.ndjson:2: $: bad")
    let data = ReceiptToolError.input(.data(source: doc.label, message: "not a receipt"))
    #expect(doc.locatedInFile(data) == data)
    // An error about another source (a catalog, say) is left alone.
    let other = ReceiptToolError.input(.field(source: "catalog.json", path: "$", message: "bad", line: 3, column: 4))
    #expect(doc.locatedInFile(other) == other)
  }

  @Test func a_whole_file_error_keeps_its_position() {
    let doc = InputDocument(source: "one.json", bytes: [])
    let e = ReceiptToolError.input(.field(source: doc.label, path: "$.x", message: "bad", line: 7, column: 3))
    #expect(doc.locatedInFile(e) == e)
    #expect(e.message == "one.json:7:3: $.x: bad")
  }

  @Test func the_runner_reports_ndjson_errors_at_their_place_in_the_file() throws {
    let good = SyntheticReceipts.verifyReceipt(index: 1, transactions: 1)
    let path = try Self.temporaryFile("placed.ndjson", [good, good, "{\"status\": x}"].joined(separator: "\n") + "\n")
    let errPath = path + ".err"
    let fd = open(errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    try #require(fd >= 0)
    let context = CommandContext(
      environment: ProcessEnvironment(variables: [:], stdoutIsTerminal: false),
      stdout: OutputSink(fd: fd), stderr: OutputSink(fd: fd))
    let status = DocumentRunner.run(
      InputOptions(paths: [path], forceNDJSON: false, quiet: true), format: .ndjson, context: context
    ) { (input) throws(ReceiptError) in
      _ = try ReceiptDecoder.decode(input.bytes, source: input.label)
      return DocumentOutput(text: "", json: .null)
    }
    context.stderr.flush()
    close(fd)
    #expect(status == .dataError)
    let stderr = try String(contentsOfFile: errPath, encoding: .utf8)
    #expect(stderr.hasPrefix("receipt-tool: error: \(path):3:12: "), "\(stderr)")
  }
}
