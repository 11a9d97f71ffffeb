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
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

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
