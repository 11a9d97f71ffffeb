/// The records a run works on. The load generator and the zlib ceiling call this with the same
/// arguments, so the ceiling compresses exactly the bytes the server receives.
public enum RecordPool {
    /// Enough records for `distinctRequests` requests of `recordsPerRequest`, at most 16,384.
    public static func records(
        profile: RecordProfile, seed: UInt64, distinctRequests: Int, recordsPerRequest: Int
    ) -> [[UInt8]] {
        profile.records(count: min(max(distinctRequests * recordsPerRequest, 1), 16_384), seed: seed)
    }
}
