import ReceiptModel

/// What a caller allows a decoder to do, the same for every input format.
public struct DecodeOptions: Hashable, Sendable {
  /// Keep credentials (`latest_receipt`, a shared secret) for `--show-secrets`; otherwise only their presence.
  public var keepSecrets: Bool
  /// Threads a decoder may use for one large document (1: read sequentially).
  public var threads: Int

  /// - Parameters:
  ///   - keepSecrets: keep credentials in the decoded history.
  ///   - threads: threads a decoder may use for one large document.
  public init(keepSecrets: Bool = false, threads: Int = 1) {
    self.keepSecrets = keepSecrets
    self.threads = max(1, threads)
  }
}
