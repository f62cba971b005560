import Foundation

func size(_ path: String) -> Double {
  Double(((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0) / 1_000_000
}

/// Runs `sh -c command` with output and warnings to /dev/null; returns wall seconds, peak RSS (KiB), exit status
/// and CPU seconds (user and system, of the command and its children).
func measure(_ command: String) -> (seconds: Double, rssKiB: Int, status: Int32, cpu: Double) {
  var pid: pid_t = 0
  let argv: [UnsafeMutablePointer<CChar>?] = [
    strdup("/bin/sh"), strdup("-c"), strdup("exec >/dev/null 2>&1; " + command), nil,
  ]
  defer { for p in argv { free(p) } }
  let start = DispatchTime.now()
  guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else { return (0, 0, -1, 0) }
  var status: Int32 = 0
  var usage = rusage()
  _ = wait4(pid, &status, 0, &usage)
  let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
  func secondsOf(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
  return (seconds, usage.ru_maxrss, (status >> 8) & 0xFF, secondsOf(usage.ru_utime) + secondsOf(usage.ru_stime))
}

/// The median of `runs` runs of `command` (wall seconds and peak RSS), so one slow run on a shared machine
/// does not decide a target; the status is the last run's.
func median(of runs: Int, _ command: String) -> (seconds: Double, rssKiB: Int, status: Int32, cpu: Double) {
  let all = (0..<runs).map { _ in measure(command) }
  let seconds = all.map(\.seconds).sorted()[runs / 2]
  let rss = all.map(\.rssKiB).sorted()[runs / 2]
  let cpu = all.map(\.cpu).sorted()[runs / 2]
  return (seconds, rss, all.last?.status ?? -1, cpu)
}
func shellQuote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

/// The load average, so a reader knows whether other work shared the machine.
func loadAverage() -> String {
  var load = [Double](repeating: 0, count: 3)
  guard getloadavg(&load, 3) == 3 else { return "unknown" }
  return String(format: "%.2f %.2f %.2f", load[0], load[1], load[2])
}

/// Writes `name` once; later runs reuse it (the content is deterministic).
func generate(in directory: String, _ name: String, _ write: (FileHandle) -> Void) -> String {
  let path = directory + "/" + name
  if !FileManager.default.fileExists(atPath: path) {
    generatedAny = true
    _ = FileManager.default.createFile(atPath: path + ".tmp", contents: nil)
    guard let handle = FileHandle(forWritingAtPath: path + ".tmp") else {
      print("receipt-tool-bench: cannot write \(path).tmp")
      exit(74)
    }
    write(handle)
    try? handle.close()
    try? FileManager.default.moveItem(atPath: path + ".tmp", toPath: path)
  }
  return path
}

nonisolated(unsafe) var generatedAny = false

// The reference for a full parse: Python's json module, whose parser is written in C. Timed inside
// Python, so interpreter start-up does not count against it.
let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
func pythonLoadSeconds(_ path: String, ndjson: Bool) -> Double? {
  guard let python else { return nil }
  let script =
    ndjson
    ? "import json,sys,time\nt=time.perf_counter()\nfor l in open(sys.argv[1],'rb'):\n  json.loads(l)\nprint(time.perf_counter()-t)"
    : "import json,sys,time\nt=time.perf_counter()\njson.load(open(sys.argv[1],'rb'))\nprint(time.perf_counter()-t)"
  let p = Process()
  p.executableURL = URL(fileURLWithPath: python)
  p.arguments = ["-c", script, path]
  let pipe = Pipe()
  p.standardOutput = pipe
  try? p.run()
  let data = pipe.fileHandleForReading.readDataToEndOfFile()
  p.waitUntilExit()
  return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
}
/// The median of three timings, like receipt-tool's figures.
func pythonMedianSeconds(_ path: String, ndjson: Bool) -> Double? {
  let all = (0..<3).compactMap { _ in pythonLoadSeconds(path, ndjson: ndjson) }.sorted()
  return all.isEmpty ? nil : all[all.count / 2]
}
let haveJQ = FileManager.default.isExecutableFile(atPath: "/usr/bin/jq")

// jq equivalents. Transactions: both arrays, unique by transaction_id.
let txs = "([.receipt.in_app[]?, .latest_receipt_info[]?] | unique_by(.transaction_id))"
let jqPrograms: [String: String] = [
  "decode": "\(txs) | map({transaction_id, product_id, in_app_ownership_type, purchase_date_ms, expires_date_ms})",
  "entitlements":
    "\(txs) | group_by(.product_id) | map({product: .[0].product_id, expires: (map(.expires_date_ms // \"0\" | tonumber) | max), family_shared_only: all(.in_app_ownership_type == \"FAMILY_SHARED\")})",
  "revenue":
    "\(txs) | map(select((.in_app_ownership_type // \"PURCHASED\") == \"PURCHASED\")) | group_by(.product_id) | map({product: .[0].product_id, count: length})",
]
