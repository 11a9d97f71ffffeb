import CivilTime
import DurableStorage
import FaultInjection
import FirehoseService
import FirehoseSink
import FirehoseWire
import Logging
import ServerCore
import ServiceLifecycle
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `/_local/*`: what tests and scripts use to drive and observe the emulator. Not part of the AWS API
/// and not authenticated — the server binds to loopback by default.
///
/// | request | answer |
/// |---|---|
/// | `GET /_local/health` | `{"status": "ok"}` |
/// | `POST /_local/flush[?stream=S]` | delivers buffers now; `{"objects": [...]}` once on disk |
/// | `GET /_local/streams` | every stream: settings, buffer fill, counters, last delivery |
/// | `GET /_local/wait?stream=S&objects=N&timeout=T` | answers once S has written N objects (an HTTP endpoint stream's accepted requests count too) |
/// | `GET /_local/metrics` | Prometheus text exposition |
/// | `GET /_local/faults` | the fault rules in force, with how often each fired |
/// | `POST /_local/faults` | adds the fault rule in the body (JSON, as in the configuration file's `Faults`) |
/// | `DELETE /_local/faults[?name=N]` | removes that rule, or every rule |
/// | `GET /_local/events` | Server-Sent Events: `streams`, `faults` and `objects` as they change |
/// | `GET /_local/object?bucket=B&key=K[&start=I&count=N]` | a page of an object's records, decompressed |
/// | `GET /_local/ui` | the live view: a page of the binary's own over the three above |
struct LocalEndpoints {
    let api: FirehoseAPI

    static let paths = [
        "/_local/health", "/_local/flush", "/_local/streams", "/_local/wait", "/_local/metrics", "/_local/faults",
        "/_local/events", "/_local/object", "/_local/ui",
    ]

    /// Open partitions listed per stream in `/_local/streams` (a stream may have 500).
    static let listedPartitions = 100

    /// A fault rule is a few hundred bytes; a body far larger is a mistake.
    static let maxFaultRuleBytes = 64 * 1024

    /// `/_local/wait` limits: `timeout` is in seconds.
    static let defaultWaitTimeout = 30.0
    static let maxWaitTimeout = 300.0
    static let waitParameters: Set<String> = ["stream", "objects", "timeout"]

    func handle(_ request: APIRequest, requestID: String) async -> APIResponse {
        // An HTTP endpoint delivery (this server's own, pointed at /_local, by whatever address): a
        // flush it asked for would wait for the stream's delivery, which waits for this answer.
        if request.path != "/_local/health", let delivery = request.header(HTTPEndpointContract.requestIDHeader) {
            return error(
                508, HTTPEndpointContract.loopDetectedCode,
                "\(request.path) was called by an HTTP endpoint delivery (request id \(delivery)): /_local is not an endpoint receiver, and a flush cannot wait for the delivery that waits for it. Point the stream's Url at a receiver.",
                requestID)
        }
        guard request.fromLoopback || api.configuration.localEndpointsOpen || request.path == "/_local/health" else {
            return error(
                403, "AccessDeniedException",
                "\(request.path) answers only clients on the server's machine (loopback); start the server with --local-endpoints open to let other hosts use /_local.",
                requestID)
        }
        var response: APIResponse
        if request.path != "/_local/health",
            let refusal = api.localRequestGuard.refusal(
                of: request, jsonBody: request.method == "POST" && request.path == "/_local/faults")
        {
            response = refused(request, refusal, requestID: requestID)
        } else {
            response = await route(request, requestID: requestID)
        }
        // Nothing of /_local is a script or a style sheet to sniff, nor a page to frame elsewhere.
        response.headers += [("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY")]
        return response
    }

