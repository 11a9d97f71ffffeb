import FirehoseSink

/// A body read from an open object as it is sent, instead of `APIResponse.body`.
package struct StreamedBody: Sendable {
    package var object: OpenObject
    package var offset: Int
    package var count: Int

    package init(object: OpenObject, offset: Int, count: Int) {
        self.object = object
        self.offset = offset
        self.count = count
    }
}

/// Where a body made as it is sent (`APIResponse.writesBody`) goes: the HTTP layer's writer, so the
/// services answer without knowing the HTTP server.
package protocol StreamingBodyWriter {
    mutating func write(_ bytes: [UInt8]) async throws
    /// Ends the body; a body left unfinished ends with its connection.
    mutating func finish() async throws
}
