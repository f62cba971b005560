import Testing

@testable import ReceiptModel

/// `SignatureCheck` holds its values in one shared box (a copy is one retain): a change to a copy must not show in
/// the original, and equality and hashing must still go by the values, not by the box.
@Suite struct SignatureCheckStorageTests {
  static func moment() throws -> CheckedMoment {
    CheckedMoment(time: try #require(Timestamp(milliseconds: 1_595_532_771_000)), source: "signedDate")
  }

  static let certificate = SignerCertificate(
    position: "x5c[0]", commonName: "leaf", organization: "Apple Inc.", notBefore: nil, notAfter: nil,
    sha256: "00ff")

  static let failure = SignatureItemFailure(
    path: "line 2", code: "signature.mismatch", certificate: "x5c[0]", reason: "the signature does not match")

  /// One change to each stored value.
  static let edits: [(String, @Sendable (inout SignatureCheck) -> Void)] = [
    ("verdict", { $0.verdict = $0.verdict == .invalid ? .verified : .invalid }),
    ("note", { $0.note = "changed" }),
    ("signedItems", { $0.signedItems += 1 }),
    ("verifiedItems", { $0.verifiedItems += 1 }),
    ("testSignedItems", { $0.testSignedItems += 1 }),
    ("failures", { $0.failures.append(failure) }),
    ("failureCount", { $0.failureCount += 1 }),
    ("chain", { $0.chain.append(certificate) }),
    (
      "moment",
      { $0.moment = $0.moment == nil ? Timestamp(milliseconds: 0).map { CheckedMoment(time: $0, source: "now") } : nil }
    ),
    ("momentSources", { $0.momentSources.append("now") }),
    ("anchor", { $0.anchor = .trustRoot }),
    ("revocationChecked", { $0.revocationChecked.toggle() }),
    ("backing", { $0.backing = ReceiptBacking.notAReceipt("a PNG image", detail: nil) }),
    ("device", { $0.device = .matches(deviceID: "d") }),
    ("coverage", { $0.coverage = .signedTransaction }),
    ("uncoveredInAnswer", { $0.uncoveredInAnswer.append(.price) }),
  ]

  static func checks() throws -> [SignatureCheck] {
    let moment = try moment()
    var backed = SignatureCheck.notAReceipt("a PNG image", detail: "offset 4")
    backed.device = .noReceipt(deviceID: "d", latestReceipt: "a PNG image")
    return [
      SignatureCheck(.unsigned, note: "verifyReceipt JSON carries no signature"),
      .verifiedItem(chain: [certificate], moment: moment, anchor: .apple),
      .testSignedItem(chain: [certificate], moment: moment),
      .failedItem(failure, chain: [certificate], moment: moment), backed,
    ]
  }

  @Test func changingACopyLeavesTheOriginal() throws {
    // Built twice: `fresh` holds the same values in boxes of its own.
    for (original, fresh) in zip(try Self.checks(), try Self.checks()) {
      for (name, edit) in Self.edits {
        var copy = original
        edit(&copy)
        #expect(copy != original, "\(name): the change shows in the copy")
        #expect(original == fresh, "\(name): the original is unchanged")
        var again = original
        edit(&again)
        #expect(again == copy, "\(name): the same change makes equal values")
        #expect(again.hashValue == copy.hashValue, "\(name): equal values hash alike")
      }
    }
  }

  @Test func equalValuesInTwoBoxesAreEqual() throws {
    let a = try Self.checks()
    let b = try Self.checks()
    for (x, y) in zip(a, b) {
      #expect(x == y)
      #expect(x.hashValue == y.hashValue)
      #expect(Set([x, y]).count == 1)
    }
    #expect(Set(a).count == a.count)
  }

  @Test func combiningKeepsItsItemsUnchanged() throws {
    let items = try Self.checks()
    let kept = items.map(\.summary)
    var combined = SignatureCheck.combining(items, none: .unsigned("x"))
    combined.uncoveredInAnswer = [.ownership]
    #expect(combined.verdict == .invalid)
    #expect(combined.signedItems == 3)
    #expect(items.map(\.summary) == kept)
    #expect(items.allSatisfy { $0.uncoveredInAnswer.isEmpty })
  }
}
