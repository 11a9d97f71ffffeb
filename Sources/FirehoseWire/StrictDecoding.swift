#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `Shape` decoded with every object's members checked against the members its type reads: an
/// unknown member is refused with `UnknownMemberError`, at any depth. For firehose-local's own
/// documents (the configuration file, a fault rule), where an unknown key is nearly always a typo
/// that would otherwise be silently ignored; AWS's API shapes ignore unknown members.
///
/// Works over any decoder (JSON, YAML): it wraps the decoder's containers and checks each object
/// when a shape asks for it by its coding keys, which must be `CaseIterable` (a shape that keeps
/// more members declares them with `DeclaresKnownMembers`). Everything else is the decoder's own,
/// so its errors read as they do without the check.
package struct MemberChecked<Shape: Decodable>: Decodable {
    package var value: Shape

    package init(from decoder: any Decoder) throws {
        value = try Shape(
            from: MemberCheckingDecoder(base: decoder, declared: Shape.self as? any DeclaresKnownMembers.Type))
    }
}

/// A shape that reads members beyond its coding keys (to refuse them with a better message than
/// "unknown").
package protocol DeclaresKnownMembers {
    static var knownMembers: [String] { get }
}

/// Raised for an unknown member by `MemberChecked`.
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

private func caseNames<Key: CodingKey & CaseIterable>(_ type: Key.Type) -> [String] {
    type.allCases.map(\.stringValue)
}

extension MemberChecked {
    /// Values the decoders read in their own way (JSONDecoder reads a URL from a string, not from
    /// its `Decodable` conformance): decoded by the decoder itself. None holds members to check.
    fileprivate static var isLeaf: Bool {
        Shape.self == URL.self || Shape.self == Date.self || Shape.self == Data.self || Shape.self == Decimal.self
    }
}

private struct MemberCheckingDecoder: Decoder {
    let base: any Decoder
    /// The members the value's type declares beyond its coding keys, if it does.
    let declared: (any DeclaresKnownMembers.Type)?

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let known: [String]? =
            if let declared { declared.knownMembers } else if let keys = type as? any (CodingKey & CaseIterable).Type {
                caseNames(keys)
            } else { nil }
        if let known {
            let all = try base.container(keyedBy: AnyCodingKey.self)
            for key in all.allKeys where !known.contains(key.stringValue) {
                throw UnknownMemberError(
                    codingPath: codingPath.map(\.stringValue), member: key.stringValue, knownMembers: known)
            }
        }
        return KeyedDecodingContainer(CheckingKeyedContainer(base: try base.container(keyedBy: type)))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        CheckingUnkeyedContainer(base: try base.unkeyedContainer())
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        CheckingSingleValueContainer(base: try base.singleValueContainer())
    }
}

private struct CheckingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: KeyedDecodingContainer<Key>

    var codingPath: [any CodingKey] { base.codingPath }
    var allKeys: [Key] { base.allKeys }

    func contains(_ key: Key) -> Bool { base.contains(key) }
    func decodeNil(forKey key: Key) throws -> Bool { try base.decodeNil(forKey: key) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try base.decode(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try base.decode(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try base.decode(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try base.decode(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try base.decode(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try base.decode(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try base.decode(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try base.decode(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try base.decode(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try base.decode(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try base.decode(type, forKey: key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if MemberChecked<T>.isLeaf { return try base.decode(type, forKey: key) }
        return try base.decode(MemberChecked<T>.self, forKey: key).value
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        if MemberChecked<T>.isLeaf { return try base.decodeIfPresent(type, forKey: key) }
        return try base.decodeIfPresent(MemberChecked<T>.self, forKey: key)?.value
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try MemberCheckingDecoder(base: try base.superDecoder(forKey: key), declared: nil).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        CheckingUnkeyedContainer(base: try base.nestedUnkeyedContainer(forKey: key))
    }

    func superDecoder() throws -> any Decoder {
        MemberCheckingDecoder(base: try base.superDecoder(), declared: nil)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        MemberCheckingDecoder(base: try base.superDecoder(forKey: key), declared: nil)
    }
}

private struct CheckingUnkeyedContainer: UnkeyedDecodingContainer {
    var base: any UnkeyedDecodingContainer

    var codingPath: [any CodingKey] { base.codingPath }
    var count: Int? { base.count }
    var isAtEnd: Bool { base.isAtEnd }
    var currentIndex: Int { base.currentIndex }

    mutating func decodeNil() throws -> Bool { try base.decodeNil() }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try base.decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try base.decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try base.decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try base.decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try base.decode(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try base.decode(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try base.decode(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try base.decode(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try base.decode(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try base.decode(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try base.decode(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try base.decode(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try base.decode(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try base.decode(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if MemberChecked<T>.isLeaf { return try base.decode(type) }
        return try base.decode(MemberChecked<T>.self).value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try MemberCheckingDecoder(base: try base.superDecoder(), declared: nil).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        CheckingUnkeyedContainer(base: try base.nestedUnkeyedContainer())
    }

    mutating func superDecoder() throws -> any Decoder {
        MemberCheckingDecoder(base: try base.superDecoder(), declared: nil)
    }
}

private struct CheckingSingleValueContainer: SingleValueDecodingContainer {
    let base: any SingleValueDecodingContainer

    var codingPath: [any CodingKey] { base.codingPath }

    func decodeNil() -> Bool { base.decodeNil() }
    func decode(_ type: Bool.Type) throws -> Bool { try base.decode(type) }
    func decode(_ type: String.Type) throws -> String { try base.decode(type) }
    func decode(_ type: Double.Type) throws -> Double { try base.decode(type) }
    func decode(_ type: Float.Type) throws -> Float { try base.decode(type) }
    func decode(_ type: Int.Type) throws -> Int { try base.decode(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try base.decode(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try base.decode(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try base.decode(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try base.decode(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try base.decode(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try base.decode(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try base.decode(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try base.decode(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try base.decode(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if MemberChecked<T>.isLeaf { return try base.decode(type) }
        return try base.decode(MemberChecked<T>.self).value
    }
}
