// The C library (memcmp, clock_gettime, mmap, read, signals), named once for every platform: the targets
// above this one see it through ReceiptModel instead of repeating this block.
#if canImport(Glibc)
  @_exported import Glibc
#elseif canImport(Musl)
  @_exported import Musl
#elseif canImport(Darwin)
  @_exported import Darwin
#endif

extension Timestamp {
  /// The current time from the system clock.
  public static func now() -> Timestamp {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    let ms = Int64(ts.tv_sec).multipliedReportingOverflow(by: 1000).partialValue + Int64(ts.tv_nsec / 1_000_000)
    return Timestamp(milliseconds: ms) ?? Timestamp(milliseconds: Timestamp.maximumMilliseconds) ?? Timestamp.epoch
  }
}
