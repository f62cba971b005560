import Foundation
import ReceiptModelTestSupport
import ReceiptTestSupport

// Issue 29: the shapes a real export can have, each measured against issue 29's targets. Every file is a
// function of its ReceiptShape (SplitMix64 seeded with the shape's seed, plus document index x 0x1_0000_0001),
// so two machines measure the same bytes.

/// The document shapes, at `transactions` transactions each.
func documentShapes(transactions n: Int) -> [ReceiptShape] {
  [
    // The tool's old benchmark shape is `classic` (SyntheticReceipts), measured beside these.
    ReceiptShape(name: "one-chain", transactions: n, chains: 1, products: 4),
    ReceiptShape(
      name: "many-chains", transactions: n, chains: 1_000, products: 5, shuffled: true, randomIDs: true,
      familySharedPercent: 25),
    ReceiptShape(name: "family-90", transactions: n, chains: 1_000, products: 5, familySharedPercent: 90),
    ReceiptShape(
      name: "many-products", transactions: n, chains: 2_000, products: 400, shuffled: true, randomIDs: true,
      familySharedPercent: 25, seed: 31),
    ReceiptShape(
      name: "long-chains", transactions: n, chains: 10, products: 5, randomIDs: true, familySharedPercent: 25,
      upgradedPercent: 2, seed: 37),
    ReceiptShape(
      name: "many-upgrades", transactions: n, chains: 1_000, products: 12, shuffled: true, familySharedPercent: 25,
      upgradedPercent: 30, refundedPercent: 5, seed: 41),
  ]
}

/// The batch shapes: NDJSON lines of 3 and of 200 transactions.
let batchShapes: [ReceiptShape] = [
  ReceiptShape(name: "batch-3", transactions: 3, chains: 1, products: 4, shuffled: true, familySharedPercent: 25),
  ReceiptShape(
    name: "batch-200", transactions: 200, chains: 5, products: 5, shuffled: true, randomIDs: true,
    familySharedPercent: 25, upgradedPercent: 5, seed: 43),
]

/// Which ratios and targets apply to a measured command.
enum ShapeKind { case rules, decodeJSON, decodeText, batch, other }

