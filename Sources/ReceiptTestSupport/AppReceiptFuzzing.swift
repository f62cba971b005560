import ReceiptFormats
import ReceiptModel

/// Fuzz properties of the app receipt reader, for the libFuzzer target and the regression replay.
package enum AppReceiptFuzzing {
  /// Runs the bytes through sniffing, recognition, the PKCS#7 envelope and (directly) the payload decoder.
  /// Returns the properties that failed; empty when all is well. A crash or hang is a finding by itself.
  package static func fuzz(_ bytes: [UInt8]) -> [String] {
    var problems: [String] = []
    _ = AppReceiptInput.sniff(bytes)

    func check(_ error: AppReceiptError, limit: Int, _ what: String) {
      if error.description.contains("\n") || error.description.contains("\r") {
        problems.append("\(what): error is not one line")
      }
      if error.message.isEmpty { problems.append("\(what): error has no message") }
      if error.offset < 0 || error.offset > limit {
        problems.append("\(what): error offset \(error.offset) outside 0...\(limit)")
      }
    }

    func checkPayload(_ payload: AppReceiptPayload, _ what: String) {
      if payload.inAppPurchases.map(\.index) != Array(0..<payload.inAppPurchases.count) {
        problems.append("\(what): in-app indices are not 0..<count")
      }
      // Every date must print: a Timestamp out of range would have been rejected when read.
      let dates =
        [payload.creationDate, payload.expirationDate, payload.transactionDate, payload.originalPurchaseDate]
        + payload.inAppPurchases.flatMap {
          [$0.purchaseDate, $0.originalPurchaseDate, $0.expiresDate, $0.cancellationDate]
        }
      for date in dates.compactMap({ $0 }) where date.iso8601.count < 20 {
        problems.append("\(what): date \(date.milliseconds) prints as \(date.iso8601)")
      }
    }

    // The whole reader: recognition then decoding; reading twice gives the same answer.
    do {
      let document = try AppReceiptReader.read(bytes)
      checkPayload(document.payload, "read")
      if (try? AppReceiptReader.read(bytes)) != document { problems.append("read: a second read differs") }
    } catch {
      check(error, limit: bytes.count, "read")
    }
    // The bytes as DER, and as the payload SET itself, so mutations reach the attribute mapping directly.
    do {
      checkPayload(try AppReceiptPayloadDecoder.decode(der: bytes), "der")
    } catch {
      check(error, limit: bytes.count, "der")
    }
    do {
      checkPayload(try AppReceiptPayloadDecoder.decodePayload(bytes, offsetMap: .identity), "payload")
    } catch {
      check(error, limit: bytes.count, "payload")
    }
    problems += fuzzRegistryPath(bytes)
    return problems
  }

  /// The registry path the commands take: when the app receipt format claims the bytes, its history never
  /// claims an owner or a verified signature, and its errors are one line with a byte offset inside the input.
  package static func fuzzRegistryPath(_ bytes: [UInt8]) -> [String] {
    var problems: [String] = []
    guard FormatRegistry.standard.format(for: bytes) is AppReceiptFormat else { return problems }
    do {
      let history = try AppReceiptFormat().decode(bytes, source: "fuzz", options: DecodeOptions())
      if history.transactions.contains(where: { $0.ownership != .unknown || $0.sources != .appReceipt }) {
        problems.append("registry: a transaction claims an ownership or a source it cannot know")
      }
      if history.provenance.signatureCheck.verdict == .verified {
        problems.append("registry: signature claims verified")
      }
    } catch {
      if error.description.contains("\n") { problems.append("registry: error is not one line") }
      guard case .byteOffset(let offset)? = error.position, offset >= 0, offset <= bytes.count else {
        if error.path?.hasPrefix("in-app") != true {
          problems.append("registry: error without a byte offset inside the input: \(error.description)")
        }
        return problems
      }
    }
    return problems
  }
}
