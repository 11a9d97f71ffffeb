import DurableStorage
import FirehoseWire
import Foundation
import Synchronization
import Testing

@testable import FirehoseSink

@Suite("Delivery roles: a stage writes only what its role may write, when roles are checked")
struct DeliveryRoleTests {
    static let mainRole = "arn:aws:iam::000000000000:role/Main"
    static let backupRole = "arn:aws:iam::000000000000:role/Backup"

    /// A stream writing as `Main`, its source-record backup as `Backup`.
    static func stream() throws -> DeliveryStreamSettings {
        var main = destination(delimiter: true)
        main.roleARN = mainRole
        var backup = destination(bucket: "backup-bucket", prefix: "source/", compression: "UNCOMPRESSED")
        backup.roleARN = backupRole
        var stream = try settings(main)
        stream.backUp(with: try settings(backup))
        return stream
    }

    @Test("A refused role keeps its stage's buffer staged with S3.AccessDenied and why; allowed later, it is delivered")
    func refusedThenAllowed() async throws {
        try await SinkHarness.with { harness in
            let asked = Mutex<[DeliveryRoleRequest]>([])
            let refusedRole = Mutex<String?>(Self.backupRole)
            harness.sink.deliveryRoles.set { request in
                asked.withLock { $0.append(request) }
                return request.roleARN == refusedRole.withLock({ $0 })
                    ? DeliveryRoleRefusal(.notAllowed, "the backup role may not") : nil
            }
            try harness.sink.createStream(try Self.stream())
            try await harness.put(["one", "two"])
            do {
                _ = try await harness.sink.flush()
                Issue.record("the backup's delivery was refused, so the flush fails")
            } catch let error as SinkError {
                let (delivered, failures) = try #require(error.undelivered)
                #expect(delivered.map(\.bucket) == ["demo-bucket"])
                let failure = try #require(failures.first)
                #expect(failure.stream == "demo" && failure.stagedRecords == 2)
                #expect(failure.error.operation == "S3.AccessDenied")
                #expect(failure.error.path.hasPrefix("s3://backup-bucket/source/"))
                #expect(failure.error.detail?.hasSuffix("(the backup role may not)") == true)
                #expect(failure.error.detail?.hasPrefix("Access was denied. Ensure that the trust policy") == true)
            }
            let requests = asked.withLock { $0 }
            #expect(Set(requests.map(\.roleARN)) == [Self.mainRole, Self.backupRole])
            #expect(requests.allSatisfy { $0.stream == "demo" && $0.action == "s3:PutObject" })
            let backupRequest = try #require(requests.first { $0.roleARN == Self.backupRole })
            #expect(backupRequest.resource.hasPrefix("arn:aws:s3:::backup-bucket/source/"))
            #expect(harness.sink.tracker.counters("demo").deliveryFailing)

            // The role fixed: the next attempt delivers what stayed staged, whole.
            refusedRole.withLock { $0 = nil }
            let objects = try await harness.sink.flush()
            let backup = try #require(objects.first { $0.isBackup })
            #expect(try harness.contents(of: backup) == Array("onetwo".utf8))
            #expect(harness.sink.tracker.counters("demo").backupRecordsDelivered == 2)
        }
    }

    @Test(
        "A role that may not invoke the processor's function fails each attempt as AWS logs it; the records go to processing-failed, the function never runs"
    )
    func lambdaInvokeRefused() async throws {
        let function = try TransformFunction()
        defer { function.remove() }
        try await SinkHarness.with { harness in
            let asked = Mutex<[DeliveryRoleRequest]>([])
            harness.sink.deliveryRoles.set { request in
                asked.withLock { $0.append(request) }
                switch request.action {
                case "lambda:InvokeFunction":
                    return DeliveryRoleRefusal(.notAllowed, "no policy allows lambda:InvokeFunction")
                default: return nil
                }
            }
            var main = destination(delimiter: true)
            main.roleARN = Self.mainRole
            try harness.sink.createStream(try transformedSettings(function.function("ok"), main, retries: 2))
            try await harness.put(["one", "two"])
            let objects = try await harness.sink.flush()
            #expect(objects.map(\.errorOutputType) == ["processing-failed"])
            let records = try errorRecords(try harness.contents(of: objects[0]))
            #expect(records.count == 2)
            #expect(records.allSatisfy { $0["errorCode"] as? String == "Lambda.InvokeAccessDenied" })
            #expect(
                records.allSatisfy {
                    $0["errorMessage"] as? String
                        == "Access was denied. Ensure that the access policy allows access to the Lambda function. (no policy allows lambda:InvokeFunction)"
                })
            #expect(records.allSatisfy { $0["attemptsMade"] as? Int == 3 })
            #expect(function.events.isEmpty, "the function is never invoked")
            let invoke = try #require(asked.withLock { $0 }.first { $0.action == "lambda:InvokeFunction" })
            #expect(
                invoke
                    == DeliveryRoleRequest(
                        stream: "demo", roleARN: Self.mainRole, action: "lambda:InvokeFunction", resource: functionARN))
        }
        #expect(
            LambdaContract.Failure.accessDenied(DeliveryRoleRefusal(.cannotAssume, "no such role")).code
                == "Lambda.AssumeRoleAccessDenied")
    }

    @Test("A role changed with UpdateDestination is the one checked from the next object on")
    func updatedRole() async throws {
        try await SinkHarness.with { harness in
            let asked = Mutex<[String]>([])
            harness.sink.deliveryRoles.set { request in
                asked.withLock { $0.append(request.roleARN) }
                return nil
            }
            try harness.sink.createStream(try Self.stream())
            var main = destination(delimiter: true)
            main.roleARN = "arn:aws:iam::000000000000:role/Updated"
            var updated = try settings(main)
            updated.versionID = 2
            try await harness.sink.updateStream(updated, record: try #require(harness.sink.record(of: "demo")))
            try await harness.put(["after"])
            _ = try await harness.sink.flush()
            #expect(asked.withLock { $0 } == ["arn:aws:iam::000000000000:role/Updated"])
        }
    }

    @Test("Nothing is checked until a check is set")
    func uncheckedByDefault() async throws {
        try await SinkHarness.with { harness in
            try harness.sink.createStream(try Self.stream())
            try await harness.put(["free"])
            #expect(try await harness.sink.flush().count == 2)
        }
    }
}
