import CJQ
import Synchronization

/// A jq program, compiled once by the real jq library, run on JSON texts.
///
/// Dynamic partitioning (`MetadataExtraction` with `JsonParsingEngine: JQ-1.6`) runs one query per
/// record; compiling it once per stream and reusing it is what makes that affordable. A jq state runs
/// one program at a time, so runs are serialised by a lock; callers that need parallel runs hold
/// several queries.
///
/// Queries come from the stream definition (configuration), records from clients: a record is
/// parsed by jq's own parser (depth-limited) and at most `maxOutputs` results are kept.
public final class JQQuery: Sendable {
    public struct CompileError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What jq said, one message per line.
        public var message: String
        public var description: String { message }
    }

    public enum RunError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The input is not one JSON value.
        case invalidInput(String)
        /// The program failed on this input (`error(...)`, a type error, ...).
        case failed(String)
        /// More than `maxOutputs` results.
        case tooManyOutputs(Int)
        /// The results are not what the caller asked for (`members` needs exactly one object).
        case unexpectedResult(String)

        public var description: String {
            switch self {
            case .invalidInput(let message): "the record is not valid JSON: \(message)"
            case .failed(let message): "the query failed on the record: \(message)"
            case .tooManyOutputs(let limit): "the query produced more than \(limit) results"
            case .unexpectedResult(let message): message
            }
        }
    }

    public let program: String
    public let maxOutputs: Int
    /// The members of its input object the program reads, when that is provably only these
    /// (`RootMembers`): it gives the same results on an object of just them. Nil when it may read more.
    public let rootMembers: Set<String>?
    private let state: Mutex<OpaquePointer>

    /// Compiles `program`; a syntax error or an unknown function is a `CompileError` with jq's words.
    public init(_ program: String, maxOutputs: Int = 64) throws(CompileError) {
        guard let state = jq_init() else { throw CompileError(message: "jq could not allocate its state") }
        // jq 1.6 leaves these callbacks uninitialised (fixed upstream in jqlang/jq#2719): a query
        // using `input`, `inputs` or `debug` would call a garbage pointer.
        jq_set_input_cb(state, nil, nil)
        jq_set_debug_cb(state, nil, nil)
        let messages = CompileMessages()
        let context = Unmanaged.passRetained(messages)
        jq_set_error_cb(
            state,
            { context, message in
                let messages = Unmanaged<CompileMessages>.fromOpaque(context!).takeUnretainedValue()
                messages.append(JQQuery.text(of: message))
            }, context.toOpaque())
        let compiled = jq_compile(state, program) != 0
        jq_set_error_cb(state, nil, nil)
        context.release()
        guard compiled else {
            var failed: OpaquePointer? = state
            jq_teardown(&failed)
            throw CompileError(message: messages.text.isEmpty ? "jq could not compile the query" : messages.text)
        }
        self.program = program
        self.maxOutputs = maxOutputs
        rootMembers = RootMembers.names(in: program)
        self.state = Mutex(state)
    }

    deinit {
        state.withLock { state in
            var owned: OpaquePointer? = state
            jq_teardown(&owned)
        }
    }

    /// Runs the program on one JSON text; every result as compact JSON text, in order.
    public func run(_ input: some Collection<UInt8>) throws(RunError) -> [String] {
        let value = try Self.parse(input)
        let outcome = state.withLock { state -> Result<[String], RunError> in
            jq_start(state, value, 0)  // takes `value`
            var outputs: [String] = []
            while true {
                let result = jq_next(state)
                guard jv_get_kind(result) != JV_KIND_INVALID else {
                    if let message = Self.invalidMessage(result) { return .failure(.failed(message)) }
                    return .success(outputs)
                }
                guard outputs.count < maxOutputs else {
                    jv_free(result)
                    return .failure(.tooManyOutputs(maxOutputs))
                }
                outputs.append(Self.text(of: jv_dump_string(result, 0)))
            }
        }
        return try outcome.get()
    }

    /// A member of an object result, as `members(_:of:)` reads it.
    public enum Member: Sendable, Equatable {
        /// A JSON string's value.
        case text(String)
        /// A number or boolean, as jq prints it (`2024`, `1.5`, `true`).
        case scalar(String)
        case null
        /// An array or object, as compact JSON.
        case composite(String)
    }

    /// Runs the program on one JSON text, which must give exactly one result, a JSON object; returns
    /// the members of it named in `names` (a name the object lacks is absent).
    public func members(_ names: [String], of input: some Collection<UInt8>) throws(RunError) -> [String: Member] {
        let value = try Self.parse(input)
        let outcome = state.withLock { state -> Result<[String: Member], RunError> in
            jq_start(state, value, 0)  // takes `value`
            let result = jq_next(state)
            guard jv_get_kind(result) != JV_KIND_INVALID else {
                if let message = Self.invalidMessage(result) { return .failure(.failed(message)) }
                return .failure(.unexpectedResult("the query produced no result"))
            }
            defer { jv_free(result) }
            let second = jq_next(state)
            guard jv_get_kind(second) == JV_KIND_INVALID else {
                jv_free(second)
                return .failure(.unexpectedResult("the query produced more than one result"))
            }
            if let message = Self.invalidMessage(second) { return .failure(.failed(message)) }
            guard jv_get_kind(result) == JV_KIND_OBJECT else {
                let kind = String(cString: jv_kind_name(jv_get_kind(result)))
                return .failure(.unexpectedResult("the query's result is \(kind), not an object"))
            }
            var members: [String: Member] = [:]
            for name in names {
                let member = jv_object_get(jv_copy(result), jv_string(name))
                switch jv_get_kind(member) {
                case JV_KIND_INVALID: jv_free(member)
                case JV_KIND_NULL:
                    jv_free(member)
                    members[name] = .null
                case JV_KIND_STRING: members[name] = .text(Self.text(of: member))
                case JV_KIND_NUMBER, JV_KIND_TRUE, JV_KIND_FALSE:
                    members[name] = .scalar(Self.text(of: jv_dump_string(member, 0)))
                default: members[name] = .composite(Self.text(of: jv_dump_string(member, 0)))
                }
            }
            return .success(members)
        }
        return try outcome.get()
    }

    /// One JSON value parsed by jq; a text that is not exactly one value is `invalidInput`.
    private static func parse(_ input: some Collection<UInt8>) throws(RunError) -> jv {
        func parse(_ buffer: UnsafeBufferPointer<UInt8>) -> jv {
            buffer.withMemoryRebound(to: CChar.self) { jv_parse_sized($0.baseAddress, Int32(clamping: $0.count)) }
        }
        let value = input.withContiguousStorageIfAvailable(parse) ?? Array(input).withUnsafeBufferPointer(parse)
        guard jv_get_kind(value) != JV_KIND_INVALID else {
            throw .invalidInput(invalidMessage(value) ?? "unparseable")
        }
        return value
    }

    /// The message of an invalid value, or nil when it has none (the end of the results); frees it.
    private static func invalidMessage(_ value: jv) -> String? {
        guard jv_invalid_has_msg(jv_copy(value)) != 0 else {
            jv_free(value)
            return nil
        }
        let message = jv_invalid_get_msg(value)
        if jv_get_kind(message) == JV_KIND_STRING { return text(of: message) }
        return text(of: jv_dump_string(message, 0))
    }

    /// The text of a jv string (which it frees); jq's error callback passes such strings, or other
    /// values, which are printed.
    fileprivate static func text(of value: jv) -> String {
        let string = jv_get_kind(value) == JV_KIND_STRING ? value : jv_dump_string(value, 0)
        defer { jv_free(string) }
        guard let bytes = jv_string_value(string) else { return "" }
        let count = Int(jv_string_length_bytes(jv_copy(string)))
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}

/// Collects what jq reports while compiling.
private final class CompileMessages: @unchecked Sendable {
    private var lines: [String] = []
    func append(_ line: String) { lines.append(line) }
    var text: String { lines.joined(separator: "\n") }
}
