import ReceiptCLI
import ReceiptFormats
import ReceiptModel

/// Deterministic synthetic verifyReceipt responses for the benchmark and the batch tests.
///
/// Every value is a function of the receipt and transaction index, so two runs produce the
/// same bytes. Every 7th transaction is FAMILY_SHARED; receipt.in_app repeats every 4th
/// transaction of latest_receipt_info, so readers must merge by transaction_id.
package enum SyntheticReceipts {
  static let products = [
    "com.example.pro.monthly", "com.example.pro.yearly", "com.example.coins.100", "com.example.unlock",
  ]

  /// One compact (single-line) verifyReceipt response with `transactions` transactions and a
  /// base64-like `latest_receipt` of `latestReceiptBytes` bytes.
  package static func verifyReceipt(index: Int, transactions: Int, latestReceiptBytes: Int = 720) -> String {
    var out = "{\"status\":0,\"environment\":\"Production\",\"receipt\":{\"receipt_type\":\"Production\","
    out += "\"bundle_id\":\"com.example.app\",\"application_version\":\"42\",\"original_application_version\":\"1.0\","
    out += "\"request_date_ms\":\"\(1_735_689_600_000 + index)\",\"request_date\":\"2025-01-01 00:00:00 Etc/GMT\","
    out += "\"in_app\":["
    var first = true
    for t in stride(from: 0, to: transactions, by: 4) {
      if !first { out += "," }
      first = false
      out += transaction(receipt: index, number: t)
    }
    out += "]},\"latest_receipt_info\":["
    for t in 0..<transactions {
      if t > 0 { out += "," }
      out += transaction(receipt: index, number: t)
    }
    out +=
      "],\"latest_receipt\":\"\(String(repeating: "MIIUFAYJKoZIhvcNAQcCoIIUBTCCFAECAQEx", count: 1 + latestReceiptBytes / 36).prefix(latestReceiptBytes))\"}"
    return out
  }

  /// One transaction as verifyReceipt writes it, with every date in its three spellings.
  static func transaction(receipt: Int, number: Int) -> String {
    let product = products[number % products.count]
    let id = 1_000_000_000_000_000 + receipt * 1_000_000 + number
    let original = 1_000_000_000_000_000 + receipt * 1_000_000
    let purchase: Int64 = 1_704_067_200_000 + Int64(number) * 86_400_000
    let expires = purchase + 30 * 86_400_000
    let ownership = number % 7 == 3 ? "FAMILY_SHARED" : "PURCHASED"
    func date(_ name: String, _ ms: Int64) -> String {
      let iso = Timestamp(milliseconds: ms)?.iso8601 ?? ""
      let text = iso.prefix(19).replacing("T", with: " ")
      return "\"\(name)\":\"\(text) Etc/GMT\",\"\(name)_ms\":\"\(ms)\",\"\(name)_pst\":\"\(text) America/Los_Angeles\""
    }
    var out = "{\"quantity\":\"1\",\"product_id\":\"\(product)\",\"transaction_id\":\"\(id)\","
    out += "\"original_transaction_id\":\"\(original)\",\(date("purchase_date", purchase)),"
    out += "\(date("original_purchase_date", 1_704_067_200_000)),"
    if product.hasSuffix("ly") { out += "\(date("expires_date", expires)),\"web_order_line_item_id\":\"\(id + 7)\"," }
    out += "\"is_trial_period\":\"false\",\"is_in_intro_offer_period\":\"\(number == 0)\","
    out += "\"in_app_ownership_type\":\"\(ownership)\",\"subscription_group_identifier\":\"21000111\"}"
    return out
  }
}
