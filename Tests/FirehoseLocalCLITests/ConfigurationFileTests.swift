import AWSSigV4
import ArgumentParser
import FaultInjection
import FirehoseService
import FirehoseSink
import FirehoseWire
import Foundation
import KinesisService
import Logging
import ServerCore
import Testing

@testable import FirehoseLocalCLI

@Suite struct ConfigurationFileTests {
    func parse(_ text: String, name: String = "config.yaml") throws(ConfigurationError) -> ConfigurationFile {
        try ConfigurationFile.parse(Data(text.utf8), path: name)
    }

    func failure(_ text: String, name: String = "config.yaml") -> ConfigurationError? {
        do {
            _ = try parse(text, name: name)
            return nil
        } catch {
            return error
        }
    }

    @Test func faultRulesAreReadInOrderWithTheirDefaults() throws {
        let file = try parse(
            """
            Faults:
              - Name: flaky
                Streams: [app-events]
                FailRecords: {Fraction: 0.3, ErrorCode: InternalFailure}
                Seed: 42
              - Error: {Code: ServiceUnavailableException}
                Count: 2
              - Latency: {MinMilliseconds: 10, MaxMilliseconds: 20}
                Probability: 0.5
              - ResetConnection: AfterRead
                AfterSeconds: 5
                ForSeconds: 10
              - Hang: {Seconds: 30}
                Operations: ["*"]
                AccessKeyId: ci
            """)
        #expect(file.faults.map(\.name) == ["flaky", "fault-2", "fault-3", "fault-4", "fault-5"])
        #expect(file.faults[0].streams == ["app-events"])
        #expect(file.faults[0].seed == 42)
        #expect(
            file.faults[0].outcome
                == .failRecords(.fraction(0.3), code: "InternalFailure", message: "Internal service failure."))
        #expect(
            file.faults[1].outcome
                == .error(FirehoseError(code: "ServiceUnavailableException", message: "Slow down.", httpStatus: 500)))
        #expect(file.faults[1].trigger.count == 2)
        #expect(file.faults[2].latency == .range(10...20))
        #expect(file.faults[2].trigger.probability == 0.5)
        #expect(file.faults[3].trigger == .init(afterSeconds: 5, forSeconds: 10))
        #expect(file.faults[4].operations.count == FirehoseOperation.allCases.count)
        #expect(file.faults[4].accessKeyID == "ci")
        let refusal = try #require(failure("Faults:\n  - {Latency: {Milliseconds: 1}}\n  - {Hang: {Seconds: 0}}\n"))
        #expect(refusal.field == "Faults[1].Hang.Seconds")
        let typo = try #require(failure("Faults:\n  - {Hang: {}, Cuont: 1}\n"))
        #expect(typo.description.contains("unknown field 'Cuont'"))
    }

    @Test func theRetryRulesOfTheTestingGuideAreValid() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let guide = try String(contentsOf: root.appendingPathComponent("docs/testing.md"), encoding: .utf8)
        let section = try #require(guide.firstRange(of: "## Testing your retry logic")).upperBound
        let start = try #require(guide[section...].firstRange(of: "```yaml\n")).upperBound
        let end = try #require(guide[start...].firstRange(of: "```")).lowerBound
        let file = try parse(String(guide[start..<end]))
        #expect(
            file.faults.map(\.name) == [
                "flaky-batches", "every-third", "burst", "outage", "expired", "slow", "lost-answer", "stall",
                "hot-shard",
            ])
        #expect(file.faults.last?.operations == [.kinesis(.putRecords)])
    }

    @Test func quotasAreOffByDefaultAndOnWithOneLine() throws {
        #expect(try parse("GzipLevel: 6\n").quotas == nil)
        #expect(try parse("Quotas: off\n").quotas == nil)
        #expect(try parse("Quotas: aws\n").quotas == QuotaSetting())
        #expect(
            try parse("Quotas: {RecordsPerSecond: 50, MiBPerSecond: 1.5}\n").quotas
                == QuotaSetting(recordsPerSecond: 50, bytesPerSecond: 1_572_864))
        #expect(failure("Quotas: fast\n")?.field == "Quotas")
        #expect(failure("Quotas: {MiBPerSecond: 0.5}\n")?.field == "Quotas.MiBPerSecond")
        #expect(failure("Quotas: {RequestsPerSecond: 0}\n")?.field == "Quotas.RequestsPerSecond")
        #expect(failure("Quotas: {RecordsPerSec: 5}\n")?.description.contains("unknown field 'RecordsPerSec'") == true)
    }

    @Test func sampleConfigurationLoadsAndEveryStreamValidates() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = try ConfigurationFile.load(path: root.appendingPathComponent("sample-data/firehose-local.yaml").path)
        #expect(file.authentication == .verify)
        #expect(file.gzipLevel == 6)
        let streams = try file.deliveryStreams.map { try DeliveryStreamSettings(validating: $0, dataDirectory: nil) }
        #expect(streams.map(\.name) == ["app-events", "raw-logs"])
        #expect(streams[0].compression == .gzip)
        #expect(streams[0].appendsNewline)
        #expect(streams[1].bufferIntervalSeconds == 0)
    }

    @Test func yamlUsesTheCreateDeliveryStreamShape() throws {
        let file = try parse(
            """
            Authentication: off
            Credentials:
              - AccessKeyId: AKID
                SecretAccessKey: secret
                SessionToken: token
            DeliveryStreams:
              - DeliveryStreamName: s1
                ExtendedS3DestinationConfiguration:
                  BucketARN: arn:aws:s3:::b
                  Prefix: "logs/"
                  BufferingHints: {SizeInMBs: 64, IntervalInSeconds: 0}
                  FileExtension: .json
            """)
        #expect(file.authentication == .off)
        #expect(file.credentials.first?.sessionToken == "token")
        let destination = try #require(file.deliveryStreams.first?.extendedS3DestinationConfiguration)
        #expect(destination.bufferingHints == BufferingHints(sizeInMBs: 64, intervalInSeconds: 0))
        #expect(destination.prefix == "logs/")
        #expect(destination.fileExtension == ".json")
    }

    @Test func lambdaFunctionsMapFunctionsToCommandsAndEndpoints() throws {
        let file = try parse(
            """
            LambdaFunctions:
              - {FunctionName: enrich, Command: [python3, enrich.py], Timeout: 60}
              - {FunctionArn: "arn:aws:lambda:us-east-1:000000000000:function:tag", Endpoint: "http://127.0.0.1:9000", InvokeName: function}
              - {FunctionName: remote, Endpoint: "http://127.0.0.1:3001"}
            """)
        #expect(
            file.lambdaFunctions == [
                .init(name: "enrich", function: .command(["python3", "enrich.py"]), timeout: .seconds(60)),
                .init(
                    arn: "arn:aws:lambda:us-east-1:000000000000:function:tag",
                    function: .invokeAPI(endpoint: URL(string: "http://127.0.0.1:9000")!, functionName: "function")),
                .init(
                    name: "remote",
                    function: .invokeAPI(endpoint: URL(string: "http://127.0.0.1:3001")!, functionName: "remote")),
            ])
    }

    @Test(
        arguments: [
            (
                "{FunctionName: f}", "LambdaFunctions[0]",
                "give Command (a program that reads the event on stdin) or Endpoint (a Lambda Invoke API), one of them."
            ),
            (
                "{FunctionName: f, Command: [a], Endpoint: \"http://h\"}", "LambdaFunctions[0]",
                "give Command (a program that reads the event on stdin) or Endpoint (a Lambda Invoke API), one of them."
            ),
            (
                "{Command: [a]}", "LambdaFunctions[0]",
                "give FunctionArn or FunctionName (one of them): which function this entry runs."
            ),
            (
                "{FunctionName: f, Command: []}", "LambdaFunctions[0].Command",
                "must name a program, e.g. [python3, transform.py]."
            ),
            (
                "{FunctionName: \"a/b\", Command: [a]}", "LambdaFunctions[0].FunctionName",
                "'a/b' is not a function name (1 to 64 letters, digits, - and _)."
            ),
            (
                "{FunctionArn: f, Command: [a]}", "LambdaFunctions[0].FunctionArn",
                "'f' is not a Lambda function ARN (arn:aws:lambda:REGION:ACCOUNT:function:NAME)."
            ),
            (
                "{FunctionName: f, Endpoint: \"localhost:9000\"}", "LambdaFunctions[0].Endpoint",
                "must be an http:// or https:// URL such as http://127.0.0.1:3001, not 'localhost:9000'."
            ),
            (
                "{FunctionName: f, Command: [a], InvokeName: g}", "LambdaFunctions[0].InvokeName",
                "applies to an Endpoint, not a Command."
            ),
            (
                "{FunctionName: f, Command: [a], Timeout: 0}", "LambdaFunctions[0].Timeout",
                "must be a whole number of seconds from 1 to 900 (Lambda's range), not 0."
            ),
            (
                "{FunctionName: f, Command: [a], Timeout: 901}", "LambdaFunctions[0].Timeout",
                "must be a whole number of seconds from 1 to 900 (Lambda's range), not 901."
            ),
        ])
    func badLambdaFunctionsAreNamed(entry: String, field: String, message: String) {
        #expect(throws: ConfigurationError(file: "config.yaml", field: field, message: message)) {
            try parse("LambdaFunctions:\n  - \(entry)\n")
        }
    }

    @Test func jsonIsAccepted() throws {
        let file = try parse(
            #"{"DeliveryStreams": [{"DeliveryStreamName": "s1", "S3DestinationConfiguration": {"BucketARN": "arn:aws:s3:::b"}}]}"#,
            name: "config.json")
        #expect(file.deliveryStreams.first?.s3DestinationConfiguration?.configuration.bucketARN == "arn:aws:s3:::b")
    }

    @Test func emptyFileMeansNoStreams() throws {
        #expect(
            try parse("\n# nothing yet\n".replacingOccurrences(of: "# nothing yet", with: "")).deliveryStreams.isEmpty)
    }

    @Test func unknownFieldIsNamedWithItsPath() throws {
        let error = try #require(
            failure(
                """
                DeliveryStreams:
                  - DeliveryStreamName: s1
                    ExtendedS3DestinationConfiguration:
                      BucketARN: arn:aws:s3:::b
                      BufferingHint: {SizeInMBs: 1, IntervalInSeconds: 0}
                """))
        #expect(error.file == "config.yaml")
        #expect(error.field == "DeliveryStreams[0].ExtendedS3DestinationConfiguration")
        #expect(error.message.contains("unknown field 'BufferingHint'"))
        #expect(error.message.contains("BufferingHints"))
    }

    @Test func aRoleMayGiveItsTrustPolicyAsYAMLOrJSONText() throws {
        let file = try parse(
            """
            Roles:
              - RoleName: Loader
                Policies: ['{"Statement": {"Effect": "Allow", "Action": "firehose:*", "Resource": "*"}}']
                AssumeRolePolicyDocument:
                  Version: "2012-10-17"
                  Statement: [{Effect: Allow, Principal: {AWS: "arn:aws:iam::000000000000:root"}, Action: "sts:AssumeRole"}]
              - RoleArn: arn:aws:iam::000000000000:role/Delivery
                AssumeRolePolicyDocument: '{"Statement": {"Effect": "Allow", "Principal": {"Service": "firehose.amazonaws.com"}, "Action": "sts:AssumeRole"}}'
              - RoleName: AppUnauth
            """)
        #expect(file.roles.map(\.trustPolicy?.isEmpty) == [false, false, nil])
        #expect(file.roles[0].trustPolicy?.contains(#""Principal":{"AWS":"arn:aws:iam::000000000000:root"}"#) == true)
        #expect(file.roles[1].trustPolicy?.hasPrefix(#"{"Statement": {"Effect""#) == true)

        let error = try #require(
            failure(
                """
                Roles:
                  - RoleName: Loader
                    AssumeRolePolicyDocument: {Statement: {Effect: Allow, Action: "sts:AssumeRole", Resource: "*"}}
                """))
        #expect(error.field == "Roles[0].AssumeRolePolicyDocument.Statement[0].Resource")
        #expect(error.message.contains("prohibited field Resource"))
    }

    @Test func unknownTopLevelFieldIsRefused() throws {
        let error = try #require(failure("DeliveryStream:\n  - DeliveryStreamName: s1\n"))
        #expect(error.field == "")
        #expect(error.message.contains("unknown field 'DeliveryStream'"))
    }

    @Test func wrongTypeNamesTheField() throws {
        let error = try #require(
            failure(
                """
                DeliveryStreams:
                  - DeliveryStreamName: s1
                    ExtendedS3DestinationConfiguration:
                      BucketARN: arn:aws:s3:::b
                      BufferingHints: {SizeInMBs: lots, IntervalInSeconds: 0}
                """))
        #expect(error.field == "DeliveryStreams[0].ExtendedS3DestinationConfiguration.BufferingHints.SizeInMBs")
        #expect(error.message == "expected a whole number.")
    }

    @Test func invalidYAMLIsReportedWithoutACrash() throws {
        let error = try #require(failure("DeliveryStreams: [unclosed\n"))
        #expect(error.message.hasPrefix("not valid YAML"))
    }

    @Test func authenticationMustBeVerifyOrOff() throws {
        let error = try #require(failure("Authentication: maybe\n"))
        #expect(error.field == "Authentication")
        #expect(error.message.contains("'verify' or 'off'"))
    }

    @Test func gzipLevelRange() throws {
        #expect(try parse("GzipLevel: 9\n").gzipLevel == 9)
        let error = try #require(failure("GzipLevel: 10\n"))
        #expect(error.field == "GzipLevel")
    }

    @Test func gzipImplementationNamesADeflate() throws {
        #expect(try parse("GzipLevel: 6\n").gzipImplementation == nil)
        #expect(try parse("GzipImplementation: libdeflate\n").gzipImplementation == .libdeflate)
        #expect(try parse("GzipImplementation: ZLIB\n").gzipImplementation == .zlib)
        let error = try #require(failure("GzipImplementation: isal\n"))
        #expect(error.field == "GzipImplementation")
        #expect(error.message == "must be 'zlib' or 'libdeflate', not 'isal'.")
    }

    @Test func credentialExpirationIsISO8601() throws {
        let file = try parse(
            "Credentials:\n  - {AccessKeyId: A, SecretAccessKey: s, SessionToken: t, Expiration: '2026-11-21T15:00:00Z'}\n"
        )
        #expect(file.credentials.first?.expiration == Date(timeIntervalSince1970: 1_795_273_200))
        let error = try #require(failure("Credentials:\n  - {AccessKeyId: A, SecretAccessKey: s, Expiration: soon}\n"))
        #expect(error.field == "Credentials[0].Expiration")
    }

    @Test func emptyCredentialsAreRefused() throws {
        let error = try #require(failure("Credentials:\n  - {AccessKeyId: '', SecretAccessKey: x}\n"))
        #expect(error.field == "Credentials[0]")
    }

    @Test func missingFileNamesTheReason() throws {
        do {
            _ = try ConfigurationFile.load(path: "/nonexistent/firehose.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(
                error.description == "/nonexistent/firehose.yaml: cannot read the file (No such file or directory).")
        }
    }
}