    private func refused(_ request: APIRequest, _ refusal: LocalRequestGuard.Refusal, requestID: String)
        -> APIResponse
    {
        switch refusal {
        case .foreignHost(let host):
            return error(
                403, "AccessDeniedException",
                "\(request.path) refuses requests addressed to '\(host)': /_local answers requests addressed to an IP address, localhost or this machine's name (a web page whose name is rebound to this machine sends its own name). Address the server by one of those, or start it with --local-endpoints open.",
                requestID)
        case .crossOrigin(let origin):
            return error(
                403, "AccessDeniedException",
                "\(request.method) \(request.path) from another origin (\(origin)) is refused: a web page may not change the emulator's state. Scripts and SDKs send no Origin header; the live view at /_local/ui sends its own.",
                requestID)
        case .notJSON(let type):
            return error(
                415, "UnsupportedMediaTypeException",
                "\(request.path) takes a JSON body: send it with Content-Type: application/json (it was \(type.map { "'\($0)'" } ?? "missing")).",
                requestID)
        }
    }

    private func route(_ request: APIRequest, requestID: String) async -> APIResponse {
        switch (request.method, request.path) {
        case ("GET", "/_local/health"), ("HEAD", "/_local/health"):
            return json(200, OrderedJSONEncoder.encode(HealthDocument()), requestID: requestID)
        case ("POST", "/_local/flush"):
            return await flush(stream: request.queryParameter("stream"), requestID: requestID)
        case ("GET", "/_local/streams"):
            return json(200, await streamsDocument(), requestID: requestID)
        case ("GET", "/_local/wait"):
            return await wait(request, requestID: requestID)
        case ("GET", "/_local/metrics"):
            let body = api.metrics.render(streams: await api.sink.statuses())
            return APIResponse(
                status: 200, headers: [("Content-Type", FirehoseMetrics.contentType), ("x-amzn-RequestId", requestID)],
                body: body)
        case ("GET", "/_local/events"):
            return events(request, requestID: requestID)
        case ("GET", "/_local/object"):
            return await objectRecords(request, requestID: requestID)
        case ("GET", let path) where LiveViewPage.files[path] != nil:
            return page(path, requestID: requestID)
        case ("GET", "/_local/faults"):
            return json(200, faultsDocument(), requestID: requestID)
        case ("POST", "/_local/faults"):
            return addFault(request, requestID: requestID)
        case ("DELETE", "/_local/faults"):
            return removeFaults(named: request.queryParameter("name"), requestID: requestID)
        case (_, let path) where Self.paths.contains(path):
            let allowed =
                switch path {
                case "/_local/flush": "POST"
                case "/_local/health": "GET, HEAD"
                case "/_local/faults": "GET, POST, DELETE"
                default: "GET"
                }
            var response = error(
                405, "MethodNotAllowed", "\(request.method) is not allowed on \(request.path) (use \(allowed)).",
                requestID)
            response.headers.append(("Allow", allowed))
            return response
        default:
            return error(
                404, "NotFound", "No local endpoint \(request.path) (try \(Self.paths.joined(separator: ", "))).",
                requestID)
        }
    }

    // MARK: - /_local/flush

    private func flush(stream: String?, requestID: String) async -> APIResponse {
        do {
            // What the data streams of KinesisStreamAsSource streams hold is in their buffers first;
            // one that could not be read is a stream that could not deliver.
            let unread = await api.firehose.kinesisSource?.readAvailable() ?? [:]
            let objects = try await api.sink.flush(stream: stream?.isEmpty == true ? nil : stream)
            let failures = unread.sorted { $0.key < $1.key }.filter {
                stream == nil || stream == "" || $0.key == stream
            }
            if !failures.isEmpty {
                return undelivered(
                    objects,
                    failures.map {
                        UndeliveredStream(
                            stream: $0.key,
                            error: FileSystemError(
                                operation: "read its Kinesis data stream", path: $0.key, errno: 0, detail: $0.value),
                            stagedRecords: 0)
                    }, requestID: requestID)
            }
            return json(
                200, OrderedJSONEncoder.encode(FlushDocument(objects), reservingCapacity: 128 + objects.count * 160),
                requestID: requestID)
        } catch {
            guard let (delivered, failures) = error.undelivered else { return sinkError(error, requestID: requestID) }
            return undelivered(delivered, failures, requestID: requestID)
        }
    }

