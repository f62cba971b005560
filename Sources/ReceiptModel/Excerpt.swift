/// Short, safe excerpts of input values for messages: never more than a few dozen characters.
public enum Excerpt {
  /// The most characters of a value a message shows.
  public static let limit = 40

  /// The value cut to `limit` characters, with an ellipsis when cut.
  /// - Parameter s: The value.
  /// - Returns: The value, or its first `limit` characters and "…".
  public static func clip(_ s: String) -> String {
    s.count <= limit ? s : String(s.prefix(limit)) + "…"
  }

  /// The value in double quotes, control characters escaped, clipped to `limit`.
  public static func quoted(_ s: String) -> String {
    var out = ""
    for scalar in clip(s).unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\t": out += "\\t"
      case "\r": out += "\\r"
      default:
        if scalar.value < 0x20 || scalar.value == 0x7F {
          out += "\\u{" + String(scalar.value, radix: 16) + "}"
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return "\"" + out + "\""
  }
}

extension Excerpt {
  /// `'a', 'b' or 'c'`.
  public static func listed(_ values: [String]) -> String {
    let quoted = values.map { "'\($0)'" }
    guard quoted.count > 1 else { return quoted.first ?? "" }
    return quoted.dropLast().joined(separator: ", ") + " or " + (quoted.last ?? "")
  }
}
