import Foundation
import ReceiptCrypto
import Testing

/// The one base64 decoder under each caller's rules: Foundation is the independent reference for what decodes,
/// and each rule set refuses what its format refuses, at the offending offset.
@Suite struct Base64Tests {
  static func failure(_ text: String, _ rules: Base64.Rules, limit: Int = .max) -> Base64Error? {
    do {
      _ = try Base64.decode(Array(text.utf8), rules: rules, limit: limit)
      return nil
    } catch {
      return error
    }
  }

  /// Foundation's padded standard text, and its URL-alphabet spelling with and without padding, decode under
  /// every rule set that takes that spelling; the encoder writes what Foundation writes.
  @Test func everyRuleSetAgreesWithFoundation() throws {
    var generator = SystemRandomNumberGenerator()
    for length in Array(0..<70) + [190, 1000, 4099] {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let standard = Data(bytes).base64EncodedString()
      let url = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      let unpadded = url.replacingOccurrences(of: "=", with: "")
      #expect(try Base64.decode(Array(standard.utf8), rules: .strict) == bytes)
      #expect(try Base64.decode(Array(standard.utf8), rules: .text) == bytes)
      #expect(try Base64.decode(Array(url.utf8), rules: .url) == bytes)
      #expect(try Base64.decode(Array(unpadded.utf8), rules: .url) == bytes)
      #expect(Base64.encode(bytes) == standard)
      #expect(Base64.encode(bytes, alphabet: .url, padded: false) == unpadded)
    }
  }

