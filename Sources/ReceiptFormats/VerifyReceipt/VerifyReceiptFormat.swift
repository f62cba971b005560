import ReceiptModel

/// verifyReceipt responses, App Store Server Notification v1 bodies and bare receipt objects: the
/// JSON Apple's deprecated receipt endpoint and notifications sent. One decoder reads all three in one
/// pass and tells them apart by their keys (`ReceiptDecoder`).
public struct VerifyReceiptFormat: InputFormat {
  public init() {}

  public var name: String { "verifyReceipt JSON" }

  /// Any JSON object may be one; the keys it is read by are checked as it is read.
  public func recognition(of sniff: DocumentSniff) -> Recognition {
    sniff.firstSignificantByte == UInt8(ascii: "{") ? .possible : .no
  }

  public func decode(_ bytes: [UInt8], source: String, options: DecodeOptions) throws(ReceiptError) -> PurchaseHistory {
    var history = try ReceiptDecoder.decode(
      bytes, source: source, keepSecrets: Self.keepsSecrets(options),
      pieces: ReceiptDecoder.pieces(options, reading: bytes.count))
    Self.checkBacking(&history, source: source, options: options)
    return history
  }

  public func decode(
    contentsOf buffer: UnsafeBufferPointer<UInt8>, source: String, options: DecodeOptions
  ) throws(ReceiptError) -> PurchaseHistory {
    var history = try ReceiptDecoder.decode(
      buffer: buffer, source: source, keepSecrets: Self.keepsSecrets(options),
      pieces: ReceiptDecoder.pieces(options, reading: buffer.count))
    Self.checkBacking(&history, source: source, options: options)
    return history
  }

  /// Checking signatures needs `latest_receipt` itself for a while, whether or not it is shown (asked without
  /// copying the options).
  static func keepsSecrets(_ options: DecodeOptions) -> Bool {
    options.keepSecrets || options.signatures != nil
  }

  /// With signatures checked, a body carrying `latest_receipt` gets its verdict from that signed receipt; the
  /// credential is then dropped again unless `--show-secrets` asked for it. Read without checking, such a body
  /// is not-checked rather than unsigned: nobody looked at the receipt it carries.
  static func checkBacking(_ history: inout PurchaseHistory, source: String, options: DecodeOptions) {
    guard let checking = options.signatures else {
      if history.provenance.latestReceiptLength.map({ $0 > 0 }) == true {
        history.provenance.signatureCheck = SignatureCheck(
          .notChecked, note: "latest_receipt was not checked")
        history.provenance.signatureCheck.coverage = .latestReceipt
      }
      return
    }
    if let text = history.provenance.latestReceipt {
      LatestReceiptBacking.check(
        &history, latestReceipt: text, checking: checking, device: options.deviceID, source: source)
    }
    if !checking.expectedApp.isEmpty {
      let stated = history.statedApp
      ExpectedAppCheck.apply(checking.expectedApp, to: &history.provenance.signatureCheck) { stated }
    }
    if !options.keepSecrets {
      // Read with keepSecrets for the check: neither credential stays (the shared secret was never needed).
      history.provenance.latestReceipt = nil
      history.provenance.notification?.password = nil
    }
  }
}
