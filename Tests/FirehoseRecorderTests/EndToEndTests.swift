import FirehoseClient
import FirehoseTestSupport
import FirehoseWire
import Foundation
import Synchronization
import Testing

@testable import FirehoseRecorder

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let e2eConfig = """
    Authentication: verify
    Credentials:
      - AccessKeyId: e2e-key
        SecretAccessKey: e2e-secret
    DeliveryStreams:
      - DeliveryStreamName: lines
        ExtendedS3DestinationConfiguration:
          BucketARN: arn:aws:s3:::e2e
          Prefix: "lines/"
          BufferingHints: {SizeInMBs: 1, IntervalInSeconds: 0}
          ProcessingConfiguration:
            Enabled: true
            Processors: [{Type: AppendDelimiterToRecord}]
      - DeliveryStreamName: zipped
        ExtendedS3DestinationConfiguration:
          BucketARN: arn:aws:s3:::e2e
          Prefix: "zipped/"
          BufferingHints: {SizeInMBs: 1, IntervalInSeconds: 0}
          CompressionFormat: GZIP
          ProcessingConfiguration:
            Enabled: true
            Processors: [{Type: AppendDelimiterToRecord}]
    """

func requireServerBinary() throws -> URL {
    guard let binary = LocalFirehoseProcess.locateBinary() else {
        Issue.record(
            "firehose-local binary not found: build it (swift build) or set FIREHOSE_LOCAL_BIN to its path.")
        throw CancellationError()
    }
    return binary
}

/// The records in the objects of `prefix` (each record followed by the `\n` the stream's processor adds).
func deliveredRecords(_ server: LocalFirehoseProcess, prefix: String, gzip: Bool = false) throws -> [Data] {
    var records: [Data] = []
    for (path, object) in try server.objects() where path.hasPrefix("/e2e/\(prefix)/") {
        var bytes = [UInt8](object)
        if gzip { bytes = try Gzip.decompress(bytes, limit: 64 << 20) }
        #expect(bytes.last == 0x0A, "object \(path) does not end with a delimiter")
        var pieces = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        pieces.removeLast()
        records += pieces.map { Data($0) }
    }
    return records
}

func randomRecords(_ count: Int, seed: UInt64, sizes: ClosedRange<Int>) -> [Data] {
    var generator = SeededBytes(seed: seed)
    return (0..<count).map { _ in
        let size = sizes.lowerBound + Int(generator.next() % UInt64(sizes.count))
        // No 0x0A: the stream's delimiter separates records in the objects.
        return Data(generator.bytes(size, excluding: [0x0A]))
    }
}

func sortedBytes(_ records: [Data]) -> [Data] {
    records.sorted { $0.lexicographicallyPrecedes($1) }
}

/// Forwards to the default transport and, on one chosen request, stops the server, sends the request
/// and kills the server while that request is on the wire, unanswered. Remembers the records of every
/// request that failed without an answer (fate unknown).
final class KillingTransport: HTTPTransport, Sendable {
    private final class State: Sendable {
        let count = Mutex(0)
        let unknownFate = Mutex<[Data]>([])
        let killed = Mutex(false)
    }
    private let inner = DefaultTransport()
    private let state = State()
    let killAtRequest: Int
    let pause: @Sendable () -> Void
    let kill: @Sendable () -> Void

    init(killAtRequest: Int, pause: @escaping @Sendable () -> Void, kill: @escaping @Sendable () -> Void) {
        self.killAtRequest = killAtRequest
        self.pause = pause
        self.kill = kill
    }

    var unknownFate: [Data] { state.unknownFate.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let number = state.count.withLock { value -> Int in
            value += 1
            return value
        }
        do {
            if number == killAtRequest {
                // Stopped first, the server cannot answer before it dies, however fast it is: the
                // kill-th request is always cut on the wire (its fate unknown to the client).
                pause()
                async let response = inner.send(request)
                try await Task.sleep(for: .milliseconds(2))
                kill()
                state.killed.withLock { $0 = true }
                return try await response
            }
            // Later requests go out only once the server is dead, however fast it answered the
            // ones before: "in the middle of a submit" stays the kill-th request, not a race.
            if number > killAtRequest {
                for _ in 0..<5_000 where !state.killed.withLock({ $0 }) {
                    try await Task.sleep(for: .milliseconds(1))
                }
            }
            return try await inner.send(request)
        } catch {
            if let decoded = try? PutRecordsRequest.decodePutRecordBatch(request.body) {
                let records = (0..<decoded.records.count).map { Data(decoded.records[$0]) }
                state.unknownFate.withLock { $0 += records }
            }
            throw error
        }
    }
}

