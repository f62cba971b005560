import ReceiptModel
import ReceiptModelTestSupport
import Testing

/// `SentenceText` against the plain joining of its pieces: every capacity (none, too small, exact, more), text of
/// one to four UTF-8 bytes a character, and dates in and outside 1970...9999, with and without milliseconds.
struct SentenceTextTests {
  enum Piece {
    case text(String)
    case date(Timestamp)

    var plain: String {
      switch self {
      case .text(let s): s
      case .date(let t): t.iso8601
      }
    }
  }

  static let texts = [
    "", "a", " expired on ", "com.example.p0.monthly", "é", "日本語の製品", "🎟️ pass", String(repeating: "x", count: 300),
    "; the billing grace period ended on ",
  ]

  static func date(_ rng: inout SplitMix64) -> Timestamp {
    var t = Timestamp.epoch
    switch rng.next() % 4 {
    case 0: t.milliseconds = Int64(rng.next() % 4_000_000_000) * 1000
    case 1: t.milliseconds = Int64(rng.next() % UInt64(Timestamp.maximumMilliseconds + 1))
    case 2: t.milliseconds = -Int64(rng.next() % 100_000_000_000) - 1
    default: t.milliseconds = Timestamp.maximumMilliseconds + 1 + Int64(rng.next() % 100_000_000_000)
    }
    return t
  }

  @Test func sentenceIsThePiecesJoined() {
    var rng = SplitMix64(seed: 21)
    for _ in 0..<5_000 {
      let pieces: [Piece] = (0..<Int(rng.next() % 8)).map { _ in
        rng.next() % 3 == 0 ? .date(Self.date(&rng)) : .text(Self.texts[Int(rng.next() % UInt64(Self.texts.count))])
      }
      let plain = pieces.map(\.plain).joined()
      let exact = pieces.reduce(0) { n, p in
        if case .text(let s) = p { return n + s.utf8.count }
        return n + SentenceText.dateCapacity
      }
      for capacity in [0, 1, exact / 2, plain.utf8.count, exact, exact + 40, Int(rng.next() % 64)] {
        let made = SentenceText.make(capacity: capacity) { text in
          for p in pieces {
            switch p {
            case .text(let s): text.append(s)
            case .date(let t): text.append(iso8601: t)
            }
          }
        }
        #expect(made == plain, "capacity \(capacity)")
        #expect(Array(made.utf8) == Array(plain.utf8))
      }
    }
  }
}
