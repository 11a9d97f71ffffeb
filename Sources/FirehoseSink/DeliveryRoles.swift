import DurableStorage
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One thing delivery does with a stream's role: an action on a resource, as IAM names them.
package struct DeliveryRoleRequest: Sendable, Equatable {
    package var stream: String
    /// The role the stage acts as: its S3 configuration's `RoleARN`, the destination's for a Lambda
    /// processor, the source's for a Kinesis data stream.
    package var roleARN: String
    /// `s3:PutObject`, `lambda:InvokeFunction`, `kinesis:GetRecords`, …
    package var action: String
    /// `arn:aws:s3:::BUCKET/KEY`, the function's or the data stream's ARN.
    package var resource: String

    package init(stream: String, roleARN: String, action: String, resource: String) {
        self.stream = stream
        self.roleARN = roleARN
        self.action = action
        self.resource = resource
    }
}

/// Why a role may not do what delivery does.
package struct DeliveryRoleRefusal: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// The role does not exist, or its trust policy does not let Firehose assume it.
        case cannotAssume
        /// Its policies do not allow the action on the resource.
        case notAllowed
    }

    package var kind: Kind
    /// firehose-local's words: which role, and what it lacks.
    package var reason: String

    package init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }
}

/// Whether streams' roles may do what delivery does, when the server checks them (off by default):
/// set once the IAM store exists, read at each delivery, so a role changed with IAM's PutRolePolicy
/// counts from the next attempt on.
package final class DeliveryRoleGate: Sendable {
    /// Why the role may not, or nil when it may.
    package typealias Check = @Sendable (DeliveryRoleRequest) -> DeliveryRoleRefusal?
    private let check = Mutex<Check?>(nil)

    package init() {}

    /// Starts (or, with nil, stops) checking.
    package func set(_ check: Check?) {
        self.check.withLock { $0 = check }
    }

    /// Why delivery may not do what `request` says; nil when it may, or nothing is checked (then
    /// `request`, which may look settings up, is not even made).
    package func refusal(_ request: () -> DeliveryRoleRequest?) -> DeliveryRoleRefusal? {
        guard let check = check.withLock({ $0 }), let request = request() else { return nil }
        return check(request)
    }
}

/// An object destination that writes only what the stage's role may write: a refusal fails the
/// delivery as S3 refusing it would (`S3.AccessDenied`, the code AWS's error log gives), so the buffer
/// stays staged and is retried.
struct RoleCheckedDestination: ObjectDestination {
    let inner: any ObjectDestination
    let stream: String
    /// The stage's role as the stream's settings say now: an UpdateDestination that changes it counts
    /// from the next object on. Nil: no role to check.
    let roleARN: @Sendable () -> String?
    let gate: DeliveryRoleGate

    /// AWS's message for the code (firehose/latest/dev/monitoring-with-cloudwatch-logs.html).
    static let accessDenied =
        "Access was denied. Ensure that the trust policy for the provided IAM role allows Kinesis Data Firehose to assume the role, and the access policy allows access to the S3 bucket."

    func deliver(_ staged: StagedObject, bucket: String, key: String) async throws(FileSystemError) -> String {
        let refusal = gate.refusal {
            roleARN().map {
                DeliveryRoleRequest(
                    stream: stream, roleARN: $0, action: "s3:PutObject", resource: "arn:aws:s3:::\(bucket)/\(key)")
            }
        }
        if let refusal {
            throw FileSystemError(
                operation: "S3.AccessDenied", path: "s3://\(bucket)/\(key)", errno: EACCES,
                detail: "\(Self.accessDenied) (\(refusal.reason))")
        }
        return try await inner.deliver(staged, bucket: bucket, key: key)
    }

    func isRemote(bucket: String) -> Bool { inner.isRemote(bucket: bucket) }
}

extension LambdaContract.Failure {
    /// A refused `lambda:InvokeFunction`, with the code and message AWS's error log gives each kind
    /// (monitoring-with-cloudwatch-logs.html, "Lambda invocation errors") and firehose-local's reason.
    static func accessDenied(_ refusal: DeliveryRoleRefusal) -> Self {
        switch refusal.kind {
        case .cannotAssume:
            Self(
                code: "Lambda.AssumeRoleAccessDenied",
                message:
                    "Access was denied. Ensure that the trust policy for the provided IAM role allows Kinesis Data Firehose to assume the role. (\(refusal.reason))"
            )
        case .notAllowed:
            Self(
                code: "Lambda.InvokeAccessDenied",
                message:
                    "Access was denied. Ensure that the access policy allows access to the Lambda function. (\(refusal.reason))"
            )
        }
    }
}
