import ReceiptCLI

// Everything lives in the libraries; the process only supplies its arguments and streams. The arguments
// are passed as bytes: `CommandLine.arguments` would replace a file name's invalid UTF-8 with U+FFFD and
// so could name a different file.
var argumentBytes: [[UInt8]] = []
for index in 1..<max(1, Int(CommandLine.argc)) {
  guard let argument = CommandLine.unsafeArgv[index] else { continue }
  var bytes: [UInt8] = []
  var p = argument
  while p.pointee != 0 {
    bytes.append(UInt8(bitPattern: p.pointee))
    p += 1
  }
  argumentBytes.append(bytes)
}
let code = ReceiptTool.main(argumentBytes: argumentBytes)
exitProcess(code)
