#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// CPU time and memory of a process, read from Linux's /proc.
public struct ProcessStats: Sendable, Equatable {
    /// User plus system CPU time, in seconds.
    public var cpuSeconds: Double
    /// Resident set size now (`VmRSS`), bytes.
    public var residentBytes: Int
    /// Peak resident set size since the process started (`VmHWM`), bytes.
    public var peakResidentBytes: Int

    /// Nil when the process does not exist (or /proc is not there).
    public static func read(pid: Int32) -> ProcessStats? {
        guard let stat = readText("/proc/\(pid)/stat"), let status = readText("/proc/\(pid)/status") else {
            return nil
        }
        // Fields after the command name (which may hold spaces) start at state, field 3; utime and
        // stime are fields 14 and 15.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ProcessStats(
            cpuSeconds: (user + system) / ticks,
            residentBytes: kibibytes(status, "VmRSS:") * 1024,
            peakResidentBytes: kibibytes(status, "VmHWM:") * 1024)
    }

    private static func kibibytes(_ status: String, _ key: String) -> Int {
        for line in status.split(separator: "\n") where line.hasPrefix(key) {
            return Int(line.dropFirst(key.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 0
        }
        return 0
    }

    private static func readText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// CPU seconds this process has used (user plus system).
public func ownCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
