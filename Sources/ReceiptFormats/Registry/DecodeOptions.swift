import ReceiptModel

/// What a caller allows a decoder to do, the same for every input format.
public struct DecodeOptions: Sendable {
  /// Keep credentials (`latest_receipt`, a shared secret) for `--show-secrets`; otherwise only their presence.
  public var keepSecrets: Bool
  /// Build the `carriedFields` (undocumented attributes) that only `decode` prints; commands that never read
  /// them skip the work. Warnings are kept either way.
  public var keepsCarriedFields: Bool
  /// Check signatures, with verifiers lent by the caller; nil reads without checking (`not-checked`).
  public var signatures: SignatureChecking?

  /// - Parameters:
  ///   - keepSecrets: keep credentials in the decoded history.
  ///   - keepsCarriedFields: build the carried fields `decode` shows.
  ///   - signatures: check signatures with these verifiers; nil reads without checking.
  public init(keepSecrets: Bool = false, keepsCarriedFields: Bool = true, signatures: SignatureChecking? = nil) {
    self.keepSecrets = keepSecrets
    self.keepsCarriedFields = keepsCarriedFields
    self.signatures = signatures
  }

  /// Other threads that may parse parts of one large document, given by the caller that owns them (the input
  /// pipeline); nil: the document is read on the calling thread alone.
  package var pieceHelpers: (any PieceHelpers)?
}
