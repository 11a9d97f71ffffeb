import FirehoseWire
public import Foundation
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

/// Deterministic pseudo-random bytes (SplitMix64) for test records, and a generator for
/// `random(in:using:)` that repeats from its seed.
public struct SeededBytes: RandomNumberGenerator, Sendable {
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

/// Polls `condition` every millisecond until it holds or `timeout` passes, for what a test cannot
/// await directly (a count another task changes). A minute by default: on two cores the whole
/// suite's compression keeps both cooperative threads busy, and a task was seen to wait over 5 s for
/// its turn. Throws rather than records: the test cannot go on (a clock moved past a timer not yet
/// armed would leave it waiting forever).
public func eventually(
    timeout: Duration = .seconds(60), _ what: String, _ condition: () async -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while !(await condition()) {
        if clock.now >= deadline { throw TimedOutWaiting(what: what) }
        try await Task.sleep(for: .milliseconds(1))
    }
}

public struct TimedOutWaiting: Error, CustomStringConvertible {
    public var what: String
    public var description: String { "timed out waiting for \(what)" }
}
