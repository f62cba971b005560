import ReceiptModel

/// A parsed JSON value, for small documents (catalogs, merge inputs) where a tree is handier than a pull reader.
///
/// Numbers keep their text so that nothing passes through `Double`. Objects keep
/// every member in order, duplicates included; `member(_:)` returns the last one,
/// the rule `JSONSerialization` also follows.
public indirect enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  case number(String)
  case string(String)
  case array([JSONValue])
  case object([(key: String, value: JSONValue)])

  public static func == (a: JSONValue, b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.number(let x), .number(let y)): return x == y
    case (.string(let x), .string(let y)): return x == y
    case (.array(let x), .array(let y)): return x == y
    case (.object(let x), .object(let y)):
      return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    default: return false
    }
  }

  /// Parses a whole document.
  public static func parse(_ bytes: [UInt8], maxDepth: Int = JSONReader.defaultMaxDepth) throws -> JSONValue {
    try JSONReader.withReader(bytes, maxDepth: maxDepth) { reader in
      let value = try reader.readValue()
      try reader.finish()
      return value
    }
  }

  /// Parses a whole document, reporting syntax errors as `ReceiptError`s that name `source`.
  public static func parse(_ bytes: [UInt8], source: String) throws(ReceiptError) -> JSONValue {
    do {
      return try parse(bytes)
    } catch let e as JSONSyntaxError {
      throw .syntax(source: source, e)
    } catch {
      throw ReceiptError(.internalFailure, message: "\(error)")
    }
  }

  public var kind: JSONKind {
    switch self {
    case .null: .null
    case .bool: .bool
    case .number: .number
    case .string: .string
    case .array: .array
    case .object: .object
    }
  }

  /// The last member named `key`, if this is an object.
  public func member(_ key: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.last(where: { $0.key == key })?.value
  }

  /// The first object (depth first, in document order) where one of `keys` appears twice, as a path
  /// like `$.products[2].price`; nil when there is none. Readers that use `member(_:)` call this first,
  /// so that two values for a field they read fail instead of the last one silently winning.
  public func firstDuplicateKey(among keys: Set<String>, path: String = "$") -> String? {
    duplicateKeyPath(among: keys).map { path + $0 }
  }

  /// Where below this value the first duplicate of `keys` is (`[3].price`), written only once one is found: a
  /// path written for every value cost more than reading the catalog.
  private func duplicateKeyPath(among keys: Set<String>) -> String? {
    switch self {
    case .array(let items):
      for (i, item) in items.enumerated() {
        if let found = item.duplicateKeyPath(among: keys) { return "[\(i)]" + found }
      }
    case .object(let members):
      // An object's keys read so far, searched in turn: a catalog entry has a handful (a set allocated per
      // object cost more); from 16 on, a set.
      var seen: [String] = []
      var many: Set<String> = []
      for member in members where keys.contains(member.key) {
        if seen.count < 16 {
          if seen.contains(member.key) { return ".\(member.key)" }
          seen.append(member.key)
          if seen.count == 16 { many = Set(seen) }
        } else if !many.insert(member.key).inserted {
          return ".\(member.key)"
        }
      }
      for member in members {
        if let found = member.value.duplicateKeyPath(among: keys) { return ".\(member.key)" + found }
      }
    default: break
    }
    return nil
  }

  /// A short rendering for error messages: strings quoted, containers abbreviated, at most 40 characters.
  public var excerpt: String {
    switch self {
    case .null: return "null"
    case .bool(let b): return b ? "true" : "false"
    case .number(let n): return Excerpt.clip(n)
    case .string(let s): return Excerpt.quoted(s)
    case .array: return "an array"
    case .object: return "an object"
    }
  }
}

extension JSONReader {
  /// Reads the next value into a tree.
  public mutating func readValue() throws -> JSONValue {
    switch try peek() {
    case .object:
      try beginObject()
      var members: [(key: String, value: JSONValue)] = []
      while let key = try nextKey() {
        let name = string(key)
        members.append((name, try readValue()))
      }
      return .object(members)
    case .array:
      try beginArray()
      var elements: [JSONValue] = []
      while try nextElement() { elements.append(try readValue()) }
      return .array(elements)
    case .string: return .string(try readString())
    case .number:
      let token = try readNumberToken()
      return .number(text(token.start, token.end))
    case .bool: return .bool(try readBool())
    case .null:
      try readNull()
      return .null
    }
  }
}
