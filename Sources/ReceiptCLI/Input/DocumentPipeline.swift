import ReceiptFormats
import ReceiptModel

/// Reads every input document, transforms them on all cores, and hands the results back in input order.
///
/// Documents are read in windows of up to `windowDocuments` documents or `windowBytes` bytes; each
/// window is transformed in parallel while the calling thread delivers the one before it and reads the
/// next, so at most two windows are held, and memory stays bounded however many documents there are.
package enum DocumentPipeline {
  static let windowDocuments = 64
  static let windowBytes = 1 << 20

  /// `transform` must be safe to call concurrently (it computes from its input and returns);
  /// `deliver` runs on the calling thread, in input order, with the document or, for an input that
  /// could not be read, nil and the error. `notice` gets messages about the input (skipped blank lines)
  /// in their place in that order.
  ///
  /// When the input is a pipe or terminal and the next read may block, the documents read so far
  /// are transformed and delivered at once and `idle` is called (to flush output), so a result shows
  /// as soon as its line is complete.
  package static func run<T>(
    paths: [InputPath], forceNDJSON: Bool, maxDocumentSize: Int = ChunkReader.defaultMaxDocumentSize,
    notice: (String) -> Void = { _ in }, idle: () -> Void = {},
    transform: (InputDocument) throws(ReceiptToolError) -> T,
    deliver: (InputDocument?, Result<T, ReceiptToolError>) -> Void
  ) {
    // The transform runs on other threads while this one delivers, but never after `run` returns: every
    // window is delivered, so waited for, before then.
    withoutActuallyEscaping(transform) { transform in
      let attempt = { (document: InputDocument) -> Result<T, ReceiptToolError> in
        do throws(ReceiptToolError) { return .success(try transform(document)) } catch { return .failure(error) }
      }
      var window: [InputDocument] = []
      var windowSize = 0
      var inFlight: WindowInFlight<Result<T, ReceiptToolError>>?
      func deliverInFlight() {
        guard let running = inFlight else { return }
        inFlight = nil
        for (document, result) in zip(running.documents, running.results()) { deliver(document, result) }
      }
      // A full window: transformed on other threads while the one before it is delivered.
      func flushWindow() {
        guard !window.isEmpty else { return }
        let next = WindowInFlight(window, attempt)
        window = []
        windowSize = 0
        deliverInFlight()
        inFlight = next
      }
      // The last window read has nothing to overlap with: transformed on this thread (a single document, the
      // common case, never waits for another thread to start).
      func deliverAll() {
        deliverInFlight()
        guard !window.isEmpty else { return }
        for (document, result) in zip(window, Cores.map(window, attempt)) { deliver(document, result) }
        window = []
        windowSize = 0
      }
      // A notice is written in its place in the output: what was read before it goes first.
      let noticeInOrder = { (message: String) in
        deliverAll()
        notice(message)
      }
      let waiting = {
        deliverAll()
        idle()
      }
      InputDocuments.forEach(
        paths: paths, forceNDJSON: forceNDJSON, maxDocumentSize: maxDocumentSize, notice: noticeInOrder,
        waiting: waiting
      ) { document, readError in
        guard let document else {
          deliverAll()
          deliver(nil, .failure(readError ?? .internalError("an input was neither read nor failed")))
          return
        }
        window.append(document)
        windowSize += document.content.count
        if window.count >= windowDocuments || windowSize >= windowBytes { flushWindow() }
      }
      deliverAll()
    }
  }

  /// A window being transformed on other threads, its results kept until they are asked for.
  private struct WindowInFlight<T> {
    let documents: [InputDocument]
    private let transformed: BackgroundResult<[T]>

    /// Starts transforming `documents`.
    init(_ documents: [InputDocument], _ transform: @escaping (InputDocument) -> T) {
      self.documents = documents
      transformed = BackgroundResult { Cores.map(documents, transform) }
    }

    /// The results in input order, once every document is transformed.
    func results() -> [T] { transformed.value }
  }
}
