import ReceiptFormats

/// Parses the pieces of one large transaction array on the other cores (`TransactionArraySplit`).
package struct ArrayPieceHelpers: PieceHelpers {
  /// Told that the input below an offset has been read in order, so its pages may be given back (a mapped file's
  /// `InputBytes.readPrefixReleaser`); nil keeps every page.
  let releaseReadPrefix: (@Sendable (Int) -> Void)?

  /// - Parameter releaseReadPrefix: called with the offset below which the input has been read in order.
  package init(releaseReadPrefix: (@Sendable (Int) -> Void)? = nil) {
    self.releaseReadPrefix = releaseReadPrefix
  }

  /// The reader and one helper per other core (`Cores.alongside` starts at least one).
  package var threads: Int { max(2, Cores.available) }

  package func withBoard<R>(
    input: UnsafeBufferPointer<UInt8>, arrayStart: Int, pieceBytes: Int,
    parse: @escaping @Sendable (PieceClaim, _ abandoned: () -> Bool) -> ParsedPiece?,
    _ body: (any PieceBoard) throws -> R
  ) throws -> R {
    // Helpers may run four pieces a thread ahead (about 2 MB of parsed rows on two cores): with one piece
    // each, a helper waited whenever the reader was merging rows, and the 87 MB document took 12% longer.
    let board = ArrayPieceBoard(
      input: input, arrayStart: arrayStart, pieceBytes: pieceBytes, window: 4 * max(2, Cores.available),
      parse: parse, releaseReadPrefix: releaseReadPrefix)
    // Waiting on global-queue tasks cannot starve: the reader never waits for a piece no helper has
    // started (it parses such a piece itself), only for the helpers to notice the end.
    return try Cores.alongside(board.runUntilDone) {
      // Whatever happens, the helpers read the input buffer: stop them before returning.
      defer { board.cancel() }
      return try body(board)
    }
  }
}

/// The pieces and what became of them, under a lock: guessed starts, which thread parses which, results.
final class ArrayPieceBoard: PieceBoard, @unchecked Sendable {
  enum State {
    case open, claimed, done
    /// The reader parses it itself, or passed its start: nobody needs it.
    case abandoned
  }

  struct Piece {
    let start: Int
    var state = State.open
    var parsed: ParsedPiece?
  }

  private let lock = SharedLock()
  private let input: UnsafeBufferPointer<UInt8>
  private let arrayStart: Int
  private let pieceBytes: Int
  /// How far ahead of the reader's next piece helpers may go, which bounds what waits in memory.
  private let window: Int
  private let parse: @Sendable (PieceClaim, _ abandoned: () -> Bool) -> ParsedPiece?
  /// Pieces 1... (piece 0 starts at the array's `[` and is the reader's); index 0 is a placeholder.
  private var pieces: [Piece] = [Piece(start: 0, state: .abandoned)]
  private var noMoreGuesses = false
  /// Where some piece saw the array end: guesses past it would be in other arrays.
  private var endSeen: Int?
  /// The piece the reader will arrive at next.
  private var next = 1
  private var cancelled = false
  /// Helpers numbered so far (thread 0 is the reader's).
  private var helpersStarted = 0
  /// Gives back the pages of the input the reader has passed (nil: keeps them), every `releaseStep` bytes.
  private let releaseReadPrefix: (@Sendable (Int) -> Void)?
  private var released = 0
  private static let releaseStep = 4 << 20

  init(
    input: UnsafeBufferPointer<UInt8>, arrayStart: Int, pieceBytes: Int, window: Int,
    parse: @escaping @Sendable (PieceClaim, _ abandoned: () -> Bool) -> ParsedPiece?,
    releaseReadPrefix: (@Sendable (Int) -> Void)? = nil
  ) {
    self.input = input
    self.arrayStart = arrayStart
    self.pieceBytes = pieceBytes
    self.window = window
    self.parse = parse
    self.releaseReadPrefix = releaseReadPrefix
  }

  /// The reader stands at piece `k`'s start: the input before it is read (helpers only read from later
  /// starts), so a mapped document's pages below it go back to the system, and a large document is not
  /// resident whole on top of the transactions built from it. Touched again (an error's line count), they
  /// are read again from the file. Only the reader's thread calls this.
  private func passed(_ k: Int) {
    guard let releaseReadPrefix, k < lock.locked({ pieces.count }) else { return }
    let offset = lock.locked { pieces[k].start }
    guard offset - released >= Self.releaseStep else { return }
    releaseReadPrefix(offset)
    released = offset
  }

  /// A helper's loop: parses pieces until the board says stop. Each helper takes its own thread number.
  func runUntilDone() {
    let thread = lock.locked {
      helpersStarted += 1
      return helpersStarted
    }
    while let claim = claim(waiting: true, thread: thread) {
      finish(claim.piece, parse(claim) { self.isAbandoned(claim.piece) })
    }
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

  func start(of k: Int) -> Int? {
    lock.locked { guessed(k) ? pieces[k].start : nil }
  }

  /// The next open piece within the window, marked claimed; when `waiting`, waits for one (nil once cancelled).
  private func claim(waiting: Bool, thread: Int) -> PieceClaim? {
    lock.locked {
      while !cancelled {
        var k = next
        while k < next + window, guessed(k) {
          if let end = endSeen, pieces[k].start >= end { break }
          if pieces[k].state == .open {
            pieces[k].state = .claimed
            return PieceClaim(
              piece: k, start: pieces[k].start, stop: guessed(k + 1) ? pieces[k + 1].start : nil, thread: thread)
          }
          k += 1
        }
        guard waiting else { return nil }
        lock.wait()
      }
      return nil
    }
  }

  /// Records what a helper made of piece `k`.
  private func finish(_ k: Int, _ parsed: ParsedPiece?) {
    lock.locked {
      guard pieces[k].state == .claimed else { return }
      pieces[k].state = .done
      pieces[k].parsed = parsed
      if let parsed, parsed.closesArray { endSeen = min(endSeen ?? parsed.end, parsed.end) }
      lock.broadcast()
    }
  }

  /// Whether nobody needs piece `k` any more.
  private func isAbandoned(_ k: Int) -> Bool {
    lock.locked { cancelled || pieces[k].state == .abandoned }
  }

  func drop(_ k: Int) {
    lock.locked {
      if k < pieces.count {
        pieces[k].state = .abandoned
        pieces[k].parsed = nil
      }
      next = k + 1
      lock.broadcast()
    }
    passed(k)
  }

  /// While a helper still parses piece `k`, the reader parses pieces further on.
  func arrive(at k: Int) -> ParsedPiece? {
    while true {
      let state = lock.locked { pieces[k].state }
      if state == .claimed {
        // Help rather than wait: the next open piece, else wait for this one.
        if let other = claim(waiting: false, thread: 0) {
          finish(other.piece, parse(other) { self.isAbandoned(other.piece) })
          continue
        }
        lock.locked { while pieces[k].state == .claimed { lock.wait() } }
        continue
      }
      let parsed = lock.locked {
        let parsed = pieces[k].state == .done ? pieces[k].parsed : nil
        pieces[k].state = .abandoned
        pieces[k].parsed = nil
        next = k + 1
        lock.broadcast()
        return parsed
      }
      passed(k)
      return parsed
    }
  }

  /// Stops the helpers: no more claims, and pieces in progress are given up.
  func cancel() {
    lock.locked {
      cancelled = true
      lock.broadcast()
    }
  }
}
