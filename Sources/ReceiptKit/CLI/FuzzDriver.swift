#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Runs one fuzz input through the JSON reader, the catalog loader and every subcommand in every output format.
/// Shared by the libFuzzer target (`receipt-tool-fuzz`) and the unit test that replays kept crashers.
public enum FuzzDriver {
  /// Properties that must hold for any input; returns the ones that failed (empty when all is well).
  /// `write` stores the bytes at `scratchPath` so the subcommands read them as a real file.
  public static func exercise(
    _ bytes: [UInt8], scratchPath: String, write: ([UInt8], String) -> Bool
  ) -> [String] {
    var problems: [String] = []

    // The tree reader: anything it accepts must re-render to text it reads back as the same tree.
    if let value = try? JSONValue.parse(bytes) {
      for pretty in [false, true] {
        let text = value.rendered(pretty: pretty)
        guard let again = try? JSONValue.parse(Array(text.utf8)) else {
          problems.append("rendered JSON does not parse again (pretty: \(pretty))")
          continue
        }
        if again != value { problems.append("rendered JSON reads back different (pretty: \(pretty))") }
      }
    }
    _ = try? CatalogLoader.load(bytes, source: "fuzz")
    _ = try? ReceiptDecoder.decode(bytes, source: "fuzz", keepSecrets: false)

    guard write(bytes, scratchPath) else { return problems }
    let null = open("/dev/null", O_WRONLY)
    guard null >= 0 else { return problems }
    defer { close(null) }
    for command in ReceiptTool.commands {
      let names = Set(command.options.map(\.name))
      let formats = command.options.first(where: { $0.name == "format" })?.allowed ?? [""]
      var fixed: [String] = []
      if names.contains("as-of") { fixed += ["--as-of", "2026-01-01T00:00:00Z"] }
      var variants: [[String]] = formats.map { $0.isEmpty ? [] : ["--format", $0] }
      if names.contains("ndjson") { variants.append(["--ndjson"]) }
      if names.contains("show-secrets") { variants.append(["--show-secrets", "--format", "json"]) }
      if names.contains("catalog") { variants.append(["--catalog", scratchPath]) }
      for (i, variant) in variants.enumerated() {
        let context = CommandContext(
          environment: Environment(variables: [:], stdoutIsTerminal: i == 0),
          stdout: OutputStream(fd: null), stderr: OutputStream(fd: null))
        let status = ReceiptTool.run(arguments: [command.name] + fixed + variant + [scratchPath], context: context)
        if status == .software || status == .usage {
          problems.append("\(command.name) \(variant.joined(separator: " ")) exited \(status.rawValue)")
        }
      }
    }
    return problems
  }
}
