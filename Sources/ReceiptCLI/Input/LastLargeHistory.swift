import ReceiptModel

/// The history of the last large document decoded, kept from being freed once its command is done with it.
///
/// The process exits soon after its output, and freeing a large history one allocation at a time costs about
/// 1,400 instructions a transaction on one core after the answer is ready (7% of `entitlements` on a 100,000-row
/// document). The history held before is freed when the next large document starts decoding, so at most one is
/// kept past its use. Only the process's own context keeps one (`CommandContext.keepsLastLargeHistory`);
/// tests' contexts do not, so nothing outlives a test.
final class LastLargeHistory: @unchecked Sendable {
  /// Documents at least this large (bytes of input) are kept.
  static let minimumBytes = 4 << 20
  /// The process's one slot: a global, which Swift never frees at exit.
  static let process = LastLargeHistory()

  private let lock = SharedLock()
  private var held: PurchaseHistory?

  /// Frees the history held, if any, before a large document is decoded (outside the lock).
  func release() {
    let old = lock.locked { () -> PurchaseHistory? in
      defer { held = nil }
      return held
    }
    _ = old
  }

  /// How many transactions the history held has (nil: none held), for tests.
  var heldTransactions: Int? { lock.locked { held?.transactions.count } }

  /// Holds `history` until the next `release`, or the process's exit.
  func keep(_ history: PurchaseHistory) {
    let old = lock.locked { () -> PurchaseHistory? in
      defer { held = history }
      return held
    }
    _ = old
  }
}
