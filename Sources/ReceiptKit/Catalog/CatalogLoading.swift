/// Loads the catalogs a command line names (`--catalog`, else `$RECEIPT_TOOL_CATALOG`).
public enum CatalogLoading {
  public static func load(_ args: ParsedArguments, _ context: CommandContext) throws(ReceiptToolError) -> Catalog {
    var paths = args.all("catalog")
    if paths.isEmpty, let env = context.environment.variables["RECEIPT_TOOL_CATALOG"], !env.isEmpty {
      paths = [env]
    }
    var catalog = Catalog()
    for path in paths {
      let bytes = try FileInput.readAll(path: path)
      catalog.merge(try CatalogLoader.load(bytes, source: FileInput.displayName(path)))
    }
    for warning in catalog.warnings { context.warn(warning) }
    return catalog
  }
}

/// Reads one catalog file; the format is recognised from its content.
public enum CatalogLoader {
  public static func load(_ bytes: [UInt8], source: String) throws(ReceiptToolError) -> Catalog {
    throw .data(source: source, message: "catalog files are not supported yet")
  }
}