@Suite struct ResolvedSettingsTests {
    func resolve(_ arguments: [String], environment: [String: String] = [:]) throws -> ResolvedSettings {
        let command = try ServeCommand.parse(arguments)
        return try ResolvedSettings(command: command, environment: environment)
    }

    @Test func defaults() throws {
        let settings = try resolve([])
        #expect(settings.host == "127.0.0.1")
        #expect(settings.port == 4573)
        #expect(settings.dataDirectory == FileManager.default.currentDirectoryPath + "/firehose-data")
        #expect(settings.region == "us-east-1")
        #expect(settings.accountID == "000000000000")
        #expect(settings.logLevel == .info)
        #expect(settings.configPath == nil)
    }

    @Test func environmentFillsWhatTheCommandLineLeavesOut() throws {
        let settings = try resolve(
            ["--port", "9000"],
            environment: [
                "FIREHOSE_LOCAL_PORT": "1234", "FIREHOSE_LOCAL_HOST": "0.0.0.0", "FIREHOSE_LOCAL_DATA_DIR": "/srv/data",
                "FIREHOSE_LOCAL_CONFIG": "/etc/fh.yaml", "FIREHOSE_LOCAL_REGION": "eu-west-1",
                "FIREHOSE_LOCAL_ACCOUNT_ID": "123456789012", "FIREHOSE_LOCAL_LOG_LEVEL": "DEBUG",
                "FIREHOSE_LOCAL_PORT_FILE": "/tmp/port",
            ])
        #expect(settings.port == 9000)
        #expect(settings.host == "0.0.0.0")
        #expect(settings.dataDirectory == "/srv/data")
        #expect(settings.configPath == "/etc/fh.yaml")
        #expect(settings.region == "eu-west-1")
        #expect(settings.accountID == "123456789012")
        #expect(settings.logLevel == .debug)
        #expect(settings.portFile == "/tmp/port")
    }