@Suite("End to end: recorder → firehose-local → objects", .serialized)
struct EndToEndTests {
    static let credentials = StaticCredentialsProvider(accessKeyId: "e2e-key", secretAccessKey: "e2e-secret")

    @Test("Records arrive byte for byte, gzip request bodies included, up to a 1,000,000-byte record")
    func delivery() async throws {
        let binary = try requireServerBinary()
        let work = try TestDirectory("e2e")
        defer { work.remove() }
        let server = try LocalFirehoseProcess(binary: binary, workDirectory: work.url, configYAML: e2eConfig)
        try await server.start()
        defer { server.kill() }

        let client = FirehoseClient(
            endpoint: server.endpoint, region: "us-east-1", credentialsProvider: Self.credentials,
            gzipRequestBodies: true)
        let recorder = try FirehoseRecorder(
            directory: work.appending("recorder"), client: client,
            configuration: .init(diskByteLimit: 64 << 20, batchRecordsByteLimit: 256 * 1024))
        let lines = randomRecords(300, seed: 1, sizes: 0...5_000) + [Data(repeating: 0x41, count: 1_000_000)]
        let zipped = randomRecords(50, seed: 2, sizes: 1...2_000)
        for record in lines { try await recorder.saveRecord(record, streamName: "lines") }
        for record in zipped { try await recorder.saveRecord(record, streamName: "zipped") }

        let summary = await recorder.submitAllRecords()
        #expect(summary.status.name == "completed", "\(summary.status)")
        #expect(summary.sentRecords == 351)
        #expect(summary.remainingRecords == 0)
        _ = try await server.flush()
        #expect(sortedBytes(try deliveredRecords(server, prefix: "lines")) == sortedBytes(lines))
        #expect(sortedBytes(try deliveredRecords(server, prefix: "zipped", gzip: true)) == sortedBytes(zipped))
    }

