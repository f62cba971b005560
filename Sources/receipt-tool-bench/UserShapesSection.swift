import Foundation
import ReceiptTestSupport

// Issue 42: the shapes users feed the tool, one customer's document per line, each measured in CPU µs per
// document beside Python (json.loads and json.dumps per line), jq (a small filter per line) and OpenSSL's P-256
// verify rate, all in the same run. The inputs are UserShapes' (ReceiptTestSupport), signed by the test chain.

/// One batch of the section: its file, how many documents, and the signatures each line needs.
struct UserBatch {
  let name: String
  let path: String
  let documents: Int
  /// ES256 verifications per line (0 for unsigned lines).
  let verifications: Int
  /// How the anchors read a line: "json" (verifyReceipt), "jws" (a bare token), "notification", "page".
  let anchorMode: String
  /// jq's options and small filter, quoted for the shell.
  let jqArguments: String
}

/// Writes `count` lines made by `line` into `name` under `directory` (once; later runs reuse the file).
func generateLines(in directory: String, _ name: String, count: Int, _ line: (Int) -> String) -> String {
  generate(in: directory, name) { h in
    var text = ""
    for i in 0..<count {
      text += line(i) + "\n"
      if text.utf8.count > 1_000_000 {
        h.write(Data(text.utf8))
        text = ""
      }
    }
    h.write(Data(text.utf8))
  }
}

/// The Python anchor: each line read with json.loads (a signed line's payload decoded first, as a reader of
/// it must) and a small answer written with json.dumps to /dev/null. It prints its own CPU seconds (user +
/// sys), so interpreter start-up does not count against it, as in the json.load reference.
let pythonAnchorScript = """
  import base64, json, os, sys, time
  start = time.process_time()
  mode = sys.argv[1]
  out = open(os.devnull, 'w')
  def payload(token):
      p = token.split('.')[1]
      return json.loads(base64.urlsafe_b64decode(p + '=' * (-len(p) % 4)))
  for line in open(sys.argv[2], 'rb'):
      if mode == 'jws':
          t = payload(line.decode().strip())
          answer = {'id': t['originalTransactionId'], 'expires': t.get('expiresDate')}
      elif mode == 'notification':
          n = payload(json.loads(line)['signedPayload'])
          t = payload(n['data']['signedTransactionInfo'])
          r = payload(n['data']['signedRenewalInfo'])
          answer = {'type': n['notificationType'], 'id': t['originalTransactionId'], 'renews': r['autoRenewStatus']}
      elif mode == 'page':
          ts = [payload(s) for s in json.loads(line)['signedTransactions']]
          answer = {'id': ts[0]['originalTransactionId'], 'expires': max(t.get('expiresDate', 0) for t in ts)}
      else:
          d = json.loads(line)
          ts = d.get('latest_receipt_info') or []
          answer = {'id': ts[0]['original_transaction_id'] if ts else None,
                    'expires': max((int(t.get('expires_date_ms', 0)) for t in ts), default=0)}
      out.write(json.dumps(answer) + '\\n')
  out.close()
  print(time.process_time() - start)
  """

/// The Python anchor's CPU seconds on `path`, or nil when it fails.
func pythonAnchorCPU(_ python: String, mode: String, _ path: String) -> Double? {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: python)
  process.arguments = ["-c", pythonAnchorScript, mode, path]
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = FileHandle.nullDevice
  guard (try? process.run()) != nil else { return nil }
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else { return nil }
  return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
}

