import FirehoseClient
import FirehoseTestSupport
import Foundation
import Synchronization
import Testing

@Suite("Credentials providers")
struct CredentialsTests {
    @Test("Environment variables, with and without a session token")
    func environment() async throws {
        let plain = try await EnvironmentCredentialsProvider(
            environment: ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret"]
        ).credentials()
        #expect(plain == AWSCredentials(accessKeyId: "AKID", secretAccessKey: "secret"))
        let temporary = try await EnvironmentCredentialsProvider(
            environment: ["AWS_ACCESS_KEY_ID": "ASIA", "AWS_SECRET_ACCESS_KEY": "s", "AWS_SESSION_TOKEN": "tok"]
        ).credentials()
        #expect(temporary.sessionToken == "tok")
        await #expect(throws: CredentialsError.self) {
            try await EnvironmentCredentialsProvider(environment: ["AWS_ACCESS_KEY_ID": "AKID"]).credentials()
        }
    }

    @Test("Shared files: credentials file first, then config; AWS_PROFILE; file locations from the environment")
    func profiles() async throws {
        let directory = try TestDirectory("profiles")
        defer { directory.remove() }
        let credentials = directory.appending("credentials")
        let config = directory.appending("config")
        try """
        # a comment
        [default]
        aws_access_key_id = DEFAULTKEY
        aws_secret_access_key = default/secret#with-hash ; inline comment

        [dev]
        aws_access_key_id=DEVKEY
        aws_secret_access_key=devsecret
        aws_session_token = devtoken
        """.write(to: credentials, atomically: true, encoding: .utf8)
        try """
        [default]
        region = eu-west-1
        [profile staging]
        region = us-west-2
        aws_access_key_id = STAGINGKEY
        aws_secret_access_key = stagingsecret
        s3 =
          max_concurrent_requests = 20
        [profile role]
        role_arn = arn:aws:iam::123456789012:role/x
        source_profile = default
        """.write(to: config, atomically: true, encoding: .utf8)
        let env = [
            "AWS_SHARED_CREDENTIALS_FILE": credentials.path, "AWS_CONFIG_FILE": config.path, "HOME": "/nonexistent",
        ]

        let fromDefault = try await ProfileCredentialsProvider(environment: env).credentials()
        #expect(fromDefault == AWSCredentials(accessKeyId: "DEFAULTKEY", secretAccessKey: "default/secret#with-hash"))

        let dev = try await ProfileCredentialsProvider(environment: env.merging(["AWS_PROFILE": "dev"]) { $1 })
            .credentials()
        #expect(dev == AWSCredentials(accessKeyId: "DEVKEY", secretAccessKey: "devsecret", sessionToken: "devtoken"))

        let staging = try await ProfileCredentialsProvider(profile: "staging", environment: env).credentials()
        #expect(staging.accessKeyId == "STAGINGKEY")

        let role = await #expect(throws: CredentialsError.self) {
            try await ProfileCredentialsProvider(profile: "role", environment: env).credentials()
        }
        #expect(role?.message.contains("TemporaryCredentialsProvider") == true)
        let missing = await #expect(throws: CredentialsError.self) {
            try await ProfileCredentialsProvider(profile: "nope", environment: env).credentials()
        }
        #expect(missing?.message.contains("nope") == true)

        // ~/.aws from HOME when no file variables are set.
        let home = try TestDirectory("home")
        defer { home.remove() }
        try FileManager.default.createDirectory(at: home.appending(".aws"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: credentials, to: home.appending(".aws/credentials"))
        let fromHome = try await ProfileCredentialsProvider(environment: ["HOME": home.url.path]).credentials()
        #expect(fromHome.accessKeyId == "DEFAULTKEY")
    }

    @Test("A chain returns the first provider that has credentials")
    func chain() async throws {
        let chain = CredentialsProviderChain([
            EnvironmentCredentialsProvider(environment: [:]),
            StaticCredentialsProvider(accessKeyId: "second", secretAccessKey: "s"),
        ])
        #expect(try await chain.credentials().accessKeyId == "second")
        let empty = await #expect(throws: CredentialsError.self) {
            try await CredentialsProviderChain([EnvironmentCredentialsProvider(environment: [:])]).credentials()
        }
        #expect(empty?.message.contains("AWS_ACCESS_KEY_ID") == true)
    }

    @Test("Temporary credentials refresh before expiry, once for many concurrent callers")
    func temporaryRefresh() async throws {
        let clock = ManualClock()
        let counter = Mutex(0)
        let provider = TemporaryCredentialsProvider(refreshBefore: .seconds(300), now: clock.wallClock) {
            let n = counter.withLock { value -> Int in
                value += 1
                return value
            }
            try await Task.sleep(for: .milliseconds(20))
            return AWSCredentials(
                accessKeyId: "ASIA\(n)", secretAccessKey: "s", sessionToken: "t\(n)",
                expiration: clock.date.addingTimeInterval(3600))
        }
        let first = try await withThrowingTaskGroup(of: AWSCredentials.self) { group in
            for _ in 0..<20 { group.addTask { try await provider.credentials() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1.accessKeyId) }
        }
        #expect(first == ["ASIA1"])
        #expect(await provider.fetchCount == 1)

        clock.advance(by: .seconds(3600 - 301))  // still outside the refresh window
        #expect(try await provider.credentials().accessKeyId == "ASIA1")
        clock.advance(by: .seconds(2))  // inside it: refresh before expiry
        #expect(try await provider.credentials().accessKeyId == "ASIA2")
        #expect(await provider.fetchCount == 2)
    }

    @Test("A failed refresh keeps using credentials that are still valid, and fails once they expire")
    func temporaryRefreshFailure() async throws {
        let clock = ManualClock()
        let fail = Mutex(false)
        let provider = TemporaryCredentialsProvider(refreshBefore: .seconds(300), now: clock.wallClock) {
            if fail.withLock({ $0 }) { throw CredentialsError("STS unreachable") }
            return AWSCredentials(
                accessKeyId: "ASIA", secretAccessKey: "s", sessionToken: "t",
                expiration: clock.date.addingTimeInterval(600))
        }
        _ = try await provider.credentials()
        fail.withLock { $0 = true }
        clock.advance(by: .seconds(400))  // in the refresh window, not expired
        #expect(try await provider.credentials().accessKeyId == "ASIA")
        clock.advance(by: .seconds(300))  // expired
        await #expect(throws: CredentialsError.self) { try await provider.credentials() }
    }
}

