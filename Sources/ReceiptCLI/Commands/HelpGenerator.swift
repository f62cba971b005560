import ReceiptFormats
import ReceiptModel

/// Help text in swift-argument-parser's layout: OVERVIEW / USAGE / ARGUMENTS / OPTIONS / SUBCOMMANDS,
/// labels indented two spaces, help text from column 26, wrapped to the terminal width.
package enum HelpGenerator {
  static let labelColumn = 26

  package static func rootHelp(commands: [CommandSpec], columns: Int) -> String {
    var out = "OVERVIEW: \(ReceiptTool.abstract)\n\n"
    for paragraph in ReceiptTool.discussion.split(separator: "\n\n").map(String.init) {
      out += TextLayout.wrap(paragraph, indent: 0, columns: columns) + "\n\n"
    }
    out += "USAGE: receipt-tool <subcommand>\n\n"
    out += "OPTIONS:\n"
    out += row("--version", "Show the version.", columns)
    out += row("-h, --help", "Show help information.", columns)
    out += row("--generate-completion-script <shell>", "Print a completion script for bash, zsh or fish.", columns)
    out += "\nSUBCOMMANDS:\n"
    for c in commands { out += row(c.name, c.abstract, columns) }
    out += row("help", "Show subcommand help information.", columns)
    out += "\n  See 'receipt-tool help <subcommand>' for detailed help.\n"
    return out
  }

  package static func commandHelp(_ c: CommandSpec, columns: Int) -> String {
    var out = "OVERVIEW: \(c.abstract)\n"
    if !c.discussion.isEmpty {
      out += "\n"
      for paragraph in c.discussion.split(separator: "\n\n").map(String.init) {
        out += TextLayout.wrap(paragraph, indent: 0, columns: columns) + "\n\n"
      }
    } else {
      out += "\n"
    }
    out += TextLayout.wrap("USAGE: \(usage(c))", indent: 7, columns: columns).dropFirst(7) + "\n\n"
    if !c.arguments.isEmpty {
      out += "ARGUMENTS:\n"
      for (label, help) in c.arguments { out += row(label, help, columns) }
      out += "\n"
    }
    out += "OPTIONS:\n"
    for o in c.options { out += row(o.label, o.help, columns) }
    out += row("--version", "Show the version.", columns)
    out += row("-h, --help", "Show help information.", columns)
    return out
  }

  /// `receipt-tool decode [<file> ...] [--format <format>] ...`
  package static func usage(_ c: CommandSpec) -> String {
    var parts = ["receipt-tool", c.name]
    if !c.arguments.isEmpty { parts.append("[<file> ...]") }
    for o in c.options {
      parts.append("[\(o.synopsis)]" + (o.repeatable ? " ..." : ""))
    }
    return parts.joined(separator: " ")
  }

  static func row(_ label: String, _ help: String, _ columns: Int) -> String {
    let padded = "  " + label
    if padded.count < labelColumn {
      let first = padded + String(repeating: " ", count: labelColumn - padded.count)
      return first + TextLayout.wrap(help, indent: labelColumn, columns: columns).dropFirst(labelColumn) + "\n"
    }
    return padded + "\n" + TextLayout.wrap(help, indent: labelColumn, columns: columns) + "\n"
  }
}
