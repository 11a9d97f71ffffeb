#if os(Linux) || os(macOS)
    public import FirehoseClient
    public import Foundation
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// A real `firehose-local serve` process for end-to-end tests: started on a free port (or a given
    /// one, to restart in place), killed with any signal, restarted on the same port and data directory.
    public final class LocalFirehoseProcess: @unchecked Sendable {
        public let binary: URL
        public let dataDirectory: URL
        public let configFile: URL
        public private(set) var port: Int
        private var process: Process?
        private let logFile: URL

        /// Finds the server binary: `FIREHOSE_LOCAL_BIN`, else `<repo>/.build/debug/firehose-local`
        /// where the repo root is found from `filePath` (symlinks resolved). Nil when missing.
        public static func locateBinary(filePath: String = #filePath) -> URL? {
            if let explicit = ProcessInfo.processInfo.environment["FIREHOSE_LOCAL_BIN"], !explicit.isEmpty {
                return FileManager.default.isExecutableFile(atPath: explicit) ? URL(fileURLWithPath: explicit) : nil
            }
            var directory = URL(fileURLWithPath: filePath).resolvingSymlinksInPath().deletingLastPathComponent()
            for _ in 0..<6 {
                let candidate = directory.appendingPathComponent(".build/debug/firehose-local")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                directory.deleteLastPathComponent()
            }
            return nil
        }

        public init(binary: URL, workDirectory: URL, configYAML: String) throws {
            self.binary = binary
            dataDirectory = workDirectory.appendingPathComponent("data")
            configFile = workDirectory.appendingPathComponent("firehose-local.yaml")
            logFile = workDirectory.appendingPathComponent("server.log")
            port = 0
            try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
            try configYAML.write(to: configFile, atomically: true, encoding: .utf8)
        }

        public var endpoint: URL { URL(string: "http://127.0.0.1:\(port)")! }
        public var pid: Int32? { process?.processIdentifier }

        /// Starts the server (on the previous port after a first start) and waits until it listens.
        public func start(timeout: Duration = .seconds(30)) async throws {
            let portFile = dataDirectory.deletingLastPathComponent().appendingPathComponent("port-\(UUID().uuidString)")
            let process = Process()
            process.executableURL = binary
            process.arguments = [
                "serve", "--port", String(port), "--port-file", portFile.path, "--data-dir", dataDirectory.path,
                "--config", configFile.path, "--log-level", "warning",
            ]
            if !FileManager.default.fileExists(atPath: logFile.path) {
                _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
            }
            let logHandle = try FileHandle(forWritingTo: logFile)
            logHandle.seekToEndOfFile()
            process.standardOutput = logHandle
            process.standardError = logHandle
            try process.run()
            self.process = process
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if let text = try? String(contentsOf: portFile, encoding: .utf8),
                    let bound = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), bound > 0
                {
                    port = bound
                    return
                }
                if !process.isRunning {
                    throw ProcessError("firehose-local exited at start (status \(process.terminationStatus)): \(log())")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            throw ProcessError("firehose-local did not report its port within \(timeout): \(log())")
        }

        /// Sends `signal` without waiting (for example SIGSTOP, to hold requests unanswered).
        public func signal(_ signal: Int32) {
            guard let process else { return }
            _ = Glibc_or_Darwin_kill(process.processIdentifier, signal)
        }

        /// Sends `signal` and waits for the process to end.
        public func kill(_ signal: Int32 = SIGKILL) {
            guard let process else { return }
            _ = Glibc_or_Darwin_kill(process.processIdentifier, signal)
            process.waitUntilExit()
            self.process = nil
        }

        /// `POST /_local/flush`: delivers buffered records; returns the raw JSON answer.
        public func flush() async throws -> String {
            String(decoding: try await local("POST", "flush").body, as: UTF8.self)
        }

        /// A request to `/_local/<path>` (`faults`, `streams?stream=x`, ...).
        public func local(_ method: String, _ path: String, body: [UInt8] = []) async throws -> HTTPResponse {
            try await URLSessionTransport().send(
                HTTPRequest(
                    url: URL(string: "\(endpoint.absoluteString)/_local/\(path)")!, method: method, headers: [],
                    body: body, timeout: .seconds(30)))
        }

        /// Every delivered object under the data directory (staging excluded), path → bytes.
        public func objects() throws -> [String: Data] {
            var result: [String: Data] = [:]
            guard let enumerator = FileManager.default.enumerator(at: dataDirectory, includingPropertiesForKeys: nil)
            else { return result }
            for case let url as URL in enumerator {
                let relative = String(url.path.dropFirst(dataDirectory.path.count))
                if relative.contains("/.firehose-local") { continue }
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory),
                    !isDirectory.boolValue
                else { continue }
                result[relative] = try Data(contentsOf: url)
            }
            return result
        }

        public func log() -> String {
            (try? String(contentsOf: logFile, encoding: .utf8)).map { String($0.suffix(2000)) } ?? ""
        }

        deinit {
            if let process, process.isRunning {
                _ = Glibc_or_Darwin_kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }

        public struct ProcessError: Error, CustomStringConvertible {
            public var description: String
            init(_ description: String) { self.description = description }
        }
    }

    @inline(__always) func Glibc_or_Darwin_kill(_ pid: Int32, _ signal: Int32) -> Int32 {
        #if canImport(Glibc)
            return Glibc.kill(pid, signal)
        #else
            return Darwin.kill(pid, signal)
        #endif
    }
#endif
