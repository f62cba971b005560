/// The app a run's data must belong to, as Apple's SignedDataVerifier is built with it: a bundle id, the app's
/// Apple id and an environment, each optional. Stated with options (`--bundle-id`, `--app-apple-id`,
/// `--environment`) or once in the catalog; each value says where it was stated, for the failure's reason.
public struct ExpectedApp: Hashable, Sendable {
  /// One expected value and where it was stated (`--bundle-id`, `catalog.json`).
  public struct Value<T: Hashable & Sendable>: Hashable, Sendable {
    /// The value.
    public var value: T
    /// Where it was stated.
    public var origin: String

    /// - Parameters:
    ///   - value: The value.
    ///   - origin: Where it was stated.
    public init(_ value: T, origin: String) {
      self.value = value
      self.origin = origin
    }
  }

  /// The bundle identifier (`com.example`).
  public var bundleID: Value<String>?
  /// The app's Apple id in the App Store.
  public var appAppleID: Value<Int64>?
  /// `Production`, `Sandbox`, `Xcode` or `LocalTesting`, as Apple spells them.
  public var environment: Value<String>?

  /// - Parameters:
  ///   - bundleID: The bundle identifier.
  ///   - appAppleID: The app's Apple id.
  ///   - environment: The environment, one of `environments`.
  public init(bundleID: Value<String>? = nil, appAppleID: Value<Int64>? = nil, environment: Value<String>? = nil) {
    self.bundleID = bundleID
    self.appAppleID = appAppleID
    self.environment = environment
  }

  /// Nothing is expected: no check is made.
  public var isEmpty: Bool { bundleID == nil && appAppleID == nil && environment == nil }

  /// Where each stated value was stated, in the order they are checked.
  public var origins: [String] { [bundleID?.origin, appAppleID?.origin, environment?.origin].compactMap { $0 } }

  /// These values where stated, else `fallback`'s (options over the catalog, a later catalog over an earlier).
  /// - Parameter fallback: The values to use where these state none.
  /// - Returns: The values in force.
  public func over(_ fallback: ExpectedApp) -> ExpectedApp {
    ExpectedApp(
      bundleID: bundleID ?? fallback.bundleID, appAppleID: appAppleID ?? fallback.appAppleID,
      environment: environment ?? fallback.environment)
  }

  /// The failure codes of an expectation not met start with this (`app.bundleId`).
  public static let failureCodePrefix = "app."

  /// The environments Apple's data names, as it spells them.
  public static let environments = ["Production", "Sandbox", "Xcode", "LocalTesting"]

  /// The environment `text` names, spelled as Apple spells it; nil for another word.
  /// - Parameter text: An environment name (`Sandbox`).
  /// - Returns: The name, or nil.
  public static func environment(named text: String) -> String? {
    environments.first { $0 == text }
  }
}

extension SignatureCheck {
  /// Invalid only because the data is not the expected app's (`ExpectedApp`): its signatures, if any, held.
  public var failsOnlyForTheApp: Bool {
    verdict == .invalid && !failures.isEmpty && failureCount == failures.count
      && failures.allSatisfy { $0.code.hasPrefix(ExpectedApp.failureCodePrefix) }
  }
}