/// Answers Cognito Identity calls (and STS's, for the basic flow) from a script, and records them.
final class ScriptedCognito: HTTPTransport, Sendable {
    struct Call: Sendable {
        var operation: String
        var body: [String: String]
        var hasAuthorization: Bool
        var url: URL
    }
    private let state = Mutex<(answers: [(Int, String)], calls: [Call])>(([], []))

    init(_ answers: [(status: Int, body: String)]) {
        state.withLock { $0.answers = answers.map { ($0.status, $0.body) } }
    }

    var calls: [Call] { state.withLock { $0.calls } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let object = (try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]) ?? [:]
        var call = Call(
            operation: String((request.header("X-Amz-Target") ?? "").split(separator: ".").last ?? ""),
            body: object.compactMapValues { $0 as? String }, hasAuthorization: request.header("Authorization") != nil,
            url: request.url)
        if request.header("X-Amz-Target") == nil {
            // A Query-protocol form (STS).
            var components = URLComponents()
            components.percentEncodedQuery = String(decoding: request.body, as: UTF8.self)
            call.body = Dictionary(
                (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
            call.operation = call.body["Action"] ?? ""
        }
        let (status, body) = state.withLock { state -> (Int, String) in
            state.calls.append(call)
            return state.answers.isEmpty ? (500, "{}") : state.answers.removeFirst()
        }
        var headers: [(name: String, value: String)] = [("Content-Type", "application/x-amz-json-1.1")]
        if status >= 400, let type = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String] {
            headers.append(("x-amzn-ErrorType", type["__type"] ?? ""))
        }
        return HTTPResponse(status: status, headers: headers, body: Array(body.utf8))
    }
}

@Suite("CognitoCredentialsProvider")
struct CognitoCredentialsProviderTests {
    static let pool = "us-east-1:00000000-0000-4000-8000-000000000001"
    static func credentials(_ key: String, expiration: Double) -> (Int, String) {
        (
            200,
            #"{"IdentityId": "us-east-1:aaaa", "Credentials": {"AccessKeyId": "\#(key)", "SecretKey": "s", "SessionToken": "t", "Expiration": \#(expiration)}}"#
        )
    }