    /// 503, as for any delivery that did not happen, with what was delivered and, per stream, what
    /// was not and why: a script can tell which stream is stuck.
    private func undelivered(_ delivered: [DeliveredObject], _ failures: [UndeliveredStream], requestID: String)
        -> APIResponse
    {
        let names = failures.map { "\($0.stream) (\($0.stagedRecords) records stay staged)" }
        let message =
            "\(failures.count) stream\(failures.count == 1 ? "" : "s") could not deliver: \(names.joined(separator: ", "))."
            + (delivered.isEmpty ? "" : " The other streams' objects were delivered.")
        var error = FirehoseError.serviceUnavailable(message)
        error.logDetail = failures.map(\.description).joined(separator: "; ")
        api.logFailure(error, requestID: requestID, operation: "/_local/flush")
        return self.error(
            error, requestID,
            adding: UndeliveredDocument(
                objects: delivered.map(FlushedObject.init),
                failures: failures.map {
                    .init(stream: $0.stream, error: $0.error.description, stagedRecords: $0.stagedRecords)
                }))
    }

    // MARK: - /_local/streams

    /// `/_local/streams` as it stands.
    func streamsDocument() async -> [UInt8] {
        let faults = api.faults
        let quotas = api.firehose.quotas
        return Self.streamsDocument(
            await api.sink.statuses(), quarantined: api.sink.quarantinedBuffers, now: api.sink.now(),
            faultsFired: { faults.fired(stream: $0) }, throttledRecords: { quotas?.throttledRecords(stream: $0) ?? 0 })
    }

    /// `{"streams": [...]}`, alphabetical (the sink lists streams sorted by name).
    /// - Parameters:
    ///   - faultsFired: how often each fault rule fired on a stream's requests, by rule.
    ///   - throttledRecords: records of a stream refused for being over its quota.
    static func streamsDocument(
        _ statuses: [FirehoseSink.StreamStatus], quarantined: [QuarantinedBuffer], now: Date,
        faultsFired: (String) -> [String: Int] = { _ in [:] }, throttledRecords: (String) -> Int = { _ in 0 }
    ) -> [UInt8] {
        let document = StreamsDocument(
            streams: statuses.sorted(by: { $0.settings.name < $1.settings.name }).map { status in
                StreamState(
                    status, now: now, listedPartitions: Self.listedPartitions,
                    faultsFired: faultsFired(status.settings.name),
                    throttledRecords: throttledRecords(status.settings.name))
            },
            quarantined: quarantined.map {
                .init(stream: $0.stream, records: $0.records, bytes: $0.bytes, path: $0.path)
            })
        return OrderedJSONEncoder.encode(document, reservingCapacity: 64 + statuses.count * 400)
    }

    // MARK: - /_local/faults

    /// `{"faults": [rule, ...]}`, in the order rules are tried.
    func faultsDocument() -> [UInt8] {
        let entries = api.faults.entries
        return OrderedJSONEncoder.encode(
            FaultsDocument(faults: entries.map(\.listing)), reservingCapacity: 64 + entries.count * 400)
    }

    /// Adds the rule in the body; answers 201 with the rule as it stands.
    private func addFault(_ request: APIRequest, requestID: String) -> APIResponse {
        guard request.body.count <= Self.maxFaultRuleBytes else {
            return error(
                413, "InvalidArgumentException",
                "A fault rule must be at most \(Self.maxFaultRuleBytes) bytes of JSON.", requestID)
        }
        let definition: FaultRuleDefinition
        do throws(FirehoseError) {
            definition = try RequestJSON.decode(
                FaultRuleDefinition.self, from: request.body, rejectingUnknownMembers: true)
        } catch {
            return self.error(
                400, "InvalidArgumentException",
                "The body must be one fault rule as a JSON object (see docs/testing.md): \(error.message)", requestID)
        }
        do throws(FaultInjector.AddError) {
            let entry = try api.faults.add(definition, now: api.sink.now())
            api.log(
                "Fault rule added",
                ["rule": .string(entry.rule.name), "request_id": .string(requestID)])
            return json(201, OrderedJSONEncoder.encode(entry.listing), requestID: requestID)
        } catch .invalid(let failure) {
            return error(400, "InvalidArgumentException", failure.description, requestID)
        } catch .refused(.nameTaken(let name)) {
            return error(
                409, "ResourceInUseException",
                "A fault rule named '\(name)' exists already; DELETE /_local/faults?name=\(name) first.", requestID)
        } catch {
            return self.error(
                400, "LimitExceededException",
                "At most \(FaultRuleSet.maxRules) fault rules can be in force at once.", requestID)
        }
    }

