/// The moment a document describes, and the field of the document that says so.
///
/// verifyReceipt responses carry `request_date`, signed data a `signedDate`, an on-device receipt its
/// creation date. Rules evaluated "now" on a fixture would drift; evaluated at this moment they do not.
public struct DataMoment: Hashable, Sendable {
  /// The moment itself.
  public var time: Timestamp
  /// The source's own field name (`request_date`, `signedDate`).
  public var field: String
  /// How a person names it: "the receipt's request_date".
  public var description: String

  /// Records a moment the data names.
  /// - Parameters:
  ///   - time: The moment.
  ///   - field: The source's own field name.
  ///   - description: How a person names it.
  public init(time: Timestamp, field: String, description: String) {
    self.time = time
    self.field = field
    self.description = description
  }
}

/// The moment rules are evaluated at, and where it came from.
public struct EvaluationTime: Hashable, Sendable {
  /// Where the evaluation time came from.
  public enum Source: Hashable, Sendable {
    /// Chosen explicitly by the caller.
    case given
    /// The clock when receipt-tool ran.
    case now
    /// The moment the data itself describes.
    case data(DataMoment)

    /// A stable name for machine-readable output: `option`, `now`, or the data's field name.
    public var name: String {
      switch self {
      case .given: "option"
      case .now: "now"
      case .data(let moment): moment.field
      }
    }
  }

  /// The moment rules are evaluated at.
  public var time: Timestamp
  /// Where that moment came from.
  public var source: Source

  /// Records an evaluation time.
  /// - Parameters:
  ///   - time: The moment.
  ///   - source: Where it came from.
  public init(time: Timestamp, source: Source) {
    self.time = time
    self.source = source
  }
}
