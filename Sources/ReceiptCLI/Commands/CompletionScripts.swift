import ReceiptFormats
import ReceiptModel

/// Shell completion scripts, printed by `receipt-tool --generate-completion-script <shell>`.
package enum CompletionScripts {
  package static func script(for shell: String, commands: [CommandSpec]) -> String? {
    switch shell {
    case "bash": bash(commands)
    case "zsh": zsh(commands)
    case "fish": fish(commands)
    default: nil
    }
  }

  static func valueChoices(_ o: OptionSpec) -> [String]? {
    if let allowed = o.allowed { return allowed }
    return nil
  }

  static func bash(_ commands: [CommandSpec]) -> String {
    let names = commands.map(\.name).joined(separator: " ")
    var out = """
      # bash completion for receipt-tool; load with: source <(receipt-tool --generate-completion-script bash)
      # File names are split on newlines only, so names with spaces stay whole; -o filenames quotes them
      # and marks directories with a slash.
      _receipt_tool_files() {
        local IFS=$'\\n'
        COMPREPLY=($(compgen -f -- "$1"))
      }
      _receipt_tool() {
        local cur prev sub
        cur="${COMP_WORDS[COMP_CWORD]}"
        prev="${COMP_WORDS[COMP_CWORD-1]}"
        sub="${COMP_WORDS[1]}"
        if [[ $COMP_CWORD -eq 1 ]]; then
          COMPREPLY=($(compgen -W "\(names) help --help --version --generate-completion-script" -- "$cur"))
          return
        fi
        case "$sub" in

      """
    for c in commands {
      let flags = (c.options.map { "--" + $0.name } + ["--help"]).joined(separator: " ")
      out += "    \(c.name))\n"
      out += "      case \"$prev\" in\n"
      for o in c.options where !o.isFlag {
        if let choices = valueChoices(o) {
          out +=
            "        --\(o.name)) COMPREPLY=($(compgen -W \"\(choices.joined(separator: " "))\" -- \"$cur\")); return ;;\n"
        } else if o.valueName == "file" {
          out += "        --\(o.name)) _receipt_tool_files \"$cur\"; return ;;\n"
        } else {
          out += "        --\(o.name)) return ;;\n"
        }
      }
      out += "      esac\n"
      out +=
        "      if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"\(flags)\" -- \"$cur\")); else _receipt_tool_files \"$cur\"; fi\n"
      out += "      ;;\n"
    }
    out += """
          help) COMPREPLY=($(compgen -W "\(names)" -- "$cur")) ;;
          --generate-completion-script) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")) ;;
        esac
      }
      complete -o filenames -F _receipt_tool receipt-tool

      """
    return out
  }

  static func zsh(_ commands: [CommandSpec]) -> String {
    var out = """
      #compdef receipt-tool
      # zsh completion for receipt-tool; save as _receipt-tool in a directory on $fpath.
      _receipt-tool() {
        local -a subcommands
        subcommands=(

      """
    for c in commands { out += "    '\(c.name):\(zshEscape(c.abstract))'\n" }
    out += "    'help:Show subcommand help information.'\n  )\n"
    out += "  if (( CURRENT == 2 )); then\n    _describe 'subcommand' subcommands\n    return\n  fi\n"
    out += "  case $words[2] in\n"
    for c in commands {
      out += "    \(c.name))\n      _arguments \\\n"
      for o in c.options {
        let desc = zshEscape(String(o.help.prefix(60)))
        if o.isFlag {
          out += "        '\(o.repeatable ? "*" : "")--\(o.name)[\(desc)]' \\\n"
        } else if let choices = valueChoices(o) {
          out +=
            "        '\(o.repeatable ? "*" : "")--\(o.name)=[\(desc)]:\(o.valueName ?? "value"):(\(choices.joined(separator: " ")))' \\\n"
        } else {
          out += "        '\(o.repeatable ? "*" : "")--\(o.name)=[\(desc)]:\(o.valueName ?? "value"):_files' \\\n"
        }
      }
      out += "        '*:file:_files'\n      ;;\n"
    }
    out += "  esac\n}\n_receipt-tool \"$@\"\n"
    return out
  }

  static func zshEscape(_ s: String) -> String {
    s.replacing("'", with: "'\\''").replacing("[", with: "\\[")
      .replacing("]", with: "\\]").replacing(":", with: "\\:")
  }

  static func fish(_ commands: [CommandSpec]) -> String {
    let names = commands.map(\.name).joined(separator: " ")
    var out = "# fish completion for receipt-tool; save as ~/.config/fish/completions/receipt-tool.fish\n"
    out += "complete -c receipt-tool -n '__fish_use_subcommand' -l version -d 'Show the version.'\n"
    out += "complete -c receipt-tool -n '__fish_use_subcommand' -l generate-completion-script -x -a 'bash zsh fish'\n"
    for c in commands {
      out += "complete -c receipt-tool -n '__fish_use_subcommand' -f -a \(c.name) -d '\(fishEscape(c.abstract))'\n"
    }
    out += "complete -c receipt-tool -n '__fish_use_subcommand' -f -a help -d 'Show subcommand help information.'\n"
    out += "complete -c receipt-tool -n '__fish_seen_subcommand_from help' -f -a '\(names)'\n"
    for c in commands {
      for o in c.options {
        var line = "complete -c receipt-tool -n '__fish_seen_subcommand_from \(c.name)' -l \(o.name)"
        if let s = o.short { line += " -s \(s)" }
        if let choices = valueChoices(o) {
          line += " -x -a '\(choices.joined(separator: " "))'"
        } else if !o.isFlag {
          line += " -r"
        }
        line += " -d '\(fishEscape(String(o.help.prefix(60))))'"
        out += line + "\n"
      }
    }
    return out
  }

  static func fishEscape(_ s: String) -> String { s.replacing("'", with: "\\'") }
}
