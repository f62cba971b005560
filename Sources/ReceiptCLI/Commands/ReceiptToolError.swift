import ReceiptFormats
import ReceiptModel

/// Process exit statuses, from sysexits(3) where one fits.
package enum ExitStatus: Int32, Sendable {
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

/// Every failure receipt-tool reports. Each becomes one line on standard error and one exit status.
///
/// Only the command line knows exit statuses: the library throws `ReceiptError`, which this wraps.
package enum ReceiptToolError: Error, Sendable, Equatable {
  /// Bad command line. `command` names the subcommand whose help to point at.
  case usage(String, command: String?)
  /// A problem with the input, a catalog, or reading and writing them.
  case input(ReceiptError)
  /// A check asked for on the command line failed; the details were already printed.
  case checkFailed(String)

  package init(_ error: ReceiptError) { self = .input(error) }

  /// An input that cannot be opened.
  static func noInput(source: String, reason: String) -> ReceiptToolError {
    .input(ReceiptError(.noInput, source: source, message: reason))
  }

  /// Reading or writing failed part way.
  static func io(_ message: String) -> ReceiptToolError { .input(ReceiptError(.io, message: message)) }

  /// A bug.
  static func internalError(_ message: String) -> ReceiptToolError {
    .input(ReceiptError(.internalFailure, message: message))
  }

  package var exitStatus: ExitStatus {
    switch self {
    case .usage: .usage
    case .checkFailed: .checkFailed
    case .input(let error):
      switch error.kind {
      case .malformed, .invalidValue, .unusable: .dataError
      case .noInput: .noInput
      case .io: .ioError
      case .internalFailure: .software
      }
    }
  }

  /// The message without the `receipt-tool: error:` prefix, on one line.
  package var message: String {
    switch self {
    case .usage(let m, _), .checkFailed(let m): m.replacingNewlines
    case .input(let error): error.description
    }
  }
}

/// Runs library code from the command layer, turning its errors into command-line ones.
func lifting<T>(_ body: () throws(ReceiptError) -> T) throws(ReceiptToolError) -> T {
  do throws(ReceiptError) {
    return try body()
  } catch {
    throw .input(error)
  }
}
