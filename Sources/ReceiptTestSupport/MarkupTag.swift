import Foundation

/// A start tag found in markup: its name, its attributes (entities left as written) and its offset.
package struct MarkupTag {
  package var name: String
  package var attributes: [String: String]
  package var offset: Int

  package var classes: Set<String> { Set((attributes["class"] ?? "").split(separator: " ").map(String.init)) }
  package func number(_ name: String) -> Double? { attributes[name].flatMap(Double.init) }

  /// Every start tag called `name`, in document order (double-quoted attributes, as both our renderer and
  /// Chromium's serialiser write them).
  package static func all(_ name: String, in markup: String) -> [MarkupTag] {
    let bytes = Array(markup.utf8)
    let open = Array(("<" + name).utf8)
    var out: [MarkupTag] = []
    var i = 0
    while i + open.count < bytes.count {
      guard Array(bytes[i..<(i + open.count)]) == open, bytes[i + open.count] == 0x20 || bytes[i + open.count] == 0x3E
      else {
        i += 1
        continue
      }
      var j = i + open.count
      var attributes: [String: String] = [:]
      while j < bytes.count, bytes[j] != 0x3E {
        if bytes[j] == 0x20 || bytes[j] == 0x0A {
          j += 1
          continue
        }
        let nameStart = j
        while j < bytes.count, bytes[j] != 0x3D, bytes[j] != 0x20, bytes[j] != 0x3E { j += 1 }
        let attribute = String(decoding: bytes[nameStart..<j], as: UTF8.self)
        if j < bytes.count, bytes[j] == 0x3D, j + 1 < bytes.count, bytes[j + 1] == 0x22 {
          let valueStart = j + 2
          var k = valueStart
          while k < bytes.count, bytes[k] != 0x22 { k += 1 }
          attributes[attribute] = String(decoding: bytes[valueStart..<min(k, bytes.count)], as: UTF8.self)
          j = k + 1
        } else {
          attributes[attribute] = ""
        }
      }
      out.append(MarkupTag(name: name, attributes: attributes, offset: i))
      i = j
    }
    return out
  }
}
