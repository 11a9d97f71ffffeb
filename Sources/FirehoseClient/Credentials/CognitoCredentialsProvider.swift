import AWSCredentialProviders
import AWSSigV4
import FirehoseWire
public import Foundation
import HTTPTransports
import Synchronization

/// Credentials from an Amazon Cognito identity pool, as the AWS mobile SDKs get them: GetId once for
/// the app's identity, then, whenever credentials are needed, GetCredentialsForIdentity (the enhanced
/// flow) or, given `Configuration.basicFlow`, GetOpenIdToken and STS's AssumeRoleWithWebIdentity for the
/// role the app names (the basic, classic flow). Every call is unsigned.
///
/// - The identity id is kept in memory and, given `identityIDFile`, on disk, so an app keeps its
///   identity across launches (as the AWS SDKs keep it in the keychain).
/// - Credentials are refreshed `refreshBefore` ahead of their expiry, and after the service answered
///   `ExpiredTokenException` (`FirehoseClient` calls `invalidate()`); concurrent callers share one
///   refresh (`TemporaryCredentialsProvider`).
/// - An identity the pool no longer knows (`ResourceNotFoundException`), or one whose logins changed
///   (`NotAuthorizedException`), is dropped and a new one asked for, once.
///
/// Works against `firehose-local` (its port serves Cognito Identity too) and, unchanged, against
/// Amazon Cognito (`Configuration.awsEndpoint(region:)`).
public final class CognitoCredentialsProvider: CredentialsProvider {
    public struct Configuration: Sendable {
        /// `REGION:uuid`.
        public var identityPoolId: String
        /// `http://127.0.0.1:4573` for `firehose-local`; `awsEndpoint(region:)` for AWS.
        public var endpoint: URL
        /// The logins of the signed-in user (`["graph.facebook.com": token]`), asked for at each
        /// refresh so tokens can be renewed; empty for an unauthenticated identity.
        public var logins: @Sendable () async throws -> [String: String]
        /// Where the identity id is kept across launches; nil: in memory only.
        public var identityIDFile: URL?
        public var transport: any HTTPTransport
        public var refreshBefore: Duration
        public var timeout: Duration
        public var now: @Sendable () -> Date
        /// The basic (classic) flow's roles and STS endpoint; nil: the enhanced flow.
        public var basicFlow: BasicFlow?

        /// Cognito's basic flow, as the AWS mobile SDKs run it when given `unauthRoleArn` and
        /// `authRoleArn`: the app names the role, and the role's trust policy decides
        /// (cognito/latest/developerguide/authentication-flow.html).
        public struct BasicFlow: Sendable {
            /// The role of an identity without logins.
            public var unauthenticatedRoleArn: String?
            /// The role of an identity signed in (`logins` not empty).
            public var authenticatedRoleArn: String?
            /// STS: the same port for `firehose-local`; `awsEndpoint(region:)` for AWS.
            public var stsEndpoint: URL
            public var roleSessionName: String
            /// How long the credentials last (STS: 15 minutes to the role's maximum, one hour by default).
            public var duration: Duration

            public init(
                unauthenticatedRoleArn: String? = nil, authenticatedRoleArn: String? = nil, stsEndpoint: URL,
                roleSessionName: String = "CognitoBasicFlow", duration: Duration = .seconds(3_600)
            ) {
                self.unauthenticatedRoleArn = unauthenticatedRoleArn
                self.authenticatedRoleArn = authenticatedRoleArn
                self.stsEndpoint = stsEndpoint
                self.roleSessionName = roleSessionName
                self.duration = duration
            }

            /// STS's regional endpoint.
            public static func awsEndpoint(region: String) -> URL {
                URL(string: "https://sts.\(region).amazonaws.com")!
            }
        }

        public init(
            identityPoolId: String, endpoint: URL,
            logins: @escaping @Sendable () async throws -> [String: String] = { [:] },
            identityIDFile: URL? = nil, transport: any HTTPTransport = DefaultTransport(),
            refreshBefore: Duration = .seconds(300), timeout: Duration = .seconds(30),
            now: @escaping @Sendable () -> Date = { Date() }, basicFlow: BasicFlow? = nil
        ) {
            self.basicFlow = basicFlow
            self.identityPoolId = identityPoolId
            self.endpoint = endpoint
            self.logins = logins
            self.identityIDFile = identityIDFile
            self.transport = transport
            self.refreshBefore = refreshBefore
            self.timeout = timeout
            self.now = now
        }

        /// Amazon Cognito's endpoint in the pool's region (the part of the pool id before `:`).
        public static func awsEndpoint(region: String) -> URL {
            URL(string: "https://cognito-identity.\(region).amazonaws.com")!
        }
    }

    public let configuration: Configuration
    private let identity: IdentityCache
    private let temporary: TemporaryCredentialsProvider

    public init(configuration: Configuration) {
        self.configuration = configuration
        let identity = IdentityCache(file: configuration.identityIDFile)
        self.identity = identity
        temporary = TemporaryCredentialsProvider(refreshBefore: configuration.refreshBefore, now: configuration.now) {
            try await Self.fetch(configuration, identity: identity)
        }
    }

    public func credentials() async throws -> AWSCredentials {
        try await temporary.credentials()
    }

    public func invalidate() async {
        await temporary.invalidate()
    }

    /// The identity id, once one was asked for (or read from `identityIDFile`).
    public var identityId: String? { identity.value }

    /// Forgets the identity and the credentials (sign-out): the next request gets a new identity.
    public func clearIdentity() async {
        identity.set(nil)
        await temporary.invalidate()
    }

    /// How many times credentials were fetched from Cognito.
    public var fetchCount: Int {
        get async { await temporary.fetchCount }
    }