    private func removeFaults(named name: String?, requestID: String) -> APIResponse {
        let removed: Int
        if let name {
            // An empty name is a script's unset variable, not "every rule".
            guard !name.isEmpty else {
                return error(
                    400, "InvalidArgumentException",
                    "name is empty: give a rule's name, or leave name out to remove every rule.", requestID)
            }
            guard api.faults.remove(named: name) else {
                return error(404, "ResourceNotFoundException", "No fault rule named '\(name)'.", requestID)
            }
            removed = 1
        } else {
            removed = api.faults.removeAll()
        }
        api.log("Fault rules removed", ["rule": .string(name ?? "*"), "request_id": .string(requestID)])
        return json(200, OrderedJSONEncoder.encode(RemovedFaults(removed: removed)), requestID: requestID)
    }

    // MARK: - /_local/wait

    struct WaitParameters: Equatable {
        /// nil: all streams together.
        var stream: String?
        var objects: Int
        var timeoutSeconds: Double
    }

    /// Validates the query of `/_local/wait`; the error is the message of a 400 answer.
    static func waitParameters(_ request: APIRequest) -> Result<WaitParameters, WaitParameterError> {
        for pair in request.query.split(separator: "&") {
            let name = String(pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0])
                .percentDecoded
            if !waitParameters.contains(name) {
                return .failure(
                    WaitParameterError(
                        message: "Unknown parameter '\(name)' for /_local/wait; use stream, objects and timeout."))
            }
        }
        var parameters = WaitParameters(stream: nil, objects: 1, timeoutSeconds: defaultWaitTimeout)
        if let stream = request.queryParameter("stream"), !stream.isEmpty { parameters.stream = stream }
        if let text = request.queryParameter("objects") {
            guard let objects = Int(text), objects >= 0 else {
                return .failure(
                    WaitParameterError(message: "objects must be a whole number of at least 0, not '\(text)'."))
            }
            parameters.objects = objects
        }
        if let text = request.queryParameter("timeout") {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= maxWaitTimeout,
                text.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") })
            else {
                return .failure(
                    WaitParameterError(
                        message:
                            "timeout must be a number of seconds from 0 to \(Int(maxWaitTimeout)), not '\(text)'."))
            }
            parameters.timeoutSeconds = seconds
        }
        return .success(parameters)
    }

    struct WaitParameterError: Error, Equatable {
        var message: String
    }

    /// Answers as soon as the stream (or all streams together) has written the number of objects
    /// asked for since this server process started, recovered ones included. Never polls: the sink
    /// wakes the waiter on delivery.
    private func wait(_ request: APIRequest, requestID: String) async -> APIResponse {
        let parameters: WaitParameters
        switch Self.waitParameters(request) {
        case .success(let value): parameters = value
        case .failure(let failure):
            return error(400, "InvalidArgumentException", failure.message, requestID)
        }
        let sink = api.sink
        if let stream = parameters.stream, sink.settings(of: stream) == nil {
            return sinkError(.unknownStream(stream), requestID: requestID)
        }
        guard api.takeWaitingSlot() else {
            let limit = api.configuration.maxWaitingRequests
            return error(
                503, "ServiceUnavailableException",
                "\(limit) request\(limit == 1 ? " is" : "s are") already waiting (/_local/wait, and hanging fault rules), the most this server lets wait and hold connections (a quarter of --max-connections); retry shortly.",
                requestID)
        }
        defer { api.releaseWaitingSlot() }
        let shuttingDown = Atomic<Bool>(false)
        // Counted on the sink's clock, slice by slice: a slice that ends without the objects has run
        // its whole length.
        var remaining = Duration.milliseconds(Int64((parameters.timeoutSeconds * 1000).rounded()))
        let outcome: Result<Bool, SinkError> = await withGracefulShutdownHandler {
            // Wait in slices of at most a second so a graceful shutdown (which cannot deliver while
            // requests are still open) ends the wait promptly; a cancelled request ends its slice at
            // once. The sink resumes a slice the moment an object is written: nothing here polls.
            while true {
                if sink.deliveries(stream: parameters.stream) >= parameters.objects { return .success(true) }
                if remaining < .milliseconds(10) || shuttingDown.load(ordering: .relaxed) || Task.isCancelled {
                    return .success(false)
                }
                do throws(SinkError) {
                    let slice = min(remaining, .seconds(1))
                    if try await sink.waitForObjects(parameters.objects, stream: parameters.stream, timeout: slice) {
                        return .success(true)
                    }
                    remaining -= slice
                } catch {
                    return .failure(error)
                }
            }
        } onGracefulShutdown: {
            shuttingDown.store(true, ordering: .relaxed)
        }
        let count = sink.deliveries(stream: parameters.stream)
        switch outcome {
        case .failure(let failure):
            return sinkError(failure, requestID: requestID)
        case .success(true):
            return json(200, Self.countDocument(count), requestID: requestID)
        case .success(false) where shuttingDown.load(ordering: .relaxed):
            return error(
                503, "ServiceUnavailableException",
                "firehose-local is shutting down; \(count) of \(parameters.objects) objects were written.",
                requestID, objects: count)
        case .success(false):
            let scope = parameters.stream.map { "stream \($0)" } ?? "all streams"
            return error(
                408, "Timeout",
                "Timed out after \(Self.secondsText(parameters.timeoutSeconds)) s waiting for \(parameters.objects) object\(parameters.objects == 1 ? "" : "s") from \(scope); \(count) written since the server started.",
                requestID, objects: count)
        }
    }

    static func countDocument(_ count: Int) -> [UInt8] { OrderedJSONEncoder.encode(ObjectCount(objects: count)) }

    static func secondsText(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    // MARK: - Responses

    private func sinkError(_ error: SinkError, requestID: String) -> APIResponse {
        let firehoseError = error.firehoseError(accountID: api.configuration.accountID)
        api.logFailure(firehoseError, requestID: requestID, operation: "/_local")
        let status = error.isUnknownStream ? 404 : firehoseError.httpStatus
        return self.error(status, firehoseError.code, firehoseError.message, requestID)
    }

    func json(_ status: Int, _ body: [UInt8], requestID: String) -> APIResponse {
        APIResponse(
            status: status, headers: [("Content-Type", "application/json"), ("x-amzn-RequestId", requestID)], body: body
        )
    }

    /// AWS-shaped error body (`__type`, `message`), plus `objects` for the answers of `/_local/wait`.
    func error(_ status: Int, _ code: String, _ message: String, _ requestID: String, objects: Int? = nil)
        -> APIResponse
    {
        let error = FirehoseError(code: code, message: message, httpStatus: status)
        guard let objects else { return self.error(error, requestID, adding: NoMembers()) }
        return self.error(error, requestID, adding: ObjectCount(objects: objects))
    }

    /// `error`'s body with members of the endpoint's own after `__type` and `message`.
    private func error(_ error: FirehoseError, _ requestID: String, adding members: some Encodable) -> APIResponse {
        var response = json(error.httpStatus, error.jsonBody(adding: members), requestID: requestID)
        response.headers.append(("x-amzn-ErrorType", error.code))
        return response
    }
}
