/// The one ASN.1 reader: bounded, over elements between two offsets of a buffer.
///
/// Every length is checked against the bytes that remain before anything is read; lengths take at most four
/// octets; nesting is limited to `maximumDepth`. `ASN1Rules` says whether indefinite and non-minimal lengths are
/// accepted. The end of an indefinite length is found by an iterative scan, so hostile nesting cannot exhaust the
/// stack. The app receipt decoder reads through this type too (its hot loop inlines `header`), so the element
/// loop is inlinable: another module walks elements at this module's cost.
public struct ASN1Reader: Sendable {
  /// Deeper than any receipt (the payload sits about eight levels down; a certificate about ten).
  @inlinable public static var maximumDepth: Int { 24 }

  public let bytes: [UInt8]
  /// Where the next element starts.
  @inlinable public var position: Int { cursor }
  @usableFromInline var cursor: Int
  /// One past the last byte this reader may read.
  public let limit: Int
  /// How many elements enclose this reader's range.
  public let depth: Int
  public let rules: ASN1Rules

  /// A reader over `range` of a buffer (all of it by default).
  public init(_ bytes: [UInt8], range: Range<Int>? = nil, rules: ASN1Rules, depth: Int = 0) {
    let r = range ?? 0..<bytes.count
    self.bytes = bytes
    self.cursor = max(0, min(r.lowerBound, bytes.count))
    self.limit = max(cursor, min(r.upperBound, bytes.count))
    self.depth = depth
    self.rules = rules
  }

  @inlinable public var isAtEnd: Bool { cursor >= limit }

  /// The tag of the next element without reading it.
  @inlinable public var peekTag: UInt8? { cursor < limit ? bytes[cursor] : nil }

  /// The next element, or nil at the end of the range. Indefinite lengths are read only when the rules allow
  /// them and `allowIndefinite` is true.
  @inlinable
  public mutating func next(allowIndefinite: Bool = true) throws(ASN1Error) -> ASN1Element? {
    guard cursor < limit else { return nil }
    var rules = self.rules
    rules.indefiniteLengthsAllowed = rules.indefiniteLengthsAllowed && allowIndefinite
    let element = try bytes.withUnsafeBufferPointer { (buffer) throws(ASN1Error) in
      try Self.header(buffer, at: cursor, limit: limit, rules: rules)
    }
    if element.isIndefinite {
      let found = try Self.findEnd(of: element, in: bytes, limit: limit, depth: depth)
      cursor = found.end
      return found
    }
    cursor = element.end
    return element
  }

  /// The next element, which must have `tag`; `name` describes it in errors.
  @inlinable
  public mutating func expect(
    _ tag: UInt8, _ name: String, allowIndefinite: Bool = true
  ) throws(ASN1Error) -> ASN1Element {
    let at = cursor
    guard let element = try next(allowIndefinite: allowIndefinite) else {
      throw Self.unexpected(nil, expecting: tag, name, at: at)
    }
    guard element.tag == tag else { throw Self.unexpected(element.tag, expecting: tag, name, at: at) }
    return element
  }

  /// The definite-length element at `p` of a buffer read in place, which must have `tag` and end before `limit`
  /// (`name` describes it in errors); moves `p` past it. The receipt payload's attribute reader takes this step.
  @inlinable
  public static func expect(
    _ tag: UInt8, _ name: String, in bytes: UnsafeBufferPointer<UInt8>, at p: inout Int, limit: Int,
    rules: ASN1Rules
  ) throws(ASN1Error) -> ASN1Element {
    guard p < limit else { throw unexpected(nil, expecting: tag, name, at: p) }
    let found = try header(bytes, at: p, limit: limit, rules: rules)
    guard found.tag == tag else { throw unexpected(found.tag, expecting: tag, name, at: p) }
    p = found.end
    return found
  }

