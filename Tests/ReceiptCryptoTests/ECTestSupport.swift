@testable import ReceiptCrypto

/// A slow, obviously-correct reference for multi-limb integers ([UInt64], least significant first) that the
/// Montgomery field code is held to: schoolbook products and bit-by-bit long division. No Montgomery, no tricks.
enum SchoolbookInteger {
  static func multiply(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
    var result = [UInt64](repeating: 0, count: a.count + b.count)
    for i in a.indices {
      var carry: UInt64 = 0
      for j in b.indices {
        let product = a[i].multipliedFullWidth(by: b[j])
        let (low1, o1) = product.low.addingReportingOverflow(result[i + j])
        let (low2, o2) = low1.addingReportingOverflow(carry)
        result[i + j] = low2
        carry = product.high + (o1 ? 1 : 0) + (o2 ? 1 : 0)
      }
      result[i + b.count] = carry
    }
    return result
  }

  /// x mod m by shifting x in one bit at a time.
  static func remainder(_ x: [UInt64], _ m: [UInt64]) -> [UInt64] {
    var r = [UInt64](repeating: 0, count: m.count + 1)
    let mWide = m + [0]
    for bit in stride(from: x.count * 64 - 1, through: 0, by: -1) {
      for i in stride(from: r.count - 1, to: 0, by: -1) { r[i] = r[i] << 1 | r[i - 1] >> 63 }
      r[0] = r[0] << 1 | (x[bit / 64] >> UInt64(bit % 64)) & 1
      if !isLess(r, mWide) { r = subtract(r, mWide) }
    }
    return Array(r.prefix(m.count))
  }

  static func add(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
    var result: [UInt64] = []
    var carry: UInt64 = 0
    for i in 0..<max(a.count, b.count) {
      let (s1, o1) = (i < a.count ? a[i] : 0).addingReportingOverflow(i < b.count ? b[i] : 0)
      let (s2, o2) = s1.addingReportingOverflow(carry)
      result.append(s2)
      carry = (o1 || o2) ? 1 : 0
    }
    return result + [carry]
  }

  static func subtract(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
    var result: [UInt64] = []
    var borrow: UInt64 = 0
    for i in a.indices {
      let (d1, o1) = a[i].subtractingReportingOverflow(i < b.count ? b[i] : 0)
      let (d2, o2) = d1.subtractingReportingOverflow(borrow)
      result.append(d2)
      borrow = (o1 || o2) ? 1 : 0
    }
    return result
  }

  static func isLess(_ a: [UInt64], _ b: [UInt64]) -> Bool {
    for i in stride(from: max(a.count, b.count) - 1, through: 0, by: -1) {
      let x = i < a.count ? a[i] : 0
      let y = i < b.count ? b[i] : 0
      if x != y { return x < y }
    }
    return false
  }

  static func isZero(_ a: [UInt64]) -> Bool { a.allSatisfy { $0 == 0 } }
}

/// Deterministic pseudo-random words (SplitMix64), so a failure reproduces.
struct SplitMix64 {
  var state: UInt64

  mutating func next() -> UInt64 {
    state &+= 0x9e37_79b9_7f4a_7c15
    var z = state
    z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
    z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
    return z ^ (z >> 31)
  }

  /// A value below m: random limbs reduced by the reference.
  mutating func below(_ m: [UInt64]) -> [UInt64] {
    SchoolbookInteger.remainder((0..<m.count).map { _ in next() }, m)
  }
}

extension MontgomeryModulus {
  static func array(_ limbs: Limbs) -> [UInt64] {
    withLimbs(limbs, count: limbCount) { pointer in (0..<limbCount).map { pointer[$0] } }
  }

  static func tuple(_ words: [UInt64]) -> Limbs {
    var limbs = zeroLimbs
    withMutableLimbs(&limbs, count: limbCount) { pointer in
      for i in 0..<limbCount { pointer[i] = i < words.count ? words[i] : 0 }
    }
    return limbs
  }

  static var modulusArray: [UInt64] { array(modulus) }
}
