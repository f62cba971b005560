import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// Issue 20: hostile text, file names that are not UTF-8, checks over nothing, time options, merge identity.
@Suite(.serialized) struct HardeningTests {
  /// Runs a command line given as bytes in this process, as `main` does with `CommandLine.unsafeArgv`.
  static func run(
    bytes arguments: [[UInt8]],
    environment: ProcessEnvironment = ProcessEnvironment(variables: [:], stdoutIsTerminal: false)
  ) -> (status: ReceiptCLI.ExitStatus, stdout: String, stderr: String) {
    let dir = Scratch.directory
    let outPath = dir.appendingPathComponent("rt-out-\(UUID().uuidString)").path
    let errPath = dir.appendingPathComponent("rt-err-\(UUID().uuidString)").path
    let outFD = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let errFD = open(errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    defer {
      try? FileManager.default.removeItem(atPath: outPath)
      try? FileManager.default.removeItem(atPath: errPath)
    }
    let context = CommandContext(environment: environment, stdout: OutputSink(fd: outFD), stderr: OutputSink(fd: errFD))
    let status = ReceiptTool.run(argumentBytes: arguments, context: context)
    context.stderr.flush()
    close(outFD)
    close(errFD)
    let out = (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data()
    let err = (try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data()
    return (status, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
  }

  static func receipt(expiresMs: String) -> [UInt8] {
    Array(
      (#"{"status":0,"receipt":{"bundle_id":"x","in_app":[{"transaction_id":"1","product_id":"pro","#
        + #""purchase_date_ms":"1600000000000","expires_date_ms":"\#(expiresMs)"}]}}"#).utf8)
  }

  /// Writes a file whose name is `name` as raw bytes (FileManager would need a String).
  static func write(_ bytes: [UInt8], directory: String, name: [UInt8]) throws -> [UInt8] {
    let path = Array(directory.utf8) + [0x2F] + name
    let fd = (path.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { buffer in
      buffer.baseAddress.map { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o600) } ?? -1
    }
    try #require(fd >= 0)
    defer { close(fd) }
    let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
    try #require(written == bytes.count)
    return path
  }

  // MARK: 1. Terminal escape injection

  @Test func interpolatedStringsAreSanitisedAndLiteralsAreNot() {
    let id = "p\u{1B}[8m"
    let text: TerminalText = "Product \(id)\n"
    #expect(text.rendered == "Product p\\u{1b}[8m\n")
    let raw = "a\nb"
    #expect(TerminalText(raw).rendered == "a\\u{a}b")
    #expect(TerminalText.styled("ok", sgr: "32").rendered == "\u{1B}[32mok\u{1B}[0m")
    #expect(TerminalText.styled("ok", sgr: "32").count == 2)
    // A cut through a colour code never leaves half a control sequence.
    let cut = TerminalText.styled("abcdef", sgr: "31").dropFirst(1)
    #expect(!cut.rendered.unicodeScalars.contains { $0 == "\u{1B}" && !cut.rendered.contains("\u{1B}[0m") })
  }

  /// Only the timeline renderer, which sanitises each id itself, may hand over a finished String; every
  /// other renderer composes TerminalText, so it has no way to add an input string unsanitised.
  @Test func noRendererBypassesTheSanitiser() throws {
    let sources = TestPaths.packageRoot.appendingPathComponent("Sources/ReceiptCLI")
    let enumerator = FileManager.default.enumerator(atPath: sources.path)
    var users: [String] = []
    while let file = enumerator?.nextObject() as? String {
      guard file.hasSuffix(".swift"), !file.hasSuffix("TerminalSafeText.swift") else { continue }
      let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
      if text.contains("alreadySanitised:") { users.append(file) }
    }
    #expect(users.allSatisfy { $0.hasPrefix("Render/Timeline/") }, "\(users)")
    let plain: TerminalText = DecodeTextRenderer.render(
      PurchaseHistory(format: FormatIdentity(name: "test", description: "test")), catalog: Catalog(), color: false)
    #expect(!plain.isEmpty)
  }

  @Test func everyTextCommandShowsControlCharactersVisibly() throws {
    let json =
      #"{"status":0,"receipt":{"bundle_id":"x\u001b]0;PWNED\u0007","request_date_ms":"1718409600000","in_app":[{"transaction_id":"1","product_id":"p\u001b[8m","purchase_date_ms":"1600000000000","expires_date_ms":"1900000000000","is_trial_period":"true"}]}}"#
    let path = try InProcessRunner.temporaryFile(Array(json.utf8))
    for command in [["decode"], ["entitlements", "--explain"], ["intro-eligibility"], ["revenue"]] {
      for columns in ["80", "40"] {
        let result = InProcessRunner.run(command + [path], environment: ["COLUMNS": columns])
        #expect(result.status == .ok, "\(command): \(result.stderr)")
        #expect(!result.stdout.contains("\u{1B}") && !result.stdout.contains("\u{7}"), "\(command) \(columns)")
        if command != ["revenue"] { #expect(result.stdout.contains("p\\u{1b}[8m"), "\(command)") }
      }
    }
    let decoded = InProcessRunner.run(["decode", path])
    #expect(decoded.stdout.contains("x\\u{1b}]0;PWNED\\u{7}"))
    // JSON keeps the RFC 8259 escapes.
    #expect(InProcessRunner.run(["decode", path, "--format", "json"]).stdout.contains(#""p\u001b[8m""#))
  }

  @Test func warningsAndErrorsOnStandardErrorAreSanitisedToo() throws {
    let path = try InProcessRunner.temporaryFile([], name: "bad\u{1B}[2J.json")
    let result = InProcessRunner.run(["decode", path])
    #expect(!result.stderr.contains("\u{1B}"))
    #expect(result.stderr.contains("bad\\u{1b}[2J.json"))
  }

  // MARK: 2. File names that are not UTF-8

  @Test func aNameThatIsNotUTF8OpensThatFileNotItsLossyTwin() throws {
    let dir = Scratch.directory.appendingPathComponent("rt-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    // a\xFF.json expired in 2020; a<U+FFFD>.json, what a lossy conversion makes of that name, is active.
    let expired = try Self.write(
      Self.receipt(expiresMs: "1600000001000"), directory: dir, name: Array("a".utf8) + [0xFF] + Array(".json".utf8))
    _ = try Self.write(
      Self.receipt(expiresMs: "4000000000000"), directory: dir,
      name: Array("a".utf8) + [0xEF, 0xBF, 0xBD] + Array(".json".utf8))
    let result = Self.run(bytes: [Array("entitlements".utf8), Array("--as-of".utf8), Array("2024-01-01".utf8), expired])
    #expect(result.status == .ok, "\(result.stderr)")
    #expect(result.stdout.contains("expired"), "\(result.stdout)")
    #expect(!result.stdout.contains("active"))
    let missing = Self.run(bytes: [Array("decode".utf8), Array(dir.utf8) + Array("/b".utf8) + [0xFF]])
    #expect(missing.status == .noInput)
    #expect(missing.stderr == "receipt-tool: error: \(dir)/b\\xFF: no such file\n")
  }

  @Test func invalidBytesAreShownEscaped() {
    #expect(InputPath(bytes: Array("a".utf8) + [0xFF, 0xC3] + Array("é".utf8)).display == "a\\xFF\\xC3é")
    #expect(InputPath("-").display == "<stdin>")
    #expect(InputPath(bytes: [0x61, 0, 0x62]).withCString { _ in 1 } == nil)
  }

  // MARK: 3. Checks over nothing

  @Test func aCheckOverAnEmptyBatchFails() throws {
    let path = try InProcessRunner.temporaryFile([], name: "f.ndjson")
    let result = InProcessRunner.run(["entitlements", path, "--require", "pro"])
    #expect(result.status == .checkFailed)
    #expect(result.stderr == "receipt-tool: check failed: --require pro: the input holds no document to check\n")
    // Without a check, an empty batch is not a failure.
    #expect(InProcessRunner.run(["entitlements", path]).status == .ok)
  }

  @Test func anExpectationOverNoProductFails() throws {
    let json =
      #"{"status":0,"receipt":{"bundle_id":"x","in_app":[{"transaction_id":"1","product_id":"lifetime","purchase_date_ms":"1600000000000"}]}}"#
    let path = try InProcessRunner.temporaryFile(Array(json.utf8))
    let result = InProcessRunner.run(["intro-eligibility", path, "--expect", "ineligible"])
    #expect(result.status == .checkFailed)
    #expect(result.stderr.contains("--expect ineligible has no product to check"))
  }

  // MARK: 4. Time options

  @Test func bareEpochNumbersAreMillisecondsOnlyWhenPlausible() throws {
    #expect(try AsOfChoice.parse("1718409600000") == .fixed(Timestamp(year: 2024, month: 6, day: 15)!))
    #expect(try AsOfChoice.parse("1718409600s") == .fixed(Timestamp(year: 2024, month: 6, day: 15)!))
    #expect(try AsOfChoice.parse("86400000ms") == .fixed(Timestamp(year: 1970, month: 1, day: 2)!))
    for bad in ["1718409600", "20240615", "12", "99999999999999s", "", "1718409600 "] {
      #expect(throws: ReceiptToolError.self, "\(bad)") { try AsOfChoice.parse(bad) }
    }
    #expect(throws: ReceiptToolError.self) { try AsOfChoice.parse("request", option: "from", allowsRequest: false) }
  }

  // MARK: 6. Merge identity

  @Test func aPartMergedTwiceOrWithOtherOptionsIsAnError() throws {
    let examples = TestPaths.packageRoot.appendingPathComponent("examples").path
    func part(_ file: String, _ extra: [String] = []) throws -> String {
      let result = InProcessRunner.run(
        ["revenue", "\(examples)/\(file)", "--catalog", "\(examples)/revenue-catalog.json", "--format", "json"] + extra)
      #expect(result.status == .ok, "\(result.stderr)")
      return try InProcessRunner.temporaryFile(Array(result.stdout.utf8), name: "\(file).part.json")
    }
    let one = try part("revenue-family-purchaser.json")
    let two = try part("revenue-family-member-1.json")
    let byMonth = try part("revenue-family-member-1.json", ["--by", "month"])
    #expect(InProcessRunner.run(["revenue", "--merge", one, two]).status == .ok)
    let twice = InProcessRunner.run(["revenue", "--merge", one, one])
    #expect(twice.status == .dataError)
    #expect(twice.stderr.contains("was already merged from \(one)"))
    let mixed = InProcessRunner.run(["revenue", "--merge", one, byMonth])
    #expect(mixed.status == .dataError)
    #expect(mixed.stderr.contains("made with --by month"))
    // A merged report merged again with one of its parts.
    let merged = InProcessRunner.run(["revenue", "--merge", one, two, "--format", "json"])
    let mergedPath = try InProcessRunner.temporaryFile(Array(merged.stdout.utf8))
    #expect(InProcessRunner.run(["revenue", "--merge", mergedPath, two]).status == .dataError)
  }

  // MARK: Rough edges

  @Test func columnsAreClampedAndNarrowTablesBecomeLists() {
    #expect(ProcessEnvironment(variables: ["COLUMNS": "20"], stdoutIsTerminal: false).columns == 40)
    #expect(ProcessEnvironment(variables: ["COLUMNS": "1000"], stdoutIsTerminal: false).columns == 300)
    #expect(ProcessEnvironment(variables: ["COLUMNS": "100"], stdoutIsTerminal: false).columns == 100)
    let list = TextLayout(color: false, width: 40).table(
      header: ["ID", "STATUS"], rows: [["com.example.pro", "active"], ["b", "expired"]]
    ).rendered
    #expect(list == "ID:      com.example.pro\nSTATUS:  active\n\nID:      b\nSTATUS:  expired\n")
  }

  @Test func aTerminalOnStandardInputGetsAOneLineHint() throws {
    let path = try InProcessRunner.temporaryFile([])
    let fd = open(path, O_WRONLY | O_TRUNC)
    let context = CommandContext(
      environment: ProcessEnvironment(variables: [:], stdoutIsTerminal: true, stdinIsTerminal: true),
      stdout: OutputSink(fd: fd), stderr: OutputSink(fd: fd))
    InputOptions(paths: ["x.json"], forceNDJSON: false, quiet: false).hintWhenReadingTerminal(context)
    InputOptions(paths: [], forceNDJSON: false, quiet: false).hintWhenReadingTerminal(context)
    close(fd)
    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(
      text == "receipt-tool: reading standard input; pass a file or pipe one in (end with Ctrl-D, Ctrl-C to stop)\n")
  }

  @Test func aCatalogVariablePointingNowhereIsNamed() throws {
    let path = try InProcessRunner.temporaryFile(Self.receipt(expiresMs: "1600000001000"))
    let result = InProcessRunner.run(
      ["entitlements", path], environment: ["RECEIPT_TOOL_CATALOG": "/nonexistent/c.json"])
    #expect(result.status == .noInput)
    #expect(result.stderr.contains("RECEIPT_TOOL_CATALOG"))
  }

  @Test func aDirectoryOnStandardInputIsNamedStdin() throws {
    var reader: ChunkReader?
    let fd = open(Scratch.directory.path, O_RDONLY)
    defer { close(fd) }
    // ChunkReader reads fd 0 for "-"; a directory there is checked by fstat.
    let saved = dup(0)
    dup2(fd, 0)
    defer {
      dup2(saved, 0)
      close(saved)
    }
    #expect(throws: ReceiptToolError.noInput(source: "<stdin>", reason: "is a directory")) {
      reader = try ChunkReader(path: InputPath.standardInput)
    }
    _ = reader
  }

  @Test func bashCompletionKeepsFileNamesWhole() {
    let script = CompletionScripts.script(for: "bash", commands: ReceiptTool.commands) ?? ""
    #expect(script.contains("complete -o filenames -F _receipt_tool receipt-tool"))
    #expect(script.contains("local IFS=$'\\n'"))
    #expect(!script.contains("COMPREPLY=($(compgen -f -- \"$cur\"))"))
  }
}
