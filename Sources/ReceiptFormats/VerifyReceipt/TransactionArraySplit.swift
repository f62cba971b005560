import Dispatch
import ReceiptModel
import ReceiptRules

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads one large transaction array in pieces on every core, so a single big receipt uses them all.
///
/// The array is cut at guessed element boundaries, a `}` `,` `{` about every `pieceBytes` (512 KiB), found without
/// scanning the array first. Worker threads (this one too, while it waits) parse the pieces; each stops at
/// the first element start at or past the next guess.
///
/// Nothing is guessed in the result: this thread reads the array in order, and takes a piece in place of
/// parsing it only when it stands exactly at the piece's start as an element boundary and the piece was
/// parsed without an error or a warning. From a true element start a piece is parsed as a sequential read
/// would, so where it ends is again a true element start, and so on. A guess this thread passes without
/// landing on it (a `},{` inside a string or a nested array) is dropped; a piece that failed or warned is
/// parsed again here. So errors, warnings and their paths are exactly those of a sequential read.
package enum TransactionArraySplit {
  /// When an array is read in pieces, and how large they are. Tests and the fuzzer use tiny sizes, so that
  /// small documents take this path too.
  package struct Sizes: Sendable {
    /// Smaller arrays (counting from the array to the end of the input) are read in one piece.
    package var minimumBytes: Int
    /// About how much of the array one piece holds.
    package var pieceBytes: Int

    package init(minimumBytes: Int, pieceBytes: Int) {
      self.minimumBytes = minimumBytes
      self.pieceBytes = max(1, pieceBytes)
    }

    /// Smaller arrays are not worth a thread.
    package static let standard = Sizes(minimumBytes: 4 << 20, pieceBytes: 1 << 19)
  }

  /// Threads that parse pieces, this one included.
  static let threads = max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

  /// Whether the array at `reader`'s position is worth splitting (enough input left).
  static func applies(to reader: JSONReader, sizes: Sizes) -> Bool {
    reader.end - reader.offset >= sizes.minimumBytes
  }

  /// Reads the array at `r`'s position in pieces of about `pieceBytes`. `element` parses one element (the
  /// reader is at its `{`) into a transaction, and runs on every thread; `add` receives every transaction in
  /// array order.
  static func read(
    _ r: inout ValueReading, pieceBytes: Int, warnings: inout [DataWarning],
    element: (inout ValueReading, inout [DataWarning]) throws -> PurchaseTransaction,
    add: (consuming PurchaseTransaction) -> Void
  ) throws {
    let arrayStart = r.reader.offset
    // Workers may run four pieces a thread ahead (about 2 MB of parsed rows on two cores): with one piece
    // each, the worker waited whenever this thread was merging rows, and the 87 MB document took 12% longer.
    let board = r.reader.withInput {
      PieceBoard(input: $0, arrayStart: arrayStart, pieceBytes: pieceBytes, window: 4 * threads)
    }
    let group = DispatchGroup()
    try withoutActuallyEscaping(element) { element in
      let worker = PieceWorker(template: r, element: element, board: board)
      // Waiting on global-queue tasks cannot starve: this thread never waits for a piece no worker has
      // started (it parses such a piece itself), only for the workers to notice the end.
      for _ in 1..<threads { DispatchQueue.global().async(group: group) { worker.runUntilDone() } }
      // Whatever happens here, the workers read the input buffer: stop them before returning.
      defer {
        board.cancel()
        group.wait()
      }
      try r.reader.beginArray()
      var index = 0
      var adopted = false
      var piece = 1
      var pieceStart = board.start(of: piece)
      var more = try r.reader.nextElement()
      while more {
        r.reader.skipWhitespace()
        let offset = r.reader.offset
        while let start = pieceStart, start < offset {
          board.drop(piece)
          piece += 1
          pieceStart = board.start(of: piece)
        }
        if pieceStart == offset {
          let parsed = board.arrive(at: piece, worker: worker)
          piece += 1
          pieceStart = board.start(of: piece)
          if var parsed {
            index += parsed.lastFirst.count
            // Moved out in array order; `for t in` would copy each, and release it again with the piece.
            while let t = parsed.lastFirst.popLast() { add(t) }
            adopted = true
            if parsed.closesArray {
              r.reader.closeArray(resumingAt: parsed.end)
              r.arraysReadOnTwoThreads += 1
              return
            }
            r.reader.skipAhead(toElementAt: parsed.end)
            continue
          }
        }
        try r.withIndex(index) { inner in
          let (kind, at) = try inner.peek()
          guard kind == .object else { throw inner.wrongType(kind, expected: "an object", at: at) }
          add(try element(&inner, &warnings))
        }
        index += 1
        more = try r.reader.nextElement()
      }
      if adopted { r.arraysReadOnTwoThreads += 1 }
    }
  }

  /// The offset of the `{` in the first `}` `,` `{` (whitespace allowed between) at or after `from`, looking
  /// at most `limit` bytes ahead; nil when there is none.
  static func guessElementStart(in buf: UnsafeBufferPointer<UInt8>, from: Int, limit: Int = 1 << 16) -> Int? {
    guard let base = buf.baseAddress, from >= 0 else { return nil }
    let n = min(buf.count, from + limit)
    func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
    var i = from
    while i < n {
      if base[i] == UInt8(ascii: "}") {
        var j = i + 1
        while j < n, isSpace(base[j]) { j += 1 }
        if j < n, base[j] == UInt8(ascii: ",") {
          j += 1
          while j < n, isSpace(base[j]) { j += 1 }
          if j < n, base[j] == UInt8(ascii: "{") { return j }
        }
      }
      i += 1
    }
    return nil
  }
}

