import Foundation
import ReceiptTestSupport
import Testing

/// The JSON contract, checked by a real validator (Python's `jsonschema`, Draft 2020-12): every schema
/// `--json-schema` prints is a valid schema, and every JSON output of the goldens, of the examples and of the
/// signed fixtures validates against its command's schema. The schemas forbid members they do not list, so a
/// field added to an output without its schema fails here, named by its path. Runs where a python imports
/// jsonschema (`.ci/run` installs it beside pyspark and exports RECEIPT_TOOL_SPARK_PYTHON); otherwise skips with
/// a note.
@Suite struct OutputSchemaTests {
  static let commands = ["decode", "entitlements", "intro-eligibility", "revenue"]

  static var python: String? {
    let env = ProcessInfo.processInfo.environment
    let candidates = [
      env["RECEIPT_TOOL_SPARK_PYTHON"] ?? "", (env["HOME"] ?? "") + "/.cache/receipt-tool-venv/bin/python",
      "/usr/bin/python3",
    ]
    return candidates.first {
      !$0.isEmpty && FileManager.default.isExecutableFile(atPath: $0)
        && (try? SparkJobTests.run($0, ["-c", "import jsonschema"], in: "/")) == 0
    }
  }

  /// Validates the manifest's instances against the schemas it names; prints one line per problem, then a count
  /// of the values checked per command; exits 1 on any problem.
  static let validator = #"""
    import json, sys
    from jsonschema import Draft202012Validator

