import CivilTime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A request time in whole seconds since 1970, parsed and printed by hand: `DateFormatter` is slow,
/// locale-sensitive and drags ICU into the server binary, and SigV4 only needs two fixed forms.
struct AMZTimestamp: Hashable, Comparable, Sendable {
    var secondsSince1970: Int64

    init(secondsSince1970: Int64) {
        self.secondsSince1970 = secondsSince1970
    }

    /// Truncates to the whole second, as every SigV4 timestamp is.
    init(_ date: Date) {
        self.secondsSince1970 = Int64(date.timeIntervalSince1970.rounded(.down))
    }

    static func < (lhs: AMZTimestamp, rhs: AMZTimestamp) -> Bool {
        lhs.secondsSince1970 < rhs.secondsSince1970
    }

    private var civil: UTCDateTime { UTCDateTime(secondsSince1970: secondsSince1970) }

    /// `yyyyMMdd'T'HHmmss'Z'`, the form of `X-Amz-Date` and of the string to sign.
    var iso8601Basic: String {
        var out: [UInt8] = []
        out.reserveCapacity(16)
        appendISO8601Basic(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `yyyyMMdd`, the date of the credential scope.
    var yyyymmdd: String {
        let c = civil
        var out: [UInt8] = []
        out.reserveCapacity(8)
        Self.appendDigits(c.year, count: 4, to: &out)
        Self.appendDigits(Int64(c.month), count: 2, to: &out)
        Self.appendDigits(Int64(c.day), count: 2, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func appendISO8601Basic(to out: inout [UInt8]) {
        let c = civil
        Self.appendDigits(c.year, count: 4, to: &out)
        Self.appendDigits(Int64(c.month), count: 2, to: &out)
        Self.appendDigits(Int64(c.day), count: 2, to: &out)
        out.append(UInt8(ascii: "T"))
        Self.appendDigits(Int64(c.hour), count: 2, to: &out)
        Self.appendDigits(Int64(c.minute), count: 2, to: &out)
        Self.appendDigits(Int64(c.second), count: 2, to: &out)
        out.append(UInt8(ascii: "Z"))
    }

    /// Parses `yyyyMMdd'T'HHmmss'Z'` exactly: no separators, no fraction, no other zone.
    init?(iso8601Basic text: String) {
        guard let seconds = ISO8601Basic.parse(text) else { return nil }
        self.secondsSince1970 = seconds
    }

    /// Parses the `Date` header: the RFC 1123 form HTTP uses (`Sun, 06 Nov 1994 08:49:37 GMT`), the
    /// weekday optional and not checked, the zone `GMT`, `UTC`, `+0000` or `-0000` (Python's
    /// `email.utils.formatdate` writes `-0000`). AWS documents that `Date` may also carry the ISO 8601
    /// basic form, so that is accepted too.
    init?(httpDate text: String) {
        if let basic = AMZTimestamp(iso8601Basic: text) {
            self = basic
            return
        }
        guard let seconds = HTTPDate.parse(text) else { return nil }
        self.secondsSince1970 = seconds
    }

    /// The last `count` decimal digits of `value`, most significant first. Digit by digit from the
    /// top, so that formatting a timestamp (on every request) allocates nothing.
    private static func appendDigits(_ value: Int64, count: Int, to out: inout [UInt8]) {
        var divisor: Int64 = 1
        for _ in 1..<count { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(0x30 + value / divisor % 10))
            divisor /= 10
        }
    }
}
