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
    try ReceiptDecoder.decode(bytes, source: source, options: options)
  }

  public func decode(
    contentsOf buffer: UnsafeBufferPointer<UInt8>, source: String, options: DecodeOptions
  ) throws(ReceiptError) -> PurchaseHistory {
    try ReceiptDecoder.decode(buffer: buffer, source: source, options: options)
  }
}
