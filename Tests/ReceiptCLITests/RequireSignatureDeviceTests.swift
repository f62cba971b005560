import ReceiptModel
import Testing

@testable import ReceiptCLI

/// `--require-signature` with `--device-id`: a receipt not shown to be issued to the device fails the run, even
/// when its signature verifies (a genuine receipt copied from another device); without a receipt, or without
/// `--device-id`, the device plays no part. A mismatch warns either way.
@Suite struct RequireSignatureDeviceTests {
  static func verified(_ device: DeviceCheck?) -> SignatureCheck {
    var check = SignatureCheck(.verified)
    check.device = device
    return check
  }

  static let mismatch = DeviceCheck.mismatch(deviceID: "d", receiptHash: "aa", computed: "bb")

  @Test func aReceiptNotShownToBeTheDevicesFailsTheRequirement() {
    var options = SignatureOptions()
    options.required = true
    for device in [
      Self.mismatch, .cannotCheck(deviceID: "d", missing: "device hash (type 5)"),
      .noReceipt(deviceID: "d", latestReceipt: "cut short"),
    ] {
      let review = options.review(Self.verified(device))
      #expect(review.failedChecks.count == 1, "\(device)")
      #expect(review.failedChecks.first?.contains("not shown to be issued to this device") == true)
    }
    for device in [nil, DeviceCheck.notChecked, .matches(deviceID: "d")] {
      #expect(options.review(Self.verified(device)).failedChecks.isEmpty, "\(String(describing: device))")
    }
  }

  @Test func withoutTheRequirementAMismatchOnlyWarns() {
    let options = SignatureOptions()
    let review = options.review(Self.verified(Self.mismatch))
    #expect(review.failedChecks.isEmpty)
    #expect(review.warnings == ["device: \(Self.mismatch.summary)"])
    #expect(options.review(Self.verified(.cannotCheck(deviceID: "d", missing: "x"))).warnings.isEmpty)
  }
}