/// A piece some thread parsed without an error or a warning.
struct ParsedPiece {
  /// The piece's transactions, last first, so that taking them in order is `popLast`, a move.
  var lastFirst: [PurchaseTransaction]
  /// The first element start at or past the next piece's guessed start, or just past the array's `]`.
  var end: Int
  /// Whether the piece ran to the end of the array.
  var closesArray: Bool
}

/// Parses pieces; shared by the worker threads and this thread, it only reads the input.
struct PieceWorker: @unchecked Sendable {
  let template: ValueReading
  let element: (inout ValueReading, inout [DataWarning]) throws -> PurchaseTransaction
  let board: PieceBoard

  /// Parses pieces until the board says stop.
  func runUntilDone() {
    while let claim = board.claim(waiting: true) {
      board.finish(claim.piece, parse(claim))
    }
  }

  /// The piece parsed from its start, or nil on an error, a warning, something not an object, or when
  /// this thread no longer needs it.
  func parse(_ claim: PieceBoard.Claim) -> ParsedPiece? {
    var r = template
    r.reader.resume(inArrayAt: claim.start)
    var rows: [PurchaseTransaction] = []
    rows.reserveCapacity(board.pieceBytes / 512)
    var warnings: [DataWarning] = []
    do {
      while true {
        if rows.count & 15 == 15, board.isAbandoned(claim.piece) { return nil }
        let (kind, _) = try r.peek()
        guard kind == .object else { return nil }
        rows.append(try element(&r, &warnings))
        // A warning names its element's index, which only the sequential read knows.
        guard warnings.isEmpty else { return nil }
        let closesArray = try !r.reader.nextElement()
        if !closesArray { r.reader.skipWhitespace() }
        if closesArray || claim.stop.map({ r.reader.offset >= $0 }) == true {
          // Reversed in place by moves (a buffer's `swapAt` moves; `Array.reverse` would copy each element).
          rows.withUnsafeMutableBufferPointer { $0.reverse() }
          return ParsedPiece(lastFirst: rows, end: r.reader.offset, closesArray: closesArray)
        }
      }
    } catch {
      return nil
    }
  }
}

/// The pieces and what became of them, under a lock: guessed starts, which thread parses which, results.
final class PieceBoard: @unchecked Sendable {
  enum State {
    case open, claimed, done
    /// This thread parses it itself, or passed its start: nobody needs it.
    case abandoned
  }

  struct Piece {
    let start: Int
    var state = State.open
    var parsed: ParsedPiece?
  }

  /// A piece a thread took: its number, start, and the next piece's start (nil: none, run to the array's end).
  struct Claim {
    let piece: Int
    let start: Int
    let stop: Int?
  }

  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  private let input: UnsafeBufferPointer<UInt8>
  private let arrayStart: Int
  /// About how much of the array one piece holds.
  let pieceBytes: Int
  /// How far ahead of this thread's next piece workers may go, which bounds what waits in memory.
  private let window: Int
  /// Pieces 1... (piece 0 starts at the array's `[` and is this thread's); index 0 is a placeholder.
  private var pieces: [Piece] = [Piece(start: 0, state: .abandoned)]
  private var noMoreGuesses = false
  /// Where some piece saw the array end: guesses past it would be in other arrays.
  private var endSeen: Int?
  /// The piece this thread will arrive at next.
  private var next = 1
  private var cancelled = false

