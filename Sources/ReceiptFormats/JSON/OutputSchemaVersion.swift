/// The major version of the JSON Schemas `receipt-tool <command> --json-schema` prints. Every JSON document the
/// tool writes names it first, as `"schema_version"`, NDJSON and ledger lines included (a line may travel alone
/// through a shuffle). Within a version, changes are additive: new fields and new enum values only. Removing or
/// renaming a field, changing its type or meaning, or making a field null or absent where it was not, raises it.
public enum OutputSchemaVersion {
  /// The version written and read.
  public static let current = 1

  /// `("schema_version", 1)`, the first member of every document and line.
  public static let member: (key: String, value: JSONValue) = ("schema_version", .int(current))

  /// Writes `member` into the object being written. Inlinable: specialised in the renderers' module, it is a key
  /// and two digits rather than a generic call through the writer's witness table (about 800 instructions).
  @inlinable package static func write<W: JSONOutput>(to w: inout W) {
    w.member("schema_version", int: current)
  }
}
