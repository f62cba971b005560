import ReceiptModel

/// Progress of a long run on standard error: documents, megabytes, rate and, when the inputs are
/// regular files, the time left. Redrawn in place on one line and erased before anything else is
/// written to standard error and at the end, so it never mixes with messages.
///
/// Shown only on a terminal, without `--quiet`, `NO_PROGRESS` or `CI`, and only once a run has
/// taken `delay` seconds: a short run shows nothing.
package final class ProgressMeter {
  static let delay = 0.5
  static let interval = 0.1
  private let sink: OutputSink
  private let enabled: Bool
  private let totalBytes: Int?
  private let clock: () -> Double
  private let started: Double
  private var lastDrawn = -1.0
  private var documents = 0
  private var bytes = 0
  /// A line is on screen and must be erased before other output.
  package private(set) var isShown = false

  /// Whether the environment wants progress: standard error is a terminal, and neither `NO_PROGRESS`
  /// nor `CI` is set (to anything but an empty string).
  package static func wanted(_ environment: ProcessEnvironment) -> Bool {
    environment.stderrIsTerminal && (environment.variables["NO_PROGRESS"] ?? "").isEmpty
      && (environment.variables["CI"] ?? "").isEmpty
  }

  /// `paths` give the total size (only when all are regular files); `clock` gives seconds on a
  /// monotonic clock (tests pass their own).
  package init(
    sink: OutputSink, paths: [InputPath], enabled: Bool, clock: @escaping () -> Double = ProgressMeter.monotonicSeconds
  ) {
    self.sink = sink
    self.enabled = enabled
    self.clock = clock
    started = enabled ? clock() : 0
    var total: Int? = enabled && !paths.isEmpty ? 0 : nil
    if enabled {
      for path in paths where !path.isStandardInput {
        var st = stat()
        guard path.withCString({ stat($0, &st) }) == 0, st.st_mode & S_IFMT == S_IFREG,
          let size = Int(exactly: st.st_size)
        else {
          total = nil
          break
        }
        total = total.map { $0 &+ size }
      }
      if paths.contains(where: \.isStandardInput) { total = nil }
    }
    totalBytes = total
  }

  package static func monotonicSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
  }

  /// One more document was handled; redraws when due.
  package func documentDone(bytes count: Int) {
    guard enabled else { return }
    documents += 1
    bytes += count
    let now = clock()
    guard now - started >= Self.delay, now - lastDrawn >= Self.interval else { return }
    lastDrawn = now
    sink.write("\r" + line(elapsed: now - started) + "\u{1b}[K")
    sink.flush()
    isShown = true
  }

  /// The progress text: `1,200 documents, 52.1 MB of 170.0 MB, 310 MB/s, about 0:04 left`.
  package func line(elapsed: Double) -> String {
    var text = "receipt-tool: \(documents) document\(documents == 1 ? "" : "s"), " + Self.megabytes(bytes)
    if let totalBytes { text += " of " + Self.megabytes(totalBytes) }
    guard elapsed > 0 else { return text }
    let rate = Double(bytes) / elapsed
    text += ", " + String(Int(rate / 1_000_000)) + " MB/s"
    if let totalBytes, rate > 0, totalBytes >= bytes {
      let left = Int((Double(totalBytes - bytes) / rate).rounded(.up))
      text += ", about \(left / 60):" + (left % 60 < 10 ? "0" : "") + "\(left % 60) left"
    }
    return text
  }

  static func megabytes(_ bytes: Int) -> String {
    let tenths = bytes / 100_000
    return "\(tenths / 10).\(tenths % 10) MB"
  }

  /// Removes the line, if shown, so the next output starts clean.
  package func erase() {
    guard isShown else { return }
    sink.write("\r\u{1b}[K")
    sink.flush()
    isShown = false
  }
}
