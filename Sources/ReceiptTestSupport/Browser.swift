import Foundation

/// Headless Chromium for the browser tests: where it is, running it, and reading what it drew. Every test that
/// needs it skips with `noteMissing` where it is absent.
package enum Browser {
  package static let screenshots = TestPaths.packageRoot.appendingPathComponent(".build/timeline-screenshots")

  package static var chromium: String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
      for name in ["chromium", "chromium-browser", "google-chrome"] {
        let candidate = String(directory) + "/" + name
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
      }
    }
    return nil
  }

  package static func noteMissing(_ what: String) {
    print("note: chromium is not installed (apt-get install chromium); skipping the browser test of \(what)")
  }

  /// Runs a program to its end (killed after `seconds`), returning standard output.
  package static func run(_ program: String, _ arguments: [String], seconds: Double = 120) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    let out = Scratch.directory.appendingPathComponent("timeline-out-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)  // FileHandle below fails if it could not
    defer { try? FileManager.default.removeItem(at: out) }
    let handle = try FileHandle(forWritingTo: out)
    process.standardOutput = handle
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning, Date() < deadline { usleep(50_000) }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    try? handle.close()
    return String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self)
  }

  package static func writePage(_ html: String, name: String) throws -> URL {
    let directory = Scratch.directory.appendingPathComponent("timeline-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let file = directory.appendingPathComponent(name)
    try html.write(to: file, atomically: true, encoding: .utf8)
    return file
  }

  package static func dumpDOM(_ chromium: String, _ page: URL) throws -> String {
    try run(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.absoluteString])
  }

  /// Decodes the PNG with python3's zlib (the toolchain has no PNG reader) and says whether the last
  /// `columns` pixel columns are all white, and how many non-white pixels the image has overall.
  package static func rightMargin(_ png: URL, columns: Int) throws -> String {
    let script = """
      import sys, zlib, struct
      data = open(sys.argv[1], 'rb').read()
      assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n'
      pos, idat, w, h, ctype, depth = 8, b'', 0, 0, 0, 0
      while pos < len(data):
          n, kind = struct.unpack('>I4s', data[pos:pos + 8]); body = data[pos + 8:pos + 8 + n]; pos += 12 + n
          if kind == b'IHDR': w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
          elif kind == b'IDAT': idat += body
      assert depth == 8 and ctype in (2, 6), (depth, ctype)
      bpp = 3 if ctype == 2 else 4
      raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
      for y in range(h):
          f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
          for i in range(stride):
              a = line[i - bpp] if i >= bpp else 0; b = prev[i]; c = prev[i - bpp] if i >= bpp else 0
              if f == 1: line[i] = (line[i] + a) & 255
              elif f == 2: line[i] = (line[i] + b) & 255
              elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
              elif f == 4:
                  p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                  line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
          rows.append(line); prev = line
      cols = int(sys.argv[2])
      bad = [(x, y) for y in range(h) for x in range(w - cols, w) if rows[y][x * bpp:x * bpp + 3] != b'\\xff\\xff\\xff']
      ink = sum(1 for y in range(0, h, 4) for x in range(0, w, 4) if rows[y][x * bpp:x * bpp + 3] != b'\\xff\\xff\\xff')
      verdict = 'ok' if not bad and ink > 1000 else 'FAIL'
      print(verdict + ' %dx%d, %d ink samples, right-margin non-white %s' % (w, h, ink, bad[:5]))
      """
    guard
      let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first(where: FileManager.default.isExecutableFile)
    else { return "ok (python3 absent: margin not checked)" }
    let file = Scratch.directory.appendingPathComponent("png-margin-\(UUID().uuidString).py")
    try script.write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    return try run(python, [file.path, png.path, String(columns)]).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