  /// What `expect` says when the element at `offset` has tag `found` (nil: the enclosing element ended) where
  /// `name` with `tag` was expected.
  public static func unexpected(_ found: UInt8?, expecting tag: UInt8, _ name: String, at offset: Int) -> ASN1Error {
    let what = found.map { ASN1Tag.name($0) } ?? "the end of the enclosing element"
    return ASN1Error("expected \(name) (\(ASN1Tag.name(tag))), found \(what)", offset)
  }

  /// The next element if it has `tag`, else nil (nothing read).
  public mutating func optional(_ tag: UInt8) throws(ASN1Error) -> ASN1Element? {
    guard peekTag == tag else { return nil }
    return try next()
  }

  /// Fails unless every byte of the range was read.
  @inlinable
  public func expectEnd(_ what: String) throws(ASN1Error) {
    guard cursor >= limit else {
      throw ASN1Error("\(limit - cursor) unexpected bytes after \(what)", cursor)
    }
  }

  /// A reader over a constructed element's content, one level deeper.
  @inlinable
  public func children(of element: ASN1Element) throws(ASN1Error) -> ASN1Reader {
    guard element.isConstructed else {
      throw ASN1Error("expected a constructed element, found primitive \(ASN1Tag.name(element.tag))", element.offset)
    }
    return try contents(of: element)
  }

  /// A reader over any element's content bytes (e.g. DER held inside an OCTET STRING), one level deeper.
  @inlinable
  public func contents(of element: ASN1Element, rules: ASN1Rules? = nil) throws(ASN1Error) -> ASN1Reader {
    guard depth < Self.maximumDepth else {
      throw ASN1Error("nesting deeper than \(Self.maximumDepth) levels", element.offset)
    }
    return ASN1Reader(
      bytes, range: element.contentStart..<element.contentEnd, rules: rules ?? self.rules, depth: depth + 1)
  }

  /// The content bytes of an element.
  @inlinable
  public func content(_ element: ASN1Element) -> ArraySlice<UInt8> {
    bytes[element.contentStart..<element.contentEnd]
  }

  /// The whole encoding of an element, identifier to end.
  public func encoded(_ element: ASN1Element) -> ArraySlice<UInt8> {
    bytes[element.offset..<element.end]
  }

  /// Whether an element's content octets are `expected`.
  @inlinable
  public func contentEquals(_ element: ASN1Element, _ expected: [UInt8]) -> Bool {
    element.contentLength == expected.count && content(element).elementsEqual(expected)
  }

  // MARK: The header, shared with the app receipt decoder's hot loop

  /// Reads one identifier and length at `start`; the content must fit before `limit`. An indefinite length
  /// gives an element whose end is `limit` (`findEnd` finds the real one).
  @inlinable
  public static func header(
    _ bytes: UnsafeBufferPointer<UInt8>, at start: Int, limit: Int, rules: ASN1Rules
  ) throws(ASN1Error) -> ASN1Element {
    guard start >= 0, start < limit, limit <= bytes.count else {
      throw ASN1Error("truncated: expected an element", start)
    }
    let tag = bytes[start]
    guard tag & 0x1F != 0x1F else {
      throw ASN1Error("tag 0x\(ASN1Tag.hex(tag)) uses the multi-byte tag form, which receipts never use", start)
    }
    guard start + 1 < limit else { throw ASN1Error("truncated: \(ASN1Tag.name(tag)) has no length octet", start) }
    let first = bytes[start + 1]
    var contentStart = start + 2
    let length: Int
    if first < 0x80 {
      length = Int(first)
    } else if first == 0x80 {
      guard tag & 0x20 != 0 else {
        throw ASN1Error("primitive \(ASN1Tag.name(tag)) with an indefinite length", start)
      }
      guard rules.indefiniteLengthsAllowed else {
        throw ASN1Error(
          "\(ASN1Tag.name(tag)) with an indefinite length where only definite lengths are expected", start)
      }
      return ASN1Element(
        tag: tag, offset: start, contentStart: contentStart, contentEnd: limit, end: limit, isIndefinite: true)
    } else {
      let count = Int(first & 0x7F)
      guard count <= 4 else { throw ASN1Error("length of \(count) octets is larger than any receipt", start) }
      guard count <= limit - contentStart else {
        throw ASN1Error("truncated: the length octets run past the end", start)
      }
      var value = 0
      for i in 0..<count { value = value << 8 | Int(bytes[contentStart + i]) }
      if !rules.nonMinimalLengthsAllowed, bytes[contentStart] == 0 || value < 0x80 {
        throw ASN1Error("\(ASN1Tag.name(tag)) length \(value) is not in its shortest form (DER)", start)
      }
      contentStart += count
      length = value
    }
    guard length <= limit - contentStart else {
      throw ASN1Error.declaresMore(tag, length: length, remaining: limit - contentStart, at: start)
    }
    return ASN1Element(
      tag: tag, offset: start, contentStart: contentStart, contentEnd: contentStart + length,
      end: contentStart + length, isIndefinite: false)
  }

