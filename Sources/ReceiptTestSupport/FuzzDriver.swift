import ReceiptCLI
import ReceiptCrypto
import ReceiptFormats
import ReceiptModel

/// Runs one fuzz input through the JSON reader, the catalog loader, the app receipt and signed-data readers
/// (base64url, JWS), the backing of a verifyReceipt body by its `latest_receipt`, and every subcommand in every
/// output format.
/// Shared by the libFuzzer target (`receipt-tool-fuzz`) and the unit test that replays kept crashers.
package enum FuzzDriver {
  /// The PKCS#7 verification path (issue 28) on the raw bytes and, when they are base64 text, on what they decode
  /// to: checked at 1970, when no real certificate was valid, nothing verifies; every failure is one line.
  static func pkcs7Verification(_ bytes: [UInt8]) -> [String] {
    var problems: [String] = []
    var verifier = AppleSignatureVerifier()
    let moment = VerificationMoment(millisecondsSince1970: 0, source: .now)
    var blobs = [bytes]
    if let der = ReceiptCrypto.Base64.decode(bytes.filter { $0 > 0x20 }) {
      blobs.append(der)
    }
    for blob in blobs {
      let verdict = verifier.verifyPKCS7(blob, at: moment)
      if verdict.outcome == .verified { problems.append("a PKCS#7 envelope verified at 1970") }
      if verdict.failure?.description.contains("\n") == true { problems.append("a PKCS#7 failure spans lines") }
    }
    return problems
  }

  /// Properties that must hold for any input; returns the ones that failed (empty when all is well).
  /// `write` stores the bytes at `scratchPath` so the subcommands read them as a real file.
  package static func exercise(
    _ bytes: [UInt8], scratchPath: String, catalogPath: String? = nil, allVariants: Bool = false,
    write: ([UInt8], String) -> Bool
  ) -> [String] {
    var problems: [String] = []

    // The tree reader: anything it accepts must re-render to text it reads back as the same tree.
    if let value = try? JSONValue.parse(bytes) {
      for pretty in [false, true] {
        let text = value.rendered(pretty: pretty)
        guard let again = try? JSONValue.parse(Array(text.utf8)) else {
          problems.append("rendered JSON does not parse again (pretty: \(pretty))")
          continue
        }
        if again != value { problems.append("rendered JSON reads back different (pretty: \(pretty))") }
      }
    }
    _ = try? CatalogLoader.load(bytes, source: "fuzz")
    _ = try? ReceiptDecoder.decode(bytes, source: "fuzz")
    problems += piecesAgainstOneThread(bytes)
    problems += copiesAgainstEveryObject(bytes)
    problems += AppReceiptFuzzing.fuzz(bytes)
    problems += SignedDataFuzzing.fuzz(bytes)
    problems += CryptoFuzzing.fuzz(bytes)
    problems += BackingFuzzing.fuzz(bytes)
    problems += BatchIsolationFuzzing.fuzz(bytes)
    // The signed-data format's mapping to a purchase history, whatever the registry would pick.
    if let history = try? SignedDataFormat().decode(bytes, source: "fuzz", options: DecodeOptions()) {
      if history.provenance.signatureCheck.verdict == .verified { problems.append("a signature claimed verified") }
    }

    problems += pkcs7Verification(bytes)

    guard write(bytes, scratchPath) else { return problems }
    let null = open("/dev/null", O_WRONLY)
    guard null >= 0 else { return problems }
    defer { close(null) }
    // FNV-1a of the input picks which extra variant runs, so a finding replays the same way.
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for b in bytes { hash = (hash ^ UInt64(b)) &* 0x100_0000_01B3 }
    for command in ReceiptTool.commands {
      let all = variants(of: command, scratchPath: scratchPath, catalogPath: catalogPath)
      let chosen = allVariants ? all : [all[0], all[Int(hash % UInt64(all.count))]]
      for (i, variant) in chosen.enumerated() {
        let context = CommandContext(
          environment: ProcessEnvironment(variables: [:], stdoutIsTerminal: i == 0),
          stdout: OutputSink(fd: null), stderr: OutputSink(fd: null))
        let status = ReceiptTool.run(arguments: [command.name] + variant + [scratchPath], context: context)
        // A usage error here means the driver built a command line the tool rejects; only 70 is a tool bug.
        if status == .software || (status == .usage && i == 0) {
          problems.append("\(command.name) \(variant.joined(separator: " ")) exited \(status.rawValue)")
        }
      }
    }
    return problems
  }

  /// A verifyReceipt document read with its transaction arrays in tiny pieces on every core must give what one
  /// thread gives: the same history, or the same error. Piece sizes vary with the input, so that guesses land
  /// inside strings, nested values and broken elements.
  package static func piecesAgainstOneThread(_ bytes: [UInt8]) -> [String] {
    let pieceBytes = 1 + bytes.count % 61
    let pieces = TransactionArraySplit.Pieces(
      sizes: TransactionArraySplit.Sizes(minimumBytes: 0, pieceBytes: pieceBytes), helpers: ArrayPieceHelpers())
    return differences(
      read(bytes, pieces: nil), read(bytes, pieces: pieces), "read in pieces of \(pieceBytes) bytes",
      reference: "one thread's")
  }

  /// A verifyReceipt document read with transaction objects written twice passed over as copies (`RowCopies`)
  /// must give what reading every object gives: the same history, or the same error.
  package static func copiesAgainstEveryObject(_ bytes: [UInt8]) -> [String] {
    differences(
      read(bytes, pieces: nil, readsCopiesOnce: false), read(bytes, pieces: nil), "copies passed over",
      reference: "reading every object's")
  }

  /// `bytes` read as a verifyReceipt document.
  static func read(
    _ bytes: [UInt8], pieces: TransactionArraySplit.Pieces?, readsCopiesOnce: Bool = true
  ) -> Result<PurchaseHistory, ReceiptError> {
    do throws(ReceiptError) {
      return .success(
        try ReceiptDecoder.decode(
          bytes, source: "fuzz", keepSecrets: false, pieces: pieces, readsCopiesOnce: readsCopiesOnce))
    } catch {
      return .failure(error)
    }
  }

  /// What differs between a shortcut's read (`how`) and the reference read: the history (transactions, warnings,
  /// copies merged), the error, or one failing alone.
  static func differences(
    _ expected: Result<PurchaseHistory, ReceiptError>, _ got: Result<PurchaseHistory, ReceiptError>, _ how: String,
    reference: String
  ) -> [String] {
    switch (expected, got) {
    case (.success(let expected), .success(let got)):
      guard expected.transactions == got.transactions, expected.warnings == got.warnings,
        expected.provenance.duplicateRowsMerged == got.provenance.duplicateRowsMerged
      else { return ["\(how), the history differs from \(reference)"] }
      return []
    case (.failure(let expected), .failure(let got)):
      return expected == got ? [] : ["\(how), the error differs: \(got) against \(expected)"]
    default:
      return ["\(how), one read failed and the other did not"]
    }
  }

  /// Option sets worth running: every allowed value of every closed option, every flag, the input as a catalog.
  static func variants(of command: CommandSpec, scratchPath: String, catalogPath: String?) -> [[String]] {
    let names = Set(command.options.map(\.name))
    let asOf = names.contains("as-of") ? ["--as-of", "2026-01-01T00:00:00Z"] : []
    var fixed = asOf
    if let catalogPath, names.contains("catalog") { fixed += ["--catalog", catalogPath] }
    var out: [[String]] = [fixed]
    for option in command.options where option.name != "quiet" {
      if let allowed = option.allowed {
        out += allowed.map { fixed + ["--\(option.name)", $0] }
      } else if option.isFlag {
        // Alone: some flags (revenue --merge) refuse a catalog.
        out.append(asOf + ["--\(option.name)"])
      }
    }
    if names.contains("catalog") { out.append(["--catalog", scratchPath]) }
    // The expected app, which every signed item and document is then held to.
    if names.contains("bundle-id") { out.append(fixed + ["--bundle-id", "com.acme.notes", "--app-apple-id", "1234"]) }
    return out
  }
}
