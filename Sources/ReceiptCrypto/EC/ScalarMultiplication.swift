/// Scalar multiplication: the double-scalar [u1]G + [u2]Q of ECDSA verification (interleaved wNAF, Straus; and
/// from limb-split tables for a precomputed key), the base-point [k]G on the precomputed table, and a plain
/// double-and-add [k]P that the tests hold the others to. Variable time: verification's inputs are all public.
enum ScalarMultiplication<C: WeierstrassCurve> {
  typealias Scalar = C.Order.Limbs

  /// [u1]G + [u2]Q for canonical scalars below n: one shared run of doublings, G's digits from the static table
  /// (window 7, affine) and Q's from 8 odd multiples computed here (window 5).
  static func linearCombination(_ u1: Scalar, base u2: Scalar, _ q: AffinePoint<C>) -> JacobianPoint<C> {
    let bitCapacity = C.Order.limbCount * 64 + 1
    return withUnsafeTemporaryAllocation(of: Int8.self, capacity: 2 * bitCapacity) { digits in
      let gDigits = UnsafeMutableBufferPointer(rebasing: digits[0..<bitCapacity])
      let qDigits = UnsafeMutableBufferPointer(rebasing: digits[bitCapacity...])
      let gLength = wNAF(u1, window: C.generatorWindow, into: gDigits)
      let qLength = wNAF(u2, window: C.publicKeyWindow, into: qDigits)
      let qTableCount = 1 << (C.publicKeyWindow - 2)
      return withUnsafeTemporaryAllocation(of: JacobianPoint<C>.self, capacity: qTableCount) { qTable in
        let q1 = JacobianPoint(q)
        let q2 = q1.doubled()
        qTable.initializeElement(at: 0, to: q1)
        for i in 1..<qTableCount { qTable.initializeElement(at: i, to: qTable[i - 1].adding(q2)) }
        defer { qTable.deinitialize() }
        return C.generatorTable.withUnsafeBufferPointer { gTable in
          var result = JacobianPoint<C>.identity
          var i = max(gLength, qLength) - 1
          while i >= 0 {
            result = result.doubled()
            if i < gLength {
              let digit = Int(gDigits[i])
              if digit > 0 {
                result = result.adding(gTable[digit >> 1])
              } else if digit < 0 {
                result = result.adding(gTable[(-digit) >> 1].negated)
              }
            }
            if i < qLength {
              let digit = Int(qDigits[i])
              if digit > 0 {
                result = result.adding(qTable[digit >> 1])
              } else if digit < 0 {
                result = result.adding(qTable[(-digit) >> 1].negated)
              }
            }
            i -= 1
          }
          return result
        }
      }
    }
  }

  /// [u1]G + [u2]Q for canonical scalars below n, both from limb-split tables (G's static, Q's built once per
  /// key): digit i of a scalar's wNAF is digit r = i mod 64 of part j = i / 64, added from part j's multiples at
  /// step r of one run of 65 doublings (a wNAF can be one digit longer than the scalar: its digit at 64·limbs is
  /// the last part's step 64). Same result as `linearCombination(_:base:_:)`, the reference (KeyTableTests).
  static func linearCombination(
    _ u1: Scalar, _ gTable: LimbSplitTable<C>, base u2: Scalar, _ qTable: LimbSplitTable<C>
  ) -> JacobianPoint<C> {
    let parts = C.Order.limbCount
    let bitCapacity = parts * 64 + 1
    return withUnsafeTemporaryAllocation(of: Int8.self, capacity: 2 * bitCapacity) { digits in
      let gDigits = UnsafeMutableBufferPointer(rebasing: digits[0..<bitCapacity])
      let qDigits = UnsafeMutableBufferPointer(rebasing: digits[bitCapacity...])
      let gLength = wNAF(u1, window: gTable.window, into: gDigits)
      let qLength = wNAF(u2, window: qTable.window, into: qDigits)
      let gPerPart = gTable.multiplesPerPart
      let qPerPart = qTable.multiplesPerPart
      return gTable.points.withUnsafeBufferPointer { gPoints in
        qTable.points.withUnsafeBufferPointer { qPoints in
          var result = JacobianPoint<C>.identity
          for r in stride(from: 64, through: 0, by: -1) {
            result = result.doubled()
            // At step 64 only the last part has a digit (position 64·parts).
            for part in (r == 64 ? parts - 1 : 0)..<parts {
              let i = part * 64 + r
              if i < gLength, gDigits[i] != 0 {
                result = result.adding(digit: gDigits[i], of: gPoints, from: part * gPerPart)
              }
              if i < qLength, qDigits[i] != 0 {
                result = result.adding(digit: qDigits[i], of: qPoints, from: part * qPerPart)
              }
            }
          }
          return result
        }
      }
    }
  }

