import ReceiptModel
import ReceiptRules

/// `revenue --format ledger`: one compact JSON line per transaction copy, one verdict line per document, and
/// the lines read back by `revenue --from-ledger`. Dates are milliseconds since 1970, amounts decimal strings in
/// the currency's digits.
public enum LedgerCodec {
  /// A line of the ledger: a transaction copy, a document's signature verdict, or an input the map step could
  /// not read.
  public enum Line: Hashable, Sendable {
    case record(LedgerRecord)
    case verdict(LedgerVerdict)
    case error(RevenueInputError)
  }

  /// The line, without its newline.
  /// - Parameter line: a record or an unreadable input.
  /// - Returns: compact JSON.
  public static func write(_ line: Line) -> String {
    switch line {
    case .error(let e):
      return JSONValue.object([OutputSchemaVersion.member, ("error", .string(e.message)), ("input", .string(e.input))])
        .rendered(pretty: false)
    case .verdict(let v):
      return JSONValue.object([
        OutputSchemaVersion.member, ("input", .string(v.input)), ("copy", .string(v.copy)),
        ("signature_check", RevenueSignatureVerdict.write(v.verdict, summary: false)),
      ]).rendered(pretty: false)
    case .record(let r):
      var m: [(key: String, value: JSONValue)] = [
        OutputSchemaVersion.member, ("id", .string(r.transactionID)), ("copy", .string(r.copy)),
        ("product", .string(r.productID)),
      ]
      switch r.ownership {
      case .purchased: m.append(("ownership", .string("purchased")))
      case .familyShared: m.append(("ownership", .string("family_shared")))
      case .unknown: m.append(("ownership", .string("unknown")))
      case .unrecognized(let raw): m += [("ownership", .string("unrecognized")), ("ownership_value", .string(raw))]
      }
      m.append(("quantity", .int(r.units)))
      if let d = r.purchaseDate { m.append(("purchased_ms", .int(d.milliseconds))) }
      if let d = r.refundDate { m.append(("refunded_ms", .int(d.milliseconds))) }
      if let share = r.refundShare { m.append(("refund_share", .int(share))) }
      if let d = r.refundReversedAt { m.append(("refund_reversed_ms", .int(d.milliseconds))) }
      if let d = r.signedDate { m.append(("signed_ms", .int(d.milliseconds))) }
      switch r.price {
      case .notValued: m.append(("value", .string("not_valued")))
      case .unpriced: m.append(("value", .string("unpriced")))
      case .trial(let currency):
        m.append(("value", .string("trial")))
        if let currency { m.append(("currency", .string(currency))) }
      case .paid(let money, let basis):
        m += [
          ("value", .string("paid")), ("currency", .string(money.currency)), ("price", .string(money.text)),
          ("basis", .string(basisNames.first { $0.1 == basis }?.0 ?? "catalog")),
        ]
      }
      if let s = r.paidServiceBefore { m.append(("paid_service_before_ms", .int(s))) }
      switch r.upgrade {
      case nil: break
      case .notEstimated: m.append(("upgrade", .string("not_estimated")))
      case .nothingToRefund: m.append(("upgrade", .string("nothing_to_refund")))
      case .estimated(let at, let refund):
        let currency: String
        if case .paid(let money, _) = r.price { currency = money.currency } else { currency = "" }
        m += [
          ("upgrade", .string("estimated")), ("upgraded_ms", .int(at.milliseconds)),
          ("proration_refund", .string(Money(minorUnits: refund, currency: currency).text)),
        ]
      }
      if r.duplicateRows != 0 { m.append(("duplicate_rows", .int(Int64(r.duplicateRows)))) }
      // What `CommitmentTotals` reads of a charge on a commitment plan.
      if let c = r.commitment {
        var commitment: [(key: String, value: JSONValue)] = []
        if let k = c.billingPeriodNumber { commitment.append(("period", .int(k))) }
        if let n = c.totalBillingPeriods { commitment.append(("periods", .int(n))) }
        if let price = c.price {
          commitment += [("price", .string(price.amount.text)), ("currency", .string(price.currency))]
        }
        m.append(("commitment", .object(commitment)))
      }
      // An Advanced Commerce transaction's item refunds, as `TransactionEvents.itemRefunds` reads them.
      if !r.itemRefunds.isEmpty {
        m.append(
          (
            "item_refunds",
            .array(
              r.itemRefunds.map {
                .object([
                  ("refunded_ms", .int($0.date.milliseconds)), ("amount", .string($0.amount.amount.text)),
                  ("currency", .string($0.amount.currency)),
                ])
              })
          ))
      }
      // What decides whether its money is backed (`moneyBacking`): its document's verdict, a verified chain's
      // root, and whether the signed payload states its ownership.
      if let verdict = r.evidence.verdict {
        m.append(("signature", .string(verdict.rawValue)))
        if let anchor = r.evidence.anchor { m.append(("anchor", .string(anchor.rawValue))) }
        m.append(("ownership_signed", .bool(r.evidence.ownershipSigned)))
      }
      return JSONValue.object(m).rendered(pretty: false)
    }
  }

