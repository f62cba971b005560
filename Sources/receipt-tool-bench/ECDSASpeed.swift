// The `ecdsa` section (issue 31): ECDSA verifications per second on one core, beside `openssl speed`'s figure.
// Run alone with `receipt-tool-bench ecdsa`; the full benchmark runs it last.
import Foundation
import ReceiptCrypto

enum ECDSASpeed {
  /// A signature made by OpenSSL at development time (the first P-256 and P-384 lines of
  /// Tests/ReceiptCryptoTests/Fixtures/ec-signatures.txt): key 04||X||Y, SHA digest, r||s.
  struct Sample {
    let curve: ECCurve
    let opensslName: String
    let publicKey: String
    let digest: String
    let signature: String
  }

  static let samples = [
    Sample(
      curve: .p256, opensslName: "nistp256",
      publicKey: "0475b74326ccbc77af18b037921046607795c7a0d69633b26065f39ea10dd12b21"
        + "7f8173ac8cbe3f558fb180e33b167a2f9077e60be2a79f143cbe27a8328bcec5",
      digest: "60c7a126ab1365c92cc2c38a6d5e6f23b50e3a63e97cb0d11703cf5dd604f97e",
      signature: "f4ae2ff7020bb74b5e58c0b6d0022f440c3db610d499bd56a4bbaf1015ef8a76"
        + "3d895c514edb5580978519431c07d65f6f3eff7f4e436df094207bda0dba3065"),
    Sample(
      curve: .p384, opensslName: "nistp384",
      publicKey: "04efdcaf8d1b79c08fa6424b1c727514918270fdd79af4bf8baece072fe48c7f3c524cad043d55e3519f761168b0d9e2cb"
        + "21dbeb5ca34203eb609078740dcdc78afddab86a55f703fc056fe49f9b1dcd220d8cd626e2451d1177e39d20af4db2f2",
      digest: "5b1b7df361fa9abd937f1a5d68e3e0036f5b3bb5c035444669bc7b5688e76f70263d5f19ad8122aa04eecbb98d25ef21",
      signature: "61f6b9413c8e923fac67ca6d62711a2b0246de17c2842d518794c648d077e5e6282ca868d9470de0f0a9763ed2035029"
        + "9a5f9ec84ed6932dc617e8691861815c713abe114c19ef5ae76201f7bc645e01776ec4306410f00e5e27cdd22dd96e97"),
  ]

  /// Measures each curve `runs` times (interleaved with `openssl speed` when it is on PATH), prints the medians
  /// and returns the targets: at least a quarter of OpenSSL's verify rate (3,650/s for P-256 without OpenSSL).
  static func run(seconds: Double = 3, runs: Int = 3) -> [(String, Bool)] {
    let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
    print("\necdsa: verifications per second on one core, median of \(runs) runs of \(Int(seconds)) s each")
    print("(per second of the thread's CPU time, as `openssl speed` counts user time; wall-clock rate beside it)")
    var ours: [ECCurve: [(cpu: Double, wall: Double)]] = [:]
    var theirs: [ECCurve: [Double]] = [:]
    for _ in 0..<runs {
      for sample in samples {
        guard let rate = measure(sample, seconds: seconds) else {
          print("ecdsa: the \(sample.curve.name) sample does not verify; this build is broken")
          return [("ecdsa \(sample.curve.name) sample verifies", false)]
        }
        ours[sample.curve, default: []].append(rate)
      }
      if let openssl {
        for (curve, rate) in opensslVerifyRates(openssl, seconds: seconds) { theirs[curve, default: []].append(rate) }
      }
    }
    if openssl == nil { print("note: openssl not on PATH; the target falls back to issue 31's 3,650/s for P-256") }
    var targets: [(String, Bool)] = []
    print("curve        per CPU s     per wall s   | openssl speed verify/s | ratio")
    for sample in samples {
      let cpu = median(ours[sample.curve, default: []].map(\.cpu))
      let wall = median(ours[sample.curve, default: []].map(\.wall))
      let reference = theirs[sample.curve].map(median)
      let ratio = reference.map { cpu / $0 }
      let referenceText = reference.map { String(format: "%.0f", $0) } ?? "-"
      let ratioText = ratio.map { String(format: "%.2f", $0) } ?? "-"
      print(
        sample.curve.name.padding(toLength: 8, withPad: " ", startingAt: 0) + String(format: "%14.0f %14.0f", cpu, wall)
          + "   | " + String(repeating: " ", count: max(0, 22 - referenceText.count)) + referenceText + " | "
          + ratioText)
      if let reference {
        targets.append(
          (
            String(
              format: "ecdsa %@: >= 1/4 of openssl's verify rate (%.0f/s vs %.0f/s, %.2f)", sample.curve.name, cpu,
              reference, cpu / reference), cpu >= reference / 4
          ))
      } else if sample.curve == .p256 {
        targets.append((String(format: "ecdsa P-256: >= 3,650/s (%.0f/s)", cpu), cpu >= 3_650))
      }
    }
    return targets
  }

  /// Verifications per CPU second and per wall second over about `seconds`; nil if the sample does not verify.
  static func measure(_ sample: Sample, seconds: Double) -> (cpu: Double, wall: Double)? {
    guard let keyBytes = bytes(sample.publicKey), let digest = bytes(sample.digest),
      let signature = bytes(sample.signature),
      let key = try? ECPublicKey(curve: sample.curve, x963Representation: keyBytes),
      key.isValidSignature(rawRS: signature, digest: digest)
    else { return nil }
    let wallStart = DispatchTime.now().uptimeNanoseconds
    let cpuStart = threadCPUSeconds()
    var count = 0
    var failures = 0
    while Double(DispatchTime.now().uptimeNanoseconds - wallStart) / 1e9 < seconds {
      for _ in 0..<20 where !key.isValidSignature(rawRS: signature, digest: digest) { failures += 1 }
      count += 20
    }
    let cpu = threadCPUSeconds() - cpuStart
    let wall = Double(DispatchTime.now().uptimeNanoseconds - wallStart) / 1e9
    return failures == 0 ? (Double(count) / cpu, Double(count) / wall) : nil
  }

  /// `openssl speed -seconds N ecdsap256 ecdsap384`'s verify/s column.
  static func opensslVerifyRates(_ openssl: String, seconds: Double) -> [ECCurve: Double] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: openssl)
    process.arguments = ["speed", "-seconds", String(Int(seconds)), "ecdsap256", "ecdsap384"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = Pipe()
    guard (try? process.run()) != nil else { return [:] }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    var rates: [ECCurve: Double] = [:]
    for line in output.split(separator: "\n") {
      for sample in samples where line.contains("(\(sample.opensslName))") {
        if let last = line.split(separator: " ").last, let rate = Double(last) { rates[sample.curve] = rate }
      }
    }
    return rates
  }

  static func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
  }

  static func bytes(_ hex: String) -> [UInt8]? {
    let digits = Array(hex.utf8)
    guard digits.count % 2 == 0 else { return nil }
    return stride(from: 0, to: digits.count, by: 2).map { i in
      UInt8(String(decoding: digits[i..<(i + 2)], as: UTF8.self), radix: 16)
    }.reduce(into: [UInt8]?([])) { result, byte in
      if let byte { result?.append(byte) } else { result = nil }
    }
  }
}
