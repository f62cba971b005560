import Foundation

/// Paths the crypto tests read, found from this file's location so they work from any working directory.
enum CryptoTestPaths {
  static let packageRoot: URL = {
    var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while dir.path != "/" {
      if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { return dir }
      dir = dir.deletingLastPathComponent()
    }
    return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
  }()

  static let fixtures = packageRoot.appendingPathComponent("Tests/ReceiptCryptoTests/Fixtures")

  /// `../shared/reference/signatures`, or nil where ../shared is absent (as in a user's own clone) or
  /// hidden with `RECEIPT_TOOL_HIDE_SHARED=1`.
  static var signatures: URL? {
    if ProcessInfo.processInfo.environment["RECEIPT_TOOL_HIDE_SHARED"] == "1" { return nil }
    let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/reference/signatures")
    return FileManager.default.fileExists(atPath: url.path) ? url : nil
  }

  /// Prints why a test that needs ../shared did nothing, so a skip is never silent.
  static func noteSharedMissing(_ what: String) {
    print("note: ../shared is absent (as in a user's own clone); skipping \(what)")
  }
}
