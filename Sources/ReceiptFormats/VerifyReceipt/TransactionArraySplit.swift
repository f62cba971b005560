import ReceiptModel

/// Reads one large transaction array in pieces on every core, so a single big receipt uses them all.
///
/// The array is cut at guessed element boundaries, a `}` `,` `{` about every `pieceBytes` (512 KiB), found without
/// scanning the array first. Other threads (this one too, while it waits) parse the pieces; each stops at
/// the first element start at or past the next guess. This target starts no thread: the caller's
/// `PieceHelpers` (the input pipeline's, in ReceiptCLI) run them, and without helpers nothing is split.
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

  /// How an array is split, and who parses the pieces.
  package struct Pieces: Sendable {
    package var sizes: Sizes
    package var helpers: any PieceHelpers

    package init(sizes: Sizes = .standard, helpers: any PieceHelpers) {
      self.sizes = sizes
      self.helpers = helpers
    }
  }

  /// Whether the array at `reader`'s position is worth splitting (enough input left).
  static func applies(to reader: JSONReader, sizes: Sizes) -> Bool {
    reader.end - reader.offset >= sizes.minimumBytes
  }

  /// Reads the array at `r`'s position in pieces of about `pieceBytes`, which `helpers` parse ahead. `element`
  /// parses one element (the reader is at its `{`) and appends its transaction to the list it is given; it runs
  /// on every thread, for pieces. `add` receives each piece another thread parsed, its transactions last first
  /// with their ids' numeric keys (it empties the array); `addOne` parses an element this thread reads itself
  /// and adds it, so that every transaction arrives in array order.
  static func read(
    _ r: inout ValueReading, pieceBytes: Int, helpers: any PieceHelpers, warnings: inout [DataWarning],
    element: (inout ValueReading, inout [DataWarning], inout [PurchaseTransaction]) throws -> Void,
    add: (_ lastFirst: inout [PurchaseTransaction], _ keys: [UInt64?]) -> Void,
    addOne: (inout ValueReading, inout [DataWarning]) throws -> Void
  ) throws {
    let arrayStart = r.reader.offset
    try withoutActuallyEscaping(element) { element in
      // Each thread's interners, kept from piece to piece; freed once the helpers have stopped.
      let kept = UnsafeMutableBufferPointer<PieceInterners>.allocate(capacity: max(0, helpers.threads))
      kept.initialize(repeating: PieceInterners())
      defer {
        kept.deinitialize()
        kept.deallocate()
      }
      let worker = PieceWorker(template: r, element: element, pieceBytes: pieceBytes, kept: kept)
      let input = r.reader.withInput { $0 }
      // The helpers read the input buffer: they have stopped when `withBoard` returns.
      try helpers.withBoard(
        input: input, arrayStart: arrayStart, pieceBytes: pieceBytes, parse: worker.parse
      ) { board in
        try readInOrder(&r, board: board, warnings: &warnings, addPiece: add, addOne: addOne)
      }
    }
  }

  /// The sequential read of the array, taking each piece `board` has parsed when it stands at its start.
  private static func readInOrder(
    _ r: inout ValueReading, board: any PieceBoard, warnings: inout [DataWarning],
    addPiece: (_ lastFirst: inout [PurchaseTransaction], _ keys: [UInt64?]) -> Void,
    addOne: (inout ValueReading, inout [DataWarning]) throws -> Void
  ) throws {
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
        let parsed = board.arrive(at: piece)
        piece += 1
        pieceStart = board.start(of: piece)
        if var parsed {
          index += parsed.lastFirst.count
          // Moved out in array order; `for t in` would copy each, and release it again with the piece.
          addPiece(&parsed.lastFirst, parsed.keys)
          adopted = true
          if parsed.closesArray {
            r.reader.closeArray(resumingAt: parsed.end)
            r.arraysReadInPieces += 1
            return
          }
          r.reader.skipAhead(toElementAt: parsed.end)
          continue
        }
      }
      try r.withIndex(index) { inner in
        let (kind, at) = try inner.peek()
        guard kind == .object else { throw inner.wrongType(kind, expected: "an object", at: at) }
        try addOne(&inner, &warnings)
      }
      index += 1
      more = try r.reader.nextElement()
    }
    if adopted { r.arraysReadInPieces += 1 }
  }

  /// The offset of the `{` in the first `}` `,` `{` (whitespace allowed between) at or after `from`, looking
  /// at most `limit` bytes ahead; nil when there is none.
  package static func guessElementStart(in buf: UnsafeBufferPointer<UInt8>, from: Int, limit: Int = 1 << 16) -> Int? {
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

/// Parses the pieces of one array on other threads while the caller reads it in order. The input pipeline
/// (ReceiptCLI) owns the threads and provides this; formats start none.
package protocol PieceHelpers: Sendable {
  /// How many threads parse pieces, the reader's included: every `PieceClaim.thread` is below it.
  var threads: Int { get }

  /// Calls `body` with the board of the pieces of the array at `arrayStart` in `input`, about `pieceBytes` each,
  /// which other threads parse with `parse` meanwhile; returns once they have stopped reading `input`.
  func withBoard<R>(
    input: UnsafeBufferPointer<UInt8>, arrayStart: Int, pieceBytes: Int,
    parse: @escaping @Sendable (PieceClaim, _ abandoned: () -> Bool) -> ParsedPiece?,
    _ body: (any PieceBoard) throws -> R
  ) throws -> R
}

/// The pieces and what became of them, as the thread reading the array in order sees them. Piece 0 starts at
/// the array's `[` and is that thread's; pieces 1... start at guessed element starts
/// (`TransactionArraySplit.guessElementStart`).
package protocol PieceBoard: AnyObject {
  /// Where piece `k` starts; nil when there is no such piece.
  func start(of k: Int) -> Int?
  /// The reader passed piece `k`'s start without landing on it: its start is no element boundary.
  func drop(_ k: Int)
  /// The reader stands at piece `k`'s start, an element boundary: the piece as parsed, or nil when the reader
  /// must parse it (nobody started it, or it failed or warned).
  func arrive(at k: Int) -> ParsedPiece?
}

/// A piece a thread took: its number, start, the next piece's start (nil: none, run to the array's end), and
/// which thread parses it (0: the reader's; 1...: the helpers', each its own number).
package struct PieceClaim: Sendable {
  package let piece: Int
  package let start: Int
  package let stop: Int?
  package let thread: Int

  package init(piece: Int, start: Int, stop: Int?, thread: Int) {
    self.thread = thread
    self.piece = piece
    self.start = start
    self.stop = stop
  }
}

/// A piece some thread parsed without an error or a warning.
package struct ParsedPiece: @unchecked Sendable {
  /// The piece's transactions, last first, so that taking them in order is `popLast`, a move.
  var lastFirst: [PurchaseTransaction]
  /// Each one's id as `TransactionIDIndex.numericKey` reads it, worked out on the thread that parsed the piece
  /// rather than on the one that adds it.
  var keys: [UInt64?]
  /// The first element start at or past the next piece's guessed start, or just past the array's `]`.
  package var end: Int
  /// Whether the piece ran to the end of the array.
  package var closesArray: Bool
}

/// One thread's interners, kept across the pieces it parses: rows of one chain lie about 700 rows apart and a
/// piece holds about 600, so interners restarted per piece would find almost no chain id.
struct PieceInterners {
  var interner = StringInterner()
  var chainIDs = StringInterner()
}

/// Parses one piece; every thread may call it at once, since it reads the input and its template, and writes
/// only its own thread's slot of `kept`.
struct PieceWorker: @unchecked Sendable {
  let template: ValueReading
  let element: (inout ValueReading, inout [DataWarning], inout [PurchaseTransaction]) throws -> Void
  let pieceBytes: Int
  /// Slot `thread` belongs to the thread whose claims name it; a thread beyond the slots starts afresh.
  let kept: UnsafeMutableBufferPointer<PieceInterners>

  /// The piece parsed from its start, or nil on an error, a warning, something not an object, or once
  /// `abandoned` says the reader no longer needs it.
  func parse(_ claim: PieceClaim, abandoned: () -> Bool) -> ParsedPiece? {
    var r = template
    r.reader.resume(inArrayAt: claim.start)
    guard kept.indices.contains(claim.thread), let slot = kept.baseAddress?.advanced(by: claim.thread) else {
      return parse(claim, with: &r, abandoned: abandoned)
    }
    // Moved in and back out, so that `r` holds the only reference and adds to the tables in place.
    r.interner = slot.pointee.interner
    r.chainIDs = slot.pointee.chainIDs
    slot.pointee = PieceInterners()
    defer { slot.pointee = PieceInterners(interner: r.interner, chainIDs: r.chainIDs) }
    return parse(claim, with: &r, abandoned: abandoned)
  }

  private func parse(_ claim: PieceClaim, with r: inout ValueReading, abandoned: () -> Bool) -> ParsedPiece? {
    var rows: [PurchaseTransaction] = []
    rows.reserveCapacity(pieceBytes / 512)
    var warnings: [DataWarning] = []
    do {
      while true {
        if rows.count & 15 == 15, abandoned() { return nil }
        let (kind, _) = try r.peek()
        guard kind == .object else { return nil }
        try element(&r, &warnings, &rows)
        // A warning names its element's index, which only the sequential read knows.
        guard warnings.isEmpty else { return nil }
        let closesArray = try !r.reader.nextElement()
        if !closesArray { r.reader.skipWhitespace() }
        if closesArray || claim.stop.map({ r.reader.offset >= $0 }) == true {
          // Reversed in place by moves (a buffer's `swapAt` moves; `Array.reverse` would copy each element).
          rows.withUnsafeMutableBufferPointer { $0.reverse() }
          var keys: [UInt64?] = []
          keys.reserveCapacity(rows.count)
          rows.withUnsafeBufferPointer { rows in
            for i in rows.indices { keys.append(TransactionIDIndex.numericKey(rows[i].transactionID)) }
          }
          return ParsedPiece(lastFirst: rows, keys: keys, end: r.reader.offset, closesArray: closesArray)
        }
      }
    } catch {
      return nil
    }
  }
}
