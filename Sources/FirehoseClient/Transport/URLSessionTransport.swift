import Foundation
import HTTPTransports

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// `HTTPTransport` over Foundation's `URLSession` (FoundationNetworking on Linux). No caching, no
/// cookies, no credential storage: every request is exactly what the client signed.
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    private let session: URLSession

    /// - Parameter configuration: defaults to an ephemeral configuration; pass your own to add
    ///   proxies or limits. Its caching and cookie settings are overridden.
    public init(configuration: URLSessionConfiguration = .ephemeral) {
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCredentialStorage = nil
        session = URLSession(configuration: configuration)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval =
            Double(request.timeout.components.seconds)
            + Double(request.timeout.components.attoseconds) / 1e18
        for header in request.headers where header.name.lowercased() != "host" {
            urlRequest.setValue(header.value, forHTTPHeaderField: header.name)
        }
        urlRequest.httpBody = Data(request.body)
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                        return
                    }
                    guard let http = response as? HTTPURLResponse else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                        return
                    }
                    var headers: [(name: String, value: String)] = []
                    for (name, value) in http.allHeaderFields {
                        headers.append((String(describing: name), String(describing: value)))
                    }
                    continuation.resume(
                        returning: HTTPResponse(status: http.statusCode, headers: headers, body: Array(data ?? Data())))
                }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }
}

/// Holds the data task so a task cancellation can reach it.
private final class TaskBox: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    func set(_ task: URLSessionDataTask) {
        lock.lock()
        self.task = task
        let cancelNow = cancelled
        lock.unlock()
        if cancelNow { task.cancel() }
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }
}
