import Testing

@testable import FirehoseSink

/// The state machine alone: buffers and segments are strings, waiters are numbers.
@Suite("TicketOrdering")
struct TicketOrderingTests {
    struct Failed: Error, Equatable { var reason: String }
    typealias Machine = TicketOrdering<String, String, Int, Failed>

    @Test("Segments encoded out of order are written in the order their tickets were reserved")
    func writesInReservationOrder() {
        var machine = Machine()
        let tickets = (0..<4).map { machine.reserve(for: "buffer-\($0 / 2)") }
        #expect(tickets == [0, 1, 2, 3])
        machine.encoded("s2", for: 2)
        machine.encoded("s3", for: 3)
        #expect(machine.takeWritable().isEmpty)
        machine.encoded("s0", for: 0)
        let first = machine.takeWritable()
        #expect(first.map(\.ticket) == [0])
        #expect(first.map(\.segment) == ["s0"])
        #expect(first.map(\.buffer) == ["buffer-0"])
        machine.encoded("s1", for: 1)
        let rest = machine.takeWritable()
        #expect(rest.map(\.segment) == ["s1", "s2", "s3"])
        #expect(rest.map(\.buffer) == ["buffer-0", "buffer-1", "buffer-1"])
        #expect(machine.nextToWrite == 4)
        #expect(machine.takeWritable().isEmpty)
    }

    @Test("A request waits until every ticket it holds is written, and no longer")
    func waitersReleasedWhenTheirTicketsAreWritten() {
        var machine = Machine()
        for _ in 0..<3 { _ = machine.reserve(for: "b") }
        // Request 1 holds tickets 0..<2, request 2 holds 2..<3.
        #expect(machine.wait(untilWrittenBelow: 2, 1) == nil)
        #expect(machine.wait(untilWrittenBelow: 3, 2) == nil)
        machine.encoded("s1", for: 1)
        machine.encoded("s2", for: 2)
        _ = machine.takeWritable()
        #expect(machine.releaseWritten().isEmpty)
        machine.encoded("s0", for: 0)
        #expect(machine.takeWritable().count == 3)
        #expect(machine.releaseWritten() == [1, 2])
        // Everything is written: a new waiter is handed straight back.
        #expect(machine.wait(untilWrittenBelow: 3, 3) == 3)
    }

    @Test("A failed write reaches only the request holding that ticket, once")
    func failuresGoToTheirOwnRequest() {
        var machine = Machine()
        for _ in 0..<4 { _ = machine.reserve(for: "b") }
        for ticket in 0..<4 as Range<UInt64> { machine.encoded("s\(ticket)", for: ticket) }
        let writes = machine.takeWritable()
        #expect(writes.count == 4)
        machine.failed(2, Failed(reason: "disk full"))
        machine.failed(3, Failed(reason: "later"))
        #expect(machine.collectFailure(0..<2) == nil)
        #expect(machine.collectFailure(2..<4) == Failed(reason: "disk full"))
        #expect(machine.collectFailure(2..<4) == nil)
    }

    @Test("Tickets keep counting across rounds; a flush waits for everything reserved before it")
    func flushWaitsForEverythingReserved() {
        var machine = Machine()
        _ = machine.reserve(for: "old")
        let flushEnd = machine.nextTicket
        #expect(machine.wait(untilWrittenBelow: flushEnd, 99) == nil)
        // A request arriving after the flush takes a later ticket; the flush does not wait for it.
        let later = machine.reserve(for: "new")
        #expect(later == 1)
        machine.encoded("s0", for: 0)
        _ = machine.takeWritable()
        #expect(machine.releaseWritten() == [99])
    }
}
