import ReceiptKit

// Everything lives in ReceiptKit; the process only supplies its arguments and streams.
let code = ReceiptTool.main(arguments: Array(CommandLine.arguments.dropFirst()))
exitProcess(code)
