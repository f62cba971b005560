// receipt-tool-bench: times receipt-tool against jq on deterministic synthetic receipts.
// Usage: swift build -c release && .build/release/receipt-tool-bench [--shapes [--scale S] [--runs N]] [work-dir]
// --shapes measures every shape of export (issue 29) instead of the three fixed inputs; --user-shapes the
// documents users feed one per line (issue 42); `... ecdsa` runs only the ECDSA section.
// Not run by `swift test`. See README.md beside this file.
import Foundation
import ReceiptCLI
import ReceiptFormats
import ReceiptModel
import ReceiptTestSupport

// `receipt-tool-bench ecdsa`: only the ECDSA section (needs no receipt-tool build or inputs).
if CommandLine.arguments.dropFirst().first == "ecdsa" {
  let targets = ECDSASpeed.run()
  for (target, met) in targets { print("  \(met ? "met   " : "MISSED") \(target)") }
  exit(targets.allSatisfy(\.1) ? 0 : 1)
}

let usage = """
  usage: receipt-tool-bench [--shapes [--scale S] [--runs N]] [work-dir]
         receipt-tool-bench --user-shapes [--scale S] [--runs N] [work-dir]
         receipt-tool-bench chains [work-dir] [other-receipt-tool]
         receipt-tool-bench ecdsa
  Times the receipt-tool beside it against jq and Python's json.load on inputs it generates in work-dir
  (default: the temporary folder's receipt-tool-bench) and keeps there. --user-shapes: one customer's
  document per line, signed lines, a notification log and history pages, per CPU µs beside Python, jq and
  openssl speed. See README.md beside its source.
  """
var options = Array(CommandLine.arguments.dropFirst())
if options.contains("--help") || options.contains("-h") {
  print(usage)
  exit(0)
}
/// A usage error: the message and the usage on standard error, exit 64 (a mistyped option is not a folder name).
func usageError(_ message: String) -> Never {
  FileHandle.standardError.write(Data("receipt-tool-bench: \(message)\n\(usage)\n".utf8))
  exit(64)
}
/// Removes `--name value` from `options` and returns the value read by `parse`, or nil when `--name` is absent.
func take<T>(_ name: String, from options: inout [String], as parse: (String) -> T?) -> T? {
  guard let i = options.firstIndex(of: name) else { return nil }
  guard i + 1 < options.count, let value = parse(options[i + 1]) else {
    usageError("\(name) takes a positive number\(i + 1 < options.count ? ", not \(options[i + 1])" : "")")
  }
  options.removeSubrange(i...(i + 1))
  return value
}
let shapesMode = options.contains("--shapes")
options.removeAll { $0 == "--shapes" }
let userShapesMode = options.contains("--user-shapes")
options.removeAll { $0 == "--user-shapes" }
if shapesMode && userShapesMode { usageError("--shapes and --user-shapes are separate runs; give one") }
let scale = take("--scale", from: &options) { Double($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } } ?? 1
let shapeRuns = take("--runs", from: &options) { Int($0).flatMap { $0 > 0 ? $0 : nil } } ?? 3
if let unknown = options.first(where: { $0.hasPrefix("-") }) { usageError("unknown option \(unknown)") }
// `receipt-tool-bench chains [work-dir] [other-receipt-tool]`: only the signed-chain section (one core against two),
// optionally also timing another build (e.g. the session-start release binary) on the same file.
let chainsOnly = options.first == "chains"
if chainsOnly { options.removeFirst() }
let otherTool = chainsOnly && options.count > 1 ? options[1] : nil
let workDir = options.first ?? NSTemporaryDirectory() + "receipt-tool-bench"
let toolDir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
let tool = toolDir.appendingPathComponent("receipt-tool").path
guard FileManager.default.isExecutableFile(atPath: tool) else {
  print("receipt-tool not found next to the benchmark (\(tool)); run swift build -c release first")
  exit(66)
}
try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
if shapesMode {
  measureShapes(tool: tool, directory: workDir + String(format: "/shapes-x%g", scale), scale: scale, runs: shapeRuns)
  exit(0)
}
if userShapesMode {
  measureUserShapes(
    tool: tool, directory: workDir + String(format: "/user-shapes-x%g", scale), scale: scale, runs: shapeRuns)
  exit(0)
}

