import ReceiptCrypto
import ReceiptModel

/// How an app receipt arrived, recognised from content alone.
public enum AppReceiptForm: Sendable, Equatable {
  /// Raw DER (or BER) PKCS#7 bytes, as in `Bundle.main.appStoreReceiptURL`.
  case der
  /// Base64 text of those bytes, with or without line breaks.
  case base64
  /// A verifyReceipt request body. The shared secret is never kept: only whether one was there.
  case verifyReceiptRequest(passwordPresent: Bool, excludeOldTransactions: Bool?)
  /// Another JSON object holding the base64 receipt in the named field (`transactionReceipt`, `receipt-data`).
  case jsonField(String)
}

/// A recognised app receipt: its DER bytes and how they were wrapped.
public struct AppReceiptInput: Sendable, Equatable {
  /// How the receipt was wrapped.
  public var form: AppReceiptForm
  /// The PKCS#7 bytes, unwrapped.
  public var der: [UInt8]

  /// What the first bytes suggest, for a format registry choosing a reader; cheap and never throws.
  public enum Sniff: Sendable, Equatable {
    case der, base64, json, legacyTransactionReceipt
  }

  /// Looks at the first bytes only (plus a bounded search for the JSON field names).
  public static func sniff(_ bytes: [UInt8]) -> Sniff? { sniff(bytes[...]) }

  /// `sniff` over the bytes where they lie (the registry's prefix), not copied; `names`, when the registry's walk
  /// found them in the same bytes, instead of a walk of its own.
  static func sniff(_ bytes: ArraySlice<UInt8>, names: QuotedNameFinds? = nil) -> Sniff? {
    bytes.withUnsafeBufferPointer { sniff(in: $0, names: names) }
  }

  /// `sniff` over the bytes in place (a sniff's prefix, borrowed or held).
  static func sniff(in bytes: UnsafeBufferPointer<UInt8>, names: QuotedNameFinds? = nil) -> Sniff? {
    let i = contentStart(bytes)
    guard i < bytes.count else { return nil }
    let left = bytes.count - i
    // SEQUENCE with an indefinite or a long-form length, then the OID tag: PKCS#7 ContentInfo.
    if left >= 3, bytes[i] == 0x30, (0x80...0x84).contains(bytes[i + 1]) { return .der }
    // Base64 of 30 8x: "MI" then A-P (the next six bits start 00xx or 10xx).
    if left >= 3, bytes[i] == UInt8(ascii: "M"), bytes[i + 1] == UInt8(ascii: "I"),
      (UInt8(ascii: "A")...UInt8(ascii: "P")).contains(bytes[i + 2])
    {
      return .base64
    }
    // Base64 of `{\n` or `{\n\t`, how the iOS 6 plist receipts begin; or the plist text itself.
    if left >= 3, bytes[i] == UInt8(ascii: "e"), bytes[i + 1] == UInt8(ascii: "w"), bytes[i + 2] == UInt8(ascii: "o") {
      return .legacyTransactionReceipt
    }
    if bytes[i] == UInt8(ascii: "{") {
      // The bytes before the object are a BOM and whitespace, which hold no quote: the walks find the same.
      let keys =
        names.flatMap(QuotedNames.init(finds:))
        ?? QuotedNames(UnsafeBufferPointer(rebasing: bytes[i..<min(bytes.count, i + (1 << 16))]))
      if keys.purchaseInfo && !keys.purchaseInfoColon { return .legacyTransactionReceipt }
      if keys.receiptData || keys.transactionReceipt { return .json }
    }
    return nil
  }

  /// Which of the quoted names the sniff decides by occur in a window: spelled as written, or, when none is, with
  /// escapes (`"receipt-\u0064ata"`, the same keys once JSON reads them).
  struct QuotedNames {
    /// `"purchase-info"` anywhere, and `"purchase-info":` (a JSON key, not the plist's `=`).
    var purchaseInfo = false
    var purchaseInfoColon = false
    var receiptData = false
    var transactionReceipt = false

