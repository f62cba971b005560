import Foundation
import ReceiptTestSupport
import Testing

/// The installation section's static Linux build (`swift build -c release --static-swift-stdlib`): the binary
/// needs no Swift runtime library. `.ci/run` builds it (about two minutes on two cores) and names it in
/// RECEIPT_TOOL_STATIC_BINARY; elsewhere the test skips with a note. The dynamic loader's own trace
/// (`LD_DEBUG=libs`) says which libraries a run loads, with an empty LD_LIBRARY_PATH: the regular build's trace
/// shows the runtime, so the check can fail.
@Suite struct StaticBuildTests {
  /// The Swift runtime's libraries: the standard library and its overlays, Foundation, Dispatch.
  static func isSwiftRuntime(_ library: String) -> Bool {
    let name = URL(fileURLWithPath: library).lastPathComponent
    return ["libswift", "libFoundation", "libdispatch", "libBlocksRuntime", "lib_FoundationICU"].contains {
      name.hasPrefix($0)
    }
  }

  /// The libraries the loader initialises for `binary arguments`, the run's status and standard output.
  static func loadedLibraries(_ binary: String, _ arguments: [String]) throws -> (
    libraries: [String], status: Int32, stdout: String
  ) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = arguments
    process.currentDirectoryURL = TestPaths.packageRoot
    var env = ProcessInfo.processInfo.environment
    env["LD_DEBUG"] = "libs"
    env["LD_LIBRARY_PATH"] = ""
    env["NO_COLOR"] = "1"
    process.environment = env
    let out = Pipe()
    let errURL = Scratch.directory.appendingPathComponent("static-build-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let err = try FileHandle(forWritingTo: errURL)
    defer { try? FileManager.default.removeItem(at: errURL) }
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    try? err.close()
    let trace = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
    let libraries = trace.split(separator: "\n").compactMap { line -> String? in
      guard let r = line.range(of: "calling init: ") else { return nil }
      return String(line[r.upperBound...])
    }
    return (libraries, process.terminationStatus, stdout)
  }

  static let example = ["entitlements", "--format", "json", "examples/family-revoked-but-purchased.json"]

  #if os(Linux)
    /// The check sees the runtime where it is loaded: the regular build's.
    @Test func theRegularBuildLoadsTheSwiftRuntime() throws {
      let run = try Self.loadedLibraries(TestPaths.binary.path, ["--version"])
      #expect(run.status == 0)
      #expect(run.libraries.contains(where: Self.isSwiftRuntime), "\(run.libraries)")
    }

    @Test func theStaticBuildRunsWithoutTheSwiftRuntime() throws {
      guard let binary = ProcessInfo.processInfo.environment["RECEIPT_TOOL_STATIC_BINARY"], !binary.isEmpty else {
        print(
          "note: StaticBuildTests skipped: RECEIPT_TOOL_STATIC_BINARY is unset (.ci/run builds it with --static-swift-stdlib)"
        )
        return
      }
      #expect(FileManager.default.isExecutableFile(atPath: binary), "no static binary at \(binary)")
      let run = try Self.loadedLibraries(binary, Self.example)
      #expect(run.status == 0)
      #expect(!run.libraries.isEmpty, "the loader's trace named no library; LD_DEBUG may be ignored here")
      #expect(!run.libraries.contains(where: Self.isSwiftRuntime), "\(run.libraries)")
      let regular = try BinaryRunner.run(Self.example)
      #expect(run.stdout == regular.stdout)
    }
  #endif
}
