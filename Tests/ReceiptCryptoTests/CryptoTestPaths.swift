import Foundation
import ReceiptTestSupport

/// Paths the crypto tests read: their fixtures and ../shared's signature vectors, through `TestPaths` (which
/// finds the package root and honours `RECEIPT_TOOL_HIDE_SHARED=1`).
enum CryptoTestPaths {
  static let fixtures = TestPaths.packageRoot.appendingPathComponent("Tests/ReceiptCryptoTests/Fixtures")

  /// `../shared/reference/signatures`, or nil where ../shared is absent (as in a user's own clone) or hidden.
  static var signatures: URL? {
    guard let url = TestPaths.shared?.appendingPathComponent("reference/signatures") else { return nil }
    return FileManager.default.fileExists(atPath: url.path) ? url : nil
  }

  /// Prints why a test that needs ../shared did nothing, so a skip is never silent.
  static func noteSharedMissing(_ what: String) { TestPaths.noteSharedMissing(what) }
}
