import ReceiptFormats
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// The schemas' own shape, without a validator (OutputSchemaTests runs the real one where Python has jsonschema):
/// every reference resolves, every object the tool builds is closed and requires only members it lists, and the
/// enums hold every value the code can write.
@Suite struct OutputSchemaShapeTests {
  static func schema(_ command: String) throws -> JSONValue {
    try #require(OutputSchemas.schema(for: command), "no schema for \(command)")
  }

  /// Every object node under `value`, with its path in the schema.
  static func nodes(
    _ value: JSONValue, path: String = "#", into out: inout [(String, [(key: String, value: JSONValue)])]
  ) {
    switch value {
    case .object(let members):
      out.append((path, members))
      for m in members { nodes(m.value, path: path + "/" + m.key, into: &out) }
    case .array(let items):
      for (i, item) in items.enumerated() { nodes(item, path: path + "/\(i)", into: &out) }
    default: break
    }
  }

  /// The `const` values of the enum at `path` (`$defs` name, then property names).
  static func values(_ schema: JSONValue, _ path: [String]) -> [String] {
    var node = schema.member("$defs")
    for (i, key) in path.enumerated() { node = (i == 0 ? node : node?.member("properties"))?.member(key) }
    guard case .array(let choices)? = node?.member("anyOf") else { return [] }
    return choices.compactMap { if case .string(let s)? = $0.member("const") { s } else { nil } }
  }

  @Test(arguments: OutputSchemas.commands)
  func everyReferenceResolvesAndEveryObjectIsClosed(_ command: String) throws {
    let schema = try Self.schema(command)
    #expect(schema.member("$schema") == .string("https://json-schema.org/draft/2020-12/schema"))
    #expect(schema.member("$id") == .string("urn:receipt-tool:\(command):1"))
    let definitions = schema.member("$defs")
    var nodes: [(String, [(key: String, value: JSONValue)])] = []
    Self.nodes(schema, into: &nodes)
    for (path, members) in nodes {
      let node = JSONValue.object(members)
      if case .string(let ref)? = node.member("$ref") {
        let name = String(ref.dropFirst("#/$defs/".count))
        #expect(ref.hasPrefix("#/$defs/") && definitions?.member(name) != nil, "\(path): \(ref) does not resolve")
      }
      guard node.member("type") == .string("object") else { continue }
      // Open only where the source names the members (`fields`), and then said so.
      guard case .bool(false)? = node.member("additionalProperties") else {
        #expect(node.member("additionalProperties") == .bool(true), "\(path): neither closed nor said to be open")
        continue
      }
      guard case .object(let properties)? = node.member("properties"),
        case .array(let required)? = node.member("required")
      else {
        Issue.record("\(path): a closed object without properties and required")
        continue
      }
      let names = Set(properties.map(\.key))
      for case .string(let name) in required { #expect(names.contains(name), "\(path): requires unlisted \(name)") }
      // A member is described, or its definition is.
      for (name, property) in properties where property.member("$ref") == nil {
        #expect(property.member("description") != nil, "\(path)/\(name): no description")
      }
    }
  }

  /// A value added to the code's enums fails here until the schema lists it.
  @Test func theEnumsHoldEveryValueTheCodeWrites() throws {
    let entitlements = try Self.schema("entitlements")
    #expect(Self.values(entitlements, ["entitlement", "status"]) == EntitlementState.allCases.map(\.rawValue))
    #expect(Set(Self.values(entitlements, ["verdict"])) == Set(SignatureCheck.Verdict.allCases.map(\.rawValue)))
    let intro = try Self.schema("intro-eligibility")
    #expect(Set(Self.values(intro, ["product", "status"])) == Set(IntroEligibilityStatus.allCases.map(\.rawValue)))
    let decode = try Self.schema("decode")
    let types = decode.member("$defs")?.member("transaction")?.member("properties")?.member("product_type")
    let typeNames = types.map { value -> [String] in
      guard case .array(let choices)? = value.member("anyOf") else { return [] }
      return choices.compactMap { if case .string(let s)? = $0.member("const") { s } else { nil } }
    }
    #expect(typeNames == ProductType.allCases.map(\.rawValue))
  }

  /// The paragraph under `.It <macro> <value>` in the man page, as plain text: macro names dropped, `.Pq`'s
  /// parentheses and `.Fl`'s dashes written, punctuation set against its word.
  static func manParagraph(_ value: String, macro: String) throws -> String {
    let man = try String(contentsOf: TestPaths.manPage, encoding: .utf8)
    let lines = man.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let start = try #require(lines.firstIndex(of: ".It \(macro) \(value)"), "man page has no .It \(macro) \(value)")
    var words: [String] = []
    for line in lines[(start + 1)...] {
      if line.hasPrefix(".It") || line.hasPrefix(".El") { break }
      var text = line
      if text.hasPrefix(".Pq ") {
        text = "(" + text.dropFirst(4).replacingOccurrences(of: " Li ", with: " ") + ")"
      } else if text.hasPrefix(".Fl ") {
        text = "-" + text.dropFirst(4)
      } else if text.hasPrefix(".") {
        text = String(text.drop { $0 != " " }.dropFirst())
      }
      words.append(text)
    }
    var text = words.joined(separator: " ")
    for mark in [",", ".", ";", ":", ")"] { text = text.replacingOccurrences(of: " " + mark, with: mark) }
    return text
  }

  /// Each value's description is the man page's, or its first sentences (a closing parenthesis that points
  /// elsewhere in the page left out).
  static func expectDescriptionsFromTheManPage(_ schema: JSONValue, _ path: [String], macro: String) throws {
    var node = schema.member("$defs")
    for (i, key) in path.enumerated() { node = (i == 0 ? node : node?.member("properties"))?.member(key) }
    guard case .array(let choices)? = node?.member("anyOf") else {
      Issue.record("\(path) is not an enum")
      return
    }
    for choice in choices {
      guard case .string(let value)? = choice.member("const"),
        case .string(let description)? = choice.member("description")
      else { continue }
      let man = try manParagraph(value, macro: macro)
      #expect(
        man == description || man.hasPrefix(description + " ")
          || man.hasPrefix(description.dropLast() + " ("),
        "\(path) \(value): the schema says \"\(description)\", the man page \"\(man)\"")
    }
  }

  @Test func statusAndVerdictDescriptionsAreTheManPages() throws {
    try Self.expectDescriptionsFromTheManPage(try Self.schema("entitlements"), ["entitlement", "status"], macro: "Cm")
    try Self.expectDescriptionsFromTheManPage(try Self.schema("entitlements"), ["verdict"], macro: "Li")
    try Self.expectDescriptionsFromTheManPage(try Self.schema("intro-eligibility"), ["product", "status"], macro: "Li")
  }

  /// `--json-schema` prints the schema and reads no input.
  @Test func theOptionPrintsTheSchemaWithoutReadingInput() throws {
    let run = InProcessRunner.run(["revenue", "--json-schema", "/nonexistent/file.json"])
    #expect(run.status == .ok)
    #expect(run.stdout == (try Self.schema("revenue")).rendered() + "\n")
    #expect(InProcessRunner.run(["timeline", "--json-schema"]).status.rawValue == 64)
  }
}
