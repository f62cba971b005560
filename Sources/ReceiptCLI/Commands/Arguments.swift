import ReceiptFormats
import ReceiptModel

/// One option a command accepts.
package struct OptionSpec: Sendable {
  /// Long name without dashes (`format`).
  package var name: String
  /// Optional one-letter short name (`q`).
  package var short: Character?
  /// Placeholder for the value (`<format>`); nil for a flag.
  package var valueName: String?
  package var help: String
  package var repeatable: Bool
  /// The values accepted, when the set is closed.
  package var allowed: [String]?

  package init(
    _ name: String, short: Character? = nil, value: String? = nil, help: String, repeatable: Bool = false,
    allowed: [String]? = nil
  ) {
    self.name = name
    self.short = short
    self.valueName = value
    self.help = help
    self.repeatable = repeatable
    self.allowed = allowed
  }

  package var isFlag: Bool { valueName == nil }

  /// `--format <format>` as argument-parser writes it.
  package var synopsis: String {
    "--\(name)" + (valueName.map { " <\($0)>" } ?? "")
  }

  package var label: String {
    (short.map { "-\($0), " } ?? "") + synopsis
  }
}

/// A parsed command line for one subcommand.
package struct ParsedArguments: Sendable {
  package var values: [String: [String]] = [:]
  package var flags: Set<String> = []
  package var positionals: [String] = []
  /// `positionals` as the bytes given, for opening files: a name need not be UTF-8.
  package var positionalPaths: [InputPath] = []
  /// Option values as the bytes given, by option name.
  package var valuePaths: [String: [InputPath]] = [:]

  package init() {}

  package func value(_ name: String) -> String? { values[name]?.last }
  package func all(_ name: String) -> [String] { values[name] ?? [] }
  package func flag(_ name: String) -> Bool { flags.contains(name) }
  /// Every value of a repeatable option that names a file.
  package func allPaths(_ name: String) -> [InputPath] { valuePaths[name] ?? [] }
}

/// Splits arguments the way swift-argument-parser does: `--name value`, `--name=value`,
/// `-x`, a lone `-` is a positional (standard input), and `--` ends the options.
package enum ArgumentParsing {
  /// - Parameters:
  ///   - args: the arguments after the subcommand's name.
  ///   - raw: the bytes of each argument that is not valid UTF-8, by index into `args` (whose text is
  ///     then only for messages); file names are kept as these bytes.
  ///   - options: the options the subcommand accepts.
  ///   - command: the subcommand, for usage errors.
  /// - Returns: the options, flags and positionals.
  /// - Throws: a usage error for an unknown option or a bad value.
  package static func parse(
    _ args: [String], raw: [Int: [UInt8]] = [:], options: [OptionSpec], command: String
  ) throws(ReceiptToolError) -> ParsedArguments {
    var result = ParsedArguments()
    var i = 0
    var optionsEnded = false
    func path(_ index: Int) -> InputPath { raw[index].map(InputPath.init(bytes:)) ?? InputPath(args[index]) }
    while i < args.count {
      let arg = args[i]
      i += 1
      if optionsEnded || arg == "-" || !arg.hasPrefix("-") {
        result.positionals.append(arg)
        result.positionalPaths.append(path(i - 1))
        continue
      }
      if arg == "--" {
        optionsEnded = true
        continue
      }
      var name: String
      var inlineValue: String?
      let spec: OptionSpec?
      if arg.hasPrefix("--") {
        let body = arg.dropFirst(2)
        if let eq = body.firstIndex(of: "=") {
          name = String(body[..<eq])
          inlineValue = String(body[body.index(after: eq)...])
        } else {
          name = String(body)
        }
        spec = options.first { $0.name == name }
      } else {
        let letters = arg.dropFirst()
        guard letters.count == 1, let c = letters.first else {
          throw .usage("Unknown option '\(arg)'.", command: command)
        }
        spec = options.first { $0.short == c }
        name = spec?.name ?? String(c)
      }
      guard let spec else {
        let suggestion = closest(to: name, among: options.map(\.name)).map { " Did you mean '--\($0)'?" } ?? ""
        throw .usage(
          "Unknown option '\(arg.split(separator: "=", maxSplits: 1).first.map(String.init) ?? arg)'.\(suggestion)",
          command: command)
      }
      name = spec.name
      if spec.isFlag {
        if inlineValue != nil {
          throw .usage("The option '--\(name)' does not take a value.", command: command)
        }
        result.flags.insert(name)
        continue
      }
      let value: String
      let valuePath: InputPath
      if let inlineValue {
        value = inlineValue
        let prefix = Array("--\(name)=".utf8)
        valuePath = raw[i - 1].map { InputPath(bytes: Array($0.dropFirst(prefix.count))) } ?? InputPath(value)
      } else {
        guard i < args.count else {
          throw .usage("Missing value for '\(spec.synopsis)'.", command: command)
        }
        value = args[i]
        valuePath = path(i)
        i += 1
      }
      if let allowed = spec.allowed, !allowed.contains(value) {
        throw .usage(
          "The value '\(value)' is invalid for '\(spec.synopsis)'. Please provide one of \(Excerpt.listed(allowed)).",
          command: command)
      }
      if !spec.repeatable, result.values[name] != nil {
        throw .usage("The option '--\(name)' was given more than once.", command: command)
      }
      result.values[name, default: []].append(value)
      result.valuePaths[name, default: []].append(valuePath)
    }
    return result
  }

  /// The candidate within edit distance 2 (or sharing a long prefix), if any.
  package static func closest(to word: String, among candidates: [String]) -> String? {
    var best: (String, Int)?
    for c in candidates {
      let d = editDistance(word, c)
      if d <= max(2, word.count / 3), best == nil || d < best?.1 ?? Int.max { best = (c, d) }
    }
    return best?.0
  }

  static func editDistance(_ a: String, _ b: String) -> Int {
    let x = Array(a.prefix(64))
    let y = Array(b.prefix(64))
    if x.isEmpty { return y.count }
    if y.isEmpty { return x.count }
    var previous = Array(0...y.count)
    var current = [Int](repeating: 0, count: y.count + 1)
    for i in 1...x.count {
      current[0] = i
      for j in 1...y.count {
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
      }
      swap(&previous, &current)
    }
    return previous[y.count]
  }
}
