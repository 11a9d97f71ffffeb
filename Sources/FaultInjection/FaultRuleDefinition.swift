import AWSSigV4
import FirehoseWire
import ServerCore

/// A fault rule as written in the configuration file (`Faults:`) and posted to `/_local/faults`: the
/// same fields, in AWS's PascalCase, decoded strictly (an unknown field is refused, not ignored).
///
/// ```yaml
/// - Name: flaky-batches                 # default: fault-N
///   Operations: [PutRecordBatch]        # default: PutRecord and PutRecordBatch; "*" for every operation
///   Streams: [app-events]               # default: every stream
///   AccessKeyId: AKIDEXAMPLE            # default: any caller
///   FailRecords: {Fraction: 0.3}        # or {Every: 3}, {Records: "0-9,15"}; ErrorCode, ErrorMessage
///   # Error: {Code: ThrottlingException, Status: 400, Message: Rate exceeded}
///   # ResetConnection: BeforeRead       # or AfterRead
///   # Hang: {Seconds: 120}
///   Latency: {Milliseconds: 200}        # or {MinMilliseconds: 50, MaxMilliseconds: 500}
///   Count: 10                           # fire on the next 10 matching requests only
///   Probability: 0.5                    # fire on half of them
///   AfterSeconds: 5                     # from 5 s after the rule is made ...
///   ForSeconds: 30                      # ... for 30 s
///   Seed: 42                            # default: from the name
/// ```
// swift-format-ignore: AlwaysUseLowerCamelCase
package struct FaultRuleDefinition: Codable, Sendable {
    var Name: String?
    var Operations: [String]?
    var Streams: [String]?
    var AccessKeyId: String?
    var Latency: LatencyShape?
    var FailRecords: FailRecordsShape?
    var Error: ErrorShape?
    var ResetConnection: String?
    var Hang: HangShape?
    var Count: Int?
    var Probability: Double?
    var AfterSeconds: Double?
    var ForSeconds: Double?
    var Seed: UInt64?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case Name, Operations, Streams, AccessKeyId, Latency, FailRecords, Error, ResetConnection, Hang, Count
        case Probability, AfterSeconds, ForSeconds, Seed
    }

    struct LatencyShape: Codable, Sendable {
        var Milliseconds: Int?
        var MinMilliseconds: Int?
        var MaxMilliseconds: Int?

        enum CodingKeys: String, CodingKey, CaseIterable { case Milliseconds, MinMilliseconds, MaxMilliseconds }

        init(Milliseconds: Int? = nil, MinMilliseconds: Int? = nil, MaxMilliseconds: Int? = nil) {
            self.Milliseconds = Milliseconds
            self.MinMilliseconds = MinMilliseconds
            self.MaxMilliseconds = MaxMilliseconds
        }
    }

    struct FailRecordsShape: Codable, Sendable {
        var Fraction: Double?
        var Every: Int?
        /// `"0-9,15"`: 0-based positions and ranges (a single number may be written as one).
        var Records: String?
        var ErrorCode: String?
        var ErrorMessage: String?

        enum CodingKeys: String, CodingKey, CaseIterable { case Fraction, Every, Records, ErrorCode, ErrorMessage }

        init(ErrorCode: String?, ErrorMessage: String?) {
            self.ErrorCode = ErrorCode
            self.ErrorMessage = ErrorMessage
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            Fraction = try container.decodeIfPresent(Double.self, forKey: .Fraction)
            Every = try container.decodeIfPresent(Int.self, forKey: .Every)
            if let number = try? container.decodeIfPresent(Int.self, forKey: .Records) {
                Records = String(number)
            } else {
                Records = try container.decodeIfPresent(String.self, forKey: .Records)
            }
            ErrorCode = try container.decodeIfPresent(String.self, forKey: .ErrorCode)
            ErrorMessage = try container.decodeIfPresent(String.self, forKey: .ErrorMessage)
        }
    }

    struct ErrorShape: Codable, Sendable {
        var Code: String
        var Status: Int?
        var Message: String?

        enum CodingKeys: String, CodingKey, CaseIterable { case Code, Status, Message }

        init(Code: String, Status: Int?, Message: String?) {
            self.Code = Code
            self.Status = Status
            self.Message = Message
        }
    }

    struct HangShape: Codable, Sendable {
        var Seconds: Int?

        enum CodingKeys: String, CodingKey, CaseIterable { case Seconds }

        init(Seconds: Int?) { self.Seconds = Seconds }
    }
}