    @Test("GetId once, then GetCredentialsForIdentity, unsigned; the identity kept on disk; refreshed after invalidate")
    func enhancedFlow() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("identity-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let transport = ScriptedCognito([
            (200, #"{"IdentityId": "us-east-1:aaaa"}"#), Self.credentials("ASIA1", expiration: 4_000_000_000),
            Self.credentials("ASIA2", expiration: 4_000_000_000),
        ])
        let provider = CognitoCredentialsProvider(
            configuration: .init(
                identityPoolId: Self.pool, endpoint: URL(string: "http://127.0.0.1:1")!,
                logins: { ["login.app": "token"] }, identityIDFile: file, transport: transport))
        let first = try await provider.credentials()
        #expect(first.accessKeyId == "ASIA1" && first.sessionToken == "t")
        #expect(first.expiration == Date(timeIntervalSince1970: 4_000_000_000))
        #expect(try await provider.credentials() == first)
        await provider.invalidate()
        #expect(try await provider.credentials().accessKeyId == "ASIA2")
        #expect(
            transport.calls.map(\.operation) == ["GetId", "GetCredentialsForIdentity", "GetCredentialsForIdentity"])
        #expect(transport.calls.allSatisfy { !$0.hasAuthorization })
        #expect(transport.calls[0].body["IdentityPoolId"] == Self.pool)
        #expect(transport.calls[2].body["IdentityId"] == "us-east-1:aaaa")
        #expect(try String(contentsOf: file, encoding: .utf8) == "us-east-1:aaaa")
        #expect(provider.identityId == "us-east-1:aaaa")
    }

    @Test("An identity the pool no longer knows is dropped and a new one asked for, once; errors name Cognito's code")
    func staleIdentity() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("identity-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("us-east-1:gone".utf8).write(to: file)
        let transport = ScriptedCognito([
            (400, #"{"__type": "ResourceNotFoundException", "message": "Identity 'us-east-1:gone' not found."}"#),
            (200, #"{"IdentityId": "us-east-1:bbbb"}"#), Self.credentials("ASIA3", expiration: 4_000_000_000),
        ])
        let provider = CognitoCredentialsProvider(
            configuration: .init(
                identityPoolId: Self.pool, endpoint: URL(string: "http://127.0.0.1:1")!, identityIDFile: file,
                transport: transport))
        #expect(try await provider.credentials().accessKeyId == "ASIA3")
        #expect(
            transport.calls.map(\.operation) == ["GetCredentialsForIdentity", "GetId", "GetCredentialsForIdentity"])
        #expect(provider.identityId == "us-east-1:bbbb")

        let refusing = ScriptedCognito([
            (
                400,
                #"{"__type": "NotAuthorizedException", "message": "Unauthenticated access is not supported for this identity pool."}"#
            )
        ])
        let closed = CognitoCredentialsProvider(
            configuration: .init(
                identityPoolId: Self.pool, endpoint: URL(string: "http://127.0.0.1:1")!, transport: refusing))
        do {
            _ = try await closed.credentials()
            Issue.record("credentials from a pool that refuses unauthenticated identities")
        } catch let error as CognitoServiceError {
            #expect(error.code == "NotAuthorizedException")
            #expect(error.description.contains("Unauthenticated access is not supported"))
        }
    }
}

@Suite("CognitoCredentialsProvider: the basic flow")
struct CognitoBasicFlowTests {
    static let sts = URL(string: "http://127.0.0.1:2/sts")!
    static let unauth = "arn:aws:iam::000000000000:role/AppUnauth"
    static let auth = "arn:aws:iam::000000000000:role/AppAuth"

    static func provider(_ transport: ScriptedCognito, logins: [String: String] = [:]) -> CognitoCredentialsProvider {
        CognitoCredentialsProvider(
            configuration: .init(
                identityPoolId: CognitoCredentialsProviderTests.pool, endpoint: URL(string: "http://127.0.0.1:1")!,
                logins: { logins }, transport: transport,
                basicFlow: .init(
                    unauthenticatedRoleArn: unauth, authenticatedRoleArn: auth, stsEndpoint: sts,
                    duration: .seconds(900))))
    }

