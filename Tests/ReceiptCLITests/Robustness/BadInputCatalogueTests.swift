import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// The catalogue of hostile input from issue 8: each case ends in a clear answer, with the exit status and
/// message pinned, run through the whole command (`receipt-tool decode FILE`, and `timeline`) in-process, within two seconds
/// (one case at a time, so the timing is the case's own).
@Suite(.serialized) struct BadInputCatalogueTests {
  struct Case: CustomTestStringConvertible, Sendable {
    var name: String
    var bytes: [UInt8]
    var status: ReceiptCLI.ExitStatus
    /// Expected standard error with the file path replaced by `FILE`; nil when the case must succeed quietly.
    var message: String?
    var testDescription: String { name }
  }

  static func receipt(_ transaction: String) -> String {
    #"{"status":0,"receipt":{"bundle_id":"com.x","in_app":[\#(transaction)]}}"#
  }

  static func tx(_ extra: String) -> String {
    #"{"transaction_id":"1","product_id":"p","purchase_date_ms":"1600000000000"\#(extra)}"#
  }

  static func data(_ name: String, _ text: String, _ message: String) -> Case {
    Case(name: name, bytes: Array(text.utf8), status: .dataError, message: message)
  }

  static let notAnObject =
    "expected a JSON object (a verifyReceipt response, a notification v1 body or a receipt), found"