/// Why a rule definition was refused: the field (relative to the rule, e.g. `FailRecords.Fraction`)
/// and what is wrong with it.
package struct FaultRuleError: Error, Sendable, Equatable, CustomStringConvertible {
    package var field: String
    package var message: String

    package var description: String { field.isEmpty ? message : "\(field): \(message)" }
}

extension FaultRuleDefinition {
    /// Bounds of what a rule may ask for.
    package static let maxLatencyMilliseconds = 300_000
    package static let maxHangSeconds = 3600
    package static let defaultHangSeconds = 300

    /// The rule, checked; `defaultName` names it when `Name` is absent.
    package func validated(defaultName: String) throws(FaultRuleError) -> FaultRule {
        func fail(_ field: String, _ message: String) -> FaultRuleError {
            FaultRuleError(field: field, message: message)
        }
        let name = Name ?? defaultName
        // A rule's name is written as a stream's: it appears in metrics labels and URLs.
        guard (1...64).contains(name.utf8.count), name.utf8.allSatisfy(ServiceLimits.isValidStreamNameCharacter) else {
            throw fail("Name", "must be 1 to 64 letters, digits, '.', '_' or '-', not '\(name)'.")
        }
        let actions = [FailRecords != nil, Error != nil, ResetConnection != nil, Hang != nil].filter { $0 }.count
        guard actions <= 1 else {
            throw fail(
                "", "give at most one of FailRecords, Error, ResetConnection and Hang (Latency may go with any).")
        }
        guard actions == 1 || Latency != nil else {
            throw fail("", "says nothing to do: give FailRecords, Error, ResetConnection, Hang or Latency.")
        }
        var operations: Set<FaultOperation> = FailRecords == nil ? FaultRule.dataPlane : [.firehose(.putRecordBatch)]
        if let names = Operations {
            operations = []
            for (index, text) in names.enumerated() {
                guard let named = FaultOperation.named(text) else {
                    throw fail(
                        "Operations[\(index)]",
                        "'\(text)' is not a Firehose operation (PutRecord, PutRecordBatch, CreateDeliveryStream, ... or *) nor a Kinesis one (kinesis:PutRecords, kinesis:GetRecords, ... or kinesis:*)."
                    )
                }
                operations.formUnion(named)
            }
            guard !operations.isEmpty else { throw fail("Operations", "must name at least one operation.") }
        }
        let kinesisRecords = operations == [.kinesis(.putRecords)]
        if FailRecords != nil, operations != [.firehose(.putRecordBatch)], !kinesisRecords {
            throw fail(
                "Operations",
                "FailRecords applies to PutRecordBatch or to kinesis:PutRecords; match just one of them.")
        }
        if let streams = Streams {
            guard !streams.isEmpty else { throw fail("Streams", "must name at least one stream (or be left out).") }
        }
        if let key = AccessKeyId, key.isEmpty { throw fail("AccessKeyId", "must not be empty.") }
        return FaultRule(
            name: name, operations: operations, streams: Streams.map(Set.init), accessKeyID: AccessKeyId,
            latency: try Latency?.validated(), outcome: try outcome(name: name, kinesisRecords: kinesisRecords),
            trigger: try trigger(), seed: Seed)
    }

