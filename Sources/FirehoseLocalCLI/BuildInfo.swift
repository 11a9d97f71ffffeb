import CBuildInfo

/// What `firehose-local --version` prints. `version` is the one place the release's number is
/// written: scripts/package reads it from this file for the tarball's and the wheel's names.
public enum BuildInfo {
    public static let version = "0.1.0"

    /// The commit scripts/package built from (`-dirty` when the checkout had changes), or `nil`
    /// for a build made with plain `swift build`.
    public static var commit: String? {
        let text = String(cString: firehose_local_build_commit())
        return text.isEmpty ? nil : text
    }

    /// `firehose-local 0.1.0 (commit 69aac94c…)`, or `(development build)` without a commit.
    public static var versionLine: String {
        "firehose-local \(version) (\(commit.map { "commit \($0)" } ?? "development build: no commit recorded"))"
    }
}
