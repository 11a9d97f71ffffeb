import FirehoseWire
import Foundation
import Synchronization

/// A fresh directory under the system temp directory, for tests only, removed by `remove()`.
public struct TestDirectory: Sendable {
    public let url: URL

    public init(_ label: String = "firehose-test") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8).lowercased())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    public func appending(_ component: String) -> URL { url.appendingPathComponent(component) }
}

/// Deterministic pseudo-random bytes (SplitMix64) for test records.
public struct SeededBytes: Sendable {
    private var generator: SplitMix64

    public init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    public mutating func next() -> UInt64 { generator.next() }

    /// `count` bytes, none equal to any of `excluding`.
    public mutating func bytes(_ count: Int, excluding: Set<UInt8> = []) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            let byte = UInt8(truncatingIfNeeded: next())
            if !excluding.contains(byte) { out.append(byte) }
        }
        return out
    }
}
