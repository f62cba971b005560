import ReceiptModel

/// Input text made safe inside SVG and HTML, as element content or a quoted attribute value.
///
/// Controls and bidi overrides are first made visible as in a terminal (they are not even allowed in
/// XML), then the five markup characters become entities, so `<script>` is shown and never run.
enum MarkupText {
  static func escape(_ raw: String) -> String {
    let visible = TerminalSafeText(raw).visible
    var out = ""
    out.reserveCapacity(visible.utf8.count)
    for ch in visible.unicodeScalars {
      switch ch {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      default:
        // Noncharacters and lone surrogates cannot occur in a Swift String; U+FFFE/FFFF are not XML.
        if ch.value == 0xFFFE || ch.value == 0xFFFF {
          out += "\\u{" + String(ch.value, radix: 16) + "}"
        } else {
          out.unicodeScalars.append(ch)
        }
      }
    }
    return out
  }

  /// An id fragment: letters, digits and hyphens only (the caller's prefix never breaks an attribute).
  static func identifier(_ raw: String) -> String {
    let kept = raw.unicodeScalars.filter {
      ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "-"
    }
    let s = String(String.UnicodeScalarView(kept.prefix(40)))
    return s.first.map { $0.isLetter } == true ? s : "t" + s
  }

  /// A number of pixels with at most one decimal, e.g. `12.5`; non-finite values become 0.
  static func number(_ v: Double) -> String {
    guard v.isFinite else { return "0" }
    let clamped = min(1e9, max(-1e9, v))
    guard let tenths = Int(exactly: (clamped * 10).rounded()) else { return "0" }
    let sign = tenths < 0 ? "-" : ""
    let a = tenths.magnitude
    return a % 10 == 0 ? sign + String(a / 10) : sign + String(a / 10) + "." + String(a % 10)
  }
}
