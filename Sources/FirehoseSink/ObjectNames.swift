import FirehoseKeyLayout

/// Firehose object names: `<stream>-<version>-<yyyy-MM-dd-HH-mm-ss>-<uuid><extension>`.
package enum ObjectName {
    /// The stream of the object named by the last segment of `key`.
    package static func stream(ofKey key: String) -> String? {
        stream(of: String(key[(key.lastIndex(of: "/").map { key.index(after: $0) } ?? key.startIndex)...]))
    }

    /// The stream part of a Firehose object name, or nil when `name` is not one.
    package static func stream(of name: String) -> String? {
        let bytes = Array(name.utf8)
        // The stream may itself contain '-': try every '-' from the left until the rest fits.
        for index in bytes.indices where bytes[index] == UInt8(ascii: "-") && index > 0 {
            if matchesTail(bytes[(index + 1)...]) {
                let stream = String(decoding: bytes[..<index], as: UTF8.self)
                return stream.utf8.allSatisfy(isStreamNameByte) ? stream : nil
            }
        }
        return nil
    }

    private static func isStreamNameByte(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    /// `<version>-yyyy-MM-dd-HH-mm-ss-<uuid>` followed by anything (the extension).
    private static func matchesTail(_ tail: ArraySlice<UInt8>) -> Bool {
        var index = tail.startIndex
        func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
        func isHex(_ byte: UInt8) -> Bool { isDigit(byte) || (byte >= 97 && byte <= 102) }
        let versionStart = index
        while index < tail.endIndex, isDigit(tail[index]) { index += 1 }
        guard index > versionStart, index < tail.endIndex, tail[index] == UInt8(ascii: "-") else { return false }
        index += 1
        // yyyy-MM-dd-HH-mm-ss-
        for width in [4, 2, 2, 2, 2, 2] {
            guard tail.endIndex - index >= width + 1 else { return false }
            for offset in 0..<width where !isDigit(tail[index + offset]) { return false }
            guard tail[index + width] == UInt8(ascii: "-") else { return false }
            index += width + 1
        }
        // 8-4-4-4-12 lowercase hex
        for (position, width) in [8, 4, 4, 4, 12].enumerated() {
            guard tail.endIndex - index >= width else { return false }
            for offset in 0..<width where !isHex(tail[index + offset]) { return false }
            index += width
            if position < 4 {
                guard index < tail.endIndex, tail[index] == UInt8(ascii: "-") else { return false }
                index += 1
            }
        }
        return true
    }
}

/// Which delivered objects hold one record per line: those of streams that add `\n` after each
/// record, not of their source-record backups. Built from stream settings by whoever knows them
/// (the server, or the command line from the configuration file and the saved streams).
package struct LineDelimitedObjects: Equatable, Sendable {
    package var appendsNewline: [String: Bool] = [:]
    /// Where each stream's source-record backup writes: backed-up records carry no delimiter.
    package var backups: [String: BackupPlace] = [:]

    /// A backup's bucket and what its keys start with, beside its stream's (objects and error
    /// output).
    package struct BackupPlace: Equatable, Sendable {
        var bucket: String
        var keyStart: String
        var streamBucket: String
        var streamKeyStarts: [String]
    }

    /// Whether the object `key` in `bucket`, named after `stream`, holds one line per record: an
    /// object of a stream that appends a newline, not of its backup. When the backup shares the
    /// stream's bucket, the longest literal start of their prefixes that `key` begins with tells
    /// them apart; when nothing does, the count is unknown.
    package func recordsAreLines(stream: String, bucket: String, key: String) -> Bool {
        guard appendsNewline[stream] == true else { return false }
        guard let backup = backups[stream], backup.bucket == bucket else { return true }
        guard backup.streamBucket == bucket else { return false }
        let stream = backup.streamKeyStarts.filter { key.hasPrefix($0) }.map(\.count).max()
        guard let stream else { return false }
        return !key.hasPrefix(backup.keyStart) || stream > backup.keyStart.count
    }

    package init(appendsNewline: [String: Bool] = [:]) {
        self.appendsNewline = appendsNewline
    }

    package mutating func add(_ settings: DeliveryStreamSettings) {
        // The bucket of a stream whose destination consumes records (its S3 configuration's) holds
        // no delivered record: only error records and backed-up ones.
        appendsNewline[settings.name] = settings.appendsNewline && !settings.destination.consumesRecords
        if let backup = settings.backupStage {
            let layout = settings.keyLayout
            backups[settings.name] = BackupPlace(
                bucket: backup.bucket, keyStart: backup.keyLayout.prefix?.literalStart ?? "",
                streamBucket: settings.bucket,
                streamKeyStarts: [layout.prefix?.literalStart ?? "", layout.errorOutputPrefix?.literalStart ?? ""])
        }
    }
}
