import Foundation
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// Issue 28: the receipt's device hash (type 5) against `--device-id`. The example's hash was made by
/// examples/app-receipt/make-receipt.py (Python's hashlib) from known parts, so the Swift side is checked
/// against another implementation.
@Suite struct DeviceCheckTests {
  static let issuedTo = "3F2504E0-4F89-41D3-9A0C-0305E82C3301"

  static func check(_ file: String, device: String?) throws -> DeviceCheck? {
    let bytes = Array(try Data(contentsOf: TestPaths.packageRoot.appendingPathComponent(file)))
    var options = DecodeOptions()
    options.deviceID = device.flatMap(DeviceIdentifier.init)
    return try AppReceiptFormat().decode(bytes, source: "test", options: options).provenance.signatureCheck.device
  }

  @Test func theDeviceTheReceiptWasIssuedToMatches() throws {
    let check = try Self.check("examples/app-receipt/signed-entitlements-active.b64", device: Self.issuedTo)
    #expect(check == .matches(deviceID: Self.issuedTo))
    // Lowercase is the same UUID.
    let lower = try Self.check(
      "examples/app-receipt/signed-entitlements-active.b64", device: Self.issuedTo.lowercased())
    #expect(lower?.result == "match")
  }

  @Test func anotherDeviceIsAMismatchNamingBothHashes() throws {
    let check = try Self.check(
      "examples/app-receipt/signed-entitlements-active.b64", device: "3F2504E0-4F89-41D3-9A0C-0305E82C3302")
    guard case .mismatch(_, let receipt, let computed)? = check else {
      Issue.record("expected a mismatch, got \(String(describing: check))")
      return
    }
    #expect(receipt.count == 40 && computed.count == 40 && receipt != computed)
    #expect(check?.summary.hasPrefix("NOT issued to device") == true)
  }

  @Test func withoutADeviceIDTheHashIsNotChecked() throws {
    #expect(try Self.check("examples/app-receipt/signed-entitlements-active.b64", device: nil) == .notChecked)
  }

  @Test func aReceiptWithoutTheHashCannotBeChecked() throws {
    let check = try Self.check("examples/app-receipt/entitlements-active.b64", device: Self.issuedTo)
    #expect(check == .cannotCheck(deviceID: Self.issuedTo, missing: "device hash (type 5), opaque value (type 4)"))
  }

  @Test func identifiersAreReadAsUUIDBytesOrHex() {
    #expect(DeviceIdentifier(Self.issuedTo)?.bytes.count == 16)
    #expect(DeviceIdentifier(Self.issuedTo)?.bytes.prefix(2) == [0x3F, 0x25])
    #expect(DeviceIdentifier("00:1c:42:00:00:08")?.bytes == [0x00, 0x1C, 0x42, 0x00, 0x00, 0x08])
    for bad in ["", "zz", "abc", "3F2504E0-4F89-41D3-9A0C-0305E82C330", String(repeating: "a", count: 130)] {
      #expect(DeviceIdentifier(bad) == nil, "\(bad)")
    }
  }
}