/// Generates every shape under `directory` (once), measures each command `runs` times (median) and prints one
/// row per shape and command with MB/s, peak RSS, the json.load and jq ratios, and the targets it meets.
func measureShapes(tool: String, directory: String, scale: Double, runs: Int) {
  try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  let n = max(10, Int(100_000 * scale))
  var documents: [(name: String, path: String, catalog: String)] = []
  let classic = generate(in: directory, "classic.json") { h in
    h.write(Data((SyntheticReceipts.verifyReceipt(index: 0, transactions: n) + "\n").utf8))
  }
  let classicCatalog = generate(in: directory, "classic-catalog.json") { h in
    h.write(Data(ReceiptShape(name: "", transactions: 0, products: 4).catalog().utf8))
  }
  documents.append(("classic", classic, classicCatalog))
  for shape in documentShapes(transactions: n) {
    let path = generate(in: directory, shape.name + ".json") { h in
      h.write(Data((shape.verifyReceipt(index: 0) + "\n").utf8))
    }
    let catalog = generate(in: directory, shape.name + "-catalog.json") { h in h.write(Data(shape.catalog().utf8)) }
    documents.append((shape.name, path, catalog))
  }
  let batchBytes = Int(174_000_000 * scale)
  var batches: [(name: String, path: String)] = []
  for shape in batchShapes {
    let path = generate(in: directory, shape.name + ".ndjson") { h in
      var text = ""
      var written = 0
      var index = 0
      while written < batchBytes {
        text += shape.verifyReceipt(index: index, latestReceiptBytes: 15_500) + "\n"
        index += 1
        if text.utf8.count > 1_000_000 {
          written += text.utf8.count
          h.write(Data(text.utf8))
          text = ""
        }
      }
      h.write(Data(text.utf8))
    }
    batches.append((shape.name, path))
  }
  let small = generate(in: directory, "small-5k.json") { h in
    h.write(Data(ReceiptShape(name: "small", transactions: 4, chains: 2).verifyReceipt(index: 0).utf8))
  }
  if generatedAny, let me = CommandLine.unsafeArgv[0] { execv(me, CommandLine.unsafeArgv) }

  print("receipt-tool-bench --shapes on \(machineDescription()); load average \(loadAverage()) at start")
  print(
    String(
      format: "scale %g: documents of %d transactions, batches of %.0f MB; median of %d runs (jq and json.load: 1)",
      scale, n, Double(batchBytes) / 1e6, runs))
  print("seeds: SplitMix64(shape seed + document index x 0x1_0000_0001); shape seeds 29 unless named in Shapes.swift")
  print("targets (issue 29): rules >= 500 MB/s, >= 3x json.load, >= 15x jq; decode --format json >= 2x json.load,")
  print("  decode text no slower; batch >= 600 MB/s and <= 64 MiB; document peak RSS <= size + 64 MiB; 5 KB < 10 ms")
  print("")
  let header =
    "shape          command                                   MB      s     MB/s  RSS MiB  x json.load  x jq   targets"
  print(header)

  var met = 0
  var missed: [String] = []
  var slowest: (row: String, mbps: Double)?
  func row(
    _ shape: String, _ label: String, _ path: String, _ arguments: String, kind: ShapeKind,
    reference: Double?, jq: Double?
  ) {
    let mb = size(path)
    let ours = median(of: runs, "\(shellQuote(tool)) \(arguments) \(shellQuote(path))")
    let mbps = mb / ours.seconds
    let rss = Double(ours.rssKiB) / 1024
    let loadRatio = reference.map { $0 / ours.seconds }
    let jqRatio = jq.map { $0 / ours.seconds }
    var checks: [(String, Bool)] = []
    switch kind {
    case .rules:
      checks.append(("500MB/s", mbps >= 500))
      if let loadRatio { checks.append(("3x load", loadRatio >= 3)) }
      if let jqRatio { checks.append(("15x jq", jqRatio >= 15)) }
      checks.append(("rss", rss <= mb * 1e6 / 1_048_576 + 64))
    case .decodeJSON, .decodeText:
      if let loadRatio { checks.append(("2x load", loadRatio >= 2)) }
      checks.append(("rss", rss <= mb * 1e6 / 1_048_576 + 64))
    case .batch:
      checks.append(("600MB/s", mbps >= 600))
      checks.append(("64MiB", rss <= 64))
    case .other:
      break
    }
    func padded(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
    var line = padded(shape, 15) + padded(label, 38)
    line += String(format: "%7.1f %6.2f %8.0f %8.0f", mb, ours.seconds, mbps, rss)
    line += loadRatio.map { String(format: "  %11.1f", $0) } ?? "            -"
    line += jqRatio.map { String(format: "  %5.1f", $0) } ?? "      -"
    line += "   " + checks.map { ($1 ? "" : "MISSED ") + $0 }.joined(separator: ", ")
    if ours.status != 0 { line += " (exit \(ours.status))" }
    print(line)
    for (name, ok) in checks {
      if ok { met += 1 } else { missed.append("\(shape) \(label): \(name)") }
    }
    if case .other = kind {} else if slowest.map({ mbps < $0.mbps }) ?? true { slowest = ("\(shape) \(label)", mbps) }
  }

  let asOfMiddle = "--as-of \(ReceiptShape.middleOfHistory)ms"
  let asOfEnd = "--as-of \(ReceiptShape.endOfHistory)ms"
  for document in documents {
    let reference = pythonLoadSeconds(document.path, ndjson: false)
    func jq(_ command: String) -> Double? {
      guard haveJQ, let program = jqPrograms[command] else { return nil }
      return measure("jq -c \(shellQuote(program)) \(shellQuote(document.path))").seconds
    }
    let jqEntitlements = jq("entitlements")
    let jqRevenue = jq("revenue")
    let jqDecode = jq("decode")
    let catalog = "--catalog \(shellQuote(document.catalog))"
    let rules: [(String, String, Double?)] = [
      ("entitlements", "entitlements", jqEntitlements),
      ("entitlements --catalog", "entitlements \(catalog)", jqEntitlements),
      ("entitlements --catalog --format json", "entitlements --format json \(catalog)", jqEntitlements),
      ("entitlements --as-of middle", "entitlements \(asOfMiddle) \(catalog)", jqEntitlements),
      ("entitlements --as-of end", "entitlements \(asOfEnd) \(catalog)", jqEntitlements),
      ("revenue", "revenue", jqRevenue),
      ("revenue --catalog --format json", "revenue --format json \(catalog)", jqRevenue),
      ("revenue --commission --by month", "revenue --commission standard --by month \(catalog)", jqRevenue),
    ]
    for (label, arguments, jqSeconds) in rules {
      row(document.name, label, document.path, arguments, kind: .rules, reference: reference, jq: jqSeconds)
    }
    row(
      document.name, "decode --format json", document.path, "decode --format json", kind: .decodeJSON,
      reference: reference, jq: jqDecode)
    row(document.name, "decode", document.path, "decode", kind: .decodeText, reference: reference, jq: jqDecode)
  }
  for batch in batches {
    let reference = pythonLoadSeconds(batch.path, ndjson: true)
    for (label, arguments) in [
      ("entitlements --format ndjson", "entitlements --format ndjson"),
      ("revenue --format json", "revenue --format json"),
      ("decode --format json", "decode --format json"),
    ] {
      row(
        batch.name, label, batch.path, arguments, kind: label.hasPrefix("decode") ? .other : .batch,
        reference: reference, jq: nil)
    }
  }
  var times: [Double] = []
  for _ in 0..<31 { times.append(measure("\(shellQuote(tool)) entitlements \(shellQuote(small))").seconds) }
  times.sort()
  let smallMedian = times[times.count / 2] * 1000
  print(
    String(
      format: "\nsmall receipt (%.0f bytes) entitlements end to end: median of 31 %.1f ms (includes /bin/sh start)",
      size(small) * 1e6, smallMedian))
  if smallMedian < 10 { met += 1 } else { missed.append(String(format: "small receipt: %.1f ms", smallMedian)) }
  if let slowest { print(String(format: "slowest: %@ at %.0f MB/s", slowest.row, slowest.mbps)) }
  print("targets met: \(met); missed: \(missed.count)")
  for m in missed { print("  MISSED \(m)") }
  print("load average \(loadAverage()) at the end")
}

/// Cores, CPU model and memory, for the first line of a run.
func machineDescription() -> String {
  var machine = "\(ProcessInfo.processInfo.activeProcessorCount) cores"
  if let cpu = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
    let model = cpu.split(separator: "\n").first(where: { $0.hasPrefix("model name") })
  {
    machine += ", " + (model.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "")
  }
  return machine + String(format: ", %.1f GiB RAM", Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824)
}