  /// [k]G from the precomputed table alone (the base-point path).
  static func baseMultiple(_ k: Scalar) -> JacobianPoint<C> {
    linearCombination(k, base: C.Order.zeroLimbs, C.generator)
  }

  /// [k]P by left-to-right double-and-add over the bits of k (any k < 2^(64·limbs)); slow and simple, for tests.
  static func plainMultiple(_ k: Scalar, _ point: JacobianPoint<C>) -> JacobianPoint<C> {
    var result = JacobianPoint<C>.identity
    withLimbs(k, count: C.Order.limbCount) { k in
      for bit in stride(from: C.Order.limbCount * 64 - 1, through: 0, by: -1) {
        result = result.doubled()
        if (k[bit / 64] >> UInt64(bit % 64)) & 1 == 1 { result = result.adding(point) }
      }
    }
    return result
  }

  /// The width-w non-adjacent form of k, least significant digit first: digits odd in ±[1, 2^(w−1)−1] or 0,
  /// any w consecutive digits holding at most one nonzero. Returns the number of digits written.
  static func wNAF(_ k: Scalar, window: Int, into digits: UnsafeMutableBufferPointer<Int8>) -> Int {
    let count = C.Order.limbCount + 1  // one spare limb for the carry of a negative digit
    var scratch: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    return withMutableLimbs(&scratch, count: 8) { t in
      withLimbs(k, count: C.Order.limbCount) { k in
        for i in 0..<C.Order.limbCount { t[i] = k[i] }
      }
      let mask = UInt64(1 << window) - 1
      let half = 1 << (window - 1)
      var length = 0
      while !LimbArithmetic.isZero(t, count) {
        if t[0] & 1 == 0 {
          // A run of zero digits: shift it out at once (up to 63 bits) instead of bit by bit.
          let zeros = t[0] == 0 ? 63 : t[0].trailingZeroBitCount
          for _ in 0..<zeros {
            digits[length] = 0
            length += 1
          }
          for j in 0..<(count - 1) { t[j] = t[j] >> UInt64(zeros) | t[j + 1] << UInt64(64 - zeros) }
          t[count - 1] >>= UInt64(zeros)
          continue
        }
        // Odd: the digit is t mod 2^w, taken into (−2^(w−1), 2^(w−1)); subtracting it clears the low w bits.
        var digit = Int(t[0] & mask)
        if digit >= half {
          digit -= 1 << window
          // t += −digit: a carry may run up.
          var carry = UInt64(-digit)
          for j in 0..<count where carry != 0 {
            let (sum, overflow) = t[j].addingReportingOverflow(carry)
            t[j] = sum
            carry = overflow ? 1 : 0
          }
        } else {
          t[0] &-= UInt64(digit)  // no borrow
        }
        digits[length] = Int8(truncatingIfNeeded: digit)
        length += 1
        for j in 0..<(count - 1) { t[j] = t[j] >> 1 | t[j + 1] << 63 }
        t[count - 1] >>= 1
      }
      return length
    }
  }
}

extension JacobianPoint {
  /// This point plus [digit]·P for a nonzero odd wNAF digit, where `multiples[start + i]` is [2i+1]P.
  @inline(__always)
  func adding(digit: Int8, of multiples: UnsafeBufferPointer<AffinePoint<C>>, from start: Int) -> JacobianPoint {
    let digit = Int(digit)
    return digit > 0
      ? adding(multiples[start + (digit >> 1)]) : adding(multiples[start + ((-digit) >> 1)].negated)
  }
}
