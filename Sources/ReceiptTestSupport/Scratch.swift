import Foundation

/// One scratch directory per test (or fuzz) process, removed when the process exits, so runs leave nothing
/// behind in the system's temporary directory however many files the tests write.
package enum Scratch {
  /// `<tmp>/receipt-tool-tests-<pid>`, created on first use.
  package static let directory: URL = {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("receipt-tool-tests-\(getpid())")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    removalPath = dir.path
    atexit {
      if let path = Scratch.removalPath { try? FileManager.default.removeItem(atPath: path) }
    }
    return dir
  }()

  nonisolated(unsafe) private static var removalPath: String?

  /// A fresh path in the scratch directory, named `prefix-<uuid>suffix`.
  package static func path(_ prefix: String, suffix: String = "") -> URL {
    directory.appendingPathComponent("\(prefix)-\(UUID().uuidString)\(suffix)")
  }

  /// A sparse file of `size` NUL bytes in the scratch directory: no disk, no time to write.
  package static func sparseFile(size: Int64) throws -> String {
    let url = path("rt-nul", suffix: ".json")
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
    let handle = try FileHandle(forWritingTo: url)
    try handle.truncate(atOffset: UInt64(size))
    try handle.close()
    return url.path
  }
}