    static let purchaseInfoName = Array("purchase-info".utf8)
    static let receiptDataName = Array("receipt-data".utf8)
    static let transactionReceiptName = Array("transactionReceipt".utf8)
    /// The names, for the registry's walk and for a walk of its own.
    static let names = ["purchase-info", "receipt-data", "transactionReceipt"]
    static let set = QuotedNameSet(names)

    /// From a walk of `window` for these names alone.
    init(_ window: ArraySlice<UInt8>) {
      self = window.withUnsafeBufferPointer { QuotedNames($0) }
    }

    /// From a walk of `window`, in place, for these names alone.
    init(_ window: UnsafeBufferPointer<UInt8>) {
      if let finds = Self.set.finds(in: window), let names = QuotedNames(finds: finds) { self = names }
    }

    /// From a walk that looked for these names among others; nil when it did not look for them.
    init?(finds: QuotedNameFinds) {
      guard let purchaseInfo = finds.facts(of: Self.purchaseInfoName),
        let receiptData = finds.facts(of: Self.receiptDataName),
        let transactionReceipt = finds.facts(of: Self.transactionReceiptName)
      else { return nil }
      let plainly = !purchaseInfo.union(receiptData).union(transactionReceipt).isDisjoint(with: .plain)
      let (found, thenColon): (QuotedNameFinds.Facts, QuotedNameFinds.Facts) =
        plainly ? (.plain, .plainThenColon) : (.escaped, .escapedThenColon)
      self.purchaseInfo = purchaseInfo.contains(found)
      purchaseInfoColon = purchaseInfo.contains(thenColon)
      self.receiptData = receiptData.contains(found)
      self.transactionReceipt = transactionReceipt.contains(found)
    }
  }

  /// Recognises the input and produces the DER bytes, or fails naming what the input is.
  public static func recognise(_ bytes: [UInt8]) throws(AppReceiptError) -> AppReceiptInput {
    try bytes.withUnsafeBufferPointer { (buffer) throws(AppReceiptError) in try recognise(buffer, whole: { bytes }) }
  }

  /// `recognise` over bytes in place (a mapped file): base64 text, the usual form, is decoded from them directly;
  /// `whole` gives them as an array for the forms read from one (DER, JSON).
  static func recognise(
    _ bytes: UnsafeBufferPointer<UInt8>, whole: () -> [UInt8]
  ) throws(AppReceiptError) -> AppReceiptInput {
    let start = contentStart(bytes)
    guard start < bytes.count else {
      throw AppReceiptError(.notAReceipt, offset: 0, path: [], message: "empty input: no receipt")
    }
    let first = bytes[start]
    if first == 0x30 { return AppReceiptInput(form: .der, der: whole()) }
    if first == UInt8(ascii: "{") { return try recogniseJSON(whole()) }
    if isBase64(first) {
      let der = try Base64Text.decode(bytes, path: ["base64"])
      try refuseLegacy(der, layer: "base64")
      guard let lead = der.first, lead == 0x30 else {
        throw AppReceiptError(
          .notAReceipt, offset: start, path: [],
          message: "not an app receipt: \(describe(Array(bytes[start...]))) read as base64 gives \(describe(der)), "
            + "but a PKCS#7 receipt starts with 30")
      }
      return AppReceiptInput(form: .base64, der: der)
    }
    throw AppReceiptError(
      .notAReceipt, offset: start, path: [],
      message: "not an app receipt (expected base64 text, DER bytes or a JSON body), starts with \(describe(whole()))")
  }

