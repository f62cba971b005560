/// A file named on the command line, kept as the bytes the process received, so that a name that is not
/// UTF-8 opens the very file that was named (never one whose name is its lossy conversion), and shown
/// with its undecodable bytes escaped (`a\xFF.json`).
package struct InputPath: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
  /// The name as given, without a terminating NUL.
  package let bytes: [UInt8]

  /// A name given as text (tests, environment variables): its UTF-8 bytes.
  package init(_ text: String) { bytes = Array(text.utf8) }

  package init(stringLiteral value: String) { self.init(value) }

  /// A name as the process received it.
  package init(bytes: [UInt8]) { self.bytes = bytes }

  /// Standard input.
  package static let standardInput = InputPath("-")

  /// `-`: standard input.
  package var isStandardInput: Bool { bytes == [0x2D] }

  /// How messages name the input: `<stdin>`, the name when it is UTF-8, else the name with every byte that
  /// is not part of a UTF-8 character written `\xFF`.
  package var display: String {
    if isStandardInput { return "<stdin>" }
    return Self.escapingInvalidUTF8(bytes)
  }

  package var description: String { display }

  /// The name as text when it is valid UTF-8.
  package var text: String? { String(validating: bytes, as: UTF8.self) }

  /// Whether the name ends in `suffix` (compared as bytes).
  package func hasSuffix(_ suffix: String) -> Bool {
    let tail = Array(suffix.utf8)
    return bytes.count >= tail.count && Array(bytes.suffix(tail.count)) == tail
  }

  /// Calls `body` with the name as a NUL-terminated C string; nil when the name holds a NUL byte, which
  /// no file name can.
  package func withCString<R>(_ body: (UnsafePointer<CChar>) -> R) -> R? {
    guard !bytes.contains(0) else { return nil }
    let terminated = bytes.map { CChar(bitPattern: $0) } + [0]
    return terminated.withUnsafeBufferPointer { buffer in buffer.baseAddress.map(body) }
  }

  /// `bytes` decoded as UTF-8, with each byte that does not belong to a valid character written `\xHH`.
  static func escapingInvalidUTF8(_ bytes: [UInt8]) -> String {
    if let text = String(validating: bytes, as: UTF8.self) { return text }
    var out = ""
    var i = 0
    while i < bytes.count {
      let length = validSequenceLength(bytes, at: i)
      if length > 0, let piece = String(validating: bytes[i..<(i + length)], as: UTF8.self) {
        out += piece
        i += length
      } else {
        let hex = String(bytes[i], radix: 16, uppercase: true)
        out += "\\x" + (hex.count == 1 ? "0" + hex : hex)
        i += 1
      }
    }
    return out
  }

  /// Length of the well-formed UTF-8 sequence starting at `i`, or 0.
  private static func validSequenceLength(_ b: [UInt8], at i: Int) -> Int {
    let lead = b[i]
    let length: Int
    switch lead {
    case 0x00...0x7F: return 1
    case 0xC2...0xDF: length = 2
    case 0xE0...0xEF: length = 3
    case 0xF0...0xF4: length = 4
    default: return 0
    }
    guard i + length <= b.count else { return 0 }
    return String(validating: b[i..<(i + length)], as: UTF8.self) == nil ? 0 : length
  }
}