    static let assumed = (
        200,
        """
        <AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleWithWebIdentityResult>\
        <Credentials><AccessKeyId>ASIABASIC</AccessKeyId><SecretAccessKey>se&amp;cret</SecretAccessKey>\
        <SessionToken>token</SessionToken><Expiration>2096-10-02T07:06:40Z</Expiration></Credentials>\
        </AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>
        """
    )

    @Test("GetId, GetOpenIdToken, then AssumeRoleWithWebIdentity at STS for the role the logins call for, unsigned")
    func basicFlow() async throws {
        let transport = ScriptedCognito([
            (200, #"{"IdentityId": "us-east-1:aaaa"}"#),
            (200, #"{"IdentityId": "us-east-1:aaaa", "Token": "jwt.a.b"}"#),
            Self.assumed,
        ])
        let credentials = try await Self.provider(transport).credentials()
        #expect(credentials.accessKeyId == "ASIABASIC" && credentials.secretAccessKey == "se&cret")
        #expect(credentials.sessionToken == "token")
        #expect(credentials.expiration == Date(timeIntervalSince1970: 4_000_000_000))
        #expect(transport.calls.map(\.operation) == ["GetId", "GetOpenIdToken", "AssumeRoleWithWebIdentity"])
        #expect(transport.calls.allSatisfy { !$0.hasAuthorization })
        let sts = transport.calls[2]
        #expect(sts.url == Self.sts)
        #expect(sts.body["RoleArn"] == Self.unauth && sts.body["WebIdentityToken"] == "jwt.a.b")
        #expect(sts.body["Version"] == "2011-06-15" && sts.body["DurationSeconds"] == "900")
        #expect(sts.body["RoleSessionName"] == "CognitoBasicFlow")

        let signedIn = ScriptedCognito([
            (200, #"{"IdentityId": "us-east-1:bbbb"}"#), (200, #"{"IdentityId": "us-east-1:bbbb", "Token": "t"}"#),
            Self.assumed,
        ])
        _ = try await Self.provider(signedIn, logins: ["login.app": "user"]).credentials()
        #expect(signedIn.calls[1].body["IdentityId"] == "us-east-1:bbbb")
        #expect(signedIn.calls[2].body["RoleArn"] == Self.auth)
    }

    @Test("STS's refusal names its code and message")
    func refused() async throws {
        let transport = ScriptedCognito([
            (200, #"{"IdentityId": "us-east-1:aaaa"}"#), (200, #"{"IdentityId": "us-east-1:aaaa", "Token": "t"}"#),
            (
                403,
                "<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>Not authorized to perform sts:AssumeRoleWithWebIdentity</Message></Error></ErrorResponse>"
            ),
        ])
        do {
            _ = try await Self.provider(transport).credentials()
            Issue.record("credentials from a refusal")
        } catch let error as STSServiceError {
            #expect(error.code == "AccessDenied")
            #expect(error.message == "Not authorized to perform sts:AssumeRoleWithWebIdentity")
        }
    }
}

@Suite("CognitoCredentialsProvider: answers that are not Cognito's")
struct CognitoMalformedAnswerTests {
    @Test(
        "An answer without its members is refused, saying which call's answer lacks what",
        arguments: [
            ([(200, "not json")], "Cognito's GetId answer has no IdentityId."),
            ([(200, #"{"IdentityId": ""}"#)], "Cognito's GetId answer has no IdentityId."),
            (
                [
                    (200, #"{"IdentityId": "us-east-1:aaaa"}"#),
                    (200, #"{"IdentityId": "us-east-1:aaaa", "Credentials": {"AccessKeyId": "A"}}"#),
                ],
                "Cognito's GetCredentialsForIdentity answer has no complete Credentials."
            ),
        ])
    func malformed(answers: [(Int, String)], message: String) async throws {
        let provider = CognitoCredentialsProvider(
            configuration: .init(
                identityPoolId: CognitoCredentialsProviderTests.pool, endpoint: URL(string: "http://127.0.0.1:1")!,
                transport: ScriptedCognito(answers.map { (status: $0.0, body: $0.1) })))
        do {
            _ = try await provider.credentials()
            Issue.record("credentials from a malformed answer")
        } catch let error as CredentialsError {
            #expect("\(error)".contains(message))
        }
    }
}
