import CivilTime
import FirehoseKeyLayout
import FirehoseWire
import Foundation
import Testing

/// So random strings are reproducible from a seed.
typealias SeededGenerator = SplitMix64

/// 2026-11-21T13:05:09Z, the instant most tests deliver at.
let novemberArrival = Date(timeIntervalSince1970: 1_795_266_309)
let fixedObjectID = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
let fixedObjectIDText = "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"

func layout(
    stream: String = "app-events",
    prefix: String? = nil,
    errorOutputPrefix: String? = nil,
    fileExtension: String = ".gz",
    customTimeZone: String? = nil
) throws(KeyLayoutError) -> ObjectKeyLayout {
    try ObjectKeyLayout(
        streamName: stream,
        prefix: prefix,
        errorOutputPrefix: errorOutputPrefix,
        fileExtension: fileExtension,
        customTimeZone: customTimeZone
    )
}

extension ObjectKeyLayout {
    /// A key with a fixed object ID and a seeded generator, for exact comparisons.
    func key(at date: Date = novemberArrival, version: Int = 1, seed: UInt64 = 1) -> String {
        var random = SeededGenerator(seed: seed)
        return objectKey(versionId: version, firstArrival: date, objectID: fixedObjectID, randomSource: &random)
    }

    func errorKey(_ type: String = "processing-failed", at date: Date = novemberArrival, seed: UInt64 = 1) -> String {
        var random = SeededGenerator(seed: seed)
        return errorObjectKey(
            errorOutputType: type, versionId: 1, firstArrival: date, objectID: fixedObjectID, randomSource: &random
        )
    }
}

/// The error a throwing expression produced, or nil when it did not throw.
func layoutError(_ body: () throws -> Void) -> KeyLayoutError? {
    do {
        try body()
        return nil
    } catch let error as KeyLayoutError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

func isoDate(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date {
    let days = CivilCalendar.days(year: Int64(year), month: month, day: day)
    return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + Int64(hour * 3600 + minute * 60 + second)))
}
