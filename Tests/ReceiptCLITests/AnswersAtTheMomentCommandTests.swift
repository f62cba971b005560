import Foundation
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

// Issue 21: answers true at the moment asked, through the commands run in process (the rules alone are in
// ReceiptRulesTests/AnswersAtTheMomentTests.swift).

/// CLI runs of the hand-written examples, checked against hand arithmetic.
@Suite struct RevenueEventDatingTests {
  func json(_ arguments: [String]) throws -> [String: Any] {
    let result = InProcessRunner.run(arguments)
    #expect(result.status == .ok, "\(result.stderr)")
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    return try #require(object as? [String: Any])
  }

  func usd(_ report: [String: Any]) -> [String: Any]? {
    (report["currencies"] as? [[String: Any]])?.first { $0["currency"] as? String == "USD" }
  }

  /// Sold 2024-05-30 and refunded 2024-06-03: May has the sale, June the refund (and June's own sale).
  @Test func refundCountsInTheMonthItHappened() throws {
    let base = [
      "revenue", "examples/revenue-refund-next-month.json", "--catalog", "examples/revenue-catalog.json", "--format",
      "json",
    ]
    let may = try json(base + ["--from", "2024-05-01", "--to", "2024-06-01"])
    #expect(usd(may)?["gross"] as? String == "29.99")
    #expect(usd(may)?["refunds"] as? String == "0.00")
    let june = try json(base + ["--from", "2024-06-01", "--to", "2024-07-01"])
    #expect(usd(june)?["gross"] as? String == "29.99")
    #expect(usd(june)?["refunds"] as? String == "29.99")
    #expect((june["transactions"] as? [String: Any])?["refunded"] as? Int == 1)
  }

  /// Monthly parts merged equal the whole range.
  @Test func mergedMonthsEqualTheWholeRange() throws {
    let inputs = [
      "examples/revenue-refund-next-month.json", "examples/revenue-upgrade.json",
      "examples/revenue-family-purchaser.json",
    ]
    var parts: [String] = []
    let months = ["2024-01-01", "2024-02-01", "2024-03-01", "2024-04-01", "2024-05-01", "2024-06-01", "2024-07-01"]
    for (from, to) in zip(months, months.dropFirst()) {
      for input in inputs {
        let run = InProcessRunner.run([
          "revenue", input, "--catalog", "examples/revenue-catalog.json", "--commission", "standard", "--from", from,
          "--to", to, "--format", "json",
        ])
        parts.append(try InProcessRunner.temporaryFile(Array(run.stdout.utf8), name: "part.json"))
      }
    }
    let merged = InProcessRunner.run(["revenue", "--merge", "--format", "json"] + parts)
    var wholeParts: [String] = []
    for input in inputs {
      let run = InProcessRunner.run([
        "revenue", input, "--catalog", "examples/revenue-catalog.json", "--commission", "standard", "--from",
        "2024-01-01", "--to", "2024-07-01", "--format", "json",
      ])
      wholeParts.append(try InProcessRunner.temporaryFile(Array(run.stdout.utf8), name: "whole.json"))
    }
    let whole = InProcessRunner.run(["revenue", "--merge", "--format", "json"] + wholeParts).stdout
    // Per-read counts (duplicates merged) repeat in each part read from the same inputs; everything else adds up.
    func dropDuplicates(_ s: String) -> String {
      withoutPartIdentity(s).split(separator: "\n").filter { !$0.contains("duplicates_merged") }.joined(separator: "\n")
    }
    #expect(dropDuplicates(merged.stdout) == dropDuplicates(whole))
    #expect(whole.contains("\"refunds\""))
  }

  /// 9.99 for 2024-06-01 to 07-01, upgraded on 06-07: 24 of 30 days unused, 9.99 × 24 / 30 = 7.992 → 7.99.
  @Test func upgradeProrationIsAnEstimateFromDates() throws {
    let report = try json([
      "revenue", "examples/revenue-upgrade.json", "--catalog", "examples/revenue-upgrade-catalog.json", "--format",
      "json",
    ])
    let groups = try #require(usd(report)?["groups"] as? [[String: Any]])
    let pro = try #require(groups.first { $0["key"] as? String == "com.acme.pro.monthly" })
    let proration = try #require(pro["upgrade_proration"] as? [String: Any])
    #expect(proration["refunds"] as? String == "7.99")
    #expect(proration["estimated"] as? Bool == true)
    #expect(pro["refunds"] as? String == "0.00")
    #expect(pro["net"] as? String == "2.00")
    #expect(usd(report)?["net"] as? String == "21.99")
  }