  /// A JSON object holding the receipt in `receipt-data` (a verifyReceipt request) or `transactionReceipt`.
  static func recogniseJSON(_ bytes: [UInt8]) throws(AppReceiptError) -> AppReceiptInput {
    try refuseLegacy(bytes, layer: nil)
    let value: JSONValue
    do {
      value = try JSONValue.parse(bytes)
    } catch let error as JSONSyntaxError {
      throw AppReceiptError(.notAReceipt, offset: error.offset, path: ["JSON"], message: error.message)
    } catch {
      throw AppReceiptError(.notAReceipt, offset: 0, path: ["JSON"], message: "not JSON")
    }
    guard case .object = value else {
      throw AppReceiptError(.notAReceipt, offset: 0, path: ["JSON"], message: "expected a JSON object")
    }
    let field: String
    let form: AppReceiptForm
    if value.member("receipt-data") != nil {
      field = "receipt-data"
      var exclude: Bool? = nil
      switch value.member("exclude-old-transactions") {
      case .bool(let b): exclude = b
      case nil, .null: exclude = nil
      case let other?:
        throw AppReceiptError(
          .badValue, offset: 0, path: ["JSON", "exclude-old-transactions"],
          message: "expected true or false, found \(other.excerpt)")
      }
      // The shared secret is dropped here: only its presence survives.
      let password: Bool
      switch value.member("password") {
      case nil, .null: password = false
      case .string(let s): password = !s.isEmpty
      default: password = true
      }
      form = .verifyReceiptRequest(passwordPresent: password, excludeOldTransactions: exclude)
    } else if value.member("transactionReceipt") != nil {
      field = "transactionReceipt"
      form = .jsonField(field)
    } else {
      throw AppReceiptError(
        .notAReceipt, offset: 0, path: ["JSON"],
        message: "a JSON object without a receipt-data or transactionReceipt field is not an app receipt")
    }
    guard case .string(let text)? = value.member(field) else {
      throw AppReceiptError(
        .badValue, offset: 0, path: ["JSON", field],
        message: "expected the base64 receipt as a string, found \(value.member(field)?.excerpt ?? "nothing")")
    }
    let der = try Base64Text.decode(Array(text.utf8), path: ["JSON", field, "base64"])
    try refuseLegacy(der, layer: field)
    guard der.first == 0x30 else {
      throw AppReceiptError(
        .notAReceipt, offset: 0, path: ["JSON", field],
        message: "the base64 text decodes to \(describe(der)), not a PKCS#7 app receipt")
    }
    return AppReceiptInput(form: form, der: der)
  }

  /// iOS 6 transaction receipts are a NeXTSTEP plist (`{ "signature" = "..."; "purchase-info" = "..."; }`).
  static func refuseLegacy(_ bytes: [UInt8], layer: String?) throws(AppReceiptError) {
    var i = 0
    while i < bytes.count, isSpace(bytes[i]) { i += 1 }
    guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return }
    let window = Array(bytes[i...].prefix(1 << 16))
    guard contains(window, "\"purchase-info\""), contains(window, "\" = \"") || contains(window, "\"=\"") else {
      return
    }
    throw AppReceiptError(
      .legacyTransactionReceipt, offset: 0, path: layer.map { [$0] } ?? [],
      message: "an iOS 6 transaction receipt (a NeXTSTEP plist with purchase-info), not an app receipt: "
        + "receipt-tool reads app receipts (PKCS#7) and verifyReceipt JSON; only Apple's deprecated verifyReceipt "
        + "endpoint reads this kind")
  }

  /// Where a receipt's bytes start: past a UTF-8 byte order mark and whitespace (`bytes.count` when nothing is left).
  /// `recognise`, `sniff` and the backing's cut-short check all start here, so they read the same first byte.
  static func contentStart(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    var start = 0
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
    while start < bytes.count, isSpace(bytes[start]) { start += 1 }
    return start
  }

  static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

  static func isBase64(_ b: UInt8) -> Bool {
    (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2B || b == 0x2F
  }

  static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
    let n = Array(needle.utf8)
    guard let head = n.first, haystack.count >= n.count else { return false }
    var i = 0
    while i + n.count <= haystack.count {
      if haystack[i] == head, haystack[i..<(i + n.count)].elementsEqual(n) { return true }
      i += 1
    }
    return false
  }

  /// `the bytes 7B 0A 09 22...` or `nothing`, for messages.
  static func describe(_ bytes: [UInt8]) -> String {
    guard !bytes.isEmpty else { return "nothing" }
    let head = bytes.prefix(4).map { DERTag.hex($0) }.joined(separator: " ")
    let printable = bytes.prefix(12).allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    if printable {
      return "the text \"\(String(decoding: bytes.prefix(12), as: UTF8.self))\(bytes.count > 12 ? "..." : "")\""
    }
    return "the bytes \(head)\(bytes.count > 4 ? "..." : "")"
  }
}

