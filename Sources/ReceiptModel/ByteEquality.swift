/// Whether the `count` bytes at `a` and `b` are equal: eight at a time (the last word overlapping the one
/// before), inline, since what is compared (keys, ids, a JWS header) is a few words long and a call to `memcmp`
/// costs more than comparing them.
@inlinable @inline(__always)
package func bytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, count: Int) -> Bool {
  guard count >= 8 else {
    var i = 0
    while i < count {
      if a[i] != b[i] { return false }
      i &+= 1
    }
    return true
  }
  let ra = UnsafeRawPointer(a)
  let rb = UnsafeRawPointer(b)
  var i = 0
  while i &+ 8 < count {
    if ra.loadUnaligned(fromByteOffset: i, as: UInt64.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
      return false
    }
    i &+= 8
  }
  return ra.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
    == rb.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
}

/// Whether every byte is below 0x80, eight at a time. Two ASCII texts are equal (`==`, which joins canonically
/// equivalent texts) exactly when their bytes are, so an ASCII id can be hashed and compared by its bytes.
@inlinable @inline(__always)
package func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
  guard let base = bytes.baseAddress else { return true }
  let raw = UnsafeRawPointer(base)
  var bits: UInt64 = 0
  var i = 0
  while i &+ 8 <= bytes.count {
    bits |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
    i &+= 8
  }
  while i < bytes.count {
    bits |= UInt64(bytes[i])
    i &+= 1
  }
  return bits & 0x8080_8080_8080_8080 == 0
}

/// Whether every UTF-8 byte of `text` is below 0x80, a native string's read in place.
@inlinable
package func isASCII(_ text: String) -> Bool {
  text.utf8.withContiguousStorageIfAvailable { isASCII($0) } ?? text.utf8.allSatisfy { $0 < 0x80 }
}

/// Whether two strings hold the same UTF-8 bytes, compared in place: a shortcut before a lookup that compares
/// them as `==` does (`==` on two native strings of the same bytes that are not one object goes through Unicode
/// comparison, several times the cost). Different bytes may still be equal strings: the caller then looks up.
package func sameBytes(_ a: String, _ b: String) -> Bool {
  let same = a.utf8.withContiguousStorageIfAvailable { x in
    b.utf8.withContiguousStorageIfAvailable { y -> Bool in
      guard x.count == y.count else { return false }
      guard let p = x.baseAddress, let q = y.baseAddress, p != q else { return true }
      return bytesEqual(p, q, count: x.count)
    }
  }
  return same.flatMap { $0 } ?? false
}
