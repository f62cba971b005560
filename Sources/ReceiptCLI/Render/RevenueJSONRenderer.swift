import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `revenue --format json`: amounts as decimal strings with the currency's minor digits;
/// `proceeds` only when a commission estimate was asked for. `--merge` reads this back.
package enum RevenueJSONRenderer {
  package static func render(_ report: RevenueReport) -> JSONValue {
    let currencies = report.currencies.map { c -> JSONValue in
      var members = amounts(c.total, currency: c.currency)
      members.insert(("currency", .string(c.currency)), at: 0)
      members.append(
        (
          "groups",
          .array(
            c.groups.map { g in
              .object(
                [
                  ("key", .string(g.key)), ("units", .int(g.units)), ("trials", .int(g.trials)),
                  ("refunded", .int(g.refunded)),
                ] + amounts(g, currency: c.currency))
            })
        ))
      return .object(members)
    }
    let n = report.counts
    return .object([
      ("currencies", .array(currencies)),
      (
        "transactions",
        .object([
          ("counted", .int(n.counted)),
          ("family_shared_excluded", .int(n.familySharedExcluded)),
          ("duplicates_merged", .int(n.duplicatesMerged)),
          ("refunded", .int(n.refunded)),
          ("trials", .int(n.trials)),
          ("unpriced", .int(n.unpriced)),
          ("unrecognized_ownership_excluded", .int(n.unrecognizedOwnershipExcluded)),
          ("undated_excluded", .int(n.undatedExcluded)),
        ])
      ),
      (
        "unpriced",
        .array(
          report.unpricedProducts.map { .object([("product_id", .string($0.productID)), ("units", .int($0.units))]) })
      ),
      (
        "errors",
        .array(report.errors.map { .object([("input", .string($0.input)), ("message", .string($0.message))]) })
      ),
    ])
  }

  static func amounts(_ g: RevenueGroup, currency: String) -> [(String, JSONValue)] {
    func money(_ v: Int64) -> JSONValue { .string(Money(minorUnits: v, currency: currency).text) }
    var out: [(String, JSONValue)] = [("gross", money(g.gross)), ("refunds", money(g.refunds)), ("net", money(g.net))]
    if let p = g.proceeds { out.append(("proceeds", money(p))) }
    return out
  }
}