/// Base64 text as an app receipt arrives in (ReceiptCrypto's decoder with `Base64.Rules.text`: the standard
/// alphabet, whitespace anywhere, loose padding), failing with a receipt error at the offending byte.
public enum Base64Text {
  /// The decoded bytes; a character outside the alphabet is an error at its offset.
  public static func decode(_ text: [UInt8], path: [String]) throws(AppReceiptError) -> [UInt8] {
    try text.withUnsafeBufferPointer { (input) throws(AppReceiptError) in try decode(input, path: path) }
  }

  /// `decode` over text in place.
  static func decode(_ text: UnsafeBufferPointer<UInt8>, path: [String]) throws(AppReceiptError) -> [UInt8] {
    do {
      return try Base64.decode(text, rules: .text)
    } catch {
      throw AppReceiptError(.malformed, offset: error.offset, path: path, message: message(error.reason))
    }
  }

  /// What the text rules can refuse, in the receipt's words.
  static func message(_ reason: Base64Error.Reason) -> String {
    switch reason {
    case .invalidCharacter(let c):
      let shown = c >= 0x20 && c < 0x7F ? "'\(Character(UnicodeScalar(c)))'" : "byte 0x\(DERTag.hex(c))"
      return "\(shown) is not a base64 character"
    case .tooMuchPadding, .misplacedPadding, .missingPadding: return "more than two '=' padding characters"
    case .symbolAfterPadding: return "base64 text continues after '=' padding"
    case .impossibleLength, .nonZeroTrailingBits, .tooLong:
      return "base64 text ends in the middle of a byte (truncated?)"
    }
  }
}

/// The whole reading layer: bytes in, a typed payload out.
public enum AppReceiptReader {
  /// A read receipt with how it arrived.
  public struct Document: Sendable, Equatable {
    /// How the receipt was wrapped.
    public var form: AppReceiptForm
    /// What the receipt says.
    public var payload: AppReceiptPayload
    /// The PKCS#7 envelope's bytes (the base64 decoded), for signature verification.
    public var der: [UInt8]
  }

  /// Recognises the input (base64, DER, JSON wrapper) and decodes the receipt it holds.
  /// - Parameters:
  ///   - bytes: the input.
  ///   - keepsOtherAttributes: fill the payload's `otherAttributes` (false: the caller never shows them).
  /// - Returns: the receipt and how it was wrapped.
  /// - Throws: `AppReceiptError` with the byte offset and ASN.1 path where it could not be read.
  public static func read(_ bytes: [UInt8], keepsOtherAttributes: Bool = true) throws(AppReceiptError) -> Document {
    try bytes.withUnsafeBufferPointer { (buffer) throws(AppReceiptError) in
      try read(buffer, whole: { bytes }, keepsOtherAttributes: keepsOtherAttributes)
    }
  }

  /// `read` over bytes in place (see `AppReceiptInput.recognise(_:whole:)`).
  static func read(
    _ bytes: UnsafeBufferPointer<UInt8>, whole: () -> [UInt8], keepsOtherAttributes: Bool
  ) throws(AppReceiptError) -> Document {
    let input = try AppReceiptInput.recognise(bytes, whole: whole)
    return Document(
      form: input.form,
      payload: try AppReceiptPayloadDecoder.decode(der: input.der, keepsOtherAttributes: keepsOtherAttributes),
      der: input.der)
  }
}
