/// Random identifiers as AWS spells them (access keys, role ids, secrets), from the system's
/// cryptographically secure generator.
package enum RandomText {
    /// AWS's ids are upper-case letters and digits 2–7 (base 32).
    package static let base32 = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    package static func make(_ count: Int, from alphabet: [UInt8]) -> String {
        var random = SystemRandomNumberGenerator()
        return String(decoding: (0..<count).map { _ in alphabet.randomElement(using: &random)! }, as: UTF8.self)
    }
}
