package import DurableStorage

/// Content read at offsets, as a body is sent: an object S3 opened (`OpenObject`). Reads block; the
/// HTTP layer makes them on its reading thread.
package protocol ReadableAtOffsets: Sendable {
    /// Up to `count` bytes from `offset`; fewer only at the end.
    func read(at offset: Int, count: Int) throws(FileSystemError) -> [UInt8]
}

/// A body read from an open object as it is sent, instead of `APIResponse.body`.
package struct StreamedBody: Sendable {
    package var object: any ReadableAtOffsets
    package var offset: Int
    package var count: Int

    package init(object: any ReadableAtOffsets, offset: Int, count: Int) {
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
