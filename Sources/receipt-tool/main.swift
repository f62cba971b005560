import ReceiptCLI

// Everything lives in the libraries; the process only supplies its arguments and streams.
let code = ReceiptTool.main(arguments: Array(CommandLine.arguments.dropFirst()))
exitProcess(code)
