#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Date {
    /// Epoch milliseconds, as error records, journals, Lambda events and Kinesis arrivals carry times.
    package var epochMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
}
