/// Set `decoder.userInfo[.rejectUnknownMembers] = true` to make the configuration shapes reject
/// members they do not know: in a config file an unknown key is nearly always a typo that would
/// otherwise be silently ignored.
extension CodingUserInfoKey {
    package static let rejectUnknownMembers = CodingUserInfoKey(rawValue: "firehose.rejectUnknownMembers")!
}

/// Raised for an unknown member when strict decoding is on.
package struct UnknownMemberError: Error, Sendable, CustomStringConvertible {
    package var codingPath: [String]
    package var member: String
    package var knownMembers: [String]

    package var description: String {
        "unknown member '\(member)'; expected one of: \(knownMembers.joined(separator: ", "))"
    }
}

/// A member named at run time (a map's keys, a configured attribute's name).
package struct AnyCodingKey: CodingKey {
    package var stringValue: String
    package var intValue: Int?
    package init(stringValue: String) { self.stringValue = stringValue }
    package init(_ name: String) { self.stringValue = name }
    package init?(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

extension Decoder {
    /// Throws `UnknownMemberError` for a member not in `keys` when `.rejectUnknownMembers` is set.
    package func rejectUnknownMembers<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type) throws {
        try rejectUnknownMembers(known: keys.allCases.map(\.stringValue))
    }

    package func rejectUnknownMembers(known: [String]) throws {
        guard userInfo[.rejectUnknownMembers] as? Bool == true else { return }
        let container = try container(keyedBy: AnyCodingKey.self)
        for key in container.allKeys where !known.contains(key.stringValue) {
            throw UnknownMemberError(
                codingPath: codingPath.map(\.stringValue), member: key.stringValue, knownMembers: known)
        }
    }
}
