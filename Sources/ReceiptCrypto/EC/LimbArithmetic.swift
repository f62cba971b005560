/// Multi-limb arithmetic on pointers to `count` UInt64 limbs, least significant first. Variable time (public data).
/// Outputs may alias inputs: each limb is read before it is written.
enum LimbArithmetic {
  /// a·b + c + d as (high, low); never overflows 128 bits.
  @inline(__always)
  static func multiplyAdd(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) -> (high: UInt64, low: UInt64) {
    let product = a.multipliedFullWidth(by: b)
    let (s1, o1) = product.low.addingReportingOverflow(c)
    let (s2, o2) = s1.addingReportingOverflow(d)
    return (product.high &+ carryBit(o1) &+ carryBit(o2), s2)
  }

  /// 0 or 1 without a branch (a ternary here compiles to data-dependent jumps that mispredict on carries).
  @inline(__always)
  static func carryBit(_ flag: Bool) -> UInt64 { UInt64(unsafeBitCast(flag, to: UInt8.self)) }

  /// r = a − b; returns the borrow out.
  @inline(__always)
  @discardableResult
  static func subtract(
    _ r: UnsafeMutablePointer<UInt64>, _ a: UnsafePointer<UInt64>, _ b: UnsafePointer<UInt64>, _ count: Int
  ) -> Bool {
    var borrow: UInt64 = 0
    for i in 0..<count {
      let (d1, o1) = a[i].subtractingReportingOverflow(b[i])
      let (d2, o2) = d1.subtractingReportingOverflow(borrow)
      r[i] = d2
      borrow = carryBit(o1) | carryBit(o2)  // never both
    }
    return borrow != 0
  }

  /// r = a + b; returns the carry out.
  @inline(__always)
  @discardableResult
  static func add(
    _ r: UnsafeMutablePointer<UInt64>, _ a: UnsafePointer<UInt64>, _ b: UnsafePointer<UInt64>, _ count: Int
  ) -> Bool {
    var carry: UInt64 = 0
    for i in 0..<count {
      let (s1, o1) = a[i].addingReportingOverflow(b[i])
      let (s2, o2) = s1.addingReportingOverflow(carry)
      r[i] = s2
      carry = carryBit(o1) | carryBit(o2)  // never both
    }
    return carry != 0
  }

  /// a < b as unsigned integers.
  @inline(__always)
  static func isLess(_ a: UnsafePointer<UInt64>, _ b: UnsafePointer<UInt64>, _ count: Int) -> Bool {
    var i = count - 1
    while i >= 0 {
      if a[i] != b[i] { return a[i] < b[i] }
      i -= 1
    }
    return false
  }

  /// r = a + b mod m, for a, b < m.
  @inline(__always)
  static func addModulo(
    _ r: UnsafeMutablePointer<UInt64>, _ a: UnsafePointer<UInt64>, _ b: UnsafePointer<UInt64>,
    _ m: UnsafePointer<UInt64>, _ count: Int
  ) {
    let carry = add(r, a, b, count)
    if carry || !isLess(r, m, count) { subtract(r, r, m, count) }
  }

  /// r = a − b mod m, for a, b < m.
  @inline(__always)
  static func subtractModulo(
    _ r: UnsafeMutablePointer<UInt64>, _ a: UnsafePointer<UInt64>, _ b: UnsafePointer<UInt64>,
    _ m: UnsafePointer<UInt64>, _ count: Int
  ) {
    if subtract(r, a, b, count) { add(r, r, m, count) }
  }

  /// r = a·b·R⁻¹ mod m (Montgomery multiplication, coarsely integrated operand scanning), for a, b < m.
  /// `count` is at most 6.
  @inline(__always)
  static func montgomeryMultiply(
    _ r: UnsafeMutablePointer<UInt64>, _ a: UnsafePointer<UInt64>, _ b: UnsafePointer<UInt64>,
    _ m: UnsafePointer<UInt64>, _ negativeInverse: UInt64, _ count: Int
  ) {
    var scratch: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    withMutableLimbs(&scratch, count: 8) { t in
      for i in 0..<count {
        let bi = b[i]
        var carry: UInt64 = 0
        for j in 0..<count {
          (carry, t[j]) = multiplyAdd(a[j], bi, t[j], carry)
        }
        let (top, topCarry) = t[count].addingReportingOverflow(carry)
        t[count] = top
        let overflow = carryBit(topCarry)
        // Add q·m so the lowest limb becomes zero, and shift down one limb.
        let q = t[0] &* negativeInverse
        var reduceCarry = multiplyAdd(q, m[0], t[0], 0).high
        for j in 1..<count {
          (reduceCarry, t[j - 1]) = multiplyAdd(q, m[j], t[j], reduceCarry)
        }
        let (shifted, shiftedCarry) = t[count].addingReportingOverflow(reduceCarry)
        t[count - 1] = shifted
        t[count] = overflow &+ carryBit(shiftedCarry)
      }
      // t < 2m: one conditional subtraction.
      if t[count] != 0 || !isLess(t, m, count) {
        subtract(r, t, m, count)
      } else {
        for i in 0..<count { r[i] = t[i] }
      }
    }
  }

  @inline(__always)
  static func isZero(_ a: UnsafePointer<UInt64>, _ count: Int) -> Bool {
    var bits: UInt64 = 0
    for i in 0..<count { bits |= a[i] }
    return bits == 0
  }
}