    @Test(arguments: [
        (["--port", "70000"], "port"), (["--region", "US_EAST"], "region"), (["--account-id", "12"], "account id"),
        (["--log-level", "loud"], "log level"),
    ])
    func invalidValuesAreExplained(arguments: [String], subject: String) throws {
        do {
            _ = try resolve(arguments)
            Issue.record("expected an error for \(arguments)")
        } catch let error as ServeError {
            #expect(error.description.hasPrefix(subject))
        }
    }

    @Test func invalidPortFromTheEnvironment() throws {
        #expect(throws: ServeError.self) { try resolve([], environment: ["FIREHOSE_LOCAL_PORT": "http"]) }
    }

    @Test("Buckets map buckets to stores: static credentials, the environment, a profile of the shared file")
    func bucketStores() throws {
        let credentialsFile = FileManager.default.temporaryDirectory.appendingPathComponent("credentials-\(UUID())")
        try Data(
            "# comment\n[default]\naws_access_key_id = AKIDDEFAULT\n[ci]\naws_access_key_id=AKIDCI\naws_secret_access_key = ci-secret \naws_session_token = ci-token\n"
                .utf8
        )
        .write(to: credentialsFile)
        defer { try? FileManager.default.removeItem(at: credentialsFile) }
        let file = try ConfigurationFile.parse(
            Data(
                """
                Buckets:
                  - {Name: static, Endpoint: "http://127.0.0.1:9000/", Credentials: {AccessKeyId: k, SecretAccessKey: s}}
                  - {Name: from-env, Endpoint: "https://s3.example.com", Region: eu-west-1, StoreBucket: real-one,
                     AddressingStyle: virtual, CredentialsFrom: environment}
                  - {Name: from-profile, Endpoint: "http://minio:9000", CredentialsFrom: "profile:ci",
                     MultipartThresholdMB: 64, PartSizeMB: 16}
                """.utf8), path: "c.yaml",
            environment: [
                "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "env-secret",
                "AWS_SHARED_CREDENTIALS_FILE": credentialsFile.path,
            ])
        let local = try #require(file.stores["static"])
        #expect(local.endpoint.absoluteString == "http://127.0.0.1:9000" && local.region.isEmpty)
        #expect(local.bucket == "static" && local.pathStyle)
        #expect(local.credentials == AWSCredentials(accessKeyId: "k", secretAccessKey: "s"))
        #expect(local.multipartThreshold == 16 << 20 && local.partSize == 8 << 20)
        let env = try #require(file.stores["from-env"])
        #expect(env.endpoint.absoluteString == "https://s3.example.com" && env.region == "eu-west-1")
        #expect(env.bucket == "real-one" && !env.pathStyle)
        #expect(env.credentials == AWSCredentials(accessKeyId: "AKIDENV", secretAccessKey: "env-secret"))
        let profile = try #require(file.stores["from-profile"])
        #expect(profile.multipartThreshold == 64 << 20 && profile.partSize == 16 << 20)
        #expect(
            profile.credentials
                == AWSCredentials(accessKeyId: "AKIDCI", secretAccessKey: "ci-secret", sessionToken: "ci-token"))
        // The default profile has no secret: refused, naming the profile and the file.
        let incomplete = #expect(throws: ConfigurationError.self) {
            try ConfigurationFile.parse(
                Data(
                    "Buckets: [{Name: bucket-b, Endpoint: \"http://h:1\", CredentialsFrom: \"profile:default\"}]".utf8),
                path: "c.yaml", environment: ["AWS_SHARED_CREDENTIALS_FILE": credentialsFile.path])
        }
        #expect(incomplete?.field == "Buckets[0].CredentialsFrom")
        #expect(incomplete?.message.contains(credentialsFile.path) == true)
        let noEnvironment = #expect(throws: ConfigurationError.self) {
            try ConfigurationFile.parse(
                Data("Buckets: [{Name: bucket-b, Endpoint: \"http://h:1\", CredentialsFrom: environment}]".utf8),
                path: "c.yaml", environment: [:])
        }
        #expect(noEnvironment?.message.contains("AWS_ACCESS_KEY_ID") == true)
    }
}
