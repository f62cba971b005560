/// What kind of in-app product a product id is.
public enum ProductType: String, Sendable, CaseIterable {
  case autoRenewable = "auto_renewable"
  case nonRenewing = "non_renewing"
  case nonConsumable = "non_consumable"
  case consumable = "consumable"

  /// How a person names the type ("auto-renewable subscription").
  public var description: String {
    switch self {
    case .autoRenewable: "auto-renewable subscription"
    case .nonRenewing: "non-renewing subscription"
    case .nonConsumable: "non-consumable"
    case .consumable: "consumable"
    }
  }
}

/// How an introductory offer is paid for.
public enum IntroPaymentMode: String, Sendable, CaseIterable {
  case freeTrial = "free_trial"
  case payAsYouGo = "pay_as_you_go"
  case payUpFront = "pay_up_front"
}

/// An exact decimal amount, `units` × 10^-`scale`. Money never passes through binary floating point.
public struct DecimalAmount: Hashable, Sendable {
  /// The digits, as a whole number.
  public var units: Int64
  /// How many of the digits are decimals.
  public var scale: Int

  /// Makes `units` × 10^-`scale`.
  /// - Parameters:
  ///   - units: The digits, as a whole number.
  ///   - scale: How many of them are decimals.
  public init(units: Int64, scale: Int) {
    self.units = units
    self.scale = scale
  }

  /// Parses `9.99`, `10`, `0.5`; nil for signs, exponents, more than 18 digits or anything else.
  public init?(parsing text: String) {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count), let whole = parts.first, !whole.isEmpty else { return nil }
    let fraction = parts.count == 2 ? parts[1] : ""
    guard parts.count == 1 || !fraction.isEmpty else { return nil }
    let digits = whole + fraction
    guard digits.count <= 18, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let v = Int64(digits) else {
      return nil
    }
    units = v
    scale = fraction.count
  }

  /// The amount with exactly `digits` decimals, or nil when that would drop non-zero digits or overflow.
  public func rescaled(to digits: Int) -> DecimalAmount? {
    if digits == scale { return self }
    if digits > scale {
      var v = units
      for _ in scale..<digits {
        let (m, o) = v.multipliedReportingOverflow(by: 10)
        if o { return nil }
        v = m
      }
      return DecimalAmount(units: v, scale: digits)
    }
    var divisor: Int64 = 1
    for _ in digits..<scale { divisor *= 10 }
    guard units % divisor == 0 else { return nil }
    return DecimalAmount(units: units / divisor, scale: digits)
  }

  /// `units` written with `scale` decimals: `9.99`, `-0.50`, `300`.
  public var text: String {
    guard scale > 0 else { return String(units) }
    let negative = units < 0
    let magnitude = units.magnitude
    var digits = String(magnitude)
    if digits.count <= scale { digits = String(repeating: "0", count: scale - digits.count + 1) + digits }
    let cut = digits.index(digits.endIndex, offsetBy: -scale)
    return (negative ? "-" : "") + digits[..<cut] + "." + digits[cut...]
  }
}