  /// Finds the end-of-contents octets that close an indefinite-length element, walking nested elements without
  /// recursion. Nested elements may themselves be indefinite, up to the nesting limit.
  public static func findEnd(
    of element: ASN1Element, in bytes: [UInt8], limit: Int, depth: Int
  ) throws(ASN1Error) -> ASN1Element {
    try bytes.withUnsafeBufferPointer { (buffer) throws(ASN1Error) in
      var open = 1
      var p = element.contentStart
      while true {
        guard p + 1 < limit, limit <= buffer.count else {
          throw ASN1Error(
            "truncated: \(ASN1Tag.name(element.tag)) of indefinite length has no end-of-contents", element.offset)
        }
        if buffer[p] == 0 {
          guard buffer[p + 1] == 0 else { throw ASN1Error("end-of-contents with a non-zero length", p) }
          open -= 1
          p += 2
          if open == 0 {
            var found = element
            found.contentEnd = p - 2
            found.end = p
            return found
          }
          continue
        }
        let inner = try header(buffer, at: p, limit: limit, rules: .berEnvelope)
        if inner.isIndefinite {
          open += 1
          guard depth + open <= maximumDepth else {
            throw ASN1Error("nesting deeper than \(maximumDepth) levels", p)
          }
          p = inner.contentStart
        } else {
          p = inner.end
        }
      }
    }
  }

  // MARK: Every node

  /// One element of a whole-buffer walk and how many elements enclose it.
  public struct Node: Sendable, Equatable {
    public var element: ASN1Element
    public var depth: Int

    public init(element: ASN1Element, depth: Int) {
      self.element = element
      self.depth = depth
    }
  }

  /// Every element of `bytes`, outermost first, descending into constructed elements (not into OCTET or BIT
  /// STRING contents). The top level must tile the buffer exactly, as must each constructed element's content;
  /// at most `maximumNodes` nodes. Walks with an explicit stack.
  public static func nodes(
    _ bytes: [UInt8], rules: ASN1Rules, maximumNodes: Int = 1 << 16
  ) throws(ASN1Error) -> [Node] {
    var result: [Node] = []
    // Readers still being walked, innermost last.
    var stack = [ASN1Reader(bytes, rules: rules)]
    guard !bytes.isEmpty else { throw ASN1Error("empty input: no element", 0) }
    while var reader = stack.popLast() {
      guard let element = try reader.next() else { continue }
      if element.tag == 0 && !rules.indefiniteLengthsAllowed {
        throw ASN1Error("end-of-contents octets in DER", element.offset)
      }
      stack.append(reader)
      result.append(Node(element: element, depth: reader.depth))
      guard result.count <= maximumNodes else { throw ASN1Error("more than \(maximumNodes) elements", element.offset) }
      if element.isConstructed {
        stack.append(try reader.children(of: element))
      }
    }
    return result
  }
}
