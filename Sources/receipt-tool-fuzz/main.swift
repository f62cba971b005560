import ReceiptCLI
import ReceiptFormats
import ReceiptModel
// libFuzzer entry point. Only a `swift build --sanitize=fuzzer` build fuzzes (Tests/Fuzz/run-fuzz.sh);
// a normal build links this as a harmless executable that does nothing.
// Declarations only: fuzzer builds compile every module as a library.
import ReceiptTestSupport

private func writeScratch(_ bytes: [UInt8], to path: String) -> Bool {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  guard fd >= 0 else { return false }
  defer { close(fd) }
  var offset = 0
  while offset < bytes.count {
    let n = bytes.withUnsafeBytes { raw in write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset) }
    if n <= 0 { return false }
    offset += n
  }
  return true
}

/// The example catalog, so the subcommands also run with products they know (run-fuzz.sh starts in the package root).
private let exampleCatalog: String? = access("examples/catalog.json", R_OK) == 0 ? "examples/catalog.json" : nil

/// `RECEIPT_TOOL_FUZZ_ONLY=backing` fuzzes the backing path alone (`BackingFuzzing`): a hundred times the inputs a
/// second of the whole driver, which runs every command on each.
private let onlyBacking = getenv("RECEIPT_TOOL_FUZZ_ONLY").map { String(cString: $0) == "backing" } ?? false

/// libFuzzer's entry point: runs every command on one input and aborts when a property breaks.
/// - Parameters:
///   - start: The input's first byte, or nil when it is empty.
///   - count: How many bytes the input has.
/// - Returns: 0, as libFuzzer requires.
@_cdecl("LLVMFuzzerTestOneInput")
public func receiptToolFuzz(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  let bytes: [UInt8] = start.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
  let problems =
    onlyBacking
    ? BackingFuzzing.fuzz(bytes)
    : FuzzDriver.exercise(
      bytes, scratchPath: "/tmp/receipt-tool-fuzz-\(getpid()).json", catalogPath: exampleCatalog, write: writeScratch)
  if !problems.isEmpty {
    // A broken property is a finding: abort so libFuzzer keeps the input.
    let text = problems.map { "receipt-tool-fuzz: \($0)\n" }.joined()
    _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    abort()
  }
  return 0
}
