public import DurableStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One firehose-local per data directory: two would deliver each other's staged buffers and rewrite
/// each other's stream catalog. An advisory lock on `.firehose-local/lock`, held until the process
/// ends (the kernel drops it then, even after kill -9, so a crash never leaves the directory locked).
/// The file holds the owner's PID, for the message a second instance prints.
public final class DataDirectoryLock: Sendable {
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// Another process holds the lock; its PID when the file names one.
        case held(path: String, ownerPID: Int32?)
        case storage(FileSystemError)

        public var description: String {
            switch self {
            case .held(let path, let pid):
                let owner = pid.map { "another firehose-local (PID \($0))" } ?? "another firehose-local"
                return "in use by \(owner); stop it, or give this one another --data-dir (lock file: \(path))"
            case .storage(let error):
                return "cannot lock the data directory: \(error)"
            }
        }
    }

    public let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        POSIX.close(descriptor)
    }

    /// Takes the lock of `dataDirectory`, creating its private folder, or fails at once if it is held.
    public static func acquire(dataDirectory: String) throws(Failure) -> DataDirectoryLock {
        let folder = "\(dataDirectory)/\(FirehoseSink.Configuration.privateFolderName)"
        let path = "\(folder)/lock"
        let descriptor: Int32
        do {
            try POSIX.makeDirectories(folder)
            // Close-on-exec: a child process must not inherit (and outlive us holding) the lock.
            descriptor = try POSIX.open(path, flags: O_RDWR | O_CREAT | O_CLOEXEC)
        } catch {
            throw .storage(error)
        }
        do {
            try POSIX.lockExclusively(descriptor, path: path)
        } catch {
            defer { POSIX.close(descriptor) }
            guard error.errno == EWOULDBLOCK else { throw .storage(error) }
            let text = (try? POSIX.readAll(descriptor, path: path)).map { String(decoding: $0, as: UTF8.self) }
            throw .held(path: path, ownerPID: text.flatMap { Int32($0.filter { $0.isNumber }) })
        }
        // The PID only names the owner in a message; a failure to write it costs nothing else.
        try? POSIX.truncate(descriptor, to: 0, path: path)
        try? POSIX.writeAll(descriptor, Array("\(getpid())\n".utf8), at: 0, path: path)
        return DataDirectoryLock(path: path, descriptor: descriptor)
    }
}
