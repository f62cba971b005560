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

  /// `montgomeryMultiplyLoop` for 4 limbs, unrolled so the running sum stays in registers (the loop keeps it in
  /// memory). Same steps, same result.
  @inline(__always)
  static func montgomeryMultiply4(
    _ r: UnsafeMutablePointer<UInt64>, _ a: UnsafePointer<UInt64>, _ b: UnsafePointer<UInt64>,
    _ m: UnsafePointer<UInt64>, _ negativeInverse: UInt64
  ) {
    let a0 = a[0]
    let a1 = a[1]
    let a2 = a[2]
    let a3 = a[3]
    let m0 = m[0]
    let m1 = m[1]
    let m2 = m[2]
    let m3 = m[3]
    var t0: UInt64 = 0
    var t1: UInt64 = 0
    var t2: UInt64 = 0
    var t3: UInt64 = 0
    var t4: UInt64 = 0
    @inline(__always) func round(_ bi: UInt64) {
      var carry: UInt64
      (carry, t0) = multiplyAdd(a0, bi, t0, 0)
      (carry, t1) = multiplyAdd(a1, bi, t1, carry)
      (carry, t2) = multiplyAdd(a2, bi, t2, carry)
      (carry, t3) = multiplyAdd(a3, bi, t3, carry)
      let (top, topCarry) = t4.addingReportingOverflow(carry)
      let q = t0 &* negativeInverse
      carry = multiplyAdd(q, m0, t0, 0).high
      (carry, t0) = multiplyAdd(q, m1, t1, carry)
      (carry, t1) = multiplyAdd(q, m2, t2, carry)
      (carry, t2) = multiplyAdd(q, m3, t3, carry)
      let (shifted, shiftedCarry) = top.addingReportingOverflow(carry)
      t3 = shifted
      t4 = carryBit(topCarry) &+ carryBit(shiftedCarry)
    }
    round(b[0])
    round(b[1])
    round(b[2])
    round(b[3])
    // t < 2m: one conditional subtraction.
    let (d0, o0) = t0.subtractingReportingOverflow(m0)
    let (d1a, o1a) = t1.subtractingReportingOverflow(m1)
    let (d1, o1b) = d1a.subtractingReportingOverflow(carryBit(o0))
    let (d2a, o2a) = t2.subtractingReportingOverflow(m2)
    let (d2, o2b) = d2a.subtractingReportingOverflow(carryBit(o1a) | carryBit(o1b))
    let (d3a, o3a) = t3.subtractingReportingOverflow(m3)
    let (d3, o3b) = d3a.subtractingReportingOverflow(carryBit(o2a) | carryBit(o2b))
    let borrow = carryBit(o3a) | carryBit(o3b)
    if t4 != 0 || borrow == 0 {
      r[0] = d0
      r[1] = d1
      r[2] = d2
      r[3] = d3
    } else {
      r[0] = t0
      r[1] = t1
      r[2] = t2
      r[3] = t3
    }
  }

  /// r = a·b·R⁻¹ mod m (Montgomery multiplication), for a, b < m; `count` is at most 6. Four limbs (P-256) take
  /// the unrolled routine, 20% more verifications per second; ECFieldTests holds it to the loop.
  @inline(__always)
  static func montgomeryMultiply(
    _ r: UnsafeMutablePointer<UInt64>, _ a: UnsafePointer<UInt64>, _ b: UnsafePointer<UInt64>,
    _ m: UnsafePointer<UInt64>, _ negativeInverse: UInt64, _ count: Int
  ) {
    if count == 4 {
      montgomeryMultiply4(r, a, b, m, negativeInverse)
    } else {
      montgomeryMultiplyLoop(r, a, b, m, negativeInverse, count)
    }
  }

  /// Montgomery multiplication by coarsely integrated operand scanning, for any `count` up to 6.
  @inline(__always)
  static func montgomeryMultiplyLoop(
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

  /// Kaliski's almost inverse (binary extended Euclid): on entry u = m (an odd prime), v = a with 0 < a < m,
  /// r = 0, s = 1; on return s = a⁻¹·2^k mod m, and the result is k (at most 2·64·count). Variable time, its steps
  /// following a's bits: only for public values (ECDSA inverts the signature's s). Invariants, with u and v odd
  /// at the top of the loop: u·s + v·r = m, so r, s ≤ m need no reduction; a·s ≡ v·2^k and a·r ≡ −u·2^k (mod m).
  /// Each step takes the smaller odd number from the larger and shifts out the factors of two, so u + v falls
  /// until u = v, which is gcd(a, m) = 1: then a·s ≡ 2^k.
  /// Four limbs (P-256) take `almostInverse4`, 33,000 to 21,000 instructions; ECFieldTests holds both to Fermat.
  static func almostInverse(
    u: UnsafeMutablePointer<UInt64>, v: UnsafeMutablePointer<UInt64>, r: UnsafeMutablePointer<UInt64>,
    s: UnsafeMutablePointer<UInt64>, _ count: Int
  ) -> Int {
    if count == 4 { return almostInverse4(u: u, v: v, r: r, s: s) }
    var k = shiftOutTwos(v, into: r, count)
    while true {
      var equal = true
      for i in 0..<count where u[i] != v[i] { equal = false }
      if equal { return k }
      if isLess(v, u, count) {
        subtract(u, u, v, count)
        add(r, r, s, count)
        k += shiftOutTwos(u, into: s, count)
      } else {
        subtract(v, v, u, count)
        add(s, s, r, count)
        k += shiftOutTwos(v, into: r, count)
      }
    }
  }

  /// `almostInverse` for 4 limbs on values in registers (the loop keeps them in memory). Same steps, same result.
  static func almostInverse4(
    u: UnsafeMutablePointer<UInt64>, v: UnsafeMutablePointer<UInt64>, r: UnsafeMutablePointer<UInt64>,
    s: UnsafeMutablePointer<UInt64>
  ) -> Int {
    var u4 = (u[0], u[1], u[2], u[3])
    var v4 = (v[0], v[1], v[2], v[3])
    var r4 = (r[0], r[1], r[2], r[3])
    var s4 = (s[0], s[1], s[2], s[3])
    var k = shiftOutTwos4(&v4, into: &r4)
    while u4 != v4 {
      if isLess4(v4, u4) {
        u4 = subtract4(u4, v4)
        r4 = add4(r4, s4)
        k += shiftOutTwos4(&u4, into: &s4)
      } else {
        v4 = subtract4(v4, u4)
        s4 = add4(s4, r4)
        k += shiftOutTwos4(&v4, into: &r4)
      }
    }
    (s[0], s[1], s[2], s[3]) = s4
    return k
  }

  @inline(__always)
  static func shiftOutTwos4(_ w: inout Limbs4, into x: inout Limbs4) -> Int {
    var shifted = 0
    while w.0 & 1 == 0 {
      let t = UInt64(min(w.0.trailingZeroBitCount, 63))
      let back = 64 &- t
      w = (w.0 &>> t | w.1 &<< back, w.1 &>> t | w.2 &<< back, w.2 &>> t | w.3 &<< back, w.3 &>> t)
      x = (x.0 &<< t, x.1 &<< t | x.0 &>> back, x.2 &<< t | x.1 &>> back, x.3 &<< t | x.2 &>> back)
      shifted += Int(t)
    }
    return shifted
  }

  @inline(__always)
  static func isLess4(_ a: Limbs4, _ b: Limbs4) -> Bool {
    if a.3 != b.3 { return a.3 < b.3 }
    if a.2 != b.2 { return a.2 < b.2 }
    if a.1 != b.1 { return a.1 < b.1 }
    return a.0 < b.0
  }

  /// a − b for a > b (no borrow out).
  @inline(__always)
  static func subtract4(_ a: Limbs4, _ b: Limbs4) -> Limbs4 {
    let (d0, o0) = a.0.subtractingReportingOverflow(b.0)
    let (d1a, o1a) = a.1.subtractingReportingOverflow(b.1)
    let (d1, o1b) = d1a.subtractingReportingOverflow(carryBit(o0))
    let (d2a, o2a) = a.2.subtractingReportingOverflow(b.2)
    let (d2, o2b) = d2a.subtractingReportingOverflow(carryBit(o1a) | carryBit(o1b))
    return (d0, d1, d2, a.3 &- b.3 &- (carryBit(o2a) | carryBit(o2b)))
  }

  /// a + b for a sum below 2^256 (no carry out).
  @inline(__always)
  static func add4(_ a: Limbs4, _ b: Limbs4) -> Limbs4 {
    let (s0, o0) = a.0.addingReportingOverflow(b.0)
    let (s1a, o1a) = a.1.addingReportingOverflow(b.1)
    let (s1, o1b) = s1a.addingReportingOverflow(carryBit(o0))
    let (s2a, o2a) = a.2.addingReportingOverflow(b.2)
    let (s2, o2b) = s2a.addingReportingOverflow(carryBit(o1a) | carryBit(o1b))
    return (s0, s1, s2, a.3 &+ b.3 &+ (carryBit(o2a) | carryBit(o2b)))
  }

  /// Divides nonzero w by its factors of two and multiplies x by as many (x stays at most m, by the invariant above);
  /// returns their number. Up to 63 at a time, so the shifts stay within a word.
  @inline(__always)
  static func shiftOutTwos(_ w: UnsafeMutablePointer<UInt64>, into x: UnsafeMutablePointer<UInt64>, _ count: Int)
    -> Int
  {
    var shifted = 0
    while w[0] & 1 == 0 {
      let t = UInt64(min(w[0].trailingZeroBitCount, 63))
      shiftRight(w, t, top: 0, count)
      var i = count - 1
      while i > 0 {
        x[i] = x[i] &<< t | x[i - 1] &>> (64 &- t)
        i -= 1
      }
      x[0] = x[0] &<< t
      shifted += Int(t)
    }
    return shifted
  }

  /// x = x / 2^k mod m, for x < m: x + q·m with q = −x·m⁻¹ mod 2^t is divisible by 2^t, and
  /// (x + q·m) / 2^t < (2^t·m) / 2^t = m; 63 bits at a time.
  static func divideByPowerOfTwo(
    _ x: UnsafeMutablePointer<UInt64>, _ k: Int, _ m: UnsafePointer<UInt64>, _ negativeInverse: UInt64,
    _ count: Int
  ) {
    var left = k
    while left > 0 {
      let t = UInt64(min(left, 63))
      let q = (x[0] &* negativeInverse) & ((1 &<< t) &- 1)
      var carry: UInt64 = 0
      for i in 0..<count { (carry, x[i]) = multiplyAdd(q, m[i], x[i], carry) }
      shiftRight(x, t, top: carry, count)
      left -= Int(t)
    }
  }

  /// w = (top·2^(64·count) + w) >> t, for t in 1...63.
  @inline(__always)
  static func shiftRight(_ w: UnsafeMutablePointer<UInt64>, _ t: UInt64, top: UInt64, _ count: Int) {
    for i in 0..<(count - 1) { w[i] = w[i] &>> t | w[i + 1] &<< (64 &- t) }
    w[count - 1] = w[count - 1] &>> t | top &<< (64 &- t)
  }

  @inline(__always)
  static func isZero(_ a: UnsafePointer<UInt64>, _ count: Int) -> Bool {
    var bits: UInt64 = 0
    for i in 0..<count { bits |= a[i] }
    return bits == 0
  }
}
