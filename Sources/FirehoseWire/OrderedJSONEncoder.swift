/// Writes an `Encodable` answer as compact JSON through `JSONWriter`, members in the order the type
/// encodes them (a synthesized `Encodable` encodes them in declaration order), nil members left
/// out, strings escaped and numbers written as `JSONWriter` writes them.
///
/// Foundation's `JSONEncoder` orders members by hash on Linux, so an answer would differ from run
/// to run, and it builds a tree before writing. This one streams: a container stays open until a
/// shallower container writes again or the value ends, which is the order synthesized conformances
/// use them in. A type that writes into two sibling containers at once is not supported.
package enum OrderedJSONEncoder {
    /// `value` as JSON bytes. A value that encodes nothing is written as `{}`.
    package static func encode(_ value: some Encodable, reservingCapacity capacity: Int = 256) -> [UInt8] {
        let state = EncodingState(capacity: capacity)
        state.encode(value, level: 0)
        state.close(downTo: 0)
        return state.writer.bytes
    }
}

/// A member written as `null` when it has no value, where a synthesized conformance would leave an
/// optional out: for documents whose readers expect every member.
package struct Nullable<Wrapped: Encodable>: Encodable {
    package var value: Wrapped?

    package init(_ value: Wrapped?) { self.value = value }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}

extension Nullable: Sendable where Wrapped: Sendable {}

/// A value with no members: an error body with nothing of an endpoint's own to add.
package struct NoMembers: Encodable, Sendable {
    package init() {}

    package func encode(to encoder: any Encoder) throws {}
}

/// Bytes that JSON carries as a base64 string, as AWS's blob members do.
package struct Base64Blob: Encodable, Sendable, Equatable {
    package var bytes: ArraySlice<UInt8>

    /// Shares the array's storage: no copy.
    package init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    package init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Base64.encode(bytes))
    }
}

/// A dictionary keyed by strings, written with its keys sorted: its own conformance writes them in
/// hash order, which differs from run to run.
private protocol StringKeyedDictionary {
    func encodeSorted(into state: EncodingState, level: Int)
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Encodable {
    fileprivate func encodeSorted(into state: EncodingState, level: Int) {
        state.open(UInt8(ascii: "{"), level: level)
        for (key, value) in sorted(by: { $0.key < $1.key }) {
            state.key(key, level: level + 1)
            state.encode(value, level: level + 1)
        }
    }
}

/// The output and the containers open in it. A container at level `n` has `n` containers open
/// around its members; writing at level `n` first closes every container deeper than that.
private final class EncodingState {
    var writer: JSONWriter
    /// Closing bytes of the open containers, innermost last.
    var closers: [UInt8] = []
    let userInfo: [CodingUserInfoKey: Any] = [:]

    init(capacity: Int) { writer = JSONWriter(reservingCapacity: capacity) }

    func close(downTo level: Int) {
        while closers.count > level {
            if closers.removeLast() == UInt8(ascii: "}") { writer.endObject() } else { writer.endArray() }
        }
    }

    /// Whether values of a type are string-keyed maps, by type: asked once per type and encoding, as
    /// a cast to a protocol costs more than the rest of a small value's writing.
    private var isMap: [ObjectIdentifier: Bool] = [:]

    /// Writes `value` as the value at `level`: directly when it can, else through its conformance.
    func encode<Value: Encodable>(_ value: Value, level: Int) {
        close(downTo: level)
        if Value.self == Base64Blob.self, let blob = value as? Base64Blob {
            writer.base64(blob.bytes)
            return
        }
        let type = ObjectIdentifier(Value.self)
        let isMap = self.isMap[type] ?? (value is any StringKeyedDictionary)
        self.isMap[type] = isMap
        if isMap, let dictionary = value as? any StringKeyedDictionary {
            dictionary.encodeSorted(into: self, level: level)
            return
        }
        let before = writer.bytes.count
        do {
            try value.encode(to: ValueEncoder(state: self, level: level, codingPath: []))
        } catch {
            preconditionFailure("an answer's shape failed to encode: \(error)")
        }
        // A value must be written even when its conformance wrote nothing (as JSONEncoder does).
        if writer.bytes.count == before, closers.count == level { writer.beginObject(); writer.endObject() }
    }

