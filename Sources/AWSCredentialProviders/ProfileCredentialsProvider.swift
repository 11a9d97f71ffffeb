public import AWSSigV4
public import Foundation

/// Credentials from the shared AWS files, as the AWS CLI and SDKs read them:
///
/// - the profile is `profile`, else `AWS_PROFILE`, else `default`;
/// - `~/.aws/credentials` (or `AWS_SHARED_CREDENTIALS_FILE`) section `[name]` is tried first, then
///   `~/.aws/config` (or `AWS_CONFIG_FILE`) section `[profile name]` (`[default]` for the default);
/// - keys `aws_access_key_id`, `aws_secret_access_key`, `aws_session_token`.
///
/// The files are read on every call (they are small), so edits take effect without a restart.
/// Role assumption, SSO and `credential_process` are not supported: they need STS or a subprocess;
/// use `TemporaryCredentialsProvider` with your own fetch for those.
public struct ProfileCredentialsProvider: CredentialsProvider {
    public let profile: String?
    public let credentialsFile: String?
    public let configFile: String?
    private let environment: [String: String]

    public init(
        profile: String? = nil, credentialsFile: String? = nil, configFile: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.profile = profile
        self.credentialsFile = credentialsFile
        self.configFile = configFile
        self.environment = environment
    }

    /// The profile name that will be used.
    public var resolvedProfile: String {
        if let profile, !profile.isEmpty { return profile }
        if let env = environment["AWS_PROFILE"], !env.isEmpty { return env }
        return "default"
    }

    var resolvedCredentialsFile: String {
        credentialsFile ?? environment["AWS_SHARED_CREDENTIALS_FILE"].map(expandTilde) ?? home + "/.aws/credentials"
    }

    var resolvedConfigFile: String {
        configFile ?? environment["AWS_CONFIG_FILE"].map(expandTilde) ?? home + "/.aws/config"
    }

    private var home: String {
        environment["HOME"] ?? NSHomeDirectory()
    }

    private func expandTilde(_ path: String) -> String {
        path.hasPrefix("~/") ? home + path.dropFirst() : path
    }

    public func credentials() async throws -> AWSCredentials { try resolve() }

    /// The credentials now, without waiting (the files are small and local).
    public func resolve() throws(CredentialsError) -> AWSCredentials {
        let name = resolvedProfile
        var looked: [String] = []
        let credentialsPath = resolvedCredentialsFile
        if let text = try? String(contentsOfFile: credentialsPath, encoding: .utf8) {
            let sections = SharedConfigFile.parse(text)
            if let section = sections[name] {
                return try Self.credentials(from: section, profile: name, file: credentialsPath)
            }
            looked.append("[\(name)] in \(credentialsPath)")
        } else {
            looked.append("\(credentialsPath) (not readable)")
        }
        let configPath = resolvedConfigFile
        if let text = try? String(contentsOfFile: configPath, encoding: .utf8) {
            let sections = SharedConfigFile.parse(text)
            let sectionName = name == "default" ? "default" : "profile \(name)"
            if let section = sections[sectionName] ?? (name == "default" ? sections["profile default"] : nil),
                section["aws_access_key_id"] != nil
            {
                return try Self.credentials(from: section, profile: name, file: configPath)
            }
            if let section = sections[sectionName],
                section["role_arn"] != nil || section["sso_session"] != nil
                    || section["sso_start_url"] != nil || section["credential_process"] != nil
            {
                throw CredentialsError(
                    "Profile \(name) in \(configPath) uses role assumption, SSO or credential_process, which "
                        + "ProfileCredentialsProvider does not support; use TemporaryCredentialsProvider.")
            }
            looked.append("[\(sectionName)] in \(configPath)")
        } else {
            looked.append("\(configPath) (not readable)")
        }
        throw CredentialsError("No credentials for profile \(name): looked for " + looked.joined(separator: ", ") + ".")
    }

    private static func credentials(from section: [String: String], profile: String, file: String)
        throws(CredentialsError) -> AWSCredentials
    {
        guard let key = section["aws_access_key_id"], !key.isEmpty else {
            throw CredentialsError("Profile \(profile) in \(file) has no aws_access_key_id.")
        }
        guard let secret = section["aws_secret_access_key"], !secret.isEmpty else {
            throw CredentialsError("Profile \(profile) in \(file) has no aws_secret_access_key.")
        }
        let token = section["aws_session_token"].flatMap { $0.isEmpty ? nil : $0 }
        return AWSCredentials(accessKeyId: key, secretAccessKey: secret, sessionToken: token)
    }
}

/// The INI dialect of `~/.aws/credentials` and `~/.aws/config`.
public enum SharedConfigFile {
    /// Sections by their bracketed name (`default`, `profile dev`), each a map of lowercased keys to
    /// values. Comments (`#`, `;` at line start or after whitespace) and indented sub-properties
    /// (`s3 =` blocks) are skipped; a section repeated later overrides keys of the earlier one.
    public static func parse(_ text: String) -> [String: [String: String]] {
        var sections: [String: [String: String]] = [:]
        var current: String?
        var inSubProperties = false
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = stripComment(rawLine)
            let trimmed = trim(line)
            if trimmed.isEmpty { continue }
            if let first = line.first, first == " " || first == "\t" {
                // A continuation line: belongs to a nested block (`s3 =`), not a top-level key.
                if inSubProperties { continue }
                continue
            }
            inSubProperties = false
            if trimmed.hasPrefix("[") {
                guard let close = trimmed.lastIndex(of: "]") else {
                    current = nil
                    continue
                }
                let inner = trimmed[trimmed.index(after: trimmed.startIndex)..<close]
                let name = trim(inner).split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
                current = name
                if sections[name] == nil { sections[name] = [:] }
                continue
            }
            guard let section = current, let equals = trimmed.firstIndex(of: "=") else { continue }
            let key = trim(trimmed[..<equals]).lowercased()
            let value = trim(trimmed[trimmed.index(after: equals)...])
            if value.isEmpty {
                inSubProperties = true
                continue
            }
            sections[section, default: [:]][key] = value
        }
        return sections
    }

    private static func stripComment(_ line: Substring) -> Substring {
        if let first = line.first(where: { $0 != " " && $0 != "\t" }), first == "#" || first == ";" { return "" }
        // Inline comments need whitespace before them, so `secret#part` keeps its `#`.
        var previous: Character = "x"
        for index in line.indices {
            let character = line[index]
            if (character == "#" || character == ";") && (previous == " " || previous == "\t") {
                return line[..<index]
            }
            previous = character
        }
        return line
    }

    private static func trim(_ text: Substring) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        return String(text.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
