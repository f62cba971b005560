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