  /// The estimate survives --merge, and a part claiming a proration that is not an estimate is refused.
  @Test func prorationRoundTripsThroughMerge() throws {
    let run = InProcessRunner.run([
      "revenue", "examples/revenue-upgrade.json", "--catalog", "examples/revenue-upgrade-catalog.json", "--format",
      "json",
    ])
    let part = try InProcessRunner.temporaryFile(Array(run.stdout.utf8))
    let merged = InProcessRunner.run(["revenue", "--merge", "--format", "json", part])
    #expect(withoutPartIdentity(merged.stdout) == withoutPartIdentity(run.stdout))
    let csv = InProcessRunner.run(["revenue", "--merge", "--format", "csv", part]).stdout
    #expect(csv.contains("USD,com.acme.pro.monthly,1,0,0,9.99,0.00,2.00,1,7.99,true"))
    let forged = try InProcessRunner.temporaryFile(
      Array(run.stdout.replacing("\"estimated\": true", with: "\"estimated\": false").utf8))
    #expect(InProcessRunner.run(["revenue", "--merge", forged]).status != .ok)
  }
}

/// For every subcommand that takes a moment, the answer at T on the whole history equals the answer on the
/// history cut at T (purchases, refunds and upgrades after T removed), over generated histories and moments.
/// `decode` shows the document as it is and takes no moment; `revenue` takes its moment as `--to`.
@Suite struct TimeCutPropertyTests {
  struct Generator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
  }

  /// One generated row, and what the cut needs to know about it.
  struct Row {
    var fields: [String: String]
    var bought: Int64
    var cancelled: Int64?
    /// When the purchase that upgraded it was made.
    var upgradedAt: Int64?
  }

  static let day: Int64 = 86_400_000
  static let base: Int64 = 1_672_531_200_000  // 2023-01-01
  static let dataMoment = base + 500 * day

  static func generate(seed: UInt64) -> (rows: [Row], renewals: [[String: String]]) {
    var g = Generator(state: seed)
    var rows: [Row] = []
    var renewals: [[String: String]] = []
    var nextID = 1000
    func row(
      _ product: String, _ chain: String, _ bought: Int64, _ expires: Int64?, owner: String, trial: Bool = false,
      group: String?
    ) -> Row {
      nextID += 1
      var f = [
        "quantity": "1", "product_id": product, "transaction_id": String(nextID), "original_transaction_id": chain,
        "purchase_date_ms": String(bought), "in_app_ownership_type": owner,
      ]
      if let expires {
        f["expires_date_ms"] = String(expires)
        f["is_trial_period"] = trial ? "true" : "false"
        f["is_in_intro_offer_period"] = "false"
      }
      if let group { f["subscription_group_identifier"] = group }
      return Row(fields: f, bought: bought, cancelled: nil, upgradedAt: nil)
    }
    for c in 0..<(1 + g.below(3)) {
      let (product, group) = [
        ("com.acme.pro.monthly", "21000111"), ("com.acme.photos.monthly", "21000222"),
      ][g.below(2)]
      let owner = g.chance(30) ? "FAMILY_SHARED" : "PURCHASED"
      let chain = String(9000 + c)
      var start = base + Int64(g.below(200)) * day + Int64(g.below(86_400_000))
      for period in 0..<(1 + g.below(4)) {
        let trial = period == 0 && g.chance(40)
        let length = (trial ? 7 : 30) * day
        var r = row(product, chain, start, start + length, owner: owner, trial: trial, group: group)
        if g.chance(20) { r.cancelled = start + Int64(g.below(30)) * day + 1 }
        rows.append(r)
        // An upgrade: the plan is replaced part-way through its period by the team plan, in the same chain.
        if product == "com.acme.pro.monthly", owner == "PURCHASED", g.chance(15) {
          let upgrade = start + Int64(1 + g.below(25)) * day
          rows[rows.count - 1].upgradedAt = upgrade
          rows[rows.count - 1].fields["is_upgraded"] = "true"
          rows.append(row("com.acme.team.monthly", chain, upgrade, upgrade + 30 * day, owner: owner, group: group))
          break
        }
        start += length + (g.chance(30) ? Int64(g.below(40)) * day : 0)
      }
      var renewal = [
        "original_transaction_id": chain, "product_id": product, "auto_renew_status": g.chance(50) ? "1" : "0",
      ]
      if g.chance(30) { renewal["is_in_billing_retry_period"] = "1" }
      if g.chance(20) { renewal["grace_period_expires_date_ms"] = String(start + Int64(g.below(20)) * day) }
      if g.chance(30) { renewal["expiration_intent"] = String(1 + g.below(5)) }
      renewals.append(renewal)
    }
    if g.chance(60) {
      var r = row(
        "com.acme.family.lifetime", String(nextID + 1), base + Int64(g.below(400)) * day, nil,
        owner: g.chance(50) ? "FAMILY_SHARED" : "PURCHASED", group: nil)
      if g.chance(40) { r.cancelled = r.bought + Int64(g.below(60)) * day + 5 }
      rows.append(r)
    }
    return (rows, renewals)
  }

  /// The history as it was at `time`: what the data would have said then.
  static func cut(_ rows: [Row], at time: Int64) -> [Row] {
    rows.compactMap { r in
      guard r.bought <= time else { return nil }
      var known = r
      if let c = r.cancelled, c > time { known.cancelled = nil }
      if let u = r.upgradedAt, u > time {
        known.upgradedAt = nil
        known.fields["is_upgraded"] = nil
      }
      return known
    }
  }

  static func document(_ rows: [Row], renewals: [[String: String]]) throws -> [UInt8] {
    let latest = rows.map { r -> [String: String] in
      var f = r.fields
      if let c = r.cancelled {
        f["cancellation_date_ms"] = String(c)
        f["cancellation_reason"] = "0"
      }
      return f
    }
    let doc: [String: Any] = [
      "status": 0, "environment": "Production",
      "receipt": ["bundle_id": "com.acme.app", "request_date_ms": String(dataMoment), "in_app": []],
      "latest_receipt_info": latest, "pending_renewal_info": renewals,
    ]
    return Array(try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys]))
  }

  static let catalog = """
    {"products": [
      {"product_id": "com.acme.pro.monthly", "type": "auto_renewable", "subscription_group": "21000111",
       "price": "9.99", "currency": "USD", "intro_offer": {"payment_mode": "free_trial", "period": "P1W"}},
      {"product_id": "com.acme.team.monthly", "type": "auto_renewable", "subscription_group": "21000111",
       "price": "19.99", "currency": "USD"},
      {"product_id": "com.acme.photos.monthly", "type": "auto_renewable", "subscription_group": "21000222",
       "price": "4.99", "currency": "USD", "intro_offer": {"payment_mode": "free_trial", "period": "P1W"}},
      {"product_id": "com.acme.family.lifetime", "type": "non_consumable", "price": "29.99", "currency": "USD"}
    ]}
    """

  /// Every subcommand with a moment, with and without a catalog.
  static func commands(file: String, catalog: String, time: Int64) -> [[String]] {
    let t = String(time)
    return [
      ["entitlements", file, "--as-of", t, "--format", "json", "--explain"],
      ["entitlements", file, "--as-of", t, "--format", "json", "--explain", "--catalog", catalog],
      ["intro-eligibility", file, "--as-of", t, "--format", "json"],
      ["intro-eligibility", file, "--as-of", t, "--format", "json", "--catalog", catalog],
      ["revenue", file, "--to", t, "--format", "json", "--catalog", catalog, "--commission", "standard"],
      ["revenue", file, "--to", t, "--format", "json", "--catalog", catalog, "--by", "month"],
    ]
  }

  @Test func answerAtTEqualsAnswerOnHistoryCutAtT() throws {
    let catalog = try InProcessRunner.temporaryFile(Array(Self.catalog.utf8), name: "catalog.json")
    var differences: [String] = []
    for seed in UInt64(1)...60 {
      let (rows, renewals) = Self.generate(seed: seed)
      let full = try InProcessRunner.temporaryFile(Self.document(rows, renewals: renewals), name: "receipt.json")
      var g = Generator(state: seed &* 7919)
      for _ in 0..<4 {
        let time = Self.base - 20 * Self.day + Int64(g.below(540)) * Self.day + Int64(g.below(86_400_000))
        let cut = try InProcessRunner.temporaryFile(
          Self.document(Self.cut(rows, at: time), renewals: renewals), name: "receipt.json")
        for (a, b) in zip(
          Self.commands(file: full, catalog: catalog, time: time),
          Self.commands(file: cut, catalog: catalog, time: time))
        {
          let x = InProcessRunner.run(a)
          let y = InProcessRunner.run(b)
          // A revenue part names the digest of its own input, which differs by construction here.
          let sameOut =
            withoutPartIdentity(x.stdout.replacing(full, with: "INPUT"))
            == withoutPartIdentity(y.stdout.replacing(cut, with: "INPUT"))
          if !sameOut || x.status != y.status {
            differences.append("seed \(seed), time \(time): \(a[0]) \(a.dropFirst(2).joined(separator: " "))")
          }
        }
      }
    }
    #expect(differences.isEmpty, "\(differences.count) differences, first: \(differences.prefix(5))")
  }
}

/// A `revenue --format json` report without its closing `part` identity (a digest of the inputs it was made
/// from), for comparing the figures of reports made from different inputs.
func withoutPartIdentity(_ report: String) -> String {
  guard let start = report.range(of: ",\n  \"part\": ") else { return report }
  return String(report[..<start.lowerBound]) + "\n}\n"
}
