// swift-tools-version:6.0
import PackageDescription

// The flow runs one way, and each target may use only those above it in this list:
//   ReceiptCrypto   verification-only cryptography (digests, RSA, ECDSA, DER, X.509); depends on nothing
//   ReceiptModel    the format-neutral purchase history, timestamps, library errors
//   ReceiptRules    the catalog model and the rules (plain functions over the model)
//   ReceiptFormats  bytes -> purchase history: the JSON reader, one decoder per input format,
//                   the format registry, catalog file formats, the revenue-report codec
//   ReceiptCLI      input pipeline, renderers, commands, exit statuses
//   receipt-tool    hands the process arguments to ReceiptCLI
let package = Package(
  name: "receipt-tool",
  platforms: [.macOS(.v13)],
  products: [
    .executable(name: "receipt-tool", targets: ["receipt-tool"]),
    .library(name: "ReceiptKit", targets: ["ReceiptCrypto", "ReceiptModel", "ReceiptRules", "ReceiptFormats"]),
  ],
  targets: [
    .target(name: "ReceiptCrypto"),
    // The purchase table's layout is documented beside its code (Table/TABLE.md).
    .target(name: "ReceiptModel", exclude: ["Table/TABLE.md"]),
    .target(name: "ReceiptRules", dependencies: ["ReceiptModel"]),
    .target(name: "ReceiptFormats", dependencies: ["ReceiptCrypto", "ReceiptModel", "ReceiptRules"]),
    .target(name: "ReceiptCLI", dependencies: ["ReceiptCrypto", "ReceiptModel", "ReceiptRules", "ReceiptFormats"]),
    .executableTarget(name: "receipt-tool", dependencies: ["ReceiptCLI"]),
    // Scaffolding for tests, the fuzzer and the benchmark; never part of the tool. In-process and binary runners,
    // fixtures, fuzz properties.
    .target(
      name: "ReceiptTestSupport",
      dependencies: ["ReceiptCrypto", "ReceiptModel", "ReceiptFormats", "ReceiptCLI", "ReceiptModelTestSupport"]),
    // Test scaffolding that knows only the model (synthetic shapes, hand-built histories), for rule tests.
    .target(name: "ReceiptModelTestSupport", dependencies: ["ReceiptModel"]),
    // libFuzzer target: fuzzes only when built with `swift build --sanitize=fuzzer` (Tests/Fuzz/run-fuzz.sh).
    .executableTarget(name: "receipt-tool-fuzz", dependencies: ["ReceiptTestSupport"]),
    // Benchmark against jq and Python; not run by `swift test`. Its README.md holds the measurements.
    .executableTarget(
      name: "receipt-tool-bench", dependencies: ["ReceiptCrypto", "ReceiptModelTestSupport", "ReceiptTestSupport"],
      exclude: ["README.md", "FAST-PATHS.md"]),
    // Unit tests, one target per library target. Each imports its own module @testable and the targets below
    // it plainly (never @testable); a test that needs several layers lives with the highest one it needs. Rule
    // tests build their histories by hand (ReceiptModelTestSupport), so ReceiptRulesTests needs no decoder.
    .testTarget(name: "ReceiptModelTests", dependencies: ["ReceiptModel", "ReceiptModelTestSupport"]),
    .testTarget(
      name: "ReceiptRulesTests", dependencies: ["ReceiptModel", "ReceiptRules", "ReceiptModelTestSupport"]),
    .testTarget(
      name: "ReceiptFormatsTests",
      dependencies: [
        "ReceiptCrypto", "ReceiptModel", "ReceiptRules", "ReceiptFormats", "ReceiptCLI", "ReceiptModelTestSupport",
        "ReceiptTestSupport",
      ],
      // Apple's model fixtures, read by path.
      exclude: ["Fixtures"]),
    .testTarget(
      name: "ReceiptCLITests",
      dependencies: [
        "ReceiptCrypto", "ReceiptModel", "ReceiptRules", "ReceiptFormats", "ReceiptCLI", "ReceiptModelTestSupport",
        "ReceiptTestSupport",
      ]),
    // Crypto alone: known answers always, Wycheproof where ../shared is present.
    .testTarget(
      name: "ReceiptCryptoTests", dependencies: ["ReceiptCrypto", "ReceiptTestSupport"], exclude: ["Fixtures"]),
    // End-to-end tests: only tests that run the built binary (goldens in Tests/CLITests, README recipes,
    // examples, browsers, Spark, the man page, exit statuses, limits and large input through the process).
    // Depending on the executable makes `swift test` build it.
    .testTarget(
      name: "EndToEndTests",
      dependencies: [
        "ReceiptCrypto", "ReceiptModel", "ReceiptRules", "ReceiptFormats", "ReceiptCLI", "ReceiptTestSupport",
        "receipt-tool",
      ],
      // Data read by path from the tests, not resources.
      exclude: ["Fixtures"]
    ),
  ]
)
