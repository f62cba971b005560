import Testing

@testable import ReceiptCrypto

/// `JoinedText` writes what an interpolation of the same pieces writes (issue 42: the messages of a `latest_receipt`
/// cut short), and the ASN.1 reader's "declares" message is the interpolation it replaced, for every tag.
@Suite struct JoinedTextTests {
  static let numbers: [Int] = [
    0, 1, 9, 10, 11, 99, 100, 536, 5_140, 65_535, 1 << 32, -1, -9, -10, -536, Int.max, Int.min, Int.max - 1,
    Int.min + 1,
  ]

  @Test func numbersAndTextAreWhatAnInterpolationWrites() {
    var random = SplitMix64(state: 77)
    var numbers = Self.numbers
    for _ in 0..<300 { numbers.append(Int(truncatingIfNeeded: random.next()) >> Int(random.next() % 64)) }
    let texts = [
      "", "a", "SEQUENCE", "tag 0xBF (context 31, constructed)", "é\u{2028}\n 日本", String(repeating: "x", count: 40),
    ]
    for n in numbers {
      for text in texts {
        let joined = JoinedText.make(capacity: text.utf8.count * 2 + 2 * JoinedText.decimalCapacity + 3) { w in
          w.append(text)
          w.append(decimal: n)
          w.append(":")
          w.append(decimal: -(n / 7))
          w.append(text)
        }
        #expect(joined == "\(text)\(n):\(-(n / 7))\(text)")
      }
    }
  }

  /// What does not fit is not written: no byte past the capacity.
  @Test func piecesPastTheCapacityAreNotWritten() {
    let joined = JoinedText.make(capacity: 5) { w in
      w.append("abc")
      w.append("defg")
      w.append(decimal: 12)
    }
    #expect(joined == "abc12")
    #expect(JoinedText.make(capacity: 0) { $0.append("x") } == "")
  }

  /// Every tag, lengths of every size: the message the interpolation wrote, at the element's offset.
  @Test func theDeclaresMessageIsTheInterpolation() {
    for tag in 0...255 {
      for (length, remaining) in [(5_140, 536), (0, 0), (1, 0), (127, 3), (Int(UInt32.max), 9), (65_536, 65_535)] {
        let error = ASN1Error.declaresMore(UInt8(tag), length: length, remaining: remaining, at: tag)
        let former =
          "truncated: \(ASN1Tag.name(UInt8(tag))) declares \(length) bytes but only \(remaining) remain"
        #expect(error == ASN1Error(former, tag))
      }
    }
    // Through the reader: a SEQUENCE cut short, as every user-shape latest_receipt is.
    var reader = ASN1Reader([0x30, 0x82, 0x14, 0x14] + [UInt8](repeating: 0, count: 536), rules: .berEnvelope)
    #expect(throws: ASN1Error("truncated: SEQUENCE declares 5140 bytes but only 536 remain", 0)) {
      try reader.next()
    }
  }
}
