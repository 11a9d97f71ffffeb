import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs a local command as a Lambda function is run: the invocation event on its standard input,
/// the answer read from its standard output. Everything it does is bounded: the answer's size, the
/// time it may take (then its whole process group is killed), and what is kept of its standard
/// error (the tail, for the log). Its output is hostile like any client's.
enum CommandInvocation {
    enum Outcome: Sendable, Equatable {
        /// It exited 0; what it wrote to standard output.
        case answered([UInt8])
        /// It exited with another status, or was killed by a signal (`signal` set).
        case failed(status: Int32, signal: Int32?, standardError: String)
        /// It did not finish within the timeout, and was killed.
        case timedOut
        /// It wrote more than the limit to standard output, and was killed.
        case answerTooLarge
        /// It could not be started (no such program, not executable): `errno`.
        case couldNotStart(Int32)
        /// The task running it was cancelled: it was killed (or never started).
        case cancelled
    }

    /// How long a cancellation may go unnoticed while the command runs.
    static let cancellationCheck = Duration.milliseconds(100)

    /// What is kept of standard error: its last bytes.
    static let standardErrorTail = 4096

    /// Runs `arguments` (the first found on `PATH` if it has no `/`) with `input` on standard input,
    /// on a thread of its own, and returns once it has exited (or been killed). Cancelling the
    /// calling task kills it.
    static func run(_ arguments: [String], input: [UInt8], timeout: Duration, maxAnswerBytes: Int) async -> Outcome {
        precondition(!arguments.isEmpty, "a command needs a program")
        let watch = ChildWatch()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // A serial queue of its own gets a thread outside the cooperative pool (see BlockingIO),
                // so a slow function never holds one of the threads that serve requests.
                DispatchQueue(label: "firehose-local.lambda-command").async {
                    continuation.resume(
                        returning: runBlocking(
                            arguments, input: input, timeout: timeout, maxAnswerBytes: maxAnswerBytes, watch: watch))
                }
            }
        } onCancel: {
            watch.cancel()
        }
    }

    /// What may end a command from outside: its task's cancellation, and (while its exit is awaited)
    /// the deadline. A kill reaches it only while it is awaited and not yet reaped, so never a
    /// process that has reused its pid.
    private final class ChildWatch: Sendable {
        enum Stop { case timedOut, cancelled }

        private struct State {
            var cancelled = false
            /// The command whose exit is awaited, until it has exited.
            var awaited: pid_t?
            var stop: Stop?
        }

        private let state = Mutex(State())

        var isCancelled: Bool { state.withLock { $0.cancelled } }

        func cancel() {
            state.withLock { state in
                state.cancelled = true
                stop(&state, .cancelled)
            }
        }

        func timeUp() { state.withLock { stop(&$0, .timedOut) } }

        /// Starts awaiting `pid`; false (and killed) when its task is cancelled already.
        func startAwaiting(_ pid: pid_t) -> Bool {
            state.withLock { state in
                state.awaited = pid
                if state.cancelled { stop(&state, .cancelled) }
                return state.stop == nil
            }
        }

        /// It has exited (not reaped yet): why it was killed, if it was.
        func exited() -> Stop? {
            state.withLock { state in
                state.awaited = nil
                return state.stop
            }
        }

        private func stop(_ state: inout State, _ reason: Stop) {
            guard let pid = state.awaited, state.stop == nil else { return }
            CommandInvocation.killAll(pid)
            state.stop = reason
        }
    }

    private static let ignoreBrokenPipes: Void = {
        // A command that exits without reading all of its input makes our write fail with EPIPE;
        // the signal that comes with it would end the server.
        signal(SIGPIPE, SIG_IGN)
    }()

    private static func runBlocking(
        _ arguments: [String], input: [UInt8], timeout: Duration, maxAnswerBytes: Int, watch: ChildWatch
    ) -> Outcome {
        _ = ignoreBrokenPipes
        guard !watch.isCancelled else { return .cancelled }
        // pipe2 is not imported: close-on-exec is set just after pipe(), and spawns are serialized so
        // no other command inherits these pipes in between (it would hold them open).
        let started = spawning.withLock { _ in spawn(arguments) }
        let child: Child
        switch started {
        case .success(let spawned): child = spawned
        case .failure(let error): return .couldNotStart(error.errno)
        }
        let pid = child.pid
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var outcome = exchange(
            pid: pid, input: input, stdin: child.stdin, stdout: child.stdout, stderr: child.stderr,
            deadline: deadline, maxAnswerBytes: maxAnswerBytes, isCancelled: { watch.isCancelled })
        if case .answer = outcome {
            // Its outputs are closed; it may still be running (or have left children holding them).
            switch awaitExit(pid, deadline: deadline, watch: watch) {
            case .exited: break
            case .stopped(.timedOut): outcome = .timedOut
            case .stopped(.cancelled): outcome = .cancelled
            case .lost:
                // Lost track of: killed, and reaped if it can be.
                killAll(pid)
                while waitpid(pid, nil, 0) < 0 && errno == EINTR {}
                if case .answer(_, let standardError) = outcome {
                    return .failed(status: -1, signal: nil, standardError: standardError)
                }
            }
        }
        // Reaped in every case, so no zombie is left.
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        switch outcome {
        case .answer(let answer, let standardError):
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
            let signal = status & 0x7F
            if signal != 0 {
                return .failed(status: -1, signal: signal, standardError: standardError)
            }
            let code = (status >> 8) & 0xFF
            return code == 0 ? .answered(answer) : .failed(status: code, signal: nil, standardError: standardError)
        case .timedOut: return .timedOut
        case .tooLarge: return .answerTooLarge
        case .cancelled: return .cancelled
        }
    }

    private enum Exit {
        case exited
        case stopped(ChildWatch.Stop)
        /// `waitid` failed: the command cannot be awaited.
        case lost
    }

    /// Blocks until `pid` exits, without reaping it: the watch's kills (the deadline, a cancellation)
    /// end the wait. Nothing polls.
    private static func awaitExit(_ pid: pid_t, deadline: ContinuousClock.Instant, watch: ChildWatch) -> Exit {
        guard watch.startAwaiting(pid) else { return .stopped(.cancelled) }
        let left = max(.zero, deadline - ContinuousClock.now)
        let timer = DispatchWorkItem { watch.timeUp() }
        let nanoseconds = left.components.seconds * 1_000_000_000 + left.components.attoseconds / 1_000_000_000
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds)), execute: timer)
        defer { timer.cancel() }
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 {
            guard errno == EINTR else {
                _ = watch.exited()
                return .lost
            }
        }
        return watch.exited().map { .stopped($0) } ?? .exited
    }

    private enum Exchange {
        case answer([UInt8], standardError: String)
        case timedOut
        case tooLarge
        case cancelled
    }

    /// Writes `input` and reads both outputs at once (a command may answer before it has read
    /// everything), until both outputs end, the time is up, or the answer is too large. Closes the
    /// three descriptors; kills the process group on the way out unless it ended on its own.
    private static func exchange(
        pid: pid_t, input: [UInt8], stdin: Int32, stdout: Int32, stderr: Int32, deadline: ContinuousClock.Instant,
        maxAnswerBytes: Int, isCancelled: () -> Bool
    ) -> Exchange {
        var stdin = stdin
        for descriptor in [stdin, stdout, stderr] {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        defer { closeAll([stdin, stdout, stderr].filter { $0 >= 0 }) }
        let clock = ContinuousClock()
        var written = 0
        var answer: [UInt8] = []
        var errors: [UInt8] = []
        var open = (stdout: true, stderr: true)
        if input.isEmpty {
            close(stdin)
            stdin = -1
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while open.stdout || open.stderr {
            let left = deadline - clock.now
            guard left > .zero else {
                killAll(pid)
                return .timedOut
            }
            if isCancelled() {
                killAll(pid)
                return .cancelled
            }
            // In slices, so that a cancellation is seen soon.
            let wait = min(left, cancellationCheck)
            var fds = [
                // A stream at its end is left out (fd -1): polled, its hang-up would wake us at once.
                pollfd(fd: open.stdout ? stdout : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: open.stderr ? stderr : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stdin, events: Int16(POLLOUT), revents: 0),
            ]
            let milliseconds = Int32(
                clamping: wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&fds, nfds_t(fds.count), milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                killAll(pid)
                return .timedOut
            }
            if stdin >= 0, fds[2].revents != 0 {
                let count = input.withUnsafeBytes { bytes in
                    write(stdin, bytes.baseAddress! + written, min(bytes.count - written, 64 * 1024))
                }
                if count > 0 { written += count }
                // Done, or the command stopped reading (EPIPE): either way it gets no more.
                if written == input.count || (count < 0 && errno != EAGAIN && errno != EINTR) {
                    close(stdin)
                    stdin = -1
                }
            }
            for (index, isAnswer) in [(0, true), (1, false)] where fds[index].revents != 0 {
                let descriptor = isAnswer ? stdout : stderr
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    if isAnswer {
                        answer += chunk[..<count]
                        if answer.count > maxAnswerBytes {
                            killAll(pid)
                            return .tooLarge
                        }
                    } else {
                        errors += chunk[..<count]
                        if errors.count > 2 * standardErrorTail { errors.removeFirst(errors.count - standardErrorTail) }
                    }
                } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                    if isAnswer { open.stdout = false } else { open.stderr = false }
                }
            }
        }
        return .answer(answer, standardError: String(decoding: errors.suffix(standardErrorTail), as: UTF8.self))
    }

    private static let spawning = Mutex(())

    private struct Child {
        var pid: pid_t
        var stdin: Int32
        var stdout: Int32
        var stderr: Int32
    }

    private struct SpawnError: Error {
        var errno: Int32
    }

    /// Starts the command in a process group of its own (so a timeout kills what it started too),
    /// with default signal handling (SIGPIPE, ignored here, must not be inherited) and no signal
    /// blocked, its standard streams on pipes.
    private static func spawn(_ arguments: [String]) -> Result<Child, SpawnError> {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        var errorsFromChild: [Int32] = [-1, -1]
        guard makePipe(&toChild) else { return .failure(SpawnError(errno: errno)) }
        guard makePipe(&fromChild) else {
            closeAll(toChild)
            return .failure(SpawnError(errno: errno))
        }
        guard makePipe(&errorsFromChild) else {
            closeAll(toChild + fromChild)
            return .failure(SpawnError(errno: errno))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorsFromChild[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, argv[0]!, &actions, &attributes, &argv, environ)
        closeAll([toChild[0], fromChild[1], errorsFromChild[1]])
        guard spawned == 0 else {
            closeAll([toChild[1], fromChild[0], errorsFromChild[0]])
            return .failure(SpawnError(errno: spawned))
        }
        return .success(Child(pid: pid, stdin: toChild[1], stdout: fromChild[0], stderr: errorsFromChild[0]))
    }

    private static func makePipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // An event or an answer is about 1.4 MB: through the default 64 KiB, that is some 22 waits
        // for the other side each way. A larger pipe where the system allows (up to
        // /proc/sys/fs/pipe-max-size, 1 MiB by default) needs a few; refused, it stays as it was.
        _ = fcntl(ends[1], Self.setPipeSize, Int32(1 << 20))
        return true
    }

    /// F_SETPIPE_SZ (Linux), which Glibc's module does not import.
    private static let setPipeSize: Int32 = 1031

    /// Kills the command's process group, and the command itself in case it left the group.
    private static func killAll(_ pid: pid_t) {
        kill(-pid, SIGKILL)
        kill(pid, SIGKILL)
    }

    private static func closeAll(_ descriptors: [Int32]) {
        for descriptor in descriptors where descriptor >= 0 { close(descriptor) }
    }
}
