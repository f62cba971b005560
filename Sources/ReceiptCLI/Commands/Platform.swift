import ReceiptFormats
import ReceiptModel

/// Ends the process with `status`, after standard output has been flushed.
package func exitProcess(_ status: ExitStatus) -> Never {
  exit(status.rawValue)
}

/// Process-level facts the command line needs, gathered in one place so tests can supply their own.
package struct ProcessEnvironment: Sendable {
  package var variables: [String: String]
  package var stdoutIsTerminal: Bool
  /// For progress, which is drawn only on a terminal.
  package var stderrIsTerminal = false
  /// Standard input is a terminal: nothing was piped in, and a person may be waiting for output.
  package var stdinIsTerminal: Bool

  package init(variables: [String: String], stdoutIsTerminal: Bool, stdinIsTerminal: Bool = false) {
    self.variables = variables
    self.stdoutIsTerminal = stdoutIsTerminal
    self.stdinIsTerminal = stdinIsTerminal
  }

  package static func current() -> ProcessEnvironment {
    var vars: [String: String] = [:]
    var p = environ
    while let entry = p.pointee {
      let s = String(cString: entry)
      if let eq = s.firstIndex(of: "=") {
        vars[String(s[..<eq])] = String(s[s.index(after: eq)...])
      }
      p += 1
    }
    var environment = ProcessEnvironment(
      variables: vars, stdoutIsTerminal: isatty(1) == 1, stdinIsTerminal: isatty(0) == 1)
    environment.stderrIsTerminal = isatty(2) == 1
    return environment
  }

  /// Colour only on a terminal, never with NO_COLOR set (https://no-color.org) or TERM=dumb.
  package var useColor: Bool {
    stdoutIsTerminal && (variables["NO_COLOR"] ?? "").isEmpty && variables["TERM"] != "dumb"
  }

  /// The widths `COLUMNS` is clamped to: narrower gives no room for a label and its value, wider lines
  /// are unreadable.
  package static let columnRange = 40...300

  /// Output width for help and tables: `COLUMNS` clamped to `columnRange`, else 80 when unset or not a number.
  package var columns: Int {
    guard let c = variables["COLUMNS"].flatMap({ Int($0.trimmingSpaces) }) else { return 80 }
    return min(max(c, Self.columnRange.lowerBound), Self.columnRange.upperBound)
  }
}

extension String {
  fileprivate var trimmingSpaces: String {
    String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
  }
}

/// Buffered writes to a file descriptor. A closed pipe (EPIPE) ends output quietly, as `head` expects.
package final class OutputSink: @unchecked Sendable {
  private let fd: Int32
  private var buffer: [UInt8] = []
  private let limit: Int
  /// True once the reader went away; later writes are dropped.
  package private(set) var isClosed = false
  /// Set when a write failed for a reason other than a closed pipe.
  package private(set) var failure: String?

  package init(fd: Int32, bufferSize: Int = 1 << 16) {
    self.fd = fd
    self.limit = bufferSize
    buffer.reserveCapacity(bufferSize)
  }

  package func write(_ s: String) {
    guard !isClosed else { return }
    buffer.append(contentsOf: s.utf8)
    if buffer.count >= limit { flush() }
  }

  /// Writes bytes; a large piece goes out without a copy into the buffer.
  package func write(bytes: [UInt8]) {
    bytes.withUnsafeBufferPointer { write(buffer: $0) }
  }

  /// Writes bytes valid during the call; a large piece goes out without a copy into the buffer.
  package func write(buffer bytes: UnsafeBufferPointer<UInt8>) {
    guard !isClosed else { return }
    if buffer.count + bytes.count < limit {
      buffer.append(contentsOf: bytes)
      return
    }
    flush()
    writeOut(UnsafeRawBufferPointer(bytes))
  }

  package func flush() {
    guard !isClosed, !buffer.isEmpty else { return }
    buffer.withUnsafeBytes { writeOut($0) }
    buffer.removeAll(keepingCapacity: true)
  }

  private func writeOut(_ raw: UnsafeRawBufferPointer) {
    guard !isClosed else { return }
    var offset = 0
    while offset < raw.count {
      let n = systemWrite(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
      if n < 0 {
        if errno == EINTR { continue }
        if errno == EPIPE {
          isClosed = true
        } else {
          failure = String(cString: strerror(errno))
          isClosed = true
        }
        return
      }
      offset += n
    }
  }

}

@inline(__always)
func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer?, _ n: Int) -> Int {
  write(fd, p, n)
}

/// Ignore SIGPIPE so a closed pipe shows up as EPIPE and output can stop cleanly.
func ignoreSigpipe() {
  signal(SIGPIPE, SIG_IGN)
}

/// Reads a whole file (or standard input for `-`) into memory.
package enum FileInput {
  package static func readAll(path: String) throws(ReceiptToolError) -> [UInt8] {
    try readAll(path: InputPath(path))
  }

  /// Reads a whole file named by its bytes (or standard input for `-`).
  package static func readAll(path: InputPath) throws(ReceiptToolError) -> [UInt8] {
    var reader = try ChunkReader(path: path)
    defer { reader.close() }
    return try reader.readRest().array
  }

  static func describeOpenError(_ code: Int32) -> String {
    switch code {
    case ENOENT: "no such file"
    case EACCES: "permission denied"
    case EISDIR: "is a directory"
    default: String(cString: strerror(code))
    }
  }

  /// How messages name an input.
  package static func displayName(_ path: String) -> String { path == "-" ? "<stdin>" : path }
}