/// The first executable named `name` on PATH.
func onPath(_ name: String) -> String? {
  (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { $0 + "/" + name }
    .first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Generates the user shapes under `directory` (once) and measures each with `runs` runs (median), printing one
/// row per batch and command and the issue's targets as met or MISSED.
func measureUserShapes(tool: String, directory: String, scale: Double, runs: Int) {
  try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  func count(_ full: Int) -> Int { max(10, Int(Double(full) * scale)) }
  guard let signer = TestChainSigner() else {
    print("receipt-tool-bench: the test chain under Tests/ExampleSigning is missing; cannot sign the inputs")
    exit(66)
  }
  let catalog = generate(in: directory, "catalog-5.json") { $0.write(Data(UserShapes.catalog.utf8)) }
  let customers = max(3, Int(300 * min(1, scale * 10)))
  let oneTransaction = count(100_000)
  let customerLines = count(30_000)
  let signedLines = count(20_000)
  let notificationLines = count(10_000)
  let pages = count(1_000)
  let receiptFilter =
    "{id: .latest_receipt_info[0].original_transaction_id, expires: ([.latest_receipt_info[]?.expires_date_ms // \"0\" | tonumber] | max)}"
  let tokenPayload = "split(\".\")[1] | gsub(\"-\"; \"+\") | gsub(\"_\"; \"/\") | @base64d | fromjson"
  let batches = [
    UserBatch(
      name: "one-transaction",
      path: generateLines(in: directory, "one-transaction.ndjson", count: oneTransaction) {
        UserShapes.oneTransactionBody(index: $0)
      }, documents: oneTransaction, verifications: 0, anchorMode: "json", jqArguments: shellQuote(receiptFilter)),
    UserBatch(
      name: "customers-1-60",
      path: generateLines(in: directory, "customers-1-60.ndjson", count: customerLines) {
        UserShapes.customerBody(index: $0)
      }, documents: customerLines, verifications: 0, anchorMode: "json", jqArguments: shellQuote(receiptFilter)),
    UserBatch(
      name: "signed-lines",
      path: generateLines(in: directory, "signed-transactions.jws", count: signedLines) {
        UserShapes.signedTransactionLine(index: $0, customers: customers, signer: signer)
      }, documents: signedLines, verifications: 1, anchorMode: "jws",
      jqArguments: "-R " + shellQuote("\(tokenPayload) | {id: .originalTransactionId, expires: .expiresDate}")),
    UserBatch(
      name: "notification-log",
      path: generateLines(in: directory, "notifications-v2.ndjson", count: notificationLines) {
        UserShapes.notificationLine(index: $0, customers: customers, signer: signer)
      }, documents: notificationLines, verifications: 3, anchorMode: "notification",
      jqArguments: shellQuote(
        ".signedPayload | \(tokenPayload) | {type: .notificationType, id: (.data.signedTransactionInfo | \(tokenPayload)"
          + " | .originalTransactionId), renews: (.data.signedRenewalInfo | \(tokenPayload) | .autoRenewStatus)}")),
    UserBatch(
      name: "history-pages",
      path: generateLines(in: directory, "history-pages-20.ndjson", count: pages) {
        UserShapes.historyPageLine(index: $0, signer: signer)
      }, documents: pages, verifications: 20, anchorMode: "page",
      jqArguments: shellQuote(
        "[.signedTransactions[] | \(tokenPayload)] | {id: .[0].originalTransactionId, expires: (map(.expiresDate) | max)}"
      )),
  ]
  if generatedAny, let me = CommandLine.unsafeArgv[0] { execv(me, CommandLine.unsafeArgv) }

  print("receipt-tool-bench --user-shapes on \(machineDescription()); load average \(loadAverage()) at start")
  print(
    String(
      format: "scale %g: %d one-transaction bodies, %d customers of 1-60, %d signed lines over %d customers,",
      scale, oneTransaction, customerLines, signedLines, customers))
  print(
    String(
      format: "  %d notifications (3 signatures each), %d history pages of 20; median of %d runs", notificationLines,
      pages, runs))
  print("(CPU is user + sys of the command and its children, per document; the anchors run once, in this run)")
  // The anchors as found on PATH (so `PATH=/bin receipt-tool-bench --user-shapes` shows the notes).
  let pythonForUserShapes = onPath("python3")
  let jq = onPath("jq")
  let openssl = onPath("openssl")
  if pythonForUserShapes == nil { print("note: python3 not found; the Python column is empty and its targets skipped") }
  if jq == nil { print("note: jq not installed (apt-get install -y jq); the jq column is empty") }
  if openssl == nil { print("note: openssl not found; the OpenSSL column is empty and its targets skipped") }
  let opensslP256 = openssl.flatMap { ECDSASpeed.opensslVerifyRates($0, seconds: 3)[.p256] }
  if let opensslP256 { print(String(format: "openssl speed ecdsap256: %.0f verify/s", opensslP256)) }
  let cores = ProcessInfo.processInfo.activeProcessorCount
  let taskset = onPath("taskset")
  if taskset == nil && cores > 1 {
    print("note: taskset not found; the signed lines' one-core row and its two-core target are skipped")
  }
  print("")
  print(
    "batch             command                                cores  µs CPU/doc   MB/s wall  RSS MiB"
      + "  x Python    x jq  x OpenSSL/v")

  var targets: [(String, Bool)] = []
  func padded(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
  for batch in batches {
    let mb = size(batch.path)
    let perDoc = { (cpu: Double) in cpu / Double(batch.documents) * 1e6 }
    let pythonCPU = pythonForUserShapes.flatMap { pythonAnchorCPU($0, mode: batch.anchorMode, batch.path) }
    let jqCPU = jq.map { jq in measure("\(shellQuote(jq)) -c \(batch.jqArguments) \(shellQuote(batch.path))") }.flatMap
    { $0.status == 0 ? $0.cpu : nil }
    print(
      padded(batch.name, 18) + "anchors: "
        + (pythonCPU.map { String(format: "Python %.1f µs/doc", perDoc($0)) } ?? "Python -") + ", "
        + (jqCPU.map { String(format: "jq %.1f µs/doc", perDoc($0)) } ?? "jq -")
        + String(format: " (%.1f MB, %d documents)", mb, batch.documents))
    // --ndjson: a file of bare tokens is otherwise one customer's history, not a token per customer;
    // --require-signature: a signature that fails to verify shows as exit 1, not as a fast row.
    let trust =
      batch.verifications > 0
      ? " --ndjson --require-signature --trust-root \(shellQuote(signer.trustRoot))" : ""
    var commands = [
      ("entitlements --format ndjson", "entitlements --format ndjson\(trust)"),
      (
        "entitlements --catalog --format ndjson",
        "entitlements --format ndjson --catalog \(shellQuote(catalog))\(trust)"
      ),
    ]
    if batch.name == "one-transaction" {
      commands += [
        ("decode --format ndjson", "decode --format ndjson"), ("revenue --format json", "revenue --format json"),
      ]
    }
    for (label, arguments) in commands {
      let run = "\(shellQuote(tool)) \(arguments) \(shellQuote(batch.path))"
      let oneCore = batch.verifications == 1 && cores > 1 && taskset != nil
      var rows: [(cores: Int, result: (seconds: Double, rssKiB: Int, status: Int32, cpu: Double))] = []
      if oneCore, let taskset { rows.append((1, median(of: runs, "\(shellQuote(taskset)) -c 0 \(run)"))) }
      rows.append((cores, median(of: runs, run)))
      for (used, ours) in rows {
        let micros = perDoc(ours.cpu)
        let mbps = mb / ours.seconds
        let rss = Double(ours.rssKiB) / 1024
        let xPython = pythonCPU.map { $0 / ours.cpu }
        let xJQ = jqCPU.map { $0 / ours.cpu }
        let linesPerCPUSecond = Double(batch.documents) / ours.cpu
        let xOpenSSL =
          batch.verifications > 0 ? opensslP256.map { linesPerCPUSecond / ($0 / Double(batch.verifications)) } : nil
        var line =
          padded(batch.name, 18) + padded(label, 39)
          + String(format: "%5d  %10.1f  %10.0f  %7.0f", used, micros, mbps, rss)
        line += xPython.map { String(format: "  %8.2f", $0) } ?? "         -"
        line += xJQ.map { String(format: "  %6.2f", $0) } ?? "       -"
        line += xOpenSSL.map { String(format: "  %11.2f", $0) } ?? "            -"
        if ours.status != 0 { line += " (exit \(ours.status))" }
        print(line)
        let name = "\(batch.name) \(label)\(used == 1 && cores > 1 ? " (1 core)" : "")"
        if ours.status != 0 { targets.append(("\(name): exits 0 (exit \(ours.status))", false)) }
        targets.append((String(format: "%@: peak RSS <= 64 MiB (%.0f MiB)", name, rss), rss <= 64))
        guard used == cores, label.hasPrefix("entitlements") else { continue }
        switch batch.name {
        case "one-transaction":
          targets.append((String(format: "%@: <= 5 µs CPU per document (%.1f µs)", name, micros), micros <= 5))
          if let xPython { targets.append((String(format: "%@: >= 3x Python (%.2fx)", name, xPython), xPython >= 3)) }
        case "customers-1-60":
          if let xPython { targets.append((String(format: "%@: >= 3x Python (%.2fx)", name, xPython), xPython >= 3)) }
          targets.append((String(format: "%@: >= 400 MB/s wall (%.0f MB/s)", name, mbps), mbps >= 400))
        case "signed-lines", "notification-log":
          if let xOpenSSL {
            targets.append(
              (
                String(
                  format: "%@: >= 0.7x OpenSSL's rate / %d verifications (%.0f lines/CPU s, %.2fx)", name,
                  batch.verifications, linesPerCPUSecond, xOpenSSL), xOpenSSL >= 0.7
              ))
          }
        default: break
        }
      }
      if rows.count == 2 {
        let speedUp = rows[0].result.seconds / rows[1].result.seconds
        print(
          padded(batch.name, 18) + padded(label, 39) + String(format: "speed-up on %d cores: %.2fx", cores, speedUp))
        targets.append(
          (String(format: "%@ %@: %d cores >= 1.8x one (%.2fx)", batch.name, label, cores, speedUp), speedUp >= 1.8))
      }
    }
  }
  print("\ntargets (issue 42):")
  for (target, met) in targets { print("  \(met ? "met   " : "MISSED") \(target)") }
  print("targets met: \(targets.filter(\.1).count); missed: \(targets.filter { !$0.1 }.count)")
  print("load average \(loadAverage()) at the end")
}
