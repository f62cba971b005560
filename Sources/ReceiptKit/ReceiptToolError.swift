/// Process exit statuses, from sysexits(3) where one fits.
public enum ExitStatus: Int32, Sendable {
  /// Everything asked for was done and every check passed.
  case ok = 0
  /// A check the user asked for (`--require`, `--expect`) failed.
  case checkFailed = 1
  /// EX_USAGE: bad arguments or options.
  case usage = 64
  /// EX_DATAERR: the input cannot be read as JSON, as a receipt, or as a catalog.
  case dataError = 65
  /// EX_NOINPUT: an input file is missing or unreadable.
  case noInput = 66
  /// EX_SOFTWARE: a bug in receipt-tool.
  case software = 70
  /// EX_IOERR: reading or writing failed.
  case ioError = 74
}

/// Every failure receipt-tool reports. Each case becomes one line on standard error and one exit status.
public enum ReceiptToolError: Error, Sendable, Equatable {
  /// Bad command line. `command` names the subcommand whose help to point at.
  case usage(String, command: String?)
  /// Not JSON at all.
  case syntax(source: String, JSONSyntaxError)
  /// JSON, but a value the tool reads cannot be interpreted.
  case field(source: String, path: String, message: String, line: Int?, column: Int?)
  /// JSON, but not what the command needs (not a receipt, a failed receipt status, a bad catalog).
  case data(source: String?, message: String)
  /// An input file that cannot be opened.
  case noInput(source: String, reason: String)
  /// Reading or writing failed part way.
  case io(String)
  /// A check asked for on the command line failed; the details were already printed.
  case checkFailed(String)
  /// A bug.
  case internalError(String)

  public var exitStatus: ExitStatus {
    switch self {
    case .usage: .usage
    case .syntax, .field, .data: .dataError
    case .noInput: .noInput
    case .io: .ioError
    case .checkFailed: .checkFailed
    case .internalError: .software
    }
  }

  /// The message without the `receipt-tool: error:` prefix, on one line.
  public var message: String {
    let text: String
    switch self {
    case .usage(let m, _): text = m
    case .syntax(let source, let e): text = "\(source):\(e.line):\(e.column): \(e.message)"
    case .field(let source, let path, let m, let line, let column):
      if let line, let column {
        text = "\(source):\(line):\(column): \(path): \(m)"
      } else {
        text = "\(source): \(path): \(m)"
      }
    case .data(let source, let m): text = source.map { "\($0): \(m)" } ?? m
    case .noInput(let source, let reason): text = "\(source): \(reason)"
    case .io(let m): text = m
    case .checkFailed(let m): text = m
    case .internalError(let m): text = "internal error: \(m)"
    }
    // One line, whatever the input held.
    return String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
  }
}