let big = generate(in: workDir, "big-100000.json") { h in
  h.write(Data((SyntheticReceipts.verifyReceipt(index: 0, transactions: 100_000) + "\n").utf8))
}
let batch = generate(in: workDir, "batch-5000x20.ndjson") { h in
  var text = ""
  for i in 0..<5_000 {
    text += SyntheticReceipts.verifyReceipt(index: i, transactions: 20, latestReceiptBytes: 15_500) + "\n"
    if i % 100 == 99 {
      h.write(Data(text.utf8))
      text = ""
    }
  }
  h.write(Data(text.utf8))
}
let small = generate(in: workDir, "small.json") { h in
  h.write(Data(SyntheticReceipts.verifyReceipt(index: 1, transactions: 3).utf8))
}

/// A Get Transaction History page per line, 20 signed transactions each (a customer's monthly renewals),
/// 5,000 lines: 100,000 signed transactions. Header and signature are make-jws.py's (hand-written, unsigned).
let signedHistory = generate(in: workDir, "signed-history-5000x20.ndjson") { h in
  let header = Base64URL.encode(Array(#"{"alg":"ES256","kid":"hand-written","x5c":[],"typ":"JWT"}"#.utf8))
  let signature = Base64URL.encode([UInt8](repeating: 0, count: 64))
  var text = ""
  for customer in 0..<5_000 {
    let original = 3_000_000_000 + customer * 100
    var jws: [String] = []
    for month in 0..<20 {
      let purchase = 1_600_000_000_000 + Int64(month) * 2_592_000_000 + Int64(customer) * 1000
      let payload =
        #"{"transactionId":"\#(original + month)","originalTransactionId":"\#(original)","webOrderLineItemId":"\#(original + month)","#
        + #""bundleId":"com.acme.notes","productId":"com.acme.pro.monthly","subscriptionGroupIdentifier":"21000111","#
        + #""purchaseDate":\#(purchase),"originalPurchaseDate":1600000000000,"expiresDate":\#(purchase + 2_592_000_000),"#
        + #""quantity":1,"type":"Auto-Renewable Subscription","inAppOwnershipType":"\#(customer % 7 == 0 ? "FAMILY_SHARED" : "PURCHASED")","#
        + #""signedDate":\#(purchase),"environment":"Production","transactionReason":"RENEWAL","storefront":"USA","#
        + #""storefrontId":"143441","price":9990,"currency":"USD"}"#
      jws.append("\"" + header + "." + Base64URL.encode(Array(payload.utf8)) + "." + signature + "\"")
    }
    text +=
      #"{"revision":"r\#(customer)","bundleId":"com.acme.notes","appAppleId":1474839201,"environment":"Production","hasMore":false,"signedTransactions":["#
      + jws.joined(separator: ",") + "]}\n"
    if customer % 100 == 99 {
      h.write(Data(text.utf8))
      text = ""
    }
  }
  h.write(Data(text.utf8))
}

/// The examples' signed transactions (examples/storekit2, signed by the test chain under test-root.pem: three
/// certificates in each header, Apple's marker OIDs), one customer's history per file.
let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().appendingPathComponent("examples/storekit2").path
let testRoot = examples + "/test-root.pem"
/// The transaction tokens of each example history (renewal infos left out), in file order.
let exampleHistories: [[String]] = {
  let names = ((try? FileManager.default.contentsOfDirectory(atPath: examples)) ?? [])
    .filter { $0.hasPrefix("entitlements-") && $0.hasSuffix(".jws") }.sorted()
  return names.compactMap { name in
    guard let text = try? String(contentsOfFile: examples + "/" + name, encoding: .utf8) else { return nil }
    let tokens = text.split(separator: "\n").map(String.init).filter { token in
      let parts = token.split(separator: ".")
      guard parts.count == 3 else { return false }
      var payload = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
      while payload.count % 4 != 0 { payload += "=" }
      guard let json = Data(base64Encoded: payload) else { return false }
      return String(decoding: json, as: UTF8.self).hasPrefix(#"{"transactionId":"#)
    }
    return tokens.isEmpty ? nil : tokens
  }
}()
/// Get Transaction History pages whose 20 signedTransactions repeat one example history's signed tokens (the
/// examples' signatures as committed: each JWS is verified with its own ES256 check; the chain is one, as a
/// batch of Apple's is), 5,000 lines: 100,000 signed transactions.
let signedChains: String? =
  exampleHistories.isEmpty
  ? nil
  : generate(in: workDir, "signed-chains-5000x20.ndjson") { h in
    var text = ""
    for page in 0..<5_000 {
      let history = exampleHistories[page % exampleHistories.count]
      let tokens = (0..<20).map { "\"" + history[$0 % history.count] + "\"" }
      text +=
        #"{"revision":"r\#(page)","bundleId":"com.acme.notes","appAppleId":1474839201,"environment":"Production","hasMore":false,"signedTransactions":["#
        + tokens.joined(separator: ",") + "]}\n"
      if page % 100 == 99 {
        h.write(Data(text.utf8))
        text = ""
      }
    }
    h.write(Data(text.utf8))
  }

// Linux hands a spawned child the parent's peak RSS at exec, so a bench that just built 90 MB of
// text would report that for every command: start again, small, once the inputs are on disk.
if generatedAny, let me = CommandLine.unsafeArgv[0] {
  execv(me, CommandLine.unsafeArgv)
}

/// Runs per figure: receipt-tool's are short, jq's long.
let ourRuns = 5
let theirRuns = 3

/// The signed-chain section (issue 31): `entitlements` and `revenue` with `--trust-root` on the examples' signed
/// chains, on one core (`taskset -c 0`) and on all, in JWS per wall second and per CPU second.
func signedChainSection() -> [(String, Bool)] {
  guard let signedChains else {
    print("signed chains: skipped, no signed examples under \(examples)")
    return []
  }
  let jws = 100_000.0
  let cores = ProcessInfo.processInfo.activeProcessorCount
  let haveTaskset = FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset")
  print(
    String(
      format: "\nsigned chains: %@ (%.1f MB, 100,000 JWS, three certificates in each header), --trust-root %@",
      signedChains, size(signedChains), testRoot))
  print("command       build    cores     wall      JWS/s   CPU s   JWS/CPU s  load average")
  func padded(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
  var found: [(String, Bool)] = []
  var tools = [("this", tool)]
  if let otherTool { tools.append(("other", otherTool)) }
  for command in ["entitlements", "revenue"] {
    for (build, path) in tools {
      let run =
        "\(shellQuote(path)) \(command) --quiet --trust-root \(shellQuote(testRoot)) \(shellQuote(signedChains))"
      var wall: [Int: Double] = [:]
      for coresUsed in haveTaskset && cores > 1 ? [1, cores] : [cores] {
        let line = coresUsed == 1 && cores > 1 ? "taskset -c 0 " + run : run
        let result = median(of: 3, line)
        wall[coresUsed] = result.seconds
        var row = String(
          format: "%@%@%5d  %7.2f s  %8.0f  %6.2f  %9.0f  %@", padded(command, 14), padded(build, 9), coresUsed,
          result.seconds,
          jws / result.seconds, result.cpu, jws / result.cpu, loadAverage())
        if result.status != 0 { row += " (exit \(result.status))" }
        print(row)
      }
      if let one = wall[1], let all = wall[cores], cores > 1 {
        let ratio = one / all
        print(padded(command, 14) + padded(build, 9) + String(format: "speed-up on %d cores: %.2fx", cores, ratio))
        if build == "this" {
          found.append(
            (String(format: "%@ signed chains: %d cores >= 1.8x one (%.2fx)", command, cores, ratio), ratio >= 1.8))
        }
      }
    }
  }
  return found
}

if chainsOnly {
  print("receipt-tool-bench chains; load average \(loadAverage()) at start")
  let targets = signedChainSection()
  print("\ntargets (issue 31):")
  for (target, met) in targets { print("  \(met ? "met   " : "MISSED") \(target)") }
  print("load average \(loadAverage()) at the end")
  exit(targets.allSatisfy(\.1) ? 0 : 1)
}

let helpText: String = {
  let p = Process()
  p.executableURL = URL(fileURLWithPath: tool)
  p.arguments = ["help"]
  let pipe = Pipe()
  p.standardOutput = pipe
  p.standardError = Pipe()
  try? p.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  p.waitUntilExit()
  return String(decoding: data, as: UTF8.self)
}()
func listed(_ command: String) -> Bool {
  helpText.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix(command + " ") }
}

let machine = machineDescription()
print("receipt-tool-bench on \(machine); load average \(loadAverage()) at start")
print("(wall-clock figures are only comparable within one run; a loaded machine slows every column)")
print("(each figure is the median of \(ourRuns) runs of receipt-tool, \(theirRuns) of jq and of json.load)")
print(
  String(
    format: "inputs: %@ (%.1f MB, 100,000 transactions), %@ (%.1f MB, 5,000 x 20), %@ (%.1f MB, 100,000 signed)", big,
    size(big), batch, size(batch), signedHistory, size(signedHistory)))
if !haveJQ { print("note: jq not installed (apt-get install -y jq); jq columns are empty") }
let pythonSeconds = (big: pythonMedianSeconds(big, ndjson: false), batch: pythonMedianSeconds(batch, ndjson: true))
if python == nil { print("note: python3 not found; the json.load column is empty") }
print("")
print("command       input   receipt-tool      MB/s   peak RSS | jq              MB/s  | ratio | json.load  ratio")

/// Each target, checked against this run's figures and printed at the end with met or missed.
var targets: [(String, Bool)] = []

for command in ["decode", "entitlements", "revenue"] {
  guard listed(command) else {
    print("\(command): skipped, `receipt-tool help` does not list it on this build")
    continue
  }
  for (label, path, extra) in [("big", big, ""), ("batch", batch, ""), ("signed", signedHistory, "")] {
    let format = command == "revenue" ? "json" : "ndjson"
    let ours = median(of: ourRuns, "\(shellQuote(tool)) \(command) --format \(format) \(extra) \(shellQuote(path))")
    let mb = size(path)
    func padded(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
    var line =
      padded(command, 14) + padded(label, 6)
      + String(
        format: "  %6.2f s  %8.0f  %6d MiB", ours.seconds, mb / ours.seconds, ours.rssKiB / 1024)
    if ours.status != 0 { line += " (exit \(ours.status))" }
    if haveJQ, label != "signed", let program = jqPrograms[command] {
      let jqCommand =
        label == "batch" && command == "revenue"
        ? "jq -c \(shellQuote("[" + txs.replacingOccurrences(of: "[.", with: "[.") + "[] ]")) \(shellQuote(path)) | jq -s \(shellQuote("add | map(select((.in_app_ownership_type // \"PURCHASED\") == \"PURCHASED\")) | group_by(.product_id) | map({product: .[0].product_id, count: length})"))"
        : "jq -c \(shellQuote(program)) \(shellQuote(path))"
      let theirs = median(of: theirRuns, jqCommand)
      line += String(
        format: " | %6.2f s  %8.0f  | %5.1fx", theirs.seconds, mb / theirs.seconds, theirs.seconds / ours.seconds)
      if command != "decode", label == "big" {
        targets.append(
          (
            String(format: "%@ big: >= 10x jq (%.1fx)", command, theirs.seconds / ours.seconds),
            theirs.seconds / ours.seconds >= 10
          ))
      }
    }
    let reference = label == "big" ? pythonSeconds.big : pythonSeconds.batch
    if let reference {
      line += String(format: " | %6.2f s  %5.1fx", reference, reference / ours.seconds)
    }
    let mibps = mb / ours.seconds
    let rssMiB = Double(ours.rssKiB) / 1024
    if command != "decode", label == "big" {
      targets.append((String(format: "%@ big: >= 400 MB/s (%.0f MB/s)", command, mibps), mibps >= 400))
      if let reference {
        targets.append(
          (
            String(format: "%@ big: >= 3x json.load (%.1fx)", command, reference / ours.seconds),
            reference / ours.seconds >= 3
          ))
      }
      let inputMiB = mb * 1_000_000 / 1_048_576
      targets.append(
        (
          String(format: "%@ big: peak RSS <= input + 64 MiB (%.0f <= %.0f MiB)", command, rssMiB, inputMiB + 64),
          rssMiB <= inputMiB + 64
        ))
    }
    if command != "decode", label == "signed" {
      targets.append((String(format: "%@ signed: >= 150 MB/s (%.0f MB/s)", command, mibps), mibps >= 150))
    }
    if command != "decode", label == "batch" {
      targets.append((String(format: "%@ batch: >= 600 MB/s (%.0f MB/s)", command, mibps), mibps >= 600))
      targets.append((String(format: "%@ batch: peak RSS <= 64 MiB (%.0f MiB)", command, rssMiB), rssMiB <= 64))
    }
    print(line)
  }
}

// Small receipt, process start to exit: median of 51 runs.
var times: [Double] = []
for _ in 0..<51 { times.append(measure("\(shellQuote(tool)) decode \(shellQuote(small))").seconds) }
times.sort()
print(
  String(
    format: "\nsmall receipt (%.0f bytes) decode end to end: median %.1f ms, best %.1f ms (includes /bin/sh start)",
    size(small) * 1_000_000, times[times.count / 2] * 1000, times[0] * 1000))
let smallMedian = times[times.count / 2] * 1000
targets.append((String(format: "small receipt: <= 15 ms (median %.1f ms)", smallMedian), smallMedian <= 15))
print("\ntargets (issue 17):")
for (target, met) in targets { print("  \(met ? "met   " : "MISSED") \(target)") }
let chainTargets = signedChainSection()
let ecdsaTargets = ECDSASpeed.run() + chainTargets
print("\ntargets (issue 31):")
for (target, met) in ecdsaTargets { print("  \(met ? "met   " : "MISSED") \(target)") }
print("load average \(loadAverage()) at the end")