    @Test(
        "30 % of records failed, a burst of 503s and random 500s: the recorder retries and every record arrives exactly once"
    )
    func injectedFaults() async throws {
        let binary = try requireServerBinary()
        let work = try TestDirectory("e2e-faults")
        defer { work.remove() }
        let faults = """

            Faults:
              - Name: opening-burst
                Operations: [PutRecordBatch]
                Error: {Code: ServiceUnavailableException, Status: 503}
                Count: 3
              - Name: random-500
                Operations: [PutRecordBatch]
                Error: {Code: ServiceUnavailableException}
                Probability: 0.2
              - Name: thirty-percent
                FailRecords: {Fraction: 0.3}
            """
        let server = try LocalFirehoseProcess(binary: binary, workDirectory: work.url, configYAML: e2eConfig + faults)
        try await server.start()
        defer { server.kill() }

        let client = FirehoseClient(
            endpoint: server.endpoint, region: "us-east-1", credentialsProvider: Self.credentials)
        let recorder = try FirehoseRecorder(
            directory: work.appending("recorder"), client: client,
            configuration: .init(
                diskByteLimit: 64 << 20, batchRecordsCountLimit: 100, maxAttempts: 100, maxRetriesPerSubmit: 50,
                retryBaseDelay: .milliseconds(1), retryMaxDelay: .milliseconds(10)))
        let records = randomRecords(3_000, seed: 4, sizes: 1...300)
        for record in records { try await recorder.saveRecord(record, streamName: "lines") }

        var summaries: [SubmitSummary] = []
        repeat {
            summaries.append(await recorder.submitAllRecords())
        } while summaries.last!.remainingRecords > 0 && summaries.count < 20
        let last = try #require(summaries.last)
        #expect(last.status.name == "completed", "\(last.status)")
        #expect(last.remainingRecords == 0)
        #expect(summaries.allSatisfy { $0.dropped.isEmpty })
        #expect(summaries.map(\.sentRecords).reduce(0, +) == records.count)
        // The summaries report the retries: each failed record attempt and each refused request.
        let failedAttempts = summaries.map(\.failedAttempts).reduce(0, +)
        let requests = summaries.map(\.requests).reduce(0, +)
        #expect(failedAttempts > records.count / 4, "about 30 % of each batch fails, and more with the 503s")
        #expect(requests > records.count / 100)

        _ = try await server.flush()
        let delivered = try deliveredRecords(server, prefix: "lines")
        #expect(delivered.count == records.count, "every record once: no loss, no duplicate")
        #expect(sortedBytes(delivered) == sortedBytes(records))

        let listed = try await server.local("GET", "faults")
        let rules = try #require(
            try JSONSerialization.jsonObject(with: Data(listed.body)) as? [String: [[String: Any]]])["faults"]
        let fired = Dictionary(uniqueKeysWithValues: (rules ?? []).map { ($0["Name"] as! String, $0["Fired"] as! Int) })
        #expect(fired["opening-burst"] == 3)
        #expect((fired["random-500"] ?? 0) > 0)
        #expect((fired["thirty-percent"] ?? 0) > 0)
        print(
            "e2e faults: \(records.count) records in \(summaries.count) submits, \(requests) requests, "
                + "\(failedAttempts) failed record attempts retried, fired \(fired.sorted { $0.key < $1.key }), "
                + "\(delivered.count) delivered once each")
    }

    @Test(
        "Cognito credentials: expiring during a submit they are refreshed and every record arrives once; a stream the role may not write stops as notAuthorized, its records kept"
    )
    func cognitoCredentials() async throws {
        let binary = try requireServerBinary()
        let work = try TestDirectory("e2e-cognito")
        defer { work.remove() }
        let pool = "us-east-1:00000000-0000-4000-8000-000000000017"
        let cognito = """

            Faults:
              - {Name: slow, Operations: [PutRecordBatch], Latency: {Milliseconds: 100}}
            Cognito:
              CredentialLifetimeSeconds: 1
              IdentityPools:
                - IdentityPoolId: "\(pool)"
                  IdentityPoolName: mobile
                  AllowUnauthenticatedIdentities: true
                  Roles: {unauthenticated: "arn:aws:iam::000000000000:role/AppUnauth"}
            Roles:
              - RoleName: AppUnauth
                Policies:
                  - Version: "2012-10-17"
                    Statement:
                      Effect: Allow
                      Action: [firehose:PutRecord, firehose:PutRecordBatch]
                      Resource: arn:aws:firehose:us-east-1:000000000000:deliverystream/lines
            """
        let server = try LocalFirehoseProcess(binary: binary, workDirectory: work.url, configYAML: e2eConfig + cognito)
        try await server.start()
        defer { server.kill() }

        // The provider's clock runs 10 s behind, so it keeps credentials past their expiry: what makes
        // it refresh is the server's ExpiredTokenException, in the middle of the submit.
        let identityFile = work.appending("identity-id")
        let provider = CognitoCredentialsProvider(
            configuration: .init(
                identityPoolId: pool, endpoint: server.endpoint, identityIDFile: identityFile,
                refreshBefore: .zero, now: { Date().addingTimeInterval(-10) }))
        let client = FirehoseClient(endpoint: server.endpoint, region: "us-east-1", credentialsProvider: provider)
        let recorder = try FirehoseRecorder(
            directory: work.appending("recorder"), client: client,
            configuration: .init(diskByteLimit: 64 << 20, batchRecordsCountLimit: 100, maxConcurrentRequests: 1))
        let records = randomRecords(2_000, seed: 17, sizes: 1...200)
        for record in records { try await recorder.saveRecord(record, streamName: "lines") }
        for index in 0..<5 { try await recorder.saveRecord(Data("not allowed \(index)".utf8), streamName: "zipped") }

        let summary = await recorder.submitAllRecords()
        #expect(summary.status.name == "streamsStopped", "\(summary.status)")
        #expect(summary.sentRecords == records.count)
        #expect(summary.failedAttempts == 0)
        #expect(summary.credentialRefreshes >= 1, "20 requests of 100 ms outlast credentials of 1 s")
        #expect(await provider.fetchCount == summary.credentialRefreshes + 1)
        let stop = try #require(summary.stoppedStreams["zipped"])
        #expect(stop.reason == .notAuthorized)
        #expect(stop.error.code == "AccessDeniedException")
        #expect(
            stop.error.message.hasPrefix(
                "User: arn:aws:sts::000000000000:assumed-role/AppUnauth/CognitoIdentityCredentials is not authorized to perform: firehose:PutRecordBatch on resource: arn:aws:firehose:us-east-1:000000000000:deliverystream/zipped"
            ))
        #expect(summary.remainingRecords == 5)

        _ = try await server.flush()
        let delivered = try deliveredRecords(server, prefix: "lines")
        #expect(delivered.count == records.count, "every record once: no loss, no duplicate")
        #expect(sortedBytes(delivered) == sortedBytes(records))

        // The identity is kept on disk: the app's next launch is the same identity (GetId without
        // logins would make a new one).
        let identity = try #require(provider.identityId)
        let relaunched = CognitoCredentialsProvider(
            configuration: .init(identityPoolId: pool, endpoint: server.endpoint, identityIDFile: identityFile))
        _ = try await relaunched.credentials()
        #expect(relaunched.identityId == identity)
        print(
            "e2e cognito: \(records.count) records in \(summary.requests) requests, "
                + "\(summary.credentialRefreshes) credential refreshes after ExpiredTokenException, identity \(identity)"
        )
    }

    @Test(
        "Cognito's basic flow against the real server: GetOpenIdToken and STS's AssumeRoleWithWebIdentity give credentials the role's trust and policies govern"
    )
    func cognitoBasicFlow() async throws {
        let binary = try requireServerBinary()
        let work = try TestDirectory("e2e-basic-flow")
        defer { work.remove() }
        let pool = "us-east-1:00000000-0000-4000-8000-000000000018"
        let cognito = """

            Cognito:
              IdentityPools:
                - IdentityPoolId: "\(pool)"
                  IdentityPoolName: classic
                  AllowUnauthenticatedIdentities: true
                  AllowClassicFlow: true
            Roles:
              - RoleName: AppUnauth
                AssumeRolePolicyDocument:
                  Statement:
                    Effect: Allow
                    Principal: {Federated: cognito-identity.amazonaws.com}
                    Action: sts:AssumeRoleWithWebIdentity
                    Condition:
                      StringEquals: {cognito-identity.amazonaws.com:aud: "\(pool)"}
                      ForAnyValue:StringLike: {cognito-identity.amazonaws.com:amr: unauthenticated}
                Policies:
                  - Version: "2012-10-17"
                    Statement:
                      Effect: Allow
                      Action: [firehose:PutRecord, firehose:PutRecordBatch]
                      Resource: arn:aws:firehose:us-east-1:000000000000:deliverystream/lines
              - RoleName: Elsewhere
                AssumeRolePolicyDocument:
                  Statement:
                    Effect: Allow
                    Principal: {Federated: cognito-identity.amazonaws.com}
                    Action: sts:AssumeRoleWithWebIdentity
                    Condition:
                      StringEquals: {cognito-identity.amazonaws.com:aud: "us-east-1:00000000-0000-4000-8000-000000000099"}
            """
        let server = try LocalFirehoseProcess(binary: binary, workDirectory: work.url, configYAML: e2eConfig + cognito)
        try await server.start()
        defer { server.kill() }

        func provider(role: String) -> CognitoCredentialsProvider {
            CognitoCredentialsProvider(
                configuration: .init(
                    identityPoolId: pool, endpoint: server.endpoint,
                    basicFlow: .init(
                        unauthenticatedRoleArn: "arn:aws:iam::000000000000:role/\(role)", stsEndpoint: server.endpoint,
                        roleSessionName: "swift-app")))
        }
        let app = provider(role: "AppUnauth")
        let client = FirehoseClient(endpoint: server.endpoint, region: "us-east-1", credentialsProvider: app)
        _ = try await client.putRecordBatch(
            [Data("classic 1".utf8), Data("classic 2".utf8)], deliveryStreamName: "lines")
        #expect(try await app.credentials().accessKeyId.hasPrefix("ASIA"))
        do {
            _ = try await client.putRecord(Data("x".utf8), deliveryStreamName: "zipped")
            Issue.record("the role's policy allows only lines")
        } catch {
            #expect(error.code == "AccessDeniedException")
            #expect(error.message.hasPrefix("User: arn:aws:sts::000000000000:assumed-role/AppUnauth/swift-app"))
        }
        // A role whose trust policy names another pool: STS refuses, and the app is told why.
        do {
            _ = try await provider(role: "Elsewhere").credentials()
            Issue.record("credentials for a role that does not trust this pool")
        } catch let error as STSServiceError {
            #expect(error.code == "AccessDenied")
            #expect(error.message == "Not authorized to perform sts:AssumeRoleWithWebIdentity")
        }
        _ = try await server.flush()
        #expect(
            sortedBytes(try deliveredRecords(server, prefix: "lines"))
                == sortedBytes([Data("classic 1".utf8), Data("classic 2".utf8)]))
    }

    @Test("A server killed in the middle of a submit: offline, restart, submit again, every record delivered")
    func serverRestartMidSubmit() async throws {
        let binary = try requireServerBinary()
        let work = try TestDirectory("e2e-restart")
        defer { work.remove() }
        let server = try LocalFirehoseProcess(binary: binary, workDirectory: work.url, configYAML: e2eConfig)
        try await server.start()
        defer { server.kill() }

        let transport = KillingTransport(
            killAtRequest: 5, pause: { server.signal(SIGSTOP) }, kill: { server.kill(SIGKILL) })
        let client = FirehoseClient(
            endpoint: server.endpoint, region: "us-east-1", credentialsProvider: Self.credentials, transport: transport)
        let recorder = try FirehoseRecorder(
            directory: work.appending("recorder"), client: client,
            configuration: .init(diskByteLimit: 64 << 20, batchRecordsByteLimit: 64 * 1024))
        let records = randomRecords(1_000, seed: 3, sizes: 500...3_000)
        for record in records { try await recorder.saveRecord(record, streamName: "lines") }

        let first = await recorder.submitAllRecords()
        #expect(first.isOffline, "\(first.status)")
        // The fifth and the requests on the wire beside it (at most maxConcurrentRequests) fail;
        // the fifth always does, as the server is stopped before it is sent.
        let window = await recorder.configuration.maxConcurrentRequests
        #expect(first.requests >= 5 && first.requests < 5 + window)
        #expect(first.failedAttempts == 0)
        #expect(!transport.unknownFate.isEmpty, "the kill-th request was cut")
        #expect(first.sentRecords > 0 && first.sentRecords < records.count)
        #expect(try await recorder.storedRecords().allSatisfy { $0.attempts == 0 })

        try await server.start()  // same port, same data directory
        let second = await recorder.submitAllRecords()
        #expect(second.status.name == "completed", "\(second.status)")
        #expect(second.remainingRecords == 0)
        _ = try await server.flush()

        let delivered = try deliveredRecords(server, prefix: "lines")
        var counts: [Data: Int] = [:]
        for record in delivered { counts[record, default: 0] += 1 }
        let unknown = Set(transport.unknownFate)
        let missing = records.filter { counts[$0] == nil }
        let duplicated = counts.filter { $0.value > 1 }.map(\.key)
        #expect(missing.isEmpty, "\(missing.count) records never arrived")
        // Duplicates only where the client could not know a request's fate (those cut by the kill).
        #expect(duplicated.allSatisfy { unknown.contains($0) })
        #expect(counts.values.allSatisfy { $0 <= 2 })
        #expect(Set(delivered) == Set(records))
        print(
            "e2e restart: saved \(records.count), first submit sent \(first.sentRecords) in \(first.requests) requests "
                + "then offline, \(unknown.count) records in the cut requests, "
                + "second submit sent \(second.sentRecords), "
                + "\(delivered.count) delivered, \(duplicated.count) duplicated (all from the cut requests)")
    }

    @Test("KinesisClient against the real process: 1,001 records put to two shards are read back in order")
    func kinesisClient() async throws {
        let binary = try requireServerBinary()
        let work = try TestDirectory("e2e-kinesis")
        defer { work.remove() }
        let server = try LocalFirehoseProcess(binary: binary, workDirectory: work.url, configYAML: e2eConfig)
        try await server.start()
        defer { server.kill() }
        let client = KinesisClient(
            endpoint: server.endpoint, region: "us-east-1", credentialsProvider: Self.credentials)
        _ = try await client.send(operation: "CreateStream", body: Array(#"{"StreamName": "k", "ShardCount": 2}"#.utf8))
        var sent = [KinesisRecord(data: Array("single".utf8), partitionKey: "key-single")]
        let first = try await client.putRecord(sent[0], streamName: "k")
        var results = [first]
        let batch = (0..<1_000).map { KinesisRecord(data: Array("record \($0)".utf8), partitionKey: "key-\($0 % 17)") }
        for start in stride(from: 0, to: batch.count, by: 500) {
            let output = try await client.putRecords(Array(batch[start..<start + 500]), streamName: "k")
            #expect(output.failedRecordCount == 0)
            for entry in output.entries {
                guard case .success(let result) = entry else { continue }
                results.append(result)
            }
        }
        sent += batch
        #expect(results.count == 1_001)
        for shard in ["shardId-000000000000", "shardId-000000000001"] {
            let iterator = try await client.send(
                operation: "GetShardIterator",
                body: Array(#"{"StreamName": "k", "ShardId": "\#(shard)", "ShardIteratorType": "TRIM_HORIZON"}"#.utf8))
            let token = try #require(
                (try JSONSerialization.jsonObject(with: Data(iterator.body)) as? [String: Any])?["ShardIterator"]
                    as? String)
            let page = try await client.send(
                operation: "GetRecords", body: Array(#"{"ShardIterator": "\#(token)", "Limit": 10000}"#.utf8))
            let records = try #require(
                (try JSONSerialization.jsonObject(with: Data(page.body)) as? [String: Any])?["Records"]
                    as? [[String: Any]])
            let expected = zip(sent, results).filter { $0.1.shardID == shard }
            #expect(records.map { $0["SequenceNumber"] as? String } == expected.map { $0.1.sequenceNumber })
            #expect(
                records.map { Data(base64Encoded: $0["Data"] as? String ?? "") } == expected.map { Data($0.0.data) })
        }
        do {
            _ = try await client.putRecord(sent[0], streamName: "missing")
            Issue.record("a put to a missing stream succeeded")
        } catch {
            #expect(
                error.code == "ResourceNotFoundException"
                    && error.message == "Stream missing under account 000000000000 not found.")
        }
    }

    @Test(
        "KinesisRecorder: 100,000 saved records reach a two-shard stream of the real process, each once, with its key")
    func kinesisRecorder() async throws {
        let binary = try requireServerBinary()
        let work = try TestDirectory("e2e-kinesis-recorder")
        defer { work.remove() }
        let server = try LocalFirehoseProcess(
            binary: binary, workDirectory: work.url,
            configYAML: e2eConfig
                + "\nKinesisStreams:\n  - {StreamName: app-events, ShardCount: 2}\n  - {StreamName: one-mib, ShardCount: 1}\n"
                + "  - {StreamName: ten-mib, ShardCount: 1, MaxRecordSizeInKiB: 10240}\n"
        )
        try await server.start()
        defer { server.kill() }
        let client = KinesisClient(
            endpoint: server.endpoint, region: "us-east-1", credentialsProvider: Self.credentials)
        let recorder = try KinesisRecorder(
            directory: work.appending("recorder"), client: client, configuration: .init(diskByteLimit: 64 << 20))
        let count = 100_000
        for index in 0..<count {
            try await recorder.saveRecord(
                Data("event \(index)".utf8), streamName: "app-events", partitionKey: "user-\(index % 97)")
        }
        let summary = await recorder.submitAllRecords()
        #expect(summary.status.name == "completed", "\(summary.status)")
        #expect(summary.sentRecords == count && summary.remainingRecords == 0)

        var received: [String: String] = [:]
        var duplicates = 0
        for shard in ["shardId-000000000000", "shardId-000000000001"] {
            for record in try await readShard(client, stream: "app-events", shard: shard) {
                if received.updateValue(record.key, forKey: record.data) != nil { duplicates += 1 }
            }
        }
        #expect(duplicates == 0)
        #expect(received.count == count)
        let wrongKeys = (0..<count).filter { received["event \($0)"] != "user-\($0 % 97)" }
        #expect(wrongKeys.isEmpty, "first records missing or with another key: \(wrongKeys.prefix(5))")
        print("e2e kinesis recorder: \(count) records in \(summary.requests) PutRecords, read back once each")

        // A record over the stream's maximum (1 MiB unless raised) is the service's to refuse: it is
        // split out and dropped as rejected; the records beside it are delivered.
        try await recorder.saveRecord(Data("before".utf8), streamName: "one-mib", partitionKey: "k")
        let large = try await recorder.saveRecord(Data(count: 1_100_000), streamName: "one-mib", partitionKey: "k")
        try await recorder.saveRecord(Data("after".utf8), streamName: "one-mib", partitionKey: "k")
        let second = await recorder.submitAllRecords()
        #expect(second.sentRecords == 2 && second.dropped.map(\.recordIDs) == [[large]])
        guard case .rejected(let code, let message) = second.dropped.first?.reason else {
            Issue.record("not rejected: \(second.dropped)")
            return
        }
        #expect(code == "InvalidArgumentException" && message.contains("exceeds the maximum record size"))
        let stored = try await readShard(client, stream: "one-mib", shard: "shardId-000000000000")
        #expect(stored.map(\.data) == ["before", "after"])

        // A stream that takes 10 MiB records: a 7 MiB record, its request about 9.3 MB (past the 8 MiB
        // that bounds Firehose's requests), is stored.
        try await recorder.saveRecord(Data(repeating: 0x61, count: 7 << 20), streamName: "ten-mib", partitionKey: "k")
        try await recorder.saveRecord(Data("small".utf8), streamName: "ten-mib", partitionKey: "k")
        let third = await recorder.submitAllRecords()
        #expect(third.sentRecords == 2 && third.dropped.isEmpty)
        let ten = try await readShard(client, stream: "ten-mib", shard: "shardId-000000000000")
        #expect(ten.map(\.data.utf8.count) == [7 << 20, 5])
    }

    @Test("KinesisRecorder against a shard's quota: throttled records are retried until every one is stored, once")
    func kinesisRecorderThrottled() async throws {
        let binary = try requireServerBinary()
        let work = try TestDirectory("e2e-kinesis-throttled")
        defer { work.remove() }
        let server = try LocalFirehoseProcess(
            binary: binary, workDirectory: work.url,
            configYAML: e2eConfig + "\nQuotas: aws\nKinesisStreams:\n  - {StreamName: narrow, ShardCount: 1}\n")
        try await server.start()
        defer { server.kill() }
        let client = KinesisClient(
            endpoint: server.endpoint, region: "us-east-1", credentialsProvider: Self.credentials)
        let recorder = try KinesisRecorder(
            directory: work.appending("recorder"), client: client,
            configuration: .init(
                diskByteLimit: 64 << 20, maxRetriesPerSubmit: 50, retryBaseDelay: .milliseconds(200),
                retryMaxDelay: .seconds(1)))
        // 300 records of 10,000 bytes: three times what the shard takes in a second (1 MiB), and a
        // full PutRecords past what its quota holds at once, so records are throttled however fast
        // or slow the machine answers.
        let saved = (0..<300).map { index in
            Data("\(index) ".utf8) + Data(repeating: UInt8(ascii: "x"), count: 10_000 - "\(index) ".utf8.count)
        }
        for data in saved { try await recorder.saveRecord(data, streamName: "narrow") }
        let summary = await recorder.submitAllRecords()
        #expect(summary.status.name == "completed", "\(summary.status)")
        #expect(summary.sentRecords == saved.count && summary.dropped.isEmpty)
        #expect(summary.failedAttempts > 0, "the shard's quota never throttled a record")
        let read = try await readShard(client, stream: "narrow", shard: "shardId-000000000000")
        #expect(read.map(\.data).sorted() == saved.map { String(decoding: $0, as: UTF8.self) }.sorted())
        print(
            "e2e kinesis throttled: \(saved.count) records in \(summary.requests) PutRecords, "
                + "\(summary.failedAttempts) throttled attempts retried")
    }

    /// Every record of a shard, from its start, through GetRecords pages.
    private func readShard(_ client: KinesisClient, stream: String, shard: String) async throws -> [(
        key: String, data: String
    )] {
        func object(_ bytes: [UInt8]) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        }
        let first = try await client.send(
            operation: "GetShardIterator",
            body: Array(
                #"{"StreamName": "\#(stream)", "ShardId": "\#(shard)", "ShardIteratorType": "TRIM_HORIZON"}"#.utf8))
        var iterator = try #require(try object(first.body)["ShardIterator"] as? String)
        var records: [(key: String, data: String)] = []
        while true {
            let page = try object(
                try await client.send(
                    operation: "GetRecords", body: Array(#"{"ShardIterator": "\#(iterator)", "Limit": 10000}"#.utf8)
                ).body)
            let batch = try #require(page["Records"] as? [[String: Any]])
            for record in batch {
                let data = try #require(Data(base64Encoded: record["Data"] as? String ?? ""))
                records.append((record["PartitionKey"] as? String ?? "", String(decoding: data, as: UTF8.self)))
            }
            guard batch.count > 0 || (page["MillisBehindLatest"] as? Int ?? 0) > 0,
                let next = page["NextShardIterator"] as? String
            else { return records }
            iterator = next
        }
    }
}
