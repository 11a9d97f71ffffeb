import FirehoseWire
package import HTTPTransports

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// Where and how an HTTP endpoint destination delivers (`HttpEndpointDestinationConfiguration`),
/// checked by the API layer.
package struct HTTPEndpointSettings: Sendable, Equatable {
    /// `RequestConfiguration.ContentEncoding`.
    package enum ContentEncoding: String, Sendable {
        case none = "NONE"
        case gzip = "GZIP"
    }

    /// `S3BackupMode`: what goes to `S3Configuration`'s bucket.
    package enum BackupMode: String, Sendable {
        case failedDataOnly = "FailedDataOnly"
        case allData = "AllData"
    }

    /// One of `RequestConfiguration.CommonAttributes`.
    package struct Attribute: Sendable, Equatable {
        package var name: String
        package var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// `EndpointConfiguration.Url`.
    package var url: URL
    /// `EndpointConfiguration.AccessKey`, sent as `X-Amz-Firehose-Access-Key`.
    package var accessKey: String?
    package var contentEncoding: ContentEncoding
    package var commonAttributes: [Attribute]
    /// `RetryOptions.DurationInSeconds`: how long failed requests are retried, waits for answers not
    /// counted.
    package var retryDuration: Duration
    package var backupMode: BackupMode
    /// Sent as `X-Amz-Firehose-Source-Arn`.
    package var deliveryStreamARN: String

    /// AWS documents no default for `RetryOptions.DurationInSeconds`; its console proposes 300.
    package static let defaultRetryDuration = Duration.seconds(300)

    package init(
        url: URL, accessKey: String? = nil, contentEncoding: ContentEncoding = .none,
        commonAttributes: [Attribute] = [], retryDuration: Duration = Self.defaultRetryDuration,
        backupMode: BackupMode = .failedDataOnly, deliveryStreamARN: String
    ) {
        self.url = url
        self.accessKey = accessKey
        self.contentEncoding = contentEncoding
        self.commonAttributes = commonAttributes
        self.retryDuration = retryDuration
        self.backupMode = backupMode
        self.deliveryStreamARN = deliveryStreamARN
    }
}

/// AWS's HTTP endpoint delivery specification (httpdeliveryrequestresponse.html): the request a
/// buffer of records becomes, what the endpoint's answer must be, and what each failure is called
/// (http_troubleshooting.html).
package enum HTTPEndpointContract {
    package static let protocolVersion = "1.0"
    /// Records one request carries at most.
    package static let maxRecordsPerRequest = 10_000
    /// The largest answer read; a larger one is `HttpEndpoint.ResponseTooLarge`.
    package static let maxResponseBytes = 1_048_576
    /// How long Firehose waits for an answer, each attempt ("within 3 minutes"); `serve
    /// --endpoint-response-timeout` changes it here.
    package static let responseTimeout = Duration.seconds(180)
    /// AWS documents none; this is what receivers' tests record from Firehose.
    package static let userAgent = "Amazon Kinesis Data Firehose Agent/1.0"
    /// The header naming a delivery request; what marks a request as a delivery's.
    package static let requestIDHeader = "X-Amz-Firehose-Request-Id"
    /// The error code of firehose-local's `/_local` for a delivery sent to it (status 508).
    package static let loopDetectedCode = "LoopDetected"

    /// Why an attempt failed, in the error codes Firehose writes to the error output.
    package struct Failure: Error, Sendable, Equatable {
        package var code: String
        /// At most `maxMessageBytes`: it is copied into every error record of the request.
        package private(set) var message: String
        /// Not retried: the endpoint said the request is too large (413).
        package var isPermanent = false

        package static let maxMessageBytes = 4096

        init(code: String, message: String, isPermanent: Bool = false) {
            self.code = code
            self.message = Self.cut(message, to: Self.maxMessageBytes)
            self.isPermanent = isPermanent
        }

        /// `text` cut to at most `bytes` UTF-8 bytes, on a character boundary, marked when cut.
        static func cut(_ text: String, to bytes: Int) -> String {
            guard text.utf8.count > bytes else { return text }
            var kept = ""
            var size = 0
            for character in text {
                size += character.utf8.count
                guard size <= bytes - 3 else { break }
                kept.append(character)
            }
            return kept + "..."
        }

        /// Any status other than 200. Not retried: 413 (the request is too large), and the 508 with
        /// which `/_local` answers a delivery pointed at it (a loop no retry mends; another
        /// receiver's 508 is retried as any status is).
        package static func destination(status: Int, body: String) -> Failure {
            Failure(
                code: "HttpEndpoint.DestinationException",
                message: "The following response was received from the endpoint destination. \(status): \(body)",
                isPermanent: status == 413 || (status == 508 && body.contains("\"\(loopDetectedCode)\"")))
        }

        /// A 200 that is not the answer the specification asks for.
        package static func invalidResponse(requestID: String, status: Int, body: String, problem: String) -> Failure {
            Failure(
                code: "HttpEndpoint.InvalidResponseFromDestination",
                message:
                    "Response for request '\(requestID)' is not recognized as valid JSON or has unexpected fields (\(problem)). Raw response received: \(status) \(body)"
            )
        }

        /// - Parameter timeout: the wait that ran out (`serve --endpoint-response-timeout`; Firehose's is
        ///   `responseTimeout`).
        package static func timedOut(after timeout: Duration) -> Failure {
            let milliseconds =
                timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
            let shown =
                milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
            let why =
                timeout == responseTimeout
                ? "Firehose's timeout for an HTTP endpoint"
                : "the server's --endpoint-response-timeout; Firehose waits 180 seconds"
            return Failure(
                code: "HttpEndpoint.RequestTimeout",
                message: "The endpoint did not answer within \(shown) seconds (\(why)).")
        }

        package static let responseTooLarge = Failure(
            code: "HttpEndpoint.ResponseTooLarge",
            message: "The response received from the endpoint is larger than 1 MiB, the most Firehose reads.")

        package static func connectionFailed(_ detail: String) -> Failure {
            Failure(code: "HttpEndpoint.ConnectionFailed", message: "Could not connect to the endpoint: \(detail)")
        }
    }

    /// The request that delivers `records`: the same `requestID` on every attempt.
    package static func request(
        id requestID: String, timestamp: Date, records: some Collection<ArraySlice<UInt8>>,
        settings: HTTPEndpointSettings, timeout: Duration = responseTimeout
    ) -> HTTPRequest {
        // Written by hand, as the Lambda event is: it carries every record.
        var body = JSONWriter(reservingCapacity: 96 + records.reduce(0) { $0 + 16 + $1.count * 4 / 3 })
        body.beginObject()
        body.key("requestId")
        body.string(requestID)
        body.key("timestamp")
        body.integer(Int(timestamp.epochMilliseconds))
        body.key("records")
        body.beginArray()
        for record in records {
            body.beginObject()
            body.key("data")
            body.base64(record)
            body.endObject()
        }
        body.endArray()
        body.endObject()

        var headers: [(name: String, value: String)] = [
            ("Content-Type", "application/json"), ("User-Agent", userAgent),
            ("X-Amz-Firehose-Protocol-Version", protocolVersion), (requestIDHeader, requestID),
            ("X-Amz-Firehose-Source-Arn", settings.deliveryStreamARN),
        ]
        if let key = settings.accessKey { headers.append(("X-Amz-Firehose-Access-Key", key)) }
        if !settings.commonAttributes.isEmpty {
            let attributes = OrderedJSONEncoder.encode(CommonAttributesHeader(attributes: settings.commonAttributes))
            headers.append(("X-Amz-Firehose-Common-Attributes", String(decoding: attributes, as: UTF8.self)))
        }
        var content = body.bytes
        if settings.contentEncoding == .gzip, let compressed = try? GzipEncoding(level: 6).encodeWhole(content) {
            content = compressed
            headers.append(("Content-Encoding", "gzip"))
        }
        return HTTPRequest(
            url: settings.url, method: "POST", headers: headers, body: content, timeout: timeout,
            maxResponseBytes: maxResponseBytes)
    }

    /// Nil when `response` acknowledges the request `requestID` as the specification says: status
    /// 200, `Content-Type: application/json`, no `Content-Encoding`, at most 1 MiB, a JSON object of
    /// `requestId` (this request's), `timestamp` (a number) and optionally `errorMessage`, nothing else.
    package static func check(_ response: HTTPResponse, requestID: String) -> Failure? {
        let excerpt = Failure.cut(String(decoding: response.body.prefix(1024), as: UTF8.self), to: 1024)
        guard response.body.count <= maxResponseBytes else { return .responseTooLarge }
        guard response.status == 200 else { return .destination(status: response.status, body: excerpt) }
        func invalid(_ problem: String) -> Failure {
            .invalidResponse(requestID: requestID, status: response.status, body: excerpt, problem: problem)
        }
        let mediaType = response.header("Content-Type")?.split(separator: ";").first.map {
            String($0.filter { $0 != " " && $0 != "\t" }).lowercased()
        }
        guard mediaType == "application/json" else {
            let given = response.header("Content-Type").map { "'\(Failure.cut($0, to: 100))'" } ?? "missing"
            return invalid("Content-Type is \(given), not application/json")
        }
        if let encoding = response.header("Content-Encoding"), !encoding.isEmpty, encoding.lowercased() != "identity" {
            return invalid("Content-Encoding '\(Failure.cut(encoding, to: 100))' is not allowed")
        }
        let problem = response.body.withUnsafeBufferPointer { bytes -> String? in
            var reader = ResponseReader(cursor: StrictJSONCursor(bytes))
            return reader.problem(requestID: requestID)
        }
        return problem.map(invalid)
    }

    /// The answer's members, read off its text.
    private struct ResponseReader: StrictJSONReading {
        var cursor: StrictJSONCursor
        static var maxDepth: Int { 64 }

        mutating func problem(requestID: String) -> String? {
            guard wholeObject() else { return "the body is not a JSON object" }
            var echoed: String?
            var hasTimestamp = false
            var unexpected: String?
            var wrongType: String?
            forEachMember { reader, name in
                switch name {
                case "requestId":
                    echoed = reader.stringValue()
                    if echoed == nil { wrongType = wrongType ?? "requestId is not a string" }
                case "timestamp":
                    hasTimestamp = reader.cursor.number() != nil
                    if !hasTimestamp {
                        wrongType = wrongType ?? "timestamp is not a number"
                        reader.skipValue()
                    }
                case "errorMessage":
                    if reader.stringValue() == nil { wrongType = wrongType ?? "errorMessage is not a string" }
                default:
                    unexpected = unexpected ?? name
                    reader.skipValue()
                }
            }
            if let wrongType { return wrongType }
            if let unexpected { return "unexpected member '\(Failure.cut(unexpected, to: 100))'" }
            guard let echoed else { return "requestId is missing" }
            guard echoed == requestID else { return "requestId '\(Failure.cut(echoed, to: 100))' is not the request's" }
            return hasTimestamp ? nil : "timestamp is missing"
        }
    }

    /// `X-Amz-Firehose-Common-Attributes`: `{"commonAttributes": {name: value, …}}`, in the
    /// configuration's order.
    private struct CommonAttributesHeader: Encodable {
        var attributes: [HTTPEndpointSettings.Attribute]

        func encode(to encoder: any Encoder) throws {
            var outer = encoder.container(keyedBy: AnyCodingKey.self)
            var members = outer.nestedContainer(keyedBy: AnyCodingKey.self, forKey: AnyCodingKey("commonAttributes"))
            for attribute in attributes { try members.encode(attribute.value, forKey: AnyCodingKey(attribute.name)) }
        }
    }
}

/// `RetryOptions` as a state machine (httpdeliveryrequestresponse.html, "Retries"): after a failed
/// attempt, wait 1 s, then twice as long each time (at most 2 minutes, ±15 % jitter), while the
/// waits add up to less than `DurationInSeconds` — the time spent waiting for answers does not
/// count. A permanent failure (413) is not retried; `DurationInSeconds` 0 retries nothing.
package struct HTTPEndpointRetry: Sendable {
    package enum Next: Equatable, Sendable {
        case retry(after: Duration)
        case giveUp
    }

    package let duration: Duration
    /// Attempts that failed so far.
    package private(set) var failedAttempts = 0
    /// The waits between attempts so far.
    package private(set) var waited = Duration.zero

    package static let firstDelay = Duration.seconds(1)
    package static let longestDelay = Duration.seconds(120)

    package init(duration: Duration) {
        self.duration = duration
    }

    /// What to do after an attempt failed with `failure`.
    /// - Parameter jitter: a factor from 0.85 to 1.15 (random in use, fixed in tests).
    package mutating func attemptFailed(_ failure: HTTPEndpointContract.Failure, jitter: Double) -> Next {
        failedAttempts += 1
        let remaining = duration - waited
        guard !failure.isPermanent, remaining > .zero else { return .giveUp }
        var delay = Self.firstDelay
        for _ in 1..<failedAttempts where delay < Self.longestDelay { delay *= 2 }
        // Whole milliseconds: what the clock sleeps, and what a test can compare.
        let milliseconds = Double(min(delay, Self.longestDelay).components.seconds) * 1000
        delay = min(.milliseconds(Int64((milliseconds * min(max(jitter, 0.85), 1.15)).rounded())), remaining)
        waited += delay
        return .retry(after: delay)
    }
}
