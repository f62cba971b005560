import Testing
@testable import ReceiptKit

@Suite struct TimelineDebugTests {
  @Test func show() {
    for c in [TimelineSamples.familyRevokedButPurchased, TimelineSamples.everyMark, TimelineSamples.hostile] {
      print(TimelineTextRenderer.render(c, width: 80))
      print(TimelineTextRenderer.render(c, width: 40))
    }
    print(TimelineTextRenderer.render(TimelineSamples.everyMark, width: 100, color: true))
  }
}
