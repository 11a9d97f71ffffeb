import Testing

@testable import FirehoseSink

/// The work started ahead of publishing, alone: buffers are numbered, work is a string, waiters are
/// numbers.
@Suite("WorkAhead and EncodingRoom")
struct WorkAheadTests {
    struct Buffer: Identifiable, Equatable { var id: Int }

    static let retired = (1...5).map(Buffer.init)

    @Test("A consumer's work starts in buffer order, at most `ahead` at once, the one being published included")
    func inOrderWithinWidth() {
        var work = WorkAhead<Buffer, String>(.inOrder(ahead: 2))
        var starting = work.toStart(Self.retired, needsWork: { _ in true }, isReady: { _ in true })
        #expect(starting.map(\.id) == [1, 2])
        for buffer in starting { work.record("first half \(buffer.id)", for: buffer.id) }
        // Nothing more while two run.
        #expect(work.toStart(Self.retired, needsWork: { _ in true }, isReady: { _ in true }).isEmpty)
        // Buffer 1 is published: the next one starts, never one already started.
        #expect(work.remove(1) == "first half 1")
        starting = work.toStart(Self.retired.dropFirst(), needsWork: { _ in true }, isReady: { _ in true })
        #expect(starting.map(\.id) == [3])
        #expect(work.work(for: 2) == "first half 2" && work.count == 1)
    }

    @Test("A buffer not ready holds back the ones after it in order; when ready, a later buffer may start first")
    func readiness() {
        let inOrder = WorkAhead<Buffer, String>(.inOrder(ahead: 4))
        var asked: [Int] = []
        let starting = inOrder.toStart(
            Self.retired, needsWork: { _ in true },
            isReady: { buffer in
                asked.append(buffer.id)
                return buffer.id != 2
            })
        #expect(starting.map(\.id) == [1])
        // Readiness (which finishes the buffer's encoding) is asked only of the buffers that could start.
        #expect(asked == [1, 2])

        let whenReady = WorkAhead<Buffer, String>(.whenReady)
        #expect(
            whenReady.toStart(Self.retired, needsWork: { _ in true }, isReady: { $0.id != 2 }).map(\.id) == [
                1, 3, 4, 5,
            ])
    }

    @Test("Buffers that need no work are skipped, not waited for; abandoned work is dropped")
    func needsWork() {
        var work = WorkAhead<Buffer, String>(.inOrder(ahead: 2))
        let starting = work.toStart(Self.retired, needsWork: { $0.id % 2 == 0 }, isReady: { _ in true })
        #expect(starting.map(\.id) == [2, 4])
        for buffer in starting { work.record("w\(buffer.id)", for: buffer.id) }
        #expect(work.remove(9) == nil)
        // Kept after a failure further on: the retry takes what the first attempt made.
        work.record("kept 2", for: 2)
        #expect(work.work(for: 2) == "kept 2")
        #expect(Set(work.removeAll()) == ["kept 2", "w4"])
        #expect(work.count == 0 && work.work(for: 4) == nil)
    }

    @Test("Requests enter within the limit, wait over it, and pass while publishing fails or once the stream is gone")
    func encodingRoom() {
        var room = EncodingRoom<Int>()
        #expect(room.admit(backlog: 10, limit: 10, publishingFails: false, streamDeleted: false) == .enter)
        #expect(room.admit(backlog: 11, limit: 10, publishingFails: false, streamDeleted: false) == .wait)
        #expect(room.admit(backlog: 11, limit: 10, publishingFails: true, streamDeleted: false) == .pass)
        #expect(room.admit(backlog: 11, limit: 10, publishingFails: false, streamDeleted: true) == .pass)
        room.wait(1)
        room.wait(2)
        #expect(room.wakeAll() == [1, 2])
        #expect(room.wakeAll().isEmpty)
    }
}