    private func outcome(name: String, kinesisRecords: Bool) throws(FaultRuleError) -> FaultRule.Outcome? {
        if let shape = FailRecords { return try shape.validated(kinesis: kinesisRecords) }
        if let shape = Error { return .error(try shape.validated(rule: name)) }
        if let text = ResetConnection {
            guard let moment = FaultRule.ConnectionReset(rawValue: text) else {
                throw FaultRuleError(
                    field: "ResetConnection", message: "must be BeforeRead or AfterRead, not '\(text)'.")
            }
            return .resetConnection(moment)
        }
        if let shape = Hang {
            let seconds = shape.Seconds ?? Self.defaultHangSeconds
            guard (1...Self.maxHangSeconds).contains(seconds) else {
                throw FaultRuleError(
                    field: "Hang.Seconds", message: "must be from 1 to \(Self.maxHangSeconds), not \(seconds).")
            }
            return .hang(seconds: seconds)
        }
        return nil
    }

    private func trigger() throws(FaultRuleError) -> FaultRule.Trigger {
        var trigger = FaultRule.Trigger()
        if let count = Count {
            guard count >= 1 else {
                throw FaultRuleError(field: "Count", message: "must be at least 1, not \(count).")
            }
            trigger.count = count
        }
        if let probability = Probability {
            guard probability > 0, probability <= 1 else {
                throw FaultRuleError(
                    field: "Probability", message: "must be above 0 and at most 1, not \(probability).")
            }
            trigger.probability = probability
        }
        if let after = AfterSeconds {
            guard after.isFinite, after >= 0 else {
                throw FaultRuleError(field: "AfterSeconds", message: "must be 0 or more seconds, not \(after).")
            }
            trigger.afterSeconds = after
        }
        if let window = ForSeconds {
            guard window.isFinite, window > 0 else {
                throw FaultRuleError(field: "ForSeconds", message: "must be more than 0 seconds, not \(window).")
            }
            trigger.forSeconds = window
        }
        return trigger
    }
}

extension FaultRuleDefinition.LatencyShape {
    func validated() throws(FaultRuleError) -> FaultRule.Latency {
        let limit = FaultRuleDefinition.maxLatencyMilliseconds
        func check(_ value: Int, _ field: String) throws(FaultRuleError) {
            guard (0...limit).contains(value) else {
                throw FaultRuleError(field: "Latency.\(field)", message: "must be from 0 to \(limit), not \(value).")
            }
        }
        switch (Milliseconds, MinMilliseconds, MaxMilliseconds) {
        case (let fixed?, nil, nil):
            try check(fixed, "Milliseconds")
            return .fixed(milliseconds: fixed)
        case (nil, let low?, let high?):
            try check(low, "MinMilliseconds")
            try check(high, "MaxMilliseconds")
            guard low <= high else {
                throw FaultRuleError(
                    field: "Latency", message: "MinMilliseconds (\(low)) must not exceed MaxMilliseconds (\(high)).")
            }
            return .range(low...high)
        default:
            throw FaultRuleError(
                field: "Latency", message: "give Milliseconds, or MinMilliseconds and MaxMilliseconds together.")
        }
    }
}

