import ReceiptModel

extension ReceiptToolError {
  /// One document over the single-document limit: what it is, the limit, and the ways around it.
  /// `size` is the document's size, or as much as was read before giving up (`exact` false: "at least").
  static func documentTooLarge(source: String, size: Int, limit: Int, exact: Bool) -> ReceiptToolError {
    let shown = (exact ? "" : "at least ") + ByteCount.describe(size)
    return .input(
      ReceiptError(
        .unusable, source: source,
        message:
          "the document is \(shown), over the single-document limit of \(ByteCount.describe(limit)); "
          + "split it into NDJSON (one receipt per line), or raise the limit with --max-document-size"))
  }
}

/// Byte sizes as people and `--max-document-size` write them.
enum ByteCount {
  /// `1073741824 bytes (1 GiB)`, `512 bytes`: exact bytes, and binary units when they help.
  static func describe(_ bytes: Int) -> String {
    let units: [(String, Int)] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
    for (name, size) in units where bytes >= size {
      let tenths = bytes / (size / 10)
      let whole = tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
      let approximate = bytes % size == 0 || tenths % 10 == 0 && bytes % (size / 10) == 0 ? "" : "about "
      return "\(bytes) bytes (\(approximate)\(whole) \(name))"
    }
    return "\(bytes) byte\(bytes == 1 ? "" : "s")"
  }

  /// Parses `1073741824`, `512K`, `64M`, `2G`, `1GiB`, `1.5G` (binary units); nil for anything else,
  /// zero, or a size beyond `Int`.
  static func parse(_ text: String) -> Int? {
    var digits = Substring(text)
    var unit = 1
    let suffixes: [(String, Int)] = [
      ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("TiB", 1 << 40),
      ("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("T", 1 << 40), ("B", 1),
    ]
    for (suffix, size) in suffixes where digits.uppercased().hasSuffix(suffix.uppercased()) {
      digits = digits.dropLast(suffix.count)
      unit = size
      break
    }
    let parts = digits.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    guard let wholeText = parts.first, !wholeText.isEmpty, wholeText.utf8.allSatisfy({ $0 &- 0x30 < 10 }),
      let whole = Int(wholeText)
    else { return nil }
    var value = whole.multipliedReportingOverflow(by: unit)
    guard !value.overflow else { return nil }
    if parts.count == 2 {
      let fraction = parts[1]
      guard !fraction.isEmpty, fraction.count <= 3, fraction.utf8.allSatisfy({ $0 &- 0x30 < 10 }),
        let f = Int(fraction), unit > 1
      else { return nil }
      var scale = 1
      for _ in 0..<fraction.count { scale *= 10 }
      let extra = f.multipliedReportingOverflow(by: unit)
      guard !extra.overflow, extra.partialValue % scale == 0 else { return nil }
      let sum = value.partialValue.addingReportingOverflow(extra.partialValue / scale)
      value = sum
      guard !value.overflow else { return nil }
    }
    return value.partialValue > 0 ? value.partialValue : nil
  }
}
