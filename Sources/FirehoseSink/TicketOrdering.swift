/// Concurrent requests to one stream reserve their segments in arrival order, encode them in any
/// order (large ones in parallel, on their own tasks), and must write them in the order reserved.
/// This state machine hands out the tickets, holds encoded segments until their turn, says which to
/// write next, keeps each ticket's failure until its request collects it, and says which requests
/// to wake once every ticket they wait for is written. No I/O: the stream's actor writes what it is
/// told to and reports how it went.
struct TicketOrdering<Buffer, Segment, Waiter, Failure: Error> {
    /// The ticket the next reservation gets.
    private(set) var nextTicket: UInt64 = 0
    /// Every ticket below this one was written (or failed).
    private(set) var nextToWrite: UInt64 = 0
    /// The buffer of each reserved ticket not yet written.
    private var buffers: [UInt64: Buffer] = [:]
    /// Encoded segments waiting for the tickets before them.
    private var encoded: [UInt64: Segment] = [:]
    /// Why a written ticket failed, until its request collects it.
    private var failures: [UInt64: Failure] = [:]
    private var waiting: [(end: UInt64, waiter: Waiter)] = []

    /// Reserves the next ticket for a segment that goes into `buffer`.
    mutating func reserve(for buffer: Buffer) -> UInt64 {
        let ticket = nextTicket
        nextTicket += 1
        buffers[ticket] = buffer
        return ticket
    }

    /// The segment of `ticket` is encoded and can be written once its turn comes.
    mutating func encoded(_ segment: Segment, for ticket: UInt64) {
        precondition(ticket >= nextToWrite && ticket < nextTicket, "ticket \(ticket) is not outstanding")
        encoded[ticket] = segment
    }

    struct Write {
        var ticket: UInt64
        var buffer: Buffer
        var segment: Segment
    }

    /// Every encoded segment whose turn has come, in ticket order; they count as written from now
    /// on. The caller writes them, reports each that failed with `failed`, and then wakes the
    /// requests `releaseWritten` returns.
    mutating func takeWritable() -> [Write] {
        var writes: [Write] = []
        while let segment = encoded.removeValue(forKey: nextToWrite) {
            let buffer = buffers.removeValue(forKey: nextToWrite)!
            writes.append(Write(ticket: nextToWrite, buffer: buffer, segment: segment))
            nextToWrite += 1
        }
        return writes
    }

    /// The write of `ticket` failed; its request finds out through `collectFailure`.
    mutating func failed(_ ticket: UInt64, _ failure: Failure) {
        failures[ticket] = failure
    }

    /// The waiting requests whose tickets are now all written.
    mutating func releaseWritten() -> [Waiter] {
        guard !waiting.isEmpty else { return [] }
        var released: [Waiter] = []
        var kept: [(end: UInt64, waiter: Waiter)] = []
        for entry in waiting {
            if entry.end <= nextToWrite { released.append(entry.waiter) } else { kept.append(entry) }
        }
        waiting = kept
        return released
    }

    /// `waiter` needs every ticket below `end` written. Returns it back when they already are;
    /// otherwise `releaseWritten` returns it once they are.
    mutating func wait(untilWrittenBelow end: UInt64, _ waiter: Waiter) -> Waiter? {
        if end <= nextToWrite { return waiter }
        waiting.append((end, waiter))
        return nil
    }

    /// The first failure among `tickets` (a request's own), forgetting every one of theirs.
    mutating func collectFailure(_ tickets: Range<UInt64>) -> Failure? {
        guard !failures.isEmpty else { return nil }
        var first: Failure?
        for ticket in tickets {
            if let failure = failures.removeValue(forKey: ticket) { first = first ?? failure }
        }
        return first
    }
}
