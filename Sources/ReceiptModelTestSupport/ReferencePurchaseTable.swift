import ReceiptModel

/// The purchase table built the plainest way there is, straight from TABLE.md: a list per symbol kind, a
/// filter and a sort per chain and group, and every upgrade found by reading every row. PurchaseTableBuilderTests
/// holds `PurchaseTableBuilder` to it on every benchmark shape, hand-built history and fuzz seed.
package enum ReferencePurchaseTable {
  package static func table(_ history: PurchaseHistory) -> PurchaseTable {
    let all = history.transactions
    var (productIDs, chainIDs, groupIDs) = ([String](), [String](), [String]())
    func symbol(_ key: String, _ texts: inout [String]) -> Int32 {
      // Text, by its bytes (TABLE.md): "ö" and "o" with a combining diaeresis are two symbols, as two ids.
      if let found = texts.firstIndex(where: { $0.utf8.elementsEqual(key.utf8) }) { return Int32(found) }
      texts.append(key)
      return Int32(texts.count - 1)
    }
    let product = all.map { symbol($0.productID, &productIDs) }
    let chain = all.map { symbol($0.chainID, &chainIDs) }
    let group = all.map { t in t.subscriptionGroup.map { symbol($0, &groupIDs) } ?? -1 }
    let purchase = all.map(\.purchaseDate)

    /// Dated rows by (date, row), then undated rows in row order.
    func dateOrdered(_ rows: [Int]) -> [Int] {
      let dated = rows.filter { purchase[$0] != nil }.sorted {
        (purchase[$0] ?? .epoch, $0) < (purchase[$1] ?? .epoch, $1)
      }
      return dated + rows.filter { purchase[$0] == nil }
    }
    func lists(_ keys: [Int32], count: Int, ordered: ([Int]) -> [Int]) -> ([Int], [Int]) {
      var (rows, starts) = ([Int](), [0])
      for k in 0..<count {
        rows += ordered(all.indices.filter { keys[$0] == Int32(k) })
        starts.append(rows.count)
      }
      return (rows, starts)
    }
    let (chainRows, chainStarts) = lists(chain, count: chainIDs.count, ordered: dateOrdered)
    let (groupRows, groupStarts) = lists(group, count: groupIDs.count, ordered: dateOrdered)
    let (productRows, productStarts) = lists(product, count: productIDs.count) { $0 }

    // Upgrades: a row flagged by the data, or replaced inside its period by a purchase of another product of its
    // group or chain, of the same ownership; the moment is the first purchase after it in either.
    func related(_ i: Int, _ j: Int) -> Bool { chain[i] == chain[j] || (group[i] >= 0 && group[i] == group[j]) }
    let upgrade = all.indices.map { i -> UpgradeMoment? in
      let replaced =
        !all[i].isUpgraded && purchase[i] != nil && all[i].expiresDate != nil
        && all.indices.contains { j in
          guard related(i, j), let at = purchase[j], let bought = purchase[i], let expires = all[i].expiresDate
          else { return false }
          return at > bought && at < expires && product[j] != product[i] && all[j].ownership == all[i].ownership
        }
      guard all[i].isUpgraded || replaced else { return nil }
      let moment = purchase[i].flatMap { bought in
        all.indices.filter { j in
          related(i, j) && purchase[j].map { $0 > bought } == true
        }.compactMap { purchase[$0] }.min()
      }
      return UpgradeMoment(all[i].isUpgraded ? .stated : .replacedPeriod, at: moment)
    }
    return PurchaseTable(
      transactions: all, renewals: history.renewals, moment: history.moment,
      symbols: (productIDs, chainIDs, groupIDs), columns: (product, chain, group),
      dates: (TimestampColumn(purchase), TimestampColumn(all.map(\.expiresDate))), ownership: all.map(\.ownership),
      facts: (all.map(\.productType), all.map { $0.offer?.usesIntroductoryOffer ?? false }),
      revocation: SparseColumn(all.map { $0.revocation.map(RevocationMoments.init) }), upgrade: SparseColumn(upgrade),
      indexes: (chainRows, chainStarts, groupRows, groupStarts),
      products: (productRows, productStarts), latestPurchase: purchase.compactMap { $0 }.max())
  }
}