    // MARK: The calls

    private static func fetch(_ configuration: Configuration, identity: IdentityCache) async throws -> AWSCredentials {
        let logins = try await configuration.logins()
        var retried = false
        while true {
            let id: String
            if let known = identity.value {
                id = known
            } else {
                id = try await getID(configuration, logins: logins)
                identity.set(id)
            }
            do {
                if let basicFlow = configuration.basicFlow {
                    return try await assumeRole(configuration, basicFlow, identityID: id, logins: logins)
                }
                return try await getCredentials(configuration, identityID: id, logins: logins)
            } catch let error as CognitoServiceError
                where !retried && (error.code == "ResourceNotFoundException" || error.code == "NotAuthorizedException")
                && identity.value == id
            {
                // The cached identity is gone or belongs to other logins: ask for the current one.
                identity.set(nil)
                retried = true
            }
        }
    }

    private static func getID(_ configuration: Configuration, logins: [String: String]) async throws -> String {
        let input = CognitoWire.GetIdInput(
            IdentityPoolId: configuration.identityPoolId, Logins: logins.isEmpty ? nil : logins)
        let answer = try await call("GetId", input, configuration)
        guard let id = (try? JSONDecoder().decode(CognitoWire.GetIdOutput.self, from: answer))?.IdentityId, !id.isEmpty
        else {
            throw CredentialsError("Cognito's GetId answer has no IdentityId.")
        }
        return id
    }

    private static func getCredentials(_ configuration: Configuration, identityID: String, logins: [String: String])
        async throws -> AWSCredentials
    {
        let input = CognitoWire.IdentityInput(IdentityId: identityID, Logins: logins.isEmpty ? nil : logins)
        let answer = try await call("GetCredentialsForIdentity", input, configuration)
        guard
            let credentials =
                (try? JSONDecoder().decode(
                    CognitoWire.GetCredentialsForIdentityOutput.self, from: answer))?.Credentials
        else {
            throw CredentialsError("Cognito's GetCredentialsForIdentity answer has no complete Credentials.")
        }
        return AWSCredentials(
            accessKeyId: credentials.AccessKeyId, secretAccessKey: credentials.SecretKey,
            sessionToken: credentials.SessionToken,
            expiration: Date(timeIntervalSince1970: credentials.Expiration))
    }

    /// The basic flow: the identity's OpenID token, exchanged with STS for credentials of the role
    /// its logins call for.
    private static func assumeRole(
        _ configuration: Configuration, _ flow: Configuration.BasicFlow, identityID: String, logins: [String: String]
    ) async throws -> AWSCredentials {
        guard let roleArn = logins.isEmpty ? flow.unauthenticatedRoleArn : flow.authenticatedRoleArn else {
            throw CredentialsError(
                "The basic flow needs the \(logins.isEmpty ? "unauthenticated" : "authenticated") role's ARN (BasicFlow)."
            )
        }
        let input = CognitoWire.IdentityInput(IdentityId: identityID, Logins: logins.isEmpty ? nil : logins)
        let answer = try await call("GetOpenIdToken", input, configuration)
        guard let token = (try? JSONDecoder().decode(CognitoWire.GetOpenIdTokenOutput.self, from: answer))?.Token
        else {
            throw CredentialsError("Cognito's GetOpenIdToken answer has no Token.")
        }
        return try await STSWebIdentity.assumeRole(
            roleArn: roleArn, sessionName: flow.roleSessionName, token: token,
            durationSeconds: Int(flow.duration.components.seconds), endpoint: flow.stsEndpoint,
            transport: configuration.transport, timeout: configuration.timeout)
    }

    /// One unsigned AWS JSON 1.1 call; answers its 2xx body, and throws `CognitoServiceError` for
    /// any other.
    private static func call(_ operation: String, _ input: some Encodable, _ configuration: Configuration)
        async throws -> Data
    {
        let url = configuration.endpoint
        let request = HTTPRequest(
            url: url, method: "POST",
            headers: [
                ("Host", SignedJSONExchange.hostHeader(url)), ("Content-Type", FirehoseOperation.contentType),
                ("X-Amz-Target", "AWSCognitoIdentityService.\(operation)"),
            ],
            body: OrderedJSONEncoder.encode(input), timeout: configuration.timeout, maxResponseBytes: 1 << 20)
        let response = try await configuration.transport.send(request)
        guard (200..<300).contains(response.status) else {
            let error = ClientResponseDecoding.error(
                status: response.status, errorTypeHeader: response.header("x-amzn-ErrorType"), body: response.body)
            throw CognitoServiceError(operation: operation, code: error.code, message: error.message)
        }
        return Data(response.body)
    }
}

/// Cognito answered with an error: the code tells the app what to fix (`NotAuthorizedException`: the
/// pool does not allow unauthenticated identities, or the login is not valid).
public struct CognitoServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var operation: String
    public var code: String
    public var message: String

    public var description: String { "Cognito \(operation): \(code): \(message)" }
}

/// The identity id, in memory and in its file.
private final class IdentityCache: Sendable {
    private let file: URL?
    private let state: Mutex<String?>

    init(file: URL?) {
        self.file = file
        let stored = file.flatMap { try? String(contentsOf: $0, encoding: .utf8) }?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        state = Mutex(stored.flatMap { $0.isEmpty ? nil : $0 })
    }

    var value: String? { state.withLock { $0 } }

    func set(_ id: String?) {
        state.withLock { $0 = id }
        guard let file else { return }
        if let id {
            try? Data(id.utf8).write(to: file, options: .atomic)
        } else {
            try? FileManager.default.removeItem(at: file)
        }
    }
}