    func open(_ opening: UInt8, level: Int) {
        close(downTo: level)
        if opening == UInt8(ascii: "{") {
            writer.beginObject()
            closers.append(UInt8(ascii: "}"))
        } else {
            writer.beginArray()
            closers.append(UInt8(ascii: "]"))
        }
    }

    func key(_ name: String, level: Int) {
        close(downTo: level)
        writer.key(name)
    }

    func nil_(level: Int) {
        close(downTo: level)
        writer.null()
    }

    func bool(_ value: Bool, level: Int) {
        close(downTo: level)
        writer.bool(value)
    }

    func string(_ value: String, level: Int) {
        close(downTo: level)
        writer.string(value)
    }

    func signed(_ value: some BinaryInteger, level: Int) {
        close(downTo: level)
        writer.integer(Int(value))
    }

    func unsigned(_ value: some BinaryInteger, level: Int) {
        close(downTo: level)
        writer.integer(UInt64(value))
    }

    func number(_ value: Double, level: Int) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "JSON numbers are finite"))
        }
        close(downTo: level)
        writer.number(value)
    }
}

private struct ValueEncoder: Encoder {
    let state: EncodingState
    let level: Int
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { state.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        // Asked again for the same value (a superclass's members), the object it opened goes on: only
        // this value can have opened a container at this level since its key was written.
        if state.closers.count <= level { state.open(UInt8(ascii: "{"), level: level) }
        return KeyedEncodingContainer(KeyedContainer<Key>(state: state, level: level + 1, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        state.open(UInt8(ascii: "["), level: level)
        return UnkeyedContainer(state: state, level: level + 1, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(state: state, level: level, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let state: EncodingState
    let level: Int
    let codingPath: [any CodingKey]

    /// Writes the key and returns the level its value is written at.
    private func at(_ key: Key) -> Int {
        state.key(key.stringValue, level: level)
        return level
    }

    mutating func encodeNil(forKey key: Key) { state.nil_(level: at(key)) }
    mutating func encode(_ value: Bool, forKey key: Key) {
        state.key(key.stringValue, level: level)
        state.bool(value, level: level)
    }
    mutating func encode(_ value: String, forKey key: Key) {
        state.key(key.stringValue, level: level)
        state.string(value, level: level)
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        state.key(key.stringValue, level: level)
        try state.number(value, level: level)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        state.key(key.stringValue, level: level)
        try state.number(Double("\(value)") ?? .nan, level: level)
    }
    mutating func encode(_ value: Int, forKey key: Key) { state.signed(value, level: at(key)) }
    mutating func encode(_ value: Int8, forKey key: Key) { state.signed(value, level: at(key)) }
    mutating func encode(_ value: Int16, forKey key: Key) { state.signed(value, level: at(key)) }
    mutating func encode(_ value: Int32, forKey key: Key) { state.signed(value, level: at(key)) }
    mutating func encode(_ value: Int64, forKey key: Key) { state.signed(value, level: at(key)) }
    mutating func encode(_ value: UInt, forKey key: Key) { state.unsigned(value, level: at(key)) }
    mutating func encode(_ value: UInt8, forKey key: Key) { state.unsigned(value, level: at(key)) }
    mutating func encode(_ value: UInt16, forKey key: Key) { state.unsigned(value, level: at(key)) }
    mutating func encode(_ value: UInt32, forKey key: Key) { state.unsigned(value, level: at(key)) }
    mutating func encode(_ value: UInt64, forKey key: Key) { state.unsigned(value, level: at(key)) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) {
        state.key(key.stringValue, level: level)
        state.encode(value, level: level)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        state.key(key.stringValue, level: level)
        state.open(UInt8(ascii: "{"), level: level)
        return KeyedEncodingContainer(
            KeyedContainer<NestedKey>(state: state, level: level + 1, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        state.key(key.stringValue, level: level)
        state.open(UInt8(ascii: "["), level: level)
        return UnkeyedContainer(state: state, level: level + 1, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        state.key("super", level: level)
        return ValueEncoder(state: state, level: level, codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        state.key(key.stringValue, level: level)
        return ValueEncoder(state: state, level: level, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let state: EncodingState
    let level: Int
    let codingPath: [any CodingKey]
    private(set) var count = 0

    init(state: EncodingState, level: Int, codingPath: [any CodingKey]) {
        self.state = state
        self.level = level
        self.codingPath = codingPath
    }

    mutating func encodeNil() { count += 1; state.nil_(level: level) }
    mutating func encode(_ value: Bool) { count += 1; state.bool(value, level: level) }
    mutating func encode(_ value: String) { count += 1; state.string(value, level: level) }
    mutating func encode(_ value: Double) throws { count += 1; try state.number(value, level: level) }
    mutating func encode(_ value: Float) throws {
        count += 1
        try state.number(Double("\(value)") ?? .nan, level: level)
    }
    mutating func encode(_ value: Int) { count += 1; state.signed(value, level: level) }
    mutating func encode(_ value: Int8) { count += 1; state.signed(value, level: level) }
    mutating func encode(_ value: Int16) { count += 1; state.signed(value, level: level) }
    mutating func encode(_ value: Int32) { count += 1; state.signed(value, level: level) }
    mutating func encode(_ value: Int64) { count += 1; state.signed(value, level: level) }
    mutating func encode(_ value: UInt) { count += 1; state.unsigned(value, level: level) }
    mutating func encode(_ value: UInt8) { count += 1; state.unsigned(value, level: level) }
    mutating func encode(_ value: UInt16) { count += 1; state.unsigned(value, level: level) }
    mutating func encode(_ value: UInt32) { count += 1; state.unsigned(value, level: level) }
    mutating func encode(_ value: UInt64) { count += 1; state.unsigned(value, level: level) }

    mutating func encode<T: Encodable>(_ value: T) {
        count += 1
        state.encode(value, level: level)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        count += 1
        state.open(UInt8(ascii: "{"), level: level)
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(state: state, level: level + 1, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        count += 1
        state.open(UInt8(ascii: "["), level: level)
        return UnkeyedContainer(state: state, level: level + 1, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder {
        count += 1
        return ValueEncoder(state: state, level: level, codingPath: codingPath)
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let state: EncodingState
    let level: Int
    let codingPath: [any CodingKey]

    mutating func encodeNil() { state.nil_(level: level) }
    mutating func encode(_ value: Bool) { state.bool(value, level: level) }
    mutating func encode(_ value: String) { state.string(value, level: level) }
    mutating func encode(_ value: Double) throws { try state.number(value, level: level) }
    mutating func encode(_ value: Float) throws { try state.number(Double("\(value)") ?? .nan, level: level) }
    mutating func encode(_ value: Int) { state.signed(value, level: level) }
    mutating func encode(_ value: Int8) { state.signed(value, level: level) }
    mutating func encode(_ value: Int16) { state.signed(value, level: level) }
    mutating func encode(_ value: Int32) { state.signed(value, level: level) }
    mutating func encode(_ value: Int64) { state.signed(value, level: level) }
    mutating func encode(_ value: UInt) { state.unsigned(value, level: level) }
    mutating func encode(_ value: UInt8) { state.unsigned(value, level: level) }
    mutating func encode(_ value: UInt16) { state.unsigned(value, level: level) }
    mutating func encode(_ value: UInt32) { state.unsigned(value, level: level) }
    mutating func encode(_ value: UInt64) { state.unsigned(value, level: level) }
    mutating func encode<T: Encodable>(_ value: T) { state.encode(value, level: level) }
}
