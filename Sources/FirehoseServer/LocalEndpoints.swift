import FirehoseSink
import FirehoseWire

/// `/_local/*`: what tests and scripts use to drive the emulator. Not part of the AWS API and not
/// authenticated — the server binds to loopback by default.
struct LocalEndpoints {
    let api: FirehoseAPI

    func handle(_ request: APIRequest, requestID: String) async -> APIResponse {
        switch (request.method, request.path) {
        case ("GET", "/_local/health"), ("HEAD", "/_local/health"):
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("status")
            writer.string("ok")
            writer.endObject()
            return json(200, writer.bytes, requestID: requestID)
        case ("POST", "/_local/flush"):
            return await flush(stream: request.queryParameter("stream"), requestID: requestID)
        case (_, "/_local/health"), (_, "/_local/flush"):
            return error(405, "MethodNotAllowed", "\(request.method) is not allowed on \(request.path).", requestID)
        default:
            return error(
                404, "NotFound", "No local endpoint \(request.path) (try /_local/health or /_local/flush).", requestID)
        }
    }

    private func flush(stream: String?, requestID: String) async -> APIResponse {
        do {
            let objects = try await api.sink.flush(stream: stream?.isEmpty == true ? nil : stream)
            var writer = JSONWriter(reservingCapacity: 128 + objects.count * 160)
            writer.beginObject()
            writer.key("objects")
            writer.beginArray()
            for object in objects {
                writer.beginObject()
                writer.key("stream")
                writer.string(object.stream)
                writer.key("bucket")
                writer.string(object.bucket)
                writer.key("key")
                writer.string(object.key)
                writer.key("records")
                writer.integer(object.records)
                writer.key("bytes")
                writer.integer(object.bytes)
                writer.key("storedBytes")
                writer.integer(object.storedBytes)
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
            return json(200, writer.bytes, requestID: requestID)
        } catch {
            let firehoseError = error.firehoseError(accountID: api.configuration.accountID)
            let status = error.isUnknownStream ? 404 : firehoseError.httpStatus
            return self.error(status, firehoseError.code, firehoseError.message, requestID)
        }
    }

    private func json(_ status: Int, _ body: [UInt8], requestID: String) -> APIResponse {
        APIResponse(
            status: status, headers: [("Content-Type", "application/json"), ("x-amzn-RequestId", requestID)], body: body)
    }

    private func error(_ status: Int, _ code: String, _ message: String, _ requestID: String) -> APIResponse {
        var response = json(
            status, FirehoseError(code: code, message: message, httpStatus: status).jsonBody, requestID: requestID)
        response.headers.append(("x-amzn-ErrorType", code))
        return response
    }
}