extension FaultRuleDefinition.FailRecordsShape {
    /// - Parameter kinesis: for Kinesis' PutRecords, whose records fail with its own two codes.
    func validated(kinesis: Bool = false) throws(FaultRuleError) -> FaultRule.Outcome {
        func fail(_ field: String, _ message: String) -> FaultRuleError {
            FaultRuleError(field: field.isEmpty ? "FailRecords" : "FailRecords.\(field)", message: message)
        }
        let code = ErrorCode ?? (kinesis ? "ProvisionedThroughputExceededException" : "ServiceUnavailableException")
        let codes = kinesis ? KinesisOperation.recordFailureCodes : PutRecordsResponse.RecordFailure.codes
        guard codes.contains(code) else {
            throw fail(
                "ErrorCode",
                kinesis
                    ? "kinesis:PutRecords fails records with ProvisionedThroughputExceededException or InternalFailure, not '\(code)'."
                    : "PutRecordBatch fails records with ServiceUnavailableException or InternalFailure, not '\(code)'."
            )
        }
        let message =
            ErrorMessage
            // Kinesis's own texts name the record's shard: filled in when the record fails.
            ?? (kinesis ? "" : PutRecordsResponse.RecordFailure.message(of: code))
        guard message.utf8.count <= 1024 else { throw fail("ErrorMessage", "must be at most 1024 bytes.") }
        let pattern: FaultRule.RecordPattern
        switch (Fraction, Every, Records) {
        case (let fraction?, nil, nil):
            guard fraction.isFinite, (0...1).contains(fraction) else {
                throw fail("Fraction", "must be from 0 to 1, not \(fraction).")
            }
            pattern = .fraction(fraction)
        case (nil, let step?, nil):
            guard (1...ServiceLimits.maxBatchRecords).contains(step) else {
                throw fail("Every", "must be from 1 to \(ServiceLimits.maxBatchRecords), not \(step).")
            }
            pattern = .every(step)
        case (nil, nil, let text?):
            pattern = .positions(try Self.positions(text, fail: { fail("Records", $0) }))
        default:
            throw fail("", "give one of Fraction, Every and Records.")
        }
        return .failRecords(pattern, code: code, message: message)
    }

    /// `"0-9,15"` → `[0...9, 15...15]`; positions are 0-based and below 500, the most records a batch
    /// holds. Sorted and merged, so a batch is matched in one pass however the text lists them.
    static func positions(_ text: String, fail: (String) -> FaultRuleError) throws(FaultRuleError)
        -> [ClosedRange<Int>]
    {
        let last = ServiceLimits.maxBatchRecords - 1
        var ranges: [ClosedRange<Int>] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false).map {
                Int($0.trimmingASCIISpaces)
            }
            guard (1...2).contains(bounds.count), let low = bounds.first!, let high = bounds.last!, low <= high,
                low >= 0, high <= last
            else {
                throw fail(
                    "must list positions from 0 to \(last) and ranges such as \"0-9,15\", not '\(text)'.")
            }
            ranges.append(low...high)
        }
        var merged: [ClosedRange<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound + 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}

extension FaultRuleDefinition.ErrorShape {
    /// Status and message of the codes tests reach for, as AWS answers them; any other code is 400
    /// unless `Status` says otherwise. ServiceUnavailableException is 500, as the PutRecord and
    /// PutRecordBatch API references list it and as throttled SDK calls report it.
    static let known: [String: (status: Int, message: String)] = [
        FirehoseError.throttled.code: (FirehoseError.throttled.httpStatus, FirehoseError.throttled.message),
        "InternalFailure": (
            500, "The request processing has failed because of an unknown error, exception or failure."
        ),
        "ThrottlingException": (400, "Rate exceeded"),
        "LimitExceededException": (400, "Rate exceeded"),
        SigV4Error.expiredTokenCode: (400, SigV4Error.expiredToken.message),
        SigV4Error.unrecognizedClientCode: (400, SigV4Error.unrecognizedClient.message),
        "AccessDeniedException": (400, "User is not authorized to perform this operation."),
    ]

    func validated(rule: String) throws(FaultRuleError) -> FirehoseError {
        guard (1...128).contains(Code.utf8.count),
            Code.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == UInt8(ascii: ".") })
        else {
            throw FaultRuleError(
                field: "Error.Code",
                message: "must be an AWS error code of 1 to 128 letters, digits or '.', not '\(Code)'.")
        }
        let known = Self.known[Code]
        let status = Status ?? known?.status ?? 400
        guard (400...599).contains(status) else {
            throw FaultRuleError(
                field: "Error.Status", message: "must be an HTTP error status from 400 to 599, not \(status).")
        }
        let message = Message ?? known?.message ?? "\(Code) injected by the firehose-local fault rule '\(rule)'."
        guard message.utf8.count <= 1024 else {
            throw FaultRuleError(field: "Error.Message", message: "must be at most 1024 bytes.")
        }
        return FirehoseError(code: Code, message: message, httpStatus: status)
    }
}