  init(input: UnsafeBufferPointer<UInt8>, arrayStart: Int, pieceBytes: Int, window: Int) {
    self.input = input
    self.arrayStart = arrayStart
    self.pieceBytes = pieceBytes
    self.window = window
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(changed, nil)
  }

  deinit {
    pthread_cond_destroy(changed)
    pthread_mutex_destroy(mutex)
    changed.deallocate()
    mutex.deallocate()
  }

  private func locked<R>(_ body: () -> R) -> R {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return body()
  }

  /// Guesses starts up to piece `k`; with the lock held.
  private func guessed(_ k: Int) -> Bool {
    while pieces.count <= k, !noMoreGuesses {
      let from = (pieces.count == 1 ? arrayStart : pieces[pieces.count - 1].start) + pieceBytes
      if from >= input.count || endSeen.map({ from >= $0 }) == true {
        noMoreGuesses = true
      } else if let start = TransactionArraySplit.guessElementStart(in: input, from: from) {
        pieces.append(Piece(start: start))
      } else {
        noMoreGuesses = true
      }
    }
    return k < pieces.count
  }

  /// Where piece `k` starts; nil when there is no such piece.
  func start(of k: Int) -> Int? {
    locked { guessed(k) ? pieces[k].start : nil }
  }

  /// The next open piece within the window, marked claimed; when `waiting`, waits for one (nil once cancelled).
  func claim(waiting: Bool) -> Claim? {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    while !cancelled {
      var k = next
      while k < next + window, guessed(k) {
        if let end = endSeen, pieces[k].start >= end { break }
        if pieces[k].state == .open {
          pieces[k].state = .claimed
          return Claim(piece: k, start: pieces[k].start, stop: guessed(k + 1) ? pieces[k + 1].start : nil)
        }
        k += 1
      }
      guard waiting else { return nil }
      pthread_cond_wait(changed, mutex)
    }
    return nil
  }

  /// Records what a worker made of piece `k`.
  func finish(_ k: Int, _ parsed: ParsedPiece?) {
    locked {
      guard pieces[k].state == .claimed else { return }
      pieces[k].state = .done
      pieces[k].parsed = parsed
      if let parsed, parsed.closesArray { endSeen = min(endSeen ?? parsed.end, parsed.end) }
      pthread_cond_broadcast(changed)
    }
  }

  /// Whether nobody needs piece `k` any more.
  func isAbandoned(_ k: Int) -> Bool {
    locked { cancelled || pieces[k].state == .abandoned }
  }

  /// This thread passed piece `k`'s start without landing on it: its start is no element boundary.
  func drop(_ k: Int) {
    locked {
      if k < pieces.count {
        pieces[k].state = .abandoned
        pieces[k].parsed = nil
      }
      next = k + 1
      pthread_cond_broadcast(changed)
    }
  }

  /// This thread stands at piece `k`'s start, an element boundary: the piece as parsed, or nil when this
  /// thread must parse it (nobody started it, or it failed or warned). While a worker still parses it, this
  /// thread parses pieces further on.
  func arrive(at k: Int, worker: PieceWorker) -> ParsedPiece? {
    while true {
      let state = locked { pieces[k].state }
      if state == .claimed {
        // Help rather than wait: the next open piece, else wait for this one.
        if let other = claim(waiting: false) {
          finish(other.piece, worker.parse(other))
          continue
        }
        pthread_mutex_lock(mutex)
        while pieces[k].state == .claimed { pthread_cond_wait(changed, mutex) }
        pthread_mutex_unlock(mutex)
        continue
      }
      return locked {
        let parsed = pieces[k].state == .done ? pieces[k].parsed : nil
        pieces[k].state = .abandoned
        pieces[k].parsed = nil
        next = k + 1
        pthread_cond_broadcast(changed)
        return parsed
      }
    }
  }

  /// Stops the workers: no more claims, and pieces in progress are given up.
  func cancel() {
    locked {
      cancelled = true
      pthread_cond_broadcast(changed)
    }
  }
}
