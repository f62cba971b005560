import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// Loads the catalogs a command line names (`--catalog`, else `$RECEIPT_TOOL_CATALOG`).
public enum CatalogLoading {
  public static func load(_ args: ParsedArguments, _ context: CommandContext) throws(ReceiptToolError) -> Catalog {
    var paths = args.all("catalog")
    if paths.isEmpty, let env = context.environment.variables["RECEIPT_TOOL_CATALOG"], !env.isEmpty {
      paths = [env]
    }
    var currency: String?
    if let code = args.value("currency") {
      guard CurrencyTable.minorDigits(code) != nil else {
        throw .usage("The value '\(code)' is invalid for '--currency <code>'. Please provide an ISO 4217 currency code such as USD or EUR.", command: nil)
      }
      currency = code
    }
    var catalog = Catalog()
    for path in paths {
      let bytes = try FileInput.readAll(path: path)
      let source = FileInput.displayName(path)
      catalog.merge(try lifting { () throws(ReceiptError) in try CatalogLoader.load(bytes, source: source, currency: currency) })
    }
    for warning in catalog.warnings { context.warn(warning) }
    return catalog
  }
}

