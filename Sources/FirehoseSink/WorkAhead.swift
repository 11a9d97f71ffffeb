/// The slow first half of publishing a buffer, started off the actor ahead of the buffer's turn so
/// that it overlaps the publishing of the buffers before it: a consumer's first half (invoking a
/// function, sending to an endpoint), or the encoding of a buffer encoded at delivery. Decides which
/// retired buffers start their work next and keeps each one's handle until the buffer's publishing
/// takes it. No I/O: the stream's actor starts the work this names and awaits the handles.
struct WorkAhead<Buffer: Identifiable, Work> {
    enum Schedule: Equatable {
        /// In buffer order, at most `ahead` buffers' work at once (the one being published
        /// included); a buffer not ready yet holds back the ones after it, so that a receiver gets
        /// the buffers in the order the records came. A consumer's.
        case inOrder(ahead: Int)
        /// Every ready buffer that needs it, in any order: encodings, which share the cores through
        /// a gate of their own (`DeliveryEncoding`).
        case whenReady
    }

    let schedule: Schedule
    private var work: [Buffer.ID: Work] = [:]

    init(_ schedule: Schedule) {
        self.schedule = schedule
    }

    /// Buffers with work started or kept.
    var count: Int { work.count }

    func work(for buffer: Buffer.ID) -> Work? { work[buffer] }

    /// The buffers of `retired` (oldest first) whose work starts now. `needsWork` says whether a
    /// buffer has work ahead at all (and is still to be published); `isReady` whether it holds all
    /// its content, asked only of the buffers that could start, in order.
    func toStart(_ retired: some Sequence<Buffer>, needsWork: (Buffer) -> Bool, isReady: (Buffer) -> Bool)
        -> [Buffer]
    {
        var starting: [Buffer] = []
        for buffer in retired {
            if case .inOrder(let ahead) = schedule, work.count + starting.count >= ahead { break }
            guard work[buffer.id] == nil, needsWork(buffer) else { continue }
            guard isReady(buffer) else {
                if case .inOrder = schedule { break }
                continue
            }
            starting.append(buffer)
        }
        return starting
    }

    /// `work` runs (or, kept after a failure further on, holds its outcome) for `buffer` until
    /// `remove`.
    mutating func record(_ work: Work, for buffer: Buffer.ID) {
        self.work[buffer] = work
    }

    /// The buffer is published or gone: its work is no longer kept.
    @discardableResult
    mutating func remove(_ buffer: Buffer.ID) -> Work? {
        work.removeValue(forKey: buffer)
    }

    /// Every buffer went (the stream was deleted): the work kept, to be dropped.
    mutating func removeAll() -> [Work] {
        defer { work.removeAll() }
        return Array(work.values)
    }
}

/// Holds requests back while the content waiting to be encoded at delivery is over a limit, so that
/// intake runs at the rate objects are delivered (`DeliveryStream.waitForEncodingRoom`). No I/O: the
/// actor measures the backlog, parks waiters here and resumes those handed back.
struct EncodingRoom<Waiter> {
    private var waiters: [Waiter] = []

    enum Admission: Equatable {
        /// Within the stream's limit: the request waits only for every stream's encodings to have
        /// room (`DeliveryEncoding.waitForRoom`), then stages.
        case enter
        /// Over the limit: park the request (`wait`) and ask again when woken.
        case wait
        /// Not held back at all: publishing fails (the retry timer has the backlog then, and a
        /// request waiting for it would wait for the timer), or the stream was deleted.
        case pass
    }

    func admit(backlog: Int, limit: Int, publishingFails: Bool, streamDeleted: Bool) -> Admission {
        if publishingFails || streamDeleted { return .pass }
        return backlog > limit ? .wait : .enter
    }

    /// Requests parked now.
    var waiting: Int { waiters.count }

    mutating func wait(_ waiter: Waiter) {
        waiters.append(waiter)
    }

    /// The backlog may have shrunk (a buffer was published or dropped, publishing failed, the stream
    /// went): every waiter looks again.
    mutating func wakeAll() -> [Waiter] {
        defer { waiters.removeAll() }
        return waiters
    }
}