  /// The pair table rejects every byte outside each alphabet in either half of a 16-bit lookup, at every place of
  /// an eight-symbol step: each such byte fails at its own offset, as the one-symbol path reports it.
  @Test func pairTablesRejectEveryOtherByteAtEveryPlace() {
    let bytes = (0..<24).map { UInt8(truncatingIfNeeded: $0 &* 37) }
    for (rules, symbols) in [
      (Base64.Rules.strict, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"),
      (.url, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
    ] {
      let valid = Array(Base64.encode(bytes, alphabet: rules.alphabet).utf8)
      let alphabet = Set(symbols.utf8)
      for place in 0..<valid.count {
        for byte in UInt8(0)...255 where !alphabet.contains(byte) && byte != UInt8(ascii: "=") {
          var text = valid
          text[place] = byte
          do {
            _ = try Base64.decode(text, rules: rules)
            Issue.record("byte \(byte) at \(place) accepted under \(rules.alphabet)")
          } catch {
            #expect(error == Base64Error(.invalidCharacter(byte), at: place), "byte \(byte) at \(place)")
          }
        }
      }
    }
  }

  /// Each rule set refuses what its format refuses, and accepts what only the looser ones accept.
  @Test func eachRuleSetRefusesWhatItsFormatRefuses() {
    let refusals: [(String, Base64.Rules, Base64Error?)] = [
      ("TWE", .strict, Base64Error(.missingPadding, at: 3)),
      ("TWE", .url, nil),
      ("TWFu\n", .strict, Base64Error(.impossibleLength, at: 5)),
      ("TWFu\n", .text, nil),
      ("TQ==TQ==", .strict, Base64Error(.misplacedPadding, at: 2)),
      ("Zm9vY", .url, Base64Error(.impossibleLength, at: 5)),
      ("Zm=v", .url, Base64Error(.misplacedPadding, at: 2)),
      ("Zg=", .url, Base64Error(.misplacedPadding, at: 2)),
      ("Zh", .url, Base64Error(.nonZeroTrailingBits, at: 1)),
      ("Zm9=", .strict, Base64Error(.nonZeroTrailingBits, at: 2)),
      ("Zh", .text, nil),
      ("QUJD==", .text, nil),
      ("QUJDRA=x", .text, Base64Error(.symbolAfterPadding, at: 7)),
      ("QUJDRA===", .text, Base64Error(.tooMuchPadding, at: 8)),
      ("QUJDR", .text, Base64Error(.impossibleLength, at: 5)),
      ("\u{FEFF}QUJD\u{7F}", .text, Base64Error(.invalidCharacter(0x7F), at: 7)),
      ("\u{FEFF}QUJD", .strict, Base64Error(.missingPadding, at: 7)),
      ("+/+/", .url, Base64Error(.invalidCharacter(UInt8(ascii: "+")), at: 0)),
      ("-_-_", .strict, Base64Error(.invalidCharacter(UInt8(ascii: "-")), at: 0)),
    ]
    for (text, rules, expected) in refusals {
      #expect(Self.failure(text, rules) == expected, "\(text) under \(rules.alphabet) \(rules.padding)")
    }
    #expect(
      Self.failure(String(repeating: "A", count: 40), .url, limit: 32) == Base64Error(.tooLong(limit: 32), at: 32))
  }

  /// One buffer reused for texts long and short, valid and not, under every rule set: its first bytes are what
  /// decoding into a new array gives, and a failure is the same failure at the same offset.
  @Test func decodingIntoAReusedBufferGivesWhatANewArrayGives() {
    var generator = SplitMix64(state: 31)
    var buffer: [UInt8] = []
    var decoded = 0
    for round in 0..<600 {
      let length = Int(generator.next() % (round % 3 == 0 ? 700 : 40))
      let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
      for rules in [Base64.Rules.strict, .url, .text] {
        var text = Array(Base64.encode(bytes, alphabet: rules.alphabet, padded: rules.padding != .optional).utf8)
        if round % 4 == 1, !text.isEmpty {
          // A byte spoilt: outside the alphabet, padding, or a line break.
          text[Int(generator.next() % UInt64(text.count))] = [UInt8(ascii: "."), 0x3D, 0x0A, 0xFF][round % 16 / 4]
        }
        let fresh = Result { () throws(Base64Error) in try Base64.decode(text, rules: rules) }
        let reused = Result { () throws(Base64Error) -> [UInt8] in
          let count = try text.withUnsafeBufferPointer { (t) throws(Base64Error) in
            try Base64.decode(t, rules: rules, into: &buffer)
          }
          return Array(buffer[..<count])
        }
        #expect(fresh == reused, "round \(round) \(rules.alphabet)")
        if case .success = fresh { decoded += 1 }
      }
    }
    #expect(decoded > 1000)
  }

  /// `measure` says what `decode` says without the bytes: the count and the first six bytes, or the same failure at
  /// the same offset, over random texts under every rule set, spoilt at any place (outside the alphabet, padding,
  /// whitespace, a byte order mark), cut at every length of a short text, and from each whole step on.
  @Test func measuringGivesTheCountAndHeadDecodingGives() {
    func head(_ bytes: [UInt8]) -> UInt64 {
      bytes.prefix(6).enumerated().reduce(0) { $0 | UInt64($1.element) << UInt64(56 - 8 * $1.offset) }
    }
    func agree(_ text: [UInt8], _ rules: Base64.Rules, _ what: String) -> Bool {
      let decoded = Result { () throws(Base64Error) in try Base64.decode(text, rules: rules) }
      let measured = Result { () throws(Base64Error) -> [UInt64] in
        let (count, first) = try text.withUnsafeBufferPointer { (t) throws(Base64Error) in
          try Base64.measure(t, rules: rules)
        }
        return [UInt64(count), first]
      }
      let expected = decoded.map { [UInt64($0.count), head($0)] }
      #expect(expected == measured, "\(what) \(rules.alphabet) \(rules.padding)")
      return (try? decoded.get()) != nil
    }
    var generator = SplitMix64(state: 42)
    var decoded = 0
    for round in 0..<900 {
      let length = Int(generator.next() % (round % 3 == 0 ? 700 : 40))
      let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
      for rules in [Base64.Rules.strict, .url, .text] {
        var text = Array(Base64.encode(bytes, alphabet: rules.alphabet, padded: rules.padding != .optional).utf8)
        if round % 3 == 1, !text.isEmpty {
          let spoilers: [[UInt8]] = [
            [0x2E], [0x3D], [0x0A], [0xFF], [0x20, 0x20], [0x3D, 0x3D, 0x3D], [0xEF, 0xBB, 0xBF],
          ]
          let at = Int(generator.next() % UInt64(text.count + 1))
          text.insert(contentsOf: spoilers[Int(generator.next() % UInt64(spoilers.count))], at: at)
        }
        if round % 5 == 2 { text = Array([0xEF, 0xBB, 0xBF, 0x20]) + text }
        if agree(text, rules, "round \(round)") { decoded += 1 }
      }
    }
    let short = Array(Base64.encode((0..<40).map { UInt8($0 &* 91 & 0xFF) }).utf8)
    for cut in 0...short.count {
      for rules in [Base64.Rules.strict, .url, .text] {
        _ = agree(Array(short.prefix(cut)), rules, "cut \(cut)")
        _ = agree(Array(short.prefix(cut)) + [0x3D], rules, "cut \(cut) =")
        _ = agree(Array(short.dropFirst(cut)), rules, "from \(cut)")
      }
    }
    #expect(decoded > 1500)
  }
}
