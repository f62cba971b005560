import ReceiptFormats

/// The JSON Schema of each command's JSON output, by command, and the option that prints it.
package enum OutputSchemas {
  /// The schema of `command`'s JSON output; nil for a command without one (timeline).
  package static func schema(for command: String) -> JSONValue? {
    switch command {
    case "decode": DecodeSchema.schema
    case "entitlements": EntitlementsSchema.schema
    case "intro-eligibility": IntroEligibilitySchema.schema
    case "revenue": RevenueSchema.schema
    default: nil
    }
  }

  /// The commands with a schema.
  package static let commands = ["decode", "entitlements", "intro-eligibility", "revenue"]

  /// `--json-schema`.
  package static let option = OptionSpec(
    "json-schema",
    help:
      "Print the JSON output's schema and exit (no input is read): JSON Schema draft 2020-12, for this version. Every JSON document and line names its major version in schema_version."
  )
}
