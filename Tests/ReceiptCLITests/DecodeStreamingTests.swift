import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// `decode --format json` written as it goes (`JSONStreamWriter`, `DecodeJSONRenderer.write`) gives the bytes of
/// the tree it replaced, and a mapped document read with its pages given back decodes as it does whole.
@Suite struct DecodeStreamingTests {
  /// A small deterministic generator, so a failure names a reproducible case.
  struct Numbers {
    var state: UInt64
    mutating func below(_ n: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(truncatingIfNeeded: state >> 33) % max(1, n)
    }
  }

  static let texts = ["", "a", "pro.monthly", "quote \" and \\ back", "line\nbreak", "\u{1}", "caf\u{E9}", "\u{9B}"]

  static func randomValue(_ numbers: inout Numbers, depth: Int) -> JSONValue {
    switch numbers.below(depth > 3 ? 4 : 6) {
    case 0: return .null
    case 1: return .bool(numbers.below(2) == 0)
    case 2: return .int(numbers.below(2_000_000) - 1_000_000)
    case 3: return .string(texts[numbers.below(texts.count)])
    case 4: return .array((0..<numbers.below(4)).map { _ in randomValue(&numbers, depth: depth + 1) })
    default:
      return .object(
        (0..<numbers.below(4)).map { _ in (texts[numbers.below(texts.count)], randomValue(&numbers, depth: depth + 1)) }
      )
    }
  }

  /// Writes `value` through the writer's container calls (not `value(_:)`), draining as often as allowed.
  static func walk(_ value: JSONValue, _ w: inout JSONStreamWriter) {
    switch value {
    case .array(let items):
      w.beginArray()
      for item in items {
        w.element()
        walk(item, &w)
        w.flushIfFull()
      }
      w.endArray()
    case .object(let members):
      w.beginObject()
      for member in members {
        w.key(text: member.key)
        walk(member.value, &w)
        w.flushIfFull()
      }
      w.endObject()
    case .string(let s): w.string(s)
    case .null: w.null()
    case .bool(let b): w.bool(b)
    case .number: w.value(value)
    }
  }