    manifest = json.load(open(sys.argv[1]))
    validators, problems, counts = {}, [], {}
    for command, path in manifest["schemas"].items():
        schema = json.load(open(path))
        try:
            Draft202012Validator.check_schema(schema)
        except Exception as e:
            problems.append(f"{command} --json-schema: not a valid 2020-12 schema: {e}")
            continue
        validators[command] = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)

    def where(error, key=None):
        path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        return path + (f".{key}" if key is not None else "")

    def report(label, errors):
        for error in errors:
            if error.validator == "additionalProperties":
                known = error.schema.get("properties", {})
                for key in error.instance:
                    if key not in known:
                        problems.append(f"{label}: {where(error, key)}: a field without its schema "
                                        f"(add it to Sources/ReceiptCLI/Schemas)")
                continue
            # A nullable object or an enum is an anyOf: a value that is neither null nor a listed constant
            # is reported by the branches it could have matched, the object's own errors named by path.
            branches = [e for e in error.context or []
                        if not (e.validator == "type" and e.validator_value == "null")
                        and e.validator != "const"]
            if error.validator == "anyOf" and branches:
                report(label, branches)
            else:
                problems.append(f"{label}: {where(error)}: {error.message[:300]}")

    def check(command, label, value):
        counts[command] = counts.get(command, 0) + 1
        report(label, validators[command].iter_errors(value))

    for item in manifest["instances"]:
        if item["command"] not in validators:
            continue
        text = open(item["path"], encoding="utf-8").read()
        if item["lines"]:
            for n, line in enumerate(text.split("\n"), 1):
                if not line.strip():
                    continue
                if item["keyed"]:
                    line = line.split("\t", 1)[1]
                try:
                    value = json.loads(line)
                except ValueError as e:
                    problems.append(f"{item['label']}:{n}: not JSON: {e}")
                    continue
                check(item["command"], f"{item['label']}:{n}", value)
        elif text.strip():
            try:
                value = json.loads(text)
            except ValueError as e:
                problems.append(f"{item['label']}: not JSON: {e}")
                continue
            check(item["command"], item["label"], value)
    for p in problems:
        print(p)
    print("checked " + json.dumps(counts, sort_keys=True))
    sys.exit(1 if problems else 0)
    """#

  /// A JSON output to check: `command`'s schema, the text, and whether it is one value or one per line.
  struct Output {
    var command: String
    var label: String
    var text: String
    var format: String
  }

  /// `--format`'s value in `arguments`, if any.
  static func format(of arguments: [String]) -> String? {
    for (i, a) in arguments.enumerated() {
      if a.hasPrefix("--format=") { return String(a.dropFirst("--format=".count)) }
      if a == "--format", i + 1 < arguments.count { return arguments[i + 1] }
    }
    return nil
  }

  static let jsonFormats: Set<String> = ["json", "ndjson", "ledger", "keyed-ledger"]

  /// Every golden case's JSON standard output, as recorded.
  static func goldenOutputs() throws -> [Output] {
    try GoldenCLITests.caseNames.compactMap { name in
      let dir = GoldenCLITests.casesDirectory.appendingPathComponent(name)
      let arguments = GoldenCLITests.arguments(
        try String(contentsOf: dir.appendingPathComponent("cmd"), encoding: .utf8))
      guard let command = arguments.first, commands.contains(command), !arguments.contains("--json-schema"),
        let format = format(of: arguments), jsonFormats.contains(format)
      else { return nil }
      let stdout = try String(contentsOf: dir.appendingPathComponent("stdout"), encoding: .utf8)
      return Output(command: command, label: "Tests/CLITests/\(name)/stdout", text: stdout, format: format)
    }
  }

  /// The binary's output for `arguments`, labelled with them.
  static func run(_ arguments: [String]) throws -> Output? {
    let result = try BinaryRunner.run(arguments)
    guard let command = arguments.first, let format = format(of: arguments) else { return nil }
    #expect(!result.signalled, "receipt-tool crashed on \(arguments.joined(separator: " "))")
    return Output(
      command: command, label: "receipt-tool " + arguments.joined(separator: " "), text: result.stdout, format: format)
  }

  /// Each command over `files` (relative to the package root, or absolute), in every JSON format, with and
  /// without the options that add members; `extra` is given to every run (a trust root, a device id).
  static func outputs(of files: [String], extra: [String] = []) throws -> [Output] {
    guard !files.isEmpty else { return [] }
    let catalog = ["--catalog", "examples/catalog.json"]
    let runs: [[String]] = [
      ["decode", "--format", "ndjson"],
      ["decode", "--format", "json", "--show-secrets"] + catalog,
      ["decode", "--format", "json", "--one-customer"],
      ["entitlements", "--format", "ndjson"],
      ["entitlements", "--format", "json", "--explain"] + catalog,
      ["entitlements", "--format", "json", "--one-customer", "--explain"],
      ["intro-eligibility", "--format", "ndjson"] + catalog,
      ["intro-eligibility", "--format", "json"],
      ["revenue", "--format", "json", "--catalog", "examples/revenue-catalog.json", "--commission", "standard"],
      ["revenue", "--format", "ledger", "--catalog", "examples/revenue-catalog.json"],
      ["revenue", "--format", "keyed-ledger"],
    ]
    return try runs.compactMap { try run($0 + extra + files) }
  }

  /// The examples' receipts (not the catalogs, certificates and scripts beside them).
  static var exampleFiles: [String] {
    ExamplesTests.inputs.filter { file in
      !file.contains("catalog") && !file.hasSuffix(".storekit") && !file.hasSuffix(".pem")
    }.map { "examples/" + $0 }
  }

  /// Signed data: the examples' (with their test roots, so they verify), this project's self-made chains, and
  /// Apple's signed test data in ../shared when it is there.
  static func signedOutputs() throws -> [Output] {
    let fixtures = TestPaths.packageRoot.appendingPathComponent("Tests/ReceiptCryptoTests/Fixtures/chains")
    let chains = ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? [])
      .filter { $0.hasSuffix(".jws") }.sorted().map { fixtures.appendingPathComponent($0).path }
    #expect(!chains.isEmpty, "no self-made signed fixtures in \(fixtures.path)")
    var found = try outputs(of: chains)
    let storekit2 = exampleFiles.filter { $0.hasPrefix("examples/storekit2/") }
    found += try outputs(of: storekit2, extra: ["--trust-root", "examples/storekit2/test-root.pem"])
    found += try outputs(
      of: ["examples/app-receipt/signed-entitlements-active.b64", "examples/backed-entitlements-active.json"],
      extra: [
        "--trust-root", "examples/app-receipt/test-receipt-root.pem", "--device-id",
        "3F2504E0-4F89-41D3-9A0C-0305E82C3301",
      ])
    found += try outputs(
      of: ["examples/app-receipt/signed-entitlements-active.b64"], extra: ["--device-id", "00:11:22:33:44:55"])
    if let shared = TestPaths.shared {
      let signatures = shared.appendingPathComponent("reference/signatures")
      var files: [String] = []
      for folder in ["jws", "receipts"] {
        let dir = signatures.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        files += names.filter { !$0.hasPrefix("LICENSE") && !$0.hasSuffix(".der") && !$0.hasSuffix(".cer") }.sorted()
          .map { dir.appendingPathComponent($0).path }
      }
      found += try outputs(of: files)
      found += try outputs(
        of: files.filter { $0.contains("/jws/") },
        extra: ["--trust-root", signatures.appendingPathComponent("jws/testCA.der").path])
    } else {
      TestPaths.noteSharedMissing("OutputSchemaTests over Apple's signed test data")
    }
    return found
  }

  /// Runs the validator over `outputs`; nil (after a note) where no python has jsonschema.
  static func validate(_ outputs: [Output], name: String) throws -> (status: Int32, report: String)? {
    guard let python else {
      print(
        "note: OutputSchemaTests skipped: no python with jsonschema (pip install jsonschema into RECEIPT_TOOL_SPARK_PYTHON's venv; .ci/run does)"
      )
      return nil
    }
    let dir = Scratch.directory.appendingPathComponent("schemas-\(name)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    var schemas: [String: String] = [:]
    for command in commands {
      let result = try BinaryRunner.run([command, "--json-schema"])
      #expect(result.status == 0, "\(command) --json-schema: \(result.stderr)")
      let path = dir.appendingPathComponent("\(command).schema.json").path
      try result.stdout.write(toFile: path, atomically: true, encoding: .utf8)
      schemas[command] = path
    }
    var instances: [[String: Any]] = []
    for (i, output) in outputs.enumerated() {
      let path = dir.appendingPathComponent("output-\(i)").path
      try output.text.write(toFile: path, atomically: true, encoding: .utf8)
      instances.append([
        "command": output.command, "label": output.label, "path": path, "lines": output.format != "json",
        "keyed": output.format == "keyed-ledger",
      ])
    }
    let manifest = dir.appendingPathComponent("manifest.json")
    try JSONSerialization.data(withJSONObject: ["schemas": schemas, "instances": instances]).write(to: manifest)
    let script = dir.appendingPathComponent("validate.py")
    try validator.write(to: script, atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [script.path, manifest.path]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = out
    try process.run()
    let report = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, report)
  }

  /// Every command's values were checked, so the test cannot pass on nothing.
  static func expectEveryCommandChecked(_ report: String) {
    for command in commands {
      #expect(report.contains("\"\(command)\": "), "no JSON output of \(command) was checked: \(report)")
    }
  }

  @Test func everyGoldensJSONFollowsTheSchema() throws {
    guard let (status, report) = try Self.validate(try Self.goldenOutputs(), name: "goldens") else { return }
    #expect(status == 0, "\(report)")
    Self.expectEveryCommandChecked(report)
  }

  @Test func everyExamplesJSONFollowsTheSchema() throws {
    guard let (status, report) = try Self.validate(try Self.outputs(of: Self.exampleFiles), name: "examples") else {
      return
    }
    #expect(status == 0, "\(report)")
    Self.expectEveryCommandChecked(report)
  }

  @Test func everySignedFixturesJSONFollowsTheSchema() throws {
    guard let (status, report) = try Self.validate(try Self.signedOutputs(), name: "signed") else { return }
    #expect(status == 0, "\(report)")
    Self.expectEveryCommandChecked(report)
  }

  /// Other projects' fixtures in ../shared (verifyReceipt bodies, notifications, receipts): more shapes of Apple's
  /// data than the examples hold. Only where ../shared is there; the tests above hold the same property without it.
  @Test func everyPeerFixturesJSONFollowsTheSchema() throws {
    guard let shared = TestPaths.shared else {
      TestPaths.noteSharedMissing("OutputSchemaTests over ../shared/peer-fixtures")
      return
    }
    let root = shared.appendingPathComponent("peer-fixtures")
    let all = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
    let files = all.filter { path in
      var isDirectory: ObjCBool = false
      let full = root.appendingPathComponent(path).path
      return FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory) && !isDirectory.boolValue
        && !path.hasSuffix(".md") && !path.hasSuffix(".storekit")
    }.sorted().map { root.appendingPathComponent($0).path }
    #expect(!files.isEmpty)
    guard let (status, report) = try Self.validate(try Self.outputs(of: files), name: "peers") else { return }
    #expect(status == 0, "\(report)")
    Self.expectEveryCommandChecked(report)
  }

  /// The proof that the schemas are closed: a member the schema does not list fails, named by its path, in a
  /// document, a nested object and an NDJSON line.
  @Test func aFieldWithoutItsSchemaFailsNamingItsPath() throws {
    let document = try #require(
      try Self.run(["entitlements", "--format", "json", "examples/entitlements-active.json"]))
    var text = document.text.replacingOccurrences(
      of: "\"signed_items\":", with: "\"vouches_for\": \"all\", \"signed_items\":")
    text = text.replacingOccurrences(of: "\"schema_version\": 1,", with: "\"schema_version\": 1, \"added\": 1,")
    let ledger = try #require(try Self.run(["revenue", "--format", "ledger", "examples/entitlements-active.json"]))
    let line = ledger.text.replacingOccurrences(of: "\"product\":", with: "\"backed_money\":\"1.00\",\"product\":")
    guard
      let (status, report) = try Self.validate(
        [
          Output(command: "entitlements", label: "changed", text: text, format: "json"),
          Output(command: "revenue", label: "changed-ledger", text: line, format: "ledger"),
        ], name: "unlisted")
    else { return }
    #expect(status == 1)
    #expect(report.contains("changed: $.added: a field without its schema"), "\(report)")
    #expect(report.contains("changed: $.signature_check.vouches_for: a field without its schema"), "\(report)")
    #expect(report.contains("changed-ledger:1: $.backed_money: a field without its schema"), "\(report)")
  }
}
