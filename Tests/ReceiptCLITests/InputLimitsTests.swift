import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// Issue 20, items 7 to 9 and the live-pipe and progress items: limits checked before reading,
/// JSON arrays written as documents complete, results shown as lines arrive, progress on a terminal.
@Suite struct InputLimitsTests {
  @Test func sizesParseInBinaryUnits() {
    #expect(ByteCount.parse("1024") == 1024)
    #expect(ByteCount.parse("1K") == 1024)
    #expect(ByteCount.parse("64M") == 64 << 20)
    #expect(ByteCount.parse("2G") == 2 << 30)
    #expect(ByteCount.parse("2GiB") == 2 << 30)
    #expect(ByteCount.parse("1.5G") == 3 << 29)
    #expect(ByteCount.parse("0") == nil)
    #expect(ByteCount.parse("") == nil)
    #expect(ByteCount.parse("G") == nil)
    #expect(ByteCount.parse("1.5") == nil)
    #expect(ByteCount.parse("99999999999T") == nil)
    #expect(ByteCount.describe(1 << 30) == "1073741824 bytes (1 GiB)")
    #expect(ByteCount.describe(1_200_000_000) == "1200000000 bytes (about 1.1 GiB)")
    #expect(ByteCount.describe(512) == "512 bytes")
  }

  // MARK: --format json streams

  /// Writes `values` through the stream into a temporary file and returns the text.
  static func streamed(_ values: [JSONValue], alwaysArray: Bool, checkEarly: Bool = false) throws -> String {
    let path = Scratch.directory.appendingPathComponent("rt-json-\(UUID().uuidString)").path
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    defer {
      close(fd)
      try? FileManager.default.removeItem(atPath: path)
    }
    let sink = OutputSink(fd: fd, bufferSize: 1)
    var stream = JSONArrayStream(sink: sink, alwaysArray: alwaysArray)
    for (i, value) in values.enumerated() {
      stream.append(value)
      if checkEarly, i == 1 {
        // Both elements are on their way out before the batch ends.
        let early = try String(contentsOfFile: path, encoding: .utf8)
        #expect(early.hasPrefix("[\n  {"))
        #expect(early.contains("\"n\": 1"))
      }
    }
    stream.finish()
    sink.flush()
    return try String(contentsOfFile: path, encoding: .utf8)
  }

  @Test func theStreamedArrayIsTheArrayRenderedWhole() throws {
    let values = (0..<4).map { i in
      JSONValue.object([("n", .int(i)), ("list", .array([.string("a\nb"), .object([("x", .null)])]))])
    }
    for count in 0...4 {
      let some = Array(values.prefix(count))
      let several = try Self.streamed(some, alwaysArray: true, checkEarly: count >= 2)
      #expect(several == JSONValue.array(some).rendered() + "\n")
      let one = try Self.streamed(some, alwaysArray: false)
      switch count {
      case 0: #expect(one == "")
      case 1: #expect(one == values[0].rendered() + "\n")
      default: #expect(one == JSONValue.array(some).rendered() + "\n")
      }
    }
  }

  // MARK: Live pipes

  // MARK: Progress

  static func environment(terminal: Bool, _ variables: [String: String] = [:]) -> ProcessEnvironment {
    var e = ProcessEnvironment(variables: variables, stdoutIsTerminal: false)
    e.stderrIsTerminal = terminal
    return e
  }

  @Test func progressIsOnlyForATerminalWithoutNoProgressOrCI() {
    #expect(ProgressMeter.wanted(Self.environment(terminal: true)))
    #expect(!ProgressMeter.wanted(Self.environment(terminal: false)))
    #expect(!ProgressMeter.wanted(Self.environment(terminal: true, ["NO_PROGRESS": "1"])))
    #expect(!ProgressMeter.wanted(Self.environment(terminal: true, ["CI": "true"])))
    #expect(ProgressMeter.wanted(Self.environment(terminal: true, ["CI": ""])))
  }

  @Test func progressIsDrawnInPlaceAfterADelayAndErased() throws {
    let path = Scratch.directory.appendingPathComponent("rt-progress-\(UUID().uuidString)").path
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    defer {
      close(fd)
      try? FileManager.default.removeItem(atPath: path)
    }
    let sink = OutputSink(fd: fd)
    nonisolated(unsafe) var now = 100.0
    let meter = ProgressMeter(sink: sink, paths: [], enabled: true, clock: { now })
    meter.documentDone(bytes: 1_000_000)
    #expect(!meter.isShown)  // a short run shows nothing
    now += 2
    meter.documentDone(bytes: 3_000_000)
    #expect(meter.isShown)
    meter.erase()
    #expect(!meter.isShown)
    sink.flush()
    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(text == "\rreceipt-tool: 2 documents, 4.0 MB, 2 MB/s\u{1b}[K\r\u{1b}[K")
    // Quiet runs and pipes get nothing.
    let off = ProgressMeter(sink: sink, paths: [], enabled: false, clock: { now })
    now += 5
    off.documentDone(bytes: 1)
    #expect(!off.isShown)
  }

  @Test func progressKnowsWhatIsLeftOfRegularFiles() throws {
    let path = try Scratch.sparseFile(size: 10_000_000)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let sink = OutputSink(fd: -1)
    let meter = ProgressMeter(sink: sink, paths: [InputPath(path)], enabled: true, clock: { 0 })
    meter.documentDone(bytes: 2_000_000)
    #expect(meter.line(elapsed: 1) == "receipt-tool: 1 document, 2.0 MB of 10.0 MB, 2 MB/s, about 0:04 left")
  }
}