  /// Every container, empty or not, at every indent, pretty and compact, drained every few bytes.
  @Test func streamWriterWritesWhatTheTreeRenders() {
    var numbers = Numbers(state: 29)
    for case let i in 0..<2000 {
      let value = Self.randomValue(&numbers, depth: 0)
      for pretty in [true, false] {
        let indent = i % 3
        var drained: [UInt8] = []
        var w = JSONStreamWriter(pretty: pretty, indent: indent, limit: 1 + i % 9) { drained += $0 }
        Self.walk(value, &w)
        w.flush()
        #expect(
          String(decoding: drained, as: UTF8.self) == value.rendered(pretty: pretty, indent: indent), "case \(i)")
      }
    }
  }

  /// Integers and dates written as bytes read as `JSONValue.int` and `Timestamp.iso8601` spell them.
  @Test func integersAndDatesAsBytesAreTheirText() {
    var numbers = Numbers(state: 31)
    var integers: [Int?] = [nil, 0, 1, -1, 9, 10, -10, 99, 100, Int.max, Int.min, Int.min + 1]
    integers += (0..<500).map { _ in numbers.below(Int(Int32.max)) * (numbers.below(2) == 0 ? 1 : -1) }
    for i in integers {
      var w = JSONStreamWriter(pretty: false)
      w.int(i)
      #expect(String(decoding: w.bytes, as: UTF8.self) == JSONValue.int(i).rendered(), "\(String(describing: i))")
    }
    var moments: [Int64] = [0, 999, 1000, 86_399_999, 1_704_067_200_000, 1_704_067_200_001, 951_782_400_000]
    moments += [Timestamp.maximumMilliseconds, Timestamp.maximumMilliseconds + 1, -1, -86_400_001]
    moments += (0..<2000).map { _ in Int64(numbers.below(Int(Int32.max))) * 117_000 + Int64(numbers.below(1000)) }
    for ms in moments {
      let t = Timestamp(unchecked: ms)
      var w = JSONStreamWriter(pretty: false)
      w.date(t)
      w.date(nil)
      #expect(String(decoding: w.bytes, as: UTF8.self) == "\"\(t.iso8601)\"null", "\(ms)")
    }
  }

  /// One pass, parts of a few transactions on every core (each part with its own memos), and the command's parts.
  static let parts = [
    InOrderParts.here, InOrderParts(size: 3, onCores: true), .cores, InOrderParts(size: 7, onCores: false),
  ]

  /// Histories of every input kind (the examples, the peer fixtures) and of the benchmark's shapes, with and
  /// without a catalog: the document written as it goes, alone, as an array element and compact, is the tree's text.
  @Test func decodeJSONWrittenAsItGoesIsTheTreesText() throws {
    var documents: [(name: String, history: PurchaseHistory, catalog: Catalog)] = []
    let exampleCatalog = try RevenueFixtures.exampleCatalog()
    for url in TestPaths.exampleAndPeerFixtureFiles(for: "the streamed decode JSON comparison") {
      guard let bytes = try? [UInt8](Data(contentsOf: url)),
        let history = try? FormatRegistry.standard.decode(bytes, source: url.lastPathComponent)
      else { continue }
      documents.append((url.lastPathComponent, history, Catalog()))
      documents.append((url.lastPathComponent + " with a catalog", history, exampleCatalog))
    }
    #expect(documents.count > 40)
    let shapes = [
      ReceiptShape(
        name: "many-products", transactions: 300, chains: 30, products: 40, shuffled: true, randomIDs: true,
        familySharedPercent: 50, upgradedPercent: 10, refundedPercent: 10, seed: 7),
      ReceiptShape(name: "one-chain", transactions: 50),
    ]
    for shape in shapes {
      let history = try FormatRegistry.standard.decode(Array(shape.verifyReceipt(index: 0).utf8), source: shape.name)
      let catalog = try CatalogLoader.load(Array(shape.catalog().utf8), source: "\(shape.name) catalog")
      documents.append((shape.name, history, Catalog()))
      documents.append((shape.name + " with its catalog", history, catalog))
    }
    for (name, history, catalog) in documents {
      let input = InputDocument(source: name, bytes: [])
      let tree = DecodeJSONRenderer.render(history, input: input, catalog: catalog)
      for parts in Self.parts {
        for (pretty, indent) in [(true, 0), (true, 1), (false, 0)] {
          var w = JSONStreamWriter(pretty: pretty, indent: indent)
          DecodeJSONRenderer.write(history, input: input, catalog: catalog, parts: parts, to: &w)
          #expect(
            String(decoding: w.bytes, as: UTF8.self) == tree.rendered(pretty: pretty, indent: indent),
            "\(name) pretty \(pretty) indent \(indent) parts of \(parts.size)")
        }
      }
    }
  }

  /// `decode` text handed out in pieces as it is written is the whole text, on documents large enough to be cut
  /// several times (the benchmark's shapes) and on every example and peer fixture, coloured and not.
  @Test func decodeTextWrittenAsItGoesIsTheWholeText() throws {
    var documents: [(name: String, history: PurchaseHistory)] = []
    for url in TestPaths.exampleAndPeerFixtureFiles(for: "the streamed decode text comparison") {
      guard let bytes = try? [UInt8](Data(contentsOf: url)),
        let history = try? FormatRegistry.standard.decode(bytes, source: url.lastPathComponent)
      else { continue }
      documents.append((url.lastPathComponent, history))
    }
    let shape = ReceiptShape(
      name: "many-upgrades", transactions: 1_500, chains: 40, products: 12, shuffled: true, familySharedPercent: 25,
      upgradedPercent: 30, refundedPercent: 5, seed: 41)
    documents.append(
      (shape.name, try FormatRegistry.standard.decode(Array(shape.verifyReceipt(index: 0).utf8), source: shape.name)))
    let catalog = try RevenueFixtures.exampleCatalog()
    var cuts = 0
    for (name, history) in documents {
      for color in [false, true] {
        let whole = DecodeTextRenderer.render(history, catalog: catalog, color: color, width: 80).rendered
        for parts in Self.parts {
          var pieces: [[UInt8]] = []
          DecodeTextRenderer.write(history, catalog: catalog, color: color, width: 80, parts: parts) {
            pieces.append($0)
          }
          cuts += pieces.count - 1
          #expect(
            String(decoding: pieces.joined(), as: UTF8.self) == whole,
            "\(name) colour \(color) parts of \(parts.size)")
        }
      }
    }
    #expect(cuts > 4, "the text was cut \(cuts) times")
  }

  /// A mapped document large enough to be read in pieces, with its pages given back after the NDJSON check and as
  /// the split read passes them, decodes to the history of the same bytes held in memory, read on one thread.
  @Test func pagesGivenBackAsTheReadPassesChangeNothing() throws {
    let shape = ReceiptShape(
      name: "many-chains", transactions: 16_000, chains: 200, products: 5, shuffled: true, randomIDs: true,
      familySharedPercent: 25)
    let bytes = Array(shape.verifyReceipt(index: 0).utf8)
    #expect(bytes.count > 8 << 20)
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("receipt-tool-pages-\(getpid()).json").path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    var reader = try #require(try? ChunkReader(path: InputPath(path)))
    // Asking whether it is NDJSON scans the one-line document to its end and gives those pages back too.
    #expect((try? reader.looksLikeNDJSON()) == false)
    let content = try #require(try? reader.readRest())
    reader.close()
    let releaser = try #require(content.readPrefixReleaser)
    let released = ReleasedOffsets()
    let helpers = ArrayPieceHelpers { offset in
      released.add(offset)
      releaser(offset)
    }
    var options = DecodeOptions()
    options.pieceHelpers = helpers
    let mapped = try content.withBuffer { (buffer) throws(ReceiptError) in
      try FormatRegistry.standard.decode(contentsOf: buffer, source: "many-chains", options: options)
    }
    let whole = try ReceiptDecoder.decode(bytes, source: "many-chains", keepSecrets: false, pieces: nil)
    #expect(mapped.transactions == whole.transactions)
    #expect(mapped.warnings.map(\.message) == whole.warnings.map(\.message))
    #expect(!released.offsets.isEmpty, "pages were given back \(released.offsets.count) times")
    // Bytes in memory are never dropped.
    #expect(InputBytes(bytes).readPrefixReleaser == nil)
  }

  final class ReleasedOffsets: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Int] = []
    func add(_ offset: Int) { lock.withLock { list.append(offset) } }
    var offsets: [Int] { lock.withLock { list } }
  }
}
