import ReceiptFormats

/// A small builder for JSON Schema (draft 2020-12) text: each output object is one `object(...)` call listing
/// its fields, so that a field added to an output is added here in one place (the validator test names the
/// path of a field without one).
package enum JSONSchema {
  /// One member of an object: its schema, and whether every object of its kind has it.
  package struct Field {
    package var name: String
    package var schema: JSONValue
    /// Nil: always present. Otherwise when it is present, said in the field's description.
    package var presentOnly: String?

    /// A member every object has.
    package static func always(_ name: String, _ schema: JSONValue) -> Field {
      Field(name: name, schema: schema, presentOnly: nil)
    }

    /// A member present only sometimes: `when` says when ("when the data carries Apple's status").
    package static func sometimes(_ name: String, when: String, _ schema: JSONValue) -> Field {
      Field(name: name, schema: described(schema, suffix: "Present only " + when + "."), presentOnly: when)
    }
  }

  /// An object the tool writes: every member listed, no other allowed.
  package static func object(_ description: String, _ fields: [Field]) -> JSONValue {
    .object([
      ("type", .string("object")),
      ("description", .string(description)),
      ("properties", .object(fields.map { ($0.name, $0.schema) })),
      ("required", .array(fields.filter { $0.presentOnly == nil }.map { .string($0.name) })),
      ("additionalProperties", .bool(false)),
    ])
  }

  /// An object whose members are the source's own (Apple's field names, typed as given): open.
  package static func sourceObject(_ description: String) -> JSONValue {
    .object([
      ("type", .string("object")), ("description", .string(description)), ("additionalProperties", .bool(true)),
    ])
  }

  package static func string(_ description: String) -> JSONValue {
    .object([("type", .string("string")), ("description", .string(description))])
  }

  /// A string the tool writes in a fixed shape.
  package static func string(_ description: String, pattern: String) -> JSONValue {
    .object([("type", .string("string")), ("description", .string(description)), ("pattern", .string(pattern))])
  }

  /// A whole number of at least `minimum`.
  package static func integer(_ description: String, minimum: Int? = 0) -> JSONValue {
    var members: [(key: String, value: JSONValue)] = [
      ("type", .string("integer")), ("description", .string(description)),
    ]
    if let minimum { members.append(("minimum", .int(minimum))) }
    return .object(members)
  }

  package static func boolean(_ description: String) -> JSONValue {
    .object([("type", .string("boolean")), ("description", .string(description))])
  }

  /// One value only.
  package static func constant(_ value: JSONValue, _ description: String) -> JSONValue {
    .object([("const", value), ("description", .string(description))])
  }

  /// A time in ISO 8601 UTC as `Timestamp.iso8601` writes it (`2024-06-15T00:00:00Z`, `.123` when the
  /// milliseconds are not zero). A pattern, not `format: date-time`: a date outside 1970-9999 in the data is
  /// printed as it is, which RFC 3339 cannot always spell.
  package static func date(_ description: String) -> JSONValue {
    string(
      description + " ISO 8601 UTC.",
      pattern: "^-?[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{3})?Z$")
  }

  /// A string that is one of `values`, each described; with `carried`, any other string is a value carried
  /// through from Apple's data as written, and `carried` says so.
  package static func enumeration(_ description: String, _ values: [(String, String)], carried: String? = nil)
    -> JSONValue
  {
    var choices = values.map { constant(.string($0.0), $0.1) }
    if let carried {
      choices.append(
        .object([
          ("type", .string("string")), ("description", .string("Carried through from Apple's data: " + carried)),
        ]))
    }
    return .object([("description", .string(description)), ("anyOf", .array(choices))])
  }

  package static func array(_ description: String, of items: JSONValue) -> JSONValue {
    .object([("type", .string("array")), ("description", .string(description)), ("items", items)])
  }

  /// The definition `name` of the same schema (`#/$defs/name`), with what this use of it means.
  package static func ref(_ name: String, _ description: String? = nil) -> JSONValue {
    .object([("$ref", .string("#/$defs/" + name))] + (description.map { [("description", .string($0))] } ?? []))
  }

  /// `schema`, or null.
  package static func nullable(_ schema: JSONValue, _ whenNull: String) -> JSONValue {
    guard case .object(var members) = schema else { return schema }
    if let i = members.firstIndex(where: { $0.key == "type" }), case .string(let type) = members[i].value {
      members[i].value = .array([.string(type), .string("null")])
    } else if let i = members.firstIndex(where: { $0.key == "anyOf" }), case .array(var choices) = members[i].value {
      choices.append(.object([("type", .string("null"))]))
      members[i].value = .array(choices)
    } else {
      let description = members.first { $0.key == "description" }?.value
      members = [
        ("anyOf", .array([.object(members.filter { $0.key != "description" }), .object([("type", .string("null"))])]))
      ]
      if let description { members.insert(("description", description), at: 0) }
    }
    return described(.object(members), suffix: "Null " + whenNull + ".")
  }

  /// `schema` with `suffix` added to its description.
  static func described(_ schema: JSONValue, suffix: String) -> JSONValue {
    guard case .object(var members) = schema else { return schema }
    if let i = members.firstIndex(where: { $0.key == "description" }), case .string(let text) = members[i].value {
      members[i].value = .string(text.isEmpty ? suffix : text + " " + suffix)
    } else {
      members.append(("description", .string(suffix)))
    }
    return .object(members)
  }

  /// A whole schema document: `$id` names the command and the major version, the root accepts what the command
  /// writes (`root`), and `definitions` are its objects.
  package static func document(
    command: String, title: String, description: String, root: [(key: String, value: JSONValue)],
    definitions: [(key: String, value: JSONValue)]
  ) -> JSONValue {
    .object(
      [
        ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
        ("$id", .string("urn:receipt-tool:\(command):\(OutputSchemaVersion.current)")),
        ("title", .string(title)),
        ("description", .string(description)),
      ] + root + [("$defs", .object(definitions))])
  }

  /// A root that takes a document, an array of them (`--format json` over several inputs), or the line of a
  /// document that could not be read (`--format ndjson`).
  package static func documentsRoot(_ document: String) -> [(key: String, value: JSONValue)] {
    [
      ("if", .object([("type", .string("array"))])),
      ("then", .object([("items", ref(document))])),
      (
        "else",
        .object([
          ("if", .object([("required", .array([.string("error")]))])),
          ("then", ref("failed_document")),
          ("else", ref(document)),
        ])
      ),
    ]
  }
}
