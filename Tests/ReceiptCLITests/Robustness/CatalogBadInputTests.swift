import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// Hostile catalogs through `CatalogLoader.load`: each is a data error (65) naming the path and a short excerpt.
@Suite struct CatalogBadInputTests {
  static func product(_ fields: String) -> String {
    #"{"products":[{"product_id":"a","type":"consumable","currency":"USD"\#(fields)}]}"#
  }

  static let cases: [(String, String, String)] = [
    (
      "negative price", product(#","price":"-1.00""#),
      #"cat.json: $.products[0].price: "-1.00" is negative; prices cannot be"#
    ),
    (
      "negative number price", product(#","price":-1"#),
      "cat.json: $.products[0].price: -1 is negative; prices cannot be"
    ),
    (
      "NaN as a string", product(#","price":"NaN""#),
      #"cat.json: $.products[0].price: "NaN" is not a decimal number such as "9.99""#
    ),
    ("NaN as a bare word", product(#","price":NaN"#), "cat.json:1:77: unexpected character 'N'; expected a value"),
    (
      "Infinity as a string", product(#","price":"Infinity""#),
      #"cat.json: $.products[0].price: "Infinity" is not a decimal number such as "9.99""#
    ),
    (
      "over-precise price", product(#","price":"0.999""#),
      #"cat.json: $.products[0].price: "0.999" has more decimals than USD allows (2)"#
    ),
    (
      "price past Double", product(#","price":1e999999"#),
      #"cat.json: $.products[0].price: 1e999999 is not a decimal number such as "9.99""#
    ),
    (
      "price past Int64", product(#","price":"99999999999999999999999""#),
      #"cat.json: $.products[0].price: "99999999999999999999999" is not a decimal number such as "9.99""#
    ),
    (
      "price as an object", product(#","price":{}"#),
      #"cat.json: $.products[0].price: expected a decimal price such as "9.99", found an object"#
    ),
    (
      "duplicate price", product(#","price":"1.00","price":"2.00""#),
      "cat.json: $.products[0].price: duplicate key; receipt-tool reads it and will not guess which value is meant"
    ),
    (
      "duplicate products", #"{"products":[],"products":[{"product_id":"a","type":"consumable"}]}"#,
      "cat.json: $.products: duplicate key; receipt-tool reads it and will not guess which value is meant"
    ),
    ("top-level array", "[1]", "cat.json: $: a catalog is a JSON object, found an array"),
    (
      "an object that is no catalog", "{}",
      #"cat.json: $: neither a receipt-tool catalog ("products" entries with "product_id") nor an Xcode .storekit file ("subscriptionGroups", or "products" entries with "productID")"#
    ),
    (
      "a receipt given as a catalog", #"{"status":0,"receipt":{"bundle_id":"x"}}"#,
      #"cat.json: $: neither a receipt-tool catalog ("products" entries with "product_id") nor an Xcode .storekit file ("subscriptionGroups", or "products" entries with "productID")"#
    ),
    // A .storekit file that is something else.
    (
      "a .storekit that is a plist", #"<?xml version="1.0"?><plist/>"#,
      "cat.json:1:1: unexpected character '<'; expected a value"
    ),
    ("a .storekit that is a zip", "PK\u{3}\u{4}", "cat.json:1:1: unexpected character 'P'; expected a value"),
    ("an empty .storekit", "", "cat.json:1:1: unexpected end of input; expected a value"),
    (
      "storekit groups as a number", #"{"identifier":"X","products":[],"subscriptionGroups":5}"#,
      "cat.json: $.subscriptionGroups: expected an array, found 5"
    ),
    (
      "storekit negative price",
      #"{"identifier":"X","products":[{"productID":"a","type":"Consumable","displayPrice":"-0.99"}]}"#,
      #"cat.json: $.products[0].displayPrice: "-0.99" is negative; prices cannot be"#
    ),
    (
      "storekit word price",
      #"{"identifier":"X","products":[{"productID":"a","type":"Consumable","displayPrice":"abc"}]}"#,
      #"cat.json: $.products[0].displayPrice: "abc" is not a decimal number such as "9.99""#
    ),
  ]

  @Test(arguments: cases.map { [$0.0, $0.1, $0.2] })
  func eachBadCatalogIsADataError(_ c: [String]) {
    let (name, text, message) = (c[0], c[1], c[2])
    do {
      _ = try CatalogLoader.load(Array(text.utf8), source: "cat.json")
      Issue.record("\(name): accepted")
    } catch {
      #expect(ReceiptToolError(error).exitStatus == .dataError, "\(name)")
      #expect(error.description == message, "\(name)")
    }
  }

  /// The same through a command: the catalog error stops it with 65 before any receipt is read.
  @Test func aBadCatalogStopsACommandWith65() throws {
    let catalog = try InProcessRunner.temporaryFile(
      Array(Self.product(#","price":"-1.00""#).utf8), name: "Bad.storekit")
    let receipt = TestPaths.packageRoot.appendingPathComponent("examples/entitlements-active.json").path
    for command in ["decode", "entitlements", "revenue", "intro-eligibility"] {
      let result = InProcessRunner.run([command, "--catalog", catalog, receipt])
      #expect(result.status == .dataError, "\(command)")
      #expect(
        result.stderr
          == "receipt-tool: error: \(catalog): $.products[0].price: \"-1.00\" is negative; prices cannot be\n",
        "\(command)")
      #expect(result.stdout.isEmpty, "\(command)")
    }
  }
}

/// Inputs the fuzzer found (and hand-picked hostile ones) stay fixed: each is replayed through every
/// subcommand variant the fuzz target runs, and must end without a crash or a broken property.
@Suite struct FuzzRegressionTests {
  static let directory = TestPaths.packageRoot.appendingPathComponent("Tests/Fuzz/Regressions")

  static var files: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { !$0.hasSuffix(".md") }
      .sorted()
  }

  @Test func thereAreRegressionInputs() {
    #expect(Self.files.count >= 5)
  }

  @Test(arguments: files)
  func replays(_ name: String) throws {
    let bytes = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent(name)))
    let scratch = Scratch.directory.appendingPathComponent("fuzz-replay-\(UUID().uuidString).json")
      .path
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let catalog = TestPaths.packageRoot.appendingPathComponent("examples/catalog.json").path
    let problems = FuzzDriver.exercise(bytes, scratchPath: scratch, catalogPath: catalog, allVariants: true) {
      data, path in
      FileManager.default.createFile(atPath: path, contents: Data(data))
    }
    #expect(problems.isEmpty, "\(name): \(problems)")
  }
}
