import Testing

@testable import ReceiptModel

/// Several documents read as one answer (`--one-customer`, revenue) show the device check that shows least.
@Suite struct DeviceCheckCombiningTests {
  static let mismatch = DeviceCheck.mismatch(deviceID: "d", receiptHash: "aa", computed: "bb")

  @Test func theWeakestCheckSpeaksAndDocumentsWithoutAReceiptAreLeftOut() {
    #expect(DeviceCheck.weakest([nil, .matches(deviceID: "d"), Self.mismatch, nil]) == Self.mismatch)
    #expect(
      DeviceCheck.weakest([.matches(deviceID: "d"), .cannotCheck(deviceID: "d", missing: "x")])
        == .cannotCheck(deviceID: "d", missing: "x"))
    #expect(DeviceCheck.weakest([.matches(deviceID: "d"), .notChecked]) == .notChecked)
    #expect(DeviceCheck.weakest([.matches(deviceID: "d"), nil]) == .matches(deviceID: "d"))
    #expect(DeviceCheck.weakest([nil, nil]) == nil)
    #expect(DeviceCheck.weakest([]) == nil)
  }

  @Test func combiningVerdictsCombinesTheirDeviceChecks() {
    var receipt = SignatureCheck(.verified)
    receipt.device = Self.mismatch
    let jws = SignatureCheck(.verified)
    var matched = SignatureCheck(.unsigned)
    matched.device = .matches(deviceID: "d")
    let combined = SignatureCheck.combining([jws, matched, receipt], none: SignatureCheck(.notChecked))
    #expect(combined.verdict == .unsigned)
    #expect(combined.device == Self.mismatch)
    #expect(SignatureCheck.combining([jws, jws], none: jws).device == nil)
  }

  @Test func onlyAMatchOrNoDeviceAskedShowsTheReceiptIsTheDevices() {
    #expect(DeviceCheck.notChecked.isShownToMatch)
    #expect(DeviceCheck.matches(deviceID: "d").isShownToMatch)
    #expect(!Self.mismatch.isShownToMatch)
    #expect(!DeviceCheck.cannotCheck(deviceID: "d", missing: "x").isShownToMatch)
    #expect(!DeviceCheck.noReceipt(deviceID: "d", latestReceipt: "cut short").isShownToMatch)
    #expect(
      DeviceCheck.noReceipt(deviceID: "d", latestReceipt: "cut short").summary
        == "cannot check device d: latest_receipt is cut short")
  }
}