  /// `key<TAB>line` for Hadoop streaming: the key is the transaction id (a verdict's or an error's input) as JSON
  /// escapes it (never a tab).
  /// - Parameter line: a record or an unreadable input.
  /// - Returns: the keyed line, without its newline.
  public static func writeKeyed(_ line: Line) -> String {
    let key: String
    switch line {
    case .record(let r): key = r.transactionID
    case .verdict(let v): key = v.input
    case .error(let e): key = e.input
    }
    var quoted: [UInt8] = []
    JSONValue.writeString(key, to: &quoted)
    return String(decoding: quoted.dropFirst().dropLast(), as: UTF8.self) + "\t" + write(line)
  }

  static let basisNames: [(String, TransactionValue.PriceBasis)] = [
    ("catalog", .catalogPrice), ("intro", .introPrice), ("transaction", .transactionPrice),
  ]

  /// Reads one ledger line, plain or keyed (`key<TAB>line`, the key ignored).
  /// - Parameters:
  ///   - bytes: the line.
  ///   - source: its name for messages.
  /// - Returns: what it holds.
  /// - Throws: `ReceiptError` naming the member that is not what `write` writes, or saying the line is none of
  ///   the kinds `write` writes.
  public static func read(_ bytes: [UInt8], source: String) throws(ReceiptError) -> Line {
    var body = bytes[...]
    if let first = body.first, first != UInt8(ascii: "{"), let tab = body.firstIndex(of: 0x09) {
      body = body[body.index(after: tab)...]
    }
    let root = try JSONValue.parse(Array(body), source: source)
    let reading = RevenueReportCodec.Reading(source: source)
    try reading.schemaVersion(root)
    if let message = root.member("error") {
      return .error(
        RevenueInputError(
          input: try reading.string(reading.member(root, "input", "$"), "input"),
          message: try reading.string(message, "error")))
    }
    if let check = root.member("signature_check") {
      return .verdict(
        LedgerVerdict(
          input: try reading.string(reading.member(root, "input", "$"), "input"),
          copy: try reading.string(reading.member(root, "copy", "$"), "copy"),
          verdict: try RevenueSignatureVerdict.read(check, reading: reading)))
    }
    guard case .object = root, root.member("id") != nil else {
      throw reading.fail(
        "$",
        "not a ledger line: expected a transaction (\"id\"), a document's verdict (\"signature_check\") or an unreadable input (\"error\"), found \(root.excerpt)"
      )
    }
    func string(_ key: String) throws(ReceiptError) -> String {
      try reading.string(reading.member(root, key, "$"), key)
    }
    func number(_ key: String) throws(ReceiptError) -> Int64 { try reading.count(reading.member(root, key, "$"), key) }
    func time(_ key: String) throws(ReceiptError) -> Timestamp? {
      guard root.member(key) != nil else { return nil }
      guard let t = Timestamp(milliseconds: try number(key)) else { throw reading.fail(key, "not a time") }
      return t
    }
    let ownership: Ownership
    switch try string("ownership") {
    case "purchased": ownership = .purchased
    case "family_shared": ownership = .familyShared
    case "unknown": ownership = .unknown
    case "unrecognized": ownership = .unrecognized(try string("ownership_value"))
    case let other: throw reading.fail("ownership", "unknown ownership \(Excerpt.quoted(other))")
    }
    let price: LedgerPrice
    switch try string("value") {
    case "not_valued": price = .notValued
    case "unpriced": price = .unpriced
    case "trial": price = .trial(currency: root.member("currency") == nil ? nil : try string("currency"))
    case "paid":
      let currency = try string("currency")
      let amount = try reading.money(reading.member(root, "price", "$"), "price", currency: currency)
      let name = try string("basis")
      guard let basis = basisNames.first(where: { $0.0 == name })?.1 else {
        throw reading.fail("basis", "unknown basis \(Excerpt.quoted(name))")
      }
      price = .paid(Money(minorUnits: amount, currency: currency), basis: basis)
    case let other: throw reading.fail("value", "unknown value \(Excerpt.quoted(other))")
    }
    var upgrade: LedgerUpgrade?
    if root.member("upgrade") != nil {
      switch try string("upgrade") {
      case "not_estimated": upgrade = .notEstimated
      case "nothing_to_refund": upgrade = .nothingToRefund
      case "estimated":
        guard case .paid(let money, _) = price, let at = try time("upgraded_ms") else {
          throw reading.fail("upgrade", "an estimate needs a paid price and upgraded_ms")
        }
        let refund = try reading.money(
          reading.member(root, "proration_refund", "$"), "proration_refund", currency: money.currency)
        upgrade = .estimated(at: at, refund: refund)
      case let other: throw reading.fail("upgrade", "unknown upgrade \(Excerpt.quoted(other))")
      }
    }
    var refundShare: Int64?
    if root.member("refund_share") != nil {
      let share = try number("refund_share")
      guard share <= 100_000 else { throw reading.fail("refund_share", "above 100000 (100%)") }
      refundShare = share
    }
    var duplicateRows = 0
    if root.member("duplicate_rows") != nil {
      guard let n = Int(exactly: try number("duplicate_rows")) else {
        throw reading.fail("duplicate_rows", "too large")
      }
      duplicateRows = n
    }
    var commitment: TransactionCommitment?
    if let c = root.member("commitment") {
      guard case .object = c else { throw reading.fail("commitment", "expected an object") }
      func whole(_ key: String) throws(ReceiptError) -> Int64? {
        guard let v = c.member(key) else { return nil }
        return try reading.count(v, "commitment." + key)
      }
      var read = TransactionCommitment(
        billingPeriodNumber: try whole("period"), totalBillingPeriods: try whole("periods"))
      if let p = c.member("price") {
        let text = try reading.string(p, "commitment.price")
        let currency = try reading.string(reading.member(c, "currency", "commitment"), "commitment.currency")
        // As `DecimalAmount.text` writes it: digits, a point, and a minus sign before a price below zero.
        let negative = text.hasPrefix("-")
        guard var amount = DecimalAmount(parsing: negative ? String(text.dropFirst()) : text) else {
          throw reading.fail("commitment.price", "expected a decimal amount, found \(Excerpt.quoted(text))")
        }
        if negative { amount.units = 0 &- amount.units }
        read.price = StatedPrice(amount: amount, currency: currency)
      }
      commitment = read
    }
    var itemRefunds: [ItemRefund] = []
    if let list = root.member("item_refunds") {
      for (i, v) in try reading.array(list, "item_refunds").enumerated() {
        let at = "item_refunds[\(i)]"
        guard let date = Timestamp(milliseconds: try reading.count(reading.member(v, "refunded_ms", at), at)) else {
          throw reading.fail(at + ".refunded_ms", "not a time")
        }
        let text = try reading.string(reading.member(v, "amount", at), at + ".amount")
        guard let amount = DecimalAmount(parsing: text) else {
          throw reading.fail(at + ".amount", "expected a decimal amount, found \(Excerpt.quoted(text))")
        }
        let currency = try reading.string(reading.member(v, "currency", at), at + ".currency")
        itemRefunds.append(ItemRefund(amount: StatedPrice(amount: amount, currency: currency), date: date))
      }
    }
    var evidence = MoneyEvidence.notRecorded
    if root.member("signature") != nil {
      let name = try string("signature")
      guard let verdict = SignatureCheck.Verdict(rawValue: name) else {
        throw reading.fail("signature", "unknown verdict \(Excerpt.quoted(name))")
      }
      var anchor: SignatureCheck.Anchor?
      if root.member("anchor") != nil {
        let a = try string("anchor")
        guard let known = SignatureCheck.Anchor(rawValue: a), verdict == .verified else {
          throw reading.fail(
            "anchor", "expected apple or trust-root beside a verified signature, found \(Excerpt.quoted(a))")
        }
        anchor = known
      } else if verdict == .verified {
        throw reading.fail("anchor", "a verified signature names its root: apple or trust-root")
      }
      guard case .bool(let signed) = try reading.member(root, "ownership_signed", "$") else {
        throw reading.fail("ownership_signed", "expected true or false")
      }
      evidence = MoneyEvidence(verdict: verdict, anchor: anchor, ownershipSigned: signed)
    }
    return .record(
      LedgerRecord(
        transactionID: try string("id"), copy: try string("copy"), productID: try string("product"),
        ownership: ownership, units: try number("quantity"), purchaseDate: try time("purchased_ms"),
        refundDate: try time("refunded_ms"), price: price,
        paidServiceBefore: root.member("paid_service_before_ms") == nil ? nil : try number("paid_service_before_ms"),
        upgrade: upgrade, duplicateRows: duplicateRows, refundShare: refundShare,
        refundReversedAt: try time("refund_reversed_ms"), signedDate: try time("signed_ms"), evidence: evidence,
        commitment: commitment, itemRefunds: itemRefunds))
  }
}

/// A document's signature verdict in the ledger: the map step writes one per document it read, so that the reduce
/// step and `--merge` combine the verdicts one machine combines.
public struct LedgerVerdict: Hashable, Sendable {
  /// The document's name, as its failures are named.
  public var input: String
  /// The document's content digest, as its records' `copy`: a line read twice is counted once.
  public var copy: String
  /// The document's verdict.
  public var verdict: RevenueVerdict

  /// - Parameters:
  ///   - input: The document's name.
  ///   - copy: Its content digest.
  ///   - verdict: Its verdict.
  public init(input: String, copy: String, verdict: RevenueVerdict) {
    self.input = input
    self.copy = copy
    self.verdict = verdict
  }
}
