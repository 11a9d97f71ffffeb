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

        public var description: String {
            switch self {
            case .invalidInput(let message): "the record is not valid JSON: \(message)"
            case .failed(let message): "the query failed on the record: \(message)"
            case .tooManyOutputs(let limit): "the query produced more than \(limit) results"
            }
        }
    }

    public let program: String
    public let maxOutputs: Int
    private let state: Mutex<OpaquePointer>

    /// Compiles `program`; a syntax error or an unknown function is a `CompileError` with jq's words.
    public init(_ program: String, maxOutputs: Int = 64) throws(CompileError) {
        guard let state = jq_init() else { throw CompileError(message: "jq could not allocate its state") }
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
        self.state = Mutex(state)
    }

    deinit {
        state.withLock { state in
            var owned: OpaquePointer? = state
            jq_teardown(&owned)
        }
    }

    /// Runs the program on one JSON text; every result as compact JSON text, in order.
    public func run(_ input: [UInt8]) throws(RunError) -> [String] {
        let value = input.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { jv_parse_sized($0.baseAddress, Int32(clamping: $0.count)) }
        }
        guard jv_get_kind(value) != JV_KIND_INVALID else {
            throw .invalidInput(Self.invalidMessage(value) ?? "unparseable")
        }
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
