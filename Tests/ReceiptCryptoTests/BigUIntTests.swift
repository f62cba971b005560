import Foundation
import Testing

@testable import ReceiptCrypto

/// One line of Fixtures/montgomery-known-answers.txt, computed by Python's integers (make-montgomery-known-answers.py).
private struct MontgomeryKnownAnswer: CustomStringConvertible {
  let modulus, base, exponent, power, factor, product: BigUInt
  var description: String { "\(modulus.bitWidth)-bit modulus" }

  init?(line: String) {
    let fields = line.split(separator: " ").compactMap { Hex.bytes(String($0)).map { BigUInt(bigEndianBytes: $0) } }
    guard fields.count == 6 else { return nil }
    (modulus, base, exponent, power, factor, product) = (
      fields[0], fields[1], fields[2], fields[3], fields[4], fields[5]
    )
  }
}

private func montgomeryKnownAnswers() throws -> [MontgomeryKnownAnswer] {
  let url = CryptoTestPaths.fixtures.appendingPathComponent("montgomery-known-answers.txt")
  let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
  return try lines.map { line in try #require(MontgomeryKnownAnswer(line: String(line)), "\(line.prefix(40))") }
}

@Suite struct BigUIntTests {
  @Test func bytesRoundTripAndStripLeadingZeros() throws {
    let bytes: [UInt8] = [0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09]
    let value = BigUInt(bigEndianBytes: bytes)
    #expect(value.limbs == [0x0203_0405_0607_0809, 0x01])
    #expect(value.bitWidth == 65)
    #expect(value.byteWidth == 9)
    #expect(value.bigEndianBytes == Array(bytes.dropFirst(2)))
    #expect(value.bigEndianBytes(count: 11) == bytes)
    #expect(value.bigEndianBytes(count: 8) == nil, "does not fit")
    #expect(BigUInt(bigEndianBytes: [0, 0, 0]).isZero)
    #expect(BigUInt(bigEndianBytes: []).bigEndianBytes(count: 2) == [0, 0])
    for length in 0...40 {
      let random = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
      #expect(BigUInt(bigEndianBytes: random).bigEndianBytes(count: length) == random, "length \(length)")
    }
  }

  @Test func comparisonIgnoresLeadingZerosAndOrdersByValue() {
    let small = BigUInt(bigEndianBytes: [0x00, 0xff])
    let large = BigUInt(bigEndianBytes: [0x01, 0x00])
    #expect(small < large)
    #expect(!(large < small))
    #expect(small == BigUInt(0xff))
    #expect(BigUInt(limbs: [5, 0, 0]) == BigUInt(5))
    #expect(BigUInt(limbs: [UInt64.max, 1]) > BigUInt(limbs: [0, 1]))
  }

  @Test func montgomeryRefusesEvenAndTinyModuli() {
    #expect(BigMontgomeryModulus(BigUInt(10)) == nil)
    #expect(BigMontgomeryModulus(BigUInt(1)) == nil)
    #expect(BigMontgomeryModulus(BigUInt(0)) == nil)
    #expect(BigMontgomeryModulus(BigUInt(3)) != nil)
  }

  @Test func powerAndProductMatchAnIndependentImplementation() throws {
    let answers = try montgomeryKnownAnswers()
    #expect(answers.count == 13)
    for answer in answers {
      let modulus = try #require(BigMontgomeryModulus(answer.modulus))
      #expect(modulus.power(answer.base, answer.exponent) == answer.power, "power, \(answer)")
      #expect(modulus.multiplyModulo(answer.base, answer.factor) == answer.product, "product, \(answer)")
    }
  }

  @Test func inputsNotReducedModuloNAreRefused() throws {
    let modulus = try #require(BigMontgomeryModulus(BigUInt(0xffff_fffb)))
    #expect(modulus.power(BigUInt(0xffff_fffb), BigUInt(3)) == nil, "base == n")
    #expect(modulus.power(BigUInt(0xffff_fffc), BigUInt(3)) == nil, "base > n")
    #expect(modulus.power(BigUInt(0xffff_fffa), BigUInt(2)) == BigUInt(1), "(n-1)^2 = 1")
    #expect(modulus.multiplyModulo(BigUInt(0xffff_fffb), BigUInt(1)) == nil)
  }
}
