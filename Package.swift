// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "receipt-tool",
  platforms: [.macOS(.v13)],
  products: [
    .executable(name: "receipt-tool", targets: ["receipt-tool"]),
    .library(name: "ReceiptKit", targets: ["ReceiptKit"]),
  ],
  targets: [
    // All logic: JSON reader, receipt model, rules, renderers, command line.
    .target(name: "ReceiptKit"),
    // A few lines that hand the process arguments to ReceiptKit.
    .executableTarget(name: "receipt-tool", dependencies: ["ReceiptKit"]),
    // libFuzzer target: fuzzes only when built with `swift build --sanitize=fuzzer` (Tests/Fuzz/run-fuzz.sh).
    .executableTarget(name: "receipt-tool-fuzz", dependencies: ["ReceiptKit"]),
    // Benchmark against jq (README section "batch"); not run by `swift test`.
    .executableTarget(name: "receipt-tool-bench", dependencies: ["ReceiptKit"]),
    .testTarget(
      name: "ReceiptKitTests",
      // Depending on the executable makes `swift test` build it for the end-to-end tests.
      dependencies: ["ReceiptKit", "receipt-tool"],
      // Data read by path from the tests, not resources.
      exclude: ["Fixtures", "FuzzRegressions"]
    ),
  ]
)
