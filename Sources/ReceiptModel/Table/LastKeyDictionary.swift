/// A dictionary that remembers where its last key was found: an accumulator that adds in runs of one key (revenue's
/// events come a product, a month, a currency at a time) finds its entry by comparing the key with the last one,
/// not by hashing it. Storage, not a rule: it answers exactly what the dictionary answers
/// (`LastKeyDictionaryTests` holds it to a plain one).
///
/// Inlinable, so that the module that uses it specialises it for its key and value: generic code called across
/// modules looks its types up at run time on every call.
public struct LastKeyDictionary<Key: Hashable, Value> {
  /// Every entry.
  @usableFromInline var entries: [Key: Value] = [:]
  /// Every entry.
  @inlinable public var elements: [Key: Value] { entries }
  /// The last key found or inserted and where it is; an insertion moves entries, so it is set again after one.
  @usableFromInline var last: (key: Key, index: [Key: Value].Index)?

  @inlinable public init() {}

  /// Where `key` is, if it is held: the last key's place when `key` equals it.
  @inlinable mutating func find(_ key: Key) -> [Key: Value].Index? {
    if let last, last.key == key { return last.index }
    guard let i = entries.index(forKey: key) else { return nil }
    last = (key, i)
    return i
  }

  /// The value of `key`, if it is held.
  @inlinable public mutating func value(of key: Key) -> Value? {
    find(key).map { entries.values[$0] }
  }

  /// Sets the value of `key` to what `body` makes of it (of `empty` when it is not held). Nothing changes when
  /// `body` throws.
  @inlinable public mutating func update<E: Error>(
    _ key: Key, empty: @autoclosure () -> Value, _ body: (Value) throws(E) -> Value
  ) throws(E) {
    if let i = find(key) {
      entries.values[i] = try body(entries.values[i])
      return
    }
    entries[key] = try body(empty())
    last = entries.index(forKey: key).map { (key, $0) }
  }
}

extension LastKeyDictionary: Sendable where Key: Sendable, Value: Sendable {}