  static let deepArrays = String(repeating: "[", count: 100_000)
  static let deepObjects = String(repeating: #"{"a":"#, count: 100_000)
  static let deepInSkipped: String = #"{"status":0,"x":"# + deepArrays

  static let cases: [Case] = structureCases + fieldCases + dateCases + secretCases + hostileTextCases + notJSONCases

  /// Terminal control sequences in ids reach the terminal escaped (issue 20): every successful case is also
  /// checked for raw control characters on standard output, in every format.
  static let hostileTextCases: [Case] = [
    Case(
      name: "OSC window title and BEL in bundle_id, SGR conceal in product_id",
      bytes: Array(
        (#"{"status":0,"receipt":{"bundle_id":"x\u001b]0;PWNED\u0007","in_app":[{"transaction_id":"1","#
          + #""product_id":"p\u001b[8m","purchase_date_ms":"1600000000000"}]}}"#).utf8),
      status: .ok, message: nil),
    Case(
      name: "C1 CSI, DEL and a bidi override in ids",
      bytes: Array(
        #"{"status":0,"environment":"\u009b2J\u007f","receipt":{"bundle_id":"abc\u202efdp","in_app":[]}}"#.utf8),
      status: .ok, message: nil),
    // RFC 8259 §8.1: a byte order mark may start the input; NDJSON is still told apart from one document.
    Case(
      name: "UTF-8 BOM before NDJSON in a .json file",
      bytes: [0xEF, 0xBB, 0xBF] + Array((receipt(tx("")) + "\n" + receipt(tx("")) + "\n").utf8), status: .ok,
      message: nil),
  ]

  /// Inputs that are recognisably something else are read by that format, whose message says what is wrong
  /// with them: never "found a number".
  static let notJSONCases: [Case] = [
    data(
      "base64 text", "ewoJInNpZ25hdHVyZSIgPSAiQXBkeEpkdE53UFUyckE1L2NuM2tJTzFPVGsyNWZlREthMGFhZ3l5UnZlV2xj\n",
      #"FILE: byte 0: not an app receipt: the text "ewoJInNpZ25h..." read as base64 gives the bytes 7B 0A 09 22..., but a PKCS#7 receipt starts with 30"#
    ),
    Case(
      name: "PKCS#7 DER",
      bytes: [
        0x30, 0x82, 0x12, 0x5B, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02, 0xA0, 0x82, 0x12,
      ],
      status: .dataError,
      message:
        "FILE: byte 0: truncated: SEQUENCE declares 4699 bytes but only 14 remain"
    ),
    // A payload holding only bundleId is valid JSON: read as what it can be, with a warning (issue 30).
    Case(
      name: "compact JWS",
      bytes: Array("eyJhbGciOiJFUzI1NiIsIng1YyI6W119.eyJidW5kbGVJZCI6ImNvbS54In0.c2lnbmF0dXJl".utf8), status: .ok,
      message: nil),
  ]

  static let structureCases: [Case] = [
    Case(
      name: "empty file", bytes: [], status: .dataError, message: "FILE:1:1: unexpected end of input; expected a value"),
    data("only whitespace", "  \n\t ", "FILE:2:3: unexpected end of input; expected a value"),
    // RFC 8259 §8.1 lets a parser ignore a UTF-8 byte order mark; the reader skips it.
    Case(name: "UTF-8 BOM", bytes: [0xEF, 0xBB, 0xBF] + Array(receipt(tx("")).utf8), status: .ok, message: nil),
    Case(
      name: "UTF-16 with BOM", bytes: [0xFF, 0xFE] + Array(#"{"status":0}"#.utf8).flatMap { [$0, 0] },
      status: .dataError,
      message:
        "FILE:1:1: input is UTF-16 (it starts with a UTF-16 byte order mark); convert it to UTF-8, e.g. iconv -f UTF-16 -t UTF-8"
    ),
    Case(
      name: "UTF-16 without BOM", bytes: Array(#"{"status":0}"#.utf8).flatMap { [$0, 0] }, status: .dataError,
      message: "FILE:1:1: input looks like UTF-16 or UTF-32 (NUL bytes among the first characters); convert it to UTF-8"
    ),
    Case(
      name: "bytes that are not UTF-8",
      bytes: Array(#"{"status":0,"environment":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8),
      status: .dataError, message: "FILE:1:28: invalid UTF-8 (byte 0xFF)"),
    Case(
      name: "NUL byte after the value", bytes: Array(#"{"status":0}"#.utf8) + [0], status: .dataError,
      message: "FILE:1:13: unexpected NUL byte after the end of the JSON value"),
    Case(
      name: "NUL byte in a string", bytes: Array(#"{"status":0,"environment":"a"#.utf8) + [0] + Array(#"b"}"#.utf8),
      status: .dataError, message: "FILE:1:29: unescaped control character (NUL byte) in a string"),
    data("truncated JSON", String(receipt(tx("")).prefix(30)), "FILE:1:24: unterminated string"),
    data("truncated after a value", #"{"status":0,"#, "FILE:1:13: unexpected end of input; expected a string key"),
    data("top-level array", "[1,2]", "FILE:1:1: \(notAnObject) an array"),
    data("top-level string", #""hello""#, "FILE:1:1: \(notAnObject) a string"),
    data("top-level number", "42", "FILE:1:1: \(notAnObject) a number"),
    data("nesting 100,000 deep (arrays)", deepArrays, "FILE:1:1: \(notAnObject) an array"),
    data("nesting 100,000 deep (objects)", deepObjects, "FILE:1:2561: nesting deeper than 512 levels"),
    data(
      "nesting 100,000 deep inside a skipped member", deepInSkipped,
      "FILE:1:528: nesting deeper than 512 levels"),
    data(
      "status past Int64", #"{"status":92233720368547758070}"#,
      "FILE:1:11: status: 92233720368547758070 is not a status code"),
    data("status past Double", #"{"status":1e999999}"#, "FILE:1:11: status: 1e999999 is not a status code"),
    // Numbers the tool does not read are validated but never converted, so no size is too big.
    Case(
      name: "huge numbers in members the tool skips",
      bytes: Array(#"{"status":0,"receipt":{"bundle_id":"x"},"a":1e999999,"b":123456789012345678901234567890}"#.utf8),
      status: .ok, message: nil),
    data(
      "duplicate key the tool reads", #"{"status":0,"status":1}"#,
      "FILE:1:13: status: duplicate key; receipt-tool reads it and will not guess which value is meant"),
    data(
      "duplicate key inside a transaction", receipt(tx(#","quantity":"1","quantity":"2""#)),
      "FILE:1:143: receipt.in_app[0].quantity: duplicate key; receipt-tool reads it and will not guess which value is meant"
    ),
    Case(
      name: "duplicate key the tool skips", bytes: Array(#"{"status":0,"z":1,"z":2,"receipt":{"bundle_id":"x"}}"#.utf8),
      status: .ok, message: nil),
  ]

  static let fieldCases: [Case] = [
    data("status as a word", #"{"status":"ok"}"#, #"FILE:1:11: status: "ok" is not a status code"#),
    data("status as a boolean", #"{"status":true}"#, "FILE:1:11: status: expected a status code, found a boolean"),
    data("status as a fraction", #"{"status":0.5}"#, "FILE:1:11: status: 0.5 is not a status code"),
    data(
      "status negative", #"{"status":-1}"#, "FILE:1:11: status: -1 is out of range for a status code (0 to 2147483647)"),
    data(
      "receipt as a string", #"{"status":0,"receipt":"x"}"#, "FILE:1:23: receipt: expected an object, found a string"),
    data(
      "in_app as a number", #"{"status":0,"receipt":{"bundle_id":"x","in_app":5}}"#,
      "FILE:1:49: receipt.in_app: expected an array of objects, found a number"),
    data(
      "in_app as an object", #"{"status":0,"receipt":{"bundle_id":"x","in_app":"# + tx("") + "}}",
      "FILE:1:49: receipt.in_app: expected an array of objects, found an object"),
    data(
      "a transaction as an array", receipt("[1]"), "FILE:1:54: receipt.in_app[0]: expected an object, found an array"),
    data(
      "a transaction as a string", receipt(#""x""#),
      #"FILE:1:54: receipt.in_app[0]: expected an object, found a string"#),
    data(
      "latest_receipt_info as a string", #"{"status":0,"latest_receipt_info":"x"}"#,
      "FILE:1:35: latest_receipt_info: expected an array of objects, found a string"),
    data(
      "pending_renewal_info as a number", #"{"status":0,"pending_renewal_info":1}"#,
      "FILE:1:36: pending_renewal_info: expected an array of objects, found a number"),
    data(
      "transaction_id as an object", receipt(#"{"transaction_id":{},"product_id":"p"}"#),
      "FILE:1:72: receipt.in_app[0].transaction_id: expected a string identifier, found an object"),
    data(
      "transaction_id as a fraction", receipt(#"{"transaction_id":1.5,"product_id":"p"}"#),
      "FILE:1:72: receipt.in_app[0].transaction_id: 1.5 is not an identifier (identifiers are strings of digits)"),
    data(
      "product_id as an array", receipt(#"{"transaction_id":"1","product_id":[]}"#),
      "FILE:1:89: receipt.in_app[0].product_id: expected a string, found an array"),
    data(
      "in_app_ownership_type as a boolean", receipt(tx(#","in_app_ownership_type":true"#)),
      "FILE:1:152: receipt.in_app[0].in_app_ownership_type: expected a string, found a boolean"),
    data(
      "is_trial_period as a word", receipt(tx(#","is_trial_period":"yes""#)),
      #"FILE:1:146: receipt.in_app[0].is_trial_period: "yes" is not a boolean (expected "true", "false", "1" or "0")"#),
    data(
      "is_in_intro_offer_period as 2", receipt(tx(#","is_in_intro_offer_period":2"#)),
      "FILE:1:155: receipt.in_app[0].is_in_intro_offer_period: 2 is not a boolean (expected 1 or 0)"),
    data(
      "expires_date_ms as a boolean", receipt(tx(#","expires_date_ms":false"#)),
      "FILE:1:146: receipt.in_app[0].expires_date_ms: expected a millisecond timestamp, found a boolean"),
    data(
      "purchase_date as an array", receipt(tx(#","purchase_date":[]"#)),
      "FILE:1:144: receipt.in_app[0].purchase_date: expected a date string, found an array"),
    data(
      "missing product_id", receipt(#"{"transaction_id":"1"}"#), "FILE:1:54: receipt.in_app[0]: missing product_id"),
    data(
      "missing transaction_id", receipt(#"{"product_id":"p"}"#), "FILE:1:54: receipt.in_app[0]: missing transaction_id"),
    data(
      "quantity 0", receipt(tx(#","quantity":"0""#)),
      #"FILE:1:139: receipt.in_app[0].quantity: "0" is out of range for a quantity (1 to 1000000)"#),
    data(
      "quantity negative", receipt(tx(#","quantity":-1"#)),
      "FILE:1:139: receipt.in_app[0].quantity: -1 is out of range for a quantity (1 to 1000000)"),
    data(
      "quantity huge", receipt(tx(#","quantity":"99999999999999999999""#)),
      #"FILE:1:139: receipt.in_app[0].quantity: "99999999999999999999" is not a quantity"#),
    data(
      "quantity 1e3", receipt(tx(#","quantity":1e3"#)), "FILE:1:139: receipt.in_app[0].quantity: 1e3 is not a quantity"),
  ]

  /// `*_ms` values: digits only, 1970 to 9999. An empty string means absent, as everywhere in Apple's JSON.
  static let dateCases: [Case] =
    ["-1", "+12", "1e3", "12x", "99999999999999999999", "253402300800000", " 12", "0x10"].map { value in
      data(
        "expires_date_ms \(value)", receipt(tx(#","expires_date_ms":"\#(value)""#)),
        #"FILE:1:146: receipt.in_app[0].expires_date_ms: "\#(value)" is not a millisecond timestamp (digits only, 1970 to 9999)"#
      )
    } + [
      Case(
        name: "expires_date_ms empty", bytes: Array(receipt(tx(#","expires_date_ms":"""#)).utf8),
        status: ReceiptCLI.ExitStatus.ok, message: nil),
      data(
        "expires_date_ms as a number 1e3", receipt(tx(#","expires_date_ms":1e3"#)),
        "FILE:1:146: receipt.in_app[0].expires_date_ms: 1e3 is not a millisecond timestamp (digits only, 1970 to 9999)"),
      data(
        "expires_date_ms as a negative number", receipt(tx(#","expires_date_ms":-1"#)),
        "FILE:1:146: receipt.in_app[0].expires_date_ms: -1 is not a millisecond timestamp (digits only, 1970 to 9999)"),
      data(
        "formatted date past 9999", receipt(tx(#","expires_date":"10000-01-01 00:00:00 Etc/GMT""#)),
        #"FILE:1:143: receipt.in_app[0].expires_date: "10000-01-01 00:00:00 Etc/GMT" is not a date (expected "YYYY-MM-DD HH:MM:SS Etc/GMT")"#
      ),
      data(
        "formatted date 12x", receipt(tx(#","purchase_date":"12x""#)),
        #"FILE:1:144: receipt.in_app[0].purchase_date: "12x" is not a date (expected "YYYY-MM-DD HH:MM:SS Etc/GMT")"#),
      data(
        "request_date_ms past 9999", #"{"status":0,"receipt":{"bundle_id":"x","request_date_ms":"253402300800000"}}"#,
        #"FILE:1:58: receipt.request_date_ms: "253402300800000" is not a millisecond timestamp (digits only, 1970 to 9999)"#
      ),
    ]

  /// Errors about a long value quote only a short excerpt of it.
  static let secretCases: [Case] = [
    data(
      "a long bad value is clipped",
      receipt(tx(#","expires_date_ms":""# + String(repeating: "9", count: 10_000) + #"""#)),
      #"FILE:1:146: receipt.in_app[0].expires_date_ms: ""# + String(repeating: "9", count: 40)
        + #"…" is not a millisecond timestamp (digits only, 1970 to 9999)"#)
  ]

  @Test(arguments: cases)
  func eachCaseEndsWithItsExitStatusAndMessage(_ c: Case) throws {
    let path = try InProcessRunner.temporaryFile(c.bytes)
    for format in ["text", "json", "ndjson"] {
      let result = InProcessRunner.run(["decode", path, "--format", format])
      #expect(result.status == c.status, "\(format): \(result.stderr)")
      let stderr = result.stderr.replacingOccurrences(of: path, with: "FILE")
      if let message = c.message {
        #expect(stderr == "receipt-tool: error: \(message)\n", "\(format)")
      } else {
        #expect(!stderr.contains("error:"), "\(format): \(stderr)")
        #expect(!result.stdout.isEmpty)
      }
      // Text shows every control visibly; JSON escapes what RFC 8259 requires (and C1 and DEL).
      let raw = result.stdout.unicodeScalars.filter {
        format == "text"
          ? $0 != "\n" && TerminalSafeText.mustEscape($0) : $0.value == 0x7F || (0x80...0x9F).contains($0.value)
      }
      #expect(raw.isEmpty, "\(format): raw control characters \(raw.map(\.value)) on standard output")
      #expect(result.seconds < 2, "\(format) took \(result.seconds) s")
    }
  }

  /// `timeline` ends each case as `decode` does, and on bad data prints nothing on standard output in any
  /// format: no chart or page half-way.
  @Test(arguments: cases)
  func timelineEndsEachCaseTheSameWay(_ c: Case) throws {
    let path = try InProcessRunner.temporaryFile(c.bytes)
    for format in ["text", "html", "svg"] {
      let result = InProcessRunner.run(["timeline", path, "--format", format, "--as-of", "2024-06-15"])
      #expect(result.status == c.status, "\(format): \(result.stderr)")
      let stderr = result.stderr.replacingOccurrences(of: path, with: "FILE")
      if let message = c.message {
        #expect(stderr == "receipt-tool: error: \(message)\n", "\(format)")
        #expect(result.stdout.isEmpty, "\(format) printed \(result.stdout.prefix(200))")
      } else {
        #expect(!stderr.contains("error:"), "\(format): \(stderr)")
        #expect(!result.stdout.isEmpty)
      }
      #expect(result.seconds < 2, "\(format) took \(result.seconds) s")
    }
  }

  @Test func theDepthLimitIs512() throws {
    func doc(_ depth: Int) -> [UInt8] {
      Array(
        (#"{"status":0,"x":"# + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1)
          + "}").utf8)
    }
    #expect((try? ReceiptDecoder.decode(doc(512), source: "t")) != nil)
    #expect(throws: ReceiptError.self) { try ReceiptDecoder.decode(doc(513), source: "t") }
    #expect(
      (try? JSONValue.parse(Array((String(repeating: "[", count: 512) + String(repeating: "]", count: 512)).utf8)))
        != nil)
    #expect(
      (try? JSONValue.parse(Array((String(repeating: "[", count: 513) + String(repeating: "]", count: 513)).utf8)))
        == nil)
  }
}
