import ReceiptModel

/// Text from the input made safe to print on a terminal or in a page: every C0 and C1 control, DEL, the
/// line and paragraph separators and the bidirectional overrides and isolates become a visible `\u{1b}`,
/// so an id can neither move the cursor, recolour the screen, hide characters nor reorder a line.
///
/// Printable text, including non-ASCII letters, passes unchanged. `visible` holds one line with no
/// control character at all, so its `count` is the columns it takes for ordinary narrow characters.
public struct TerminalSafeText: Hashable, Sendable, CustomStringConvertible {
  /// The sanitised text.
  public let visible: String

  public init(_ raw: String) {
    // Fast path: most ids are plain printable ASCII.
    if raw.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
      visible = raw
      return
    }
    var out = ""
    out.reserveCapacity(raw.utf8.count)
    for scalar in raw.unicodeScalars {
      if TerminalSafeText.mustEscape(scalar) {
        out += "\\u{" + String(scalar.value, radix: 16) + "}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    visible = out
  }

  public var description: String { visible }

  /// Scalars that change how a terminal or a bidi-aware viewer shows the text around them.
  public static func mustEscape(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F: true  // C0, DEL, C1 (including CSI 0x9B)
    case 0x061C, 0x200E, 0x200F: true  // Arabic letter mark, left-to-right and right-to-left marks
    case 0x202A...0x202E, 0x2066...0x2069: true  // bidi embeddings, overrides and isolates
    case 0x2028, 0x2029: true  // line and paragraph separators
    default: false
    }
  }
}
