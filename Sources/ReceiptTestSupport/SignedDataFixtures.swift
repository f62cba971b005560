import Foundation
import ReceiptFormats
import ReceiptModel

/// Helpers for the signed-data tests: fixture paths and hand-written (unsigned) JWS.
package enum SignedDataFixtures {
  package static let appleDirectory = "peer-fixtures/apple__app-store-server-library-swift/"
  package static let aporatDirectory = "peer-fixtures/aporat__store-receipt-validator/"

  /// The bytes of a shared fixture, or nil (with the visible skip note) when ../shared is absent.
  package static func bytes(_ relative: String) -> [UInt8]? {
    guard let shared = TestPaths.shared else {
      TestPaths.noteSharedMissing(relative)
      return nil
    }
    guard let data = FileManager.default.contents(atPath: shared.appendingPathComponent(relative).path) else {
      return nil
    }
    return [UInt8](data)
  }

  /// The header make-jws.py writes.
  package static let handWrittenHeader = #"{"alg":"ES256","kid":"hand-written","x5c":[],"typ":"JWT"}"#

  /// A compact JWS around `payload` with a dummy 64-byte signature.
  package static func jws(_ payload: String, header: String = handWrittenHeader) -> String {
    Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8)) + "."
      + Base64URL.encode([UInt8](repeating: 0, count: 64))
  }

  /// The error `body` throws, or nil.
  package static func error(_ body: () throws -> Void) -> SignedDataError? {
    do {
      try body()
      return nil
    } catch {
      return error as? SignedDataError
    }
  }

  /// Milliseconds of a `Date(timeIntervalSince1970:)` seconds value as Apple's tests write it.
  package static func ms(_ seconds: Int64) -> Timestamp? { Timestamp(milliseconds: seconds * 1000) }
}
