/// `value` with exactly `digits` decimals (no Foundation formatter needed).
public func fixed(_ value: Double, _ digits: Int) -> String {
    guard value.isFinite else { return "-" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    // String(Double) may print 1e-05 or drop trailing zeros; pad to the requested digits.
    if text.contains("e") { return String(Int(rounded)) }
    if digits == 0 { return String(Int(rounded)) }
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    let decimals = parts.count > 1 ? parts[1].count : 0
    if parts.count == 1 { text += "." }
    return text + String(repeating: "0", count: max(0, digits - decimals))
}
