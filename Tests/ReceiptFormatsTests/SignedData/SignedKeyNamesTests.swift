import Testing

@testable import ReceiptFormats

/// The key lists name their keys by raw value (`SignedKeyList`), not by `"\(key)"` through a mirror: each name must
/// be the case's own, in case order, the number a matcher gives mapping back to its case.
@Suite struct SignedKeyNamesTests {
  static func expectNamedByTheirCases<K: SignedKeyList>(_ type: K.Type, _ keys: SignedKeys) {
    let names = K.ordered.map(\.rawValue)
    #expect(names == K.ordered.map { "\($0)" }, "\(type)")
    #expect(names == Array(K.allCases).map(\.rawValue), "\(type)")
    #expect(keys.names == names, "\(type)")
    #expect(Set(names).count == names.count, "\(type)")
    for (i, key) in K.ordered.enumerated() { #expect(K.at(i)?.rawValue == key.rawValue, "\(type) \(i)") }
    #expect(K.at(-1) == nil && K.at(names.count) == nil, "\(type)")
  }

  @Test func everyKeyListIsNamedByItsCases() {
    Self.expectNamedByTheirCases(TransactionKey.self, TransactionKey.keys)
    Self.expectNamedByTheirCases(RenewalKey.self, RenewalKey.keys)
    Self.expectNamedByTheirCases(TransactionCommitmentKey.self, TransactionCommitmentKey.keys)
    Self.expectNamedByTheirCases(RenewalCommitmentKey.self, RenewalCommitmentKey.keys)
    Self.expectNamedByTheirCases(AppTransactionKey.self, AppTransactionKey.keys)
    Self.expectNamedByTheirCases(NotificationKey.self, NotificationKey.keys)
    Self.expectNamedByTheirCases(DataKey.self, DataKey.keys)
    Self.expectNamedByTheirCases(SummaryKey.self, SummaryKey.keys)
    Self.expectNamedByTheirCases(TokenKey.self, TokenKey.keys)
    Self.expectNamedByTheirCases(CompactJWS.HeaderKey.self, CompactJWS.HeaderKey.keys)
  }
}
