package import AWSSigV4
import FirehoseWire
import IAMPolicy
package import Logging
package import ServerCore

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The part of IAM (2010-05-08, the Query protocol: a form-encoded `Action` in, XML out) a test needs
/// to give a Cognito pool's role its policies at run time: CreateRole, GetRole, ListRoles, DeleteRole,
/// PutRolePolicy, GetRolePolicy, ListRolePolicies, DeleteRolePolicy. Signed with service `iam`, for any
/// region: IAM is global, and SDKs given an endpoint sign it for their own region.
package struct IAMAPI: Sendable {
    static let namespace = "https://iam.amazonaws.com/doc/2010-05-08/"
    static let version = "2010-05-08"

    let store: RoleStore
    let accountID: String
    let verifier: SigV4Verifier?
    let boundCaller: @Sendable (_ accessKeyID: String) -> BoundCaller?
    let logger: Logger

    package init(
        store: RoleStore, accountID: String, verifier: SigV4Verifier?,
        boundCaller: @escaping @Sendable (_ accessKeyID: String) -> BoundCaller?, logger: Logger
    ) {
        self.store = store
        self.accountID = accountID
        self.verifier = verifier
        self.boundCaller = boundCaller
        self.logger = logger
    }

    enum Operation: String, CaseIterable {
        case createRole = "CreateRole"
        case getRole = "GetRole"
        case listRoles = "ListRoles"
        case deleteRole = "DeleteRole"
        case putRolePolicy = "PutRolePolicy"
        case getRolePolicy = "GetRolePolicy"
        case listRolePolicies = "ListRolePolicies"
        case deleteRolePolicy = "DeleteRolePolicy"
    }

    /// The answer, with the operation (`unknown` for one not served, so a client cannot make up metric
    /// labels) and the error code (`OK` for a success) it is counted under.
    package func handle(_ request: APIRequest, parameters: [String: String], requestID: String, now: Date) -> (
        response: APIResponse, operation: String, code: String
    ) {
        let action = parameters["Action"] ?? ""
        let label = Operation(rawValue: action)?.rawValue ?? "unknown"
        do throws(FirehoseError) {
            guard let operation = Operation(rawValue: action) else {
                throw FirehoseError(
                    code: "InvalidAction",
                    message:
                        "Could not find operation \(action) for version \(parameters["Version"] ?? Self.version): firehose-local's IAM serves \(Operation.allCases.map(\.rawValue).joined(separator: ", "))."
                )
            }
            try authorize(request, operation: operation, parameters: parameters, now: now)
            let response: APIResponse
            switch operation {
            case .deleteRole, .putRolePolicy, .deleteRolePolicy:
                try change(operation, parameters, now: now)
                var metadata: Logger.Metadata = ["operation": .string(action)]
                metadata["role"] = parameters["RoleName"].map { .string($0) }
                metadata["policy"] = parameters["PolicyName"].map { .string($0) }
                logger.info("IAM role changed", metadata: metadata)
                response = try QueryProtocol.response(action: action, namespace: Self.namespace, requestID: requestID)
            default:
                let members: (inout S3XML) throws(FirehoseError) -> Void = { xml throws(FirehoseError) in
                    try read(operation, parameters, now: now, into: &xml)
                }
                response = try QueryProtocol.response(
                    action: action, namespace: Self.namespace, requestID: requestID, result: members)
            }
            return (response, label, "OK")
        } catch {
            return (
                QueryProtocol.errorResponse(error, requestID: requestID, namespace: Self.namespace), label, error.code
            )
        }
    }

    private func authorize(_ request: APIRequest, operation: Operation, parameters: [String: String], now: Date)
        throws(FirehoseError)
    {
        guard let verifier else { return }
        let credentials = try verifier.verifyQuery(request, now: now)
        guard let caller = boundCaller(credentials.accessKeyId) else { return }
        // The role's ARN: an existing role's own, or the one CreateRole would give it (with its path).
        let name = parameters["RoleName"]
        let resource =
            operation == .listRoles
            ? "*"
            : (name.flatMap { store.roles[$0.lowercased()]?.arn }
                ?? "arn:aws:iam::\(accountID):role\(parameters["Path"] ?? "/")\(name ?? "*")")
        do {
            try caller.authorize(action: "iam:\(operation.rawValue)", resource: resource)
        } catch {
            // IAM's own spelling and status for the refusal.
            throw FirehoseError(code: "AccessDenied", message: error.message, httpStatus: 403)
        }
    }

    // MARK: Operations

    private func read(_ operation: Operation, _ parameters: [String: String], now: Date, into xml: inout S3XML)
        throws(FirehoseError)
    {
        switch operation {
        case .createRole:
            let role = try create(parameters, now: now)
            logger.info("IAM role created", metadata: ["role": .string(role.arn)])
            Self.write(role, as: "Role", into: &xml)
        case .getRole:
            let role = try existing(try roleName(parameters), in: store.roles)
            Self.write(role, as: "Role", into: &xml)
        case .listRoles:
            let (maxItems, marker) = try Self.page(parameters)
            let prefix = parameters["PathPrefix"] ?? "/"
            let all = store.roles.values.filter { $0.path.hasPrefix(prefix) }.sorted { $0.key < $1.key }
            let after = marker.map { marker in all.filter { $0.key > marker } } ?? all
            let page = after.prefix(maxItems)
            xml.open("Roles")
            for role in page { Self.write(role, as: "member", into: &xml) }
            xml.close("Roles")
            Self.writeTruncation(truncated: page.count < after.count, marker: page.last?.key, into: &xml)
        case .getRolePolicy:
            let role = try existing(try roleName(parameters), in: store.roles)
            let name = try policyName(parameters)
            guard let document = role.policies[name] else {
                throw Self.noSuchEntity("The role policy with name \(name) cannot be found.")
            }
            xml.element("RoleName", role.roleName)
            xml.element("PolicyName", name)
            xml.element("PolicyDocument", Self.urlEncoded(document))
        case .listRolePolicies:
            let role = try existing(try roleName(parameters), in: store.roles)
            let (maxItems, marker) = try Self.page(parameters)
            let names = role.policies.keys.sorted().filter { marker == nil || $0 > marker! }
            let page = names.prefix(maxItems)
            xml.open("PolicyNames")
            for name in page { xml.element("member", name) }
            xml.close("PolicyNames")
            Self.writeTruncation(truncated: page.count < names.count, marker: page.last, into: &xml)
        case .deleteRole, .putRolePolicy, .deleteRolePolicy:
            preconditionFailure("\(operation.rawValue) answers nothing")
        }
    }

    private func create(_ parameters: [String: String], now: Date) throws(FirehoseError) -> IAMRole {
        let name = try roleName(parameters)
        var violations: [ValidationViolation] = []
        let path = parameters["Path"] ?? "/"
        violations += ValidationViolation.string(
            path, path: "path", length: 1...512, pattern: "(\\u002F)|(\\u002F[\\u0021-\\u007E]+\\u002F)",
            matches: {
                $0 == "/"
                    || ($0.count >= 3 && $0.hasPrefix("/") && $0.hasSuffix("/")
                        && $0.utf8.allSatisfy { (0x21...0x7E).contains($0) })
            })
        violations += ValidationViolation.string(
            parameters["AssumeRolePolicyDocument"], path: "assumeRolePolicyDocument", required: true,
            length: 1...131_072)
        violations += ValidationViolation.string(parameters["Description"], path: "description", length: 0...1000)
        var maxSession = 3_600
        if let text = parameters["MaxSessionDuration"] {
            if let value = Int(text) {
                maxSession = value
                if let violation = ValidationViolation.outOfRange(
                    value, path: "maxSessionDuration", range: 3_600...43_200)
                {
                    violations.append(violation)
                }
            } else {
                violations.append(
                    ValidationViolation(value: text, path: "maxSessionDuration", constraint: "Member must be a number"))
            }
        }
        if !violations.isEmpty { throw Self.validationError(violations) }
        if parameters["PermissionsBoundary"] != nil {
            throw FirehoseError(
                code: "InvalidInput",
                message:
                    "PermissionsBoundary is not supported by firehose-local: a role is bound by its inline policies only."
            )
        }
        let trust = parameters["AssumeRolePolicyDocument"]!
        guard case .object? = try? JSONDecoder().decode(JSONValue.self, from: Data(trust.utf8)) else {
            throw Self.malformed("Syntax errors in policy.")
        }
        let role = IAMRole(
            arn: "arn:aws:iam::\(accountID):role\(path)\(name)", roleName: name, path: path, roleID: IAMRole.newID(),
            createDate: now.timeIntervalSince1970.rounded(.down), assumeRolePolicyDocument: trust,
            description: parameters["Description"], maxSessionDuration: maxSession, policies: [:])
        return try store.change { roles throws(FirehoseError) in
            if roles[role.key] != nil {
                throw FirehoseError(
                    code: "EntityAlreadyExists", message: "Role with name \(name) already exists.", httpStatus: 409)
            }
            guard roles.count < RoleStore.maxRoles else {
                throw FirehoseError(
                    code: "LimitExceeded", message: "Cannot exceed quota for RolesPerAccount: \(RoleStore.maxRoles).",
                    httpStatus: 409)
            }
            var changed = roles
            changed[role.key] = role
            return (changed, role)
        }
    }

    private func change(_ operation: Operation, _ parameters: [String: String], now: Date) throws(FirehoseError) {
        let name = try roleName(parameters)
        switch operation {
        case .deleteRole:
            try store.change { roles throws(FirehoseError) in
                let role = try existing(name, in: roles)
                guard role.policies.isEmpty else {
                    throw FirehoseError(
                        code: "DeleteConflict", message: "Cannot delete entity, must delete policies first.",
                        httpStatus: 409)
                }
                var changed = roles
                changed[role.key] = nil
                return (changed, ())
            }
        case .putRolePolicy:
            let policy = try policyName(parameters)
            let violations = ValidationViolation.string(
                parameters["PolicyDocument"], path: "policyDocument", required: true, length: 1...131_072)
            if !violations.isEmpty { throw Self.validationError(violations) }
            let document = parameters["PolicyDocument"]!
            do throws(IAMPolicyError) {
                _ = try IAMPolicy(json: Array(document.utf8))
            } catch {
                throw Self.malformed(error.description)
            }
            try store.change { roles throws(FirehoseError) in
                var role = try existing(name, in: roles)
                role.policies[policy] = document
                let size = role.policies.values.reduce(0) { $0 + $1.filter { !$0.isWhitespace }.count }
                guard size <= 10_240 else {
                    throw FirehoseError(
                        code: "LimitExceeded",
                        message: "Maximum policy size of 10240 bytes exceeded for role \(role.roleName)",
                        httpStatus: 409)
                }
                var changed = roles
                changed[role.key] = role
                return (changed, ())
            }
        case .deleteRolePolicy:
            let policy = try policyName(parameters)
            try store.change { roles throws(FirehoseError) in
                var role = try existing(name, in: roles)
                guard role.policies.removeValue(forKey: policy) != nil else {
                    throw Self.noSuchEntity("The role policy with name \(policy) cannot be found.")
                }
                var changed = roles
                changed[role.key] = role
                return (changed, ())
            }
        default:
            preconditionFailure("\(operation.rawValue) changes nothing")
        }
    }

    // MARK: Parameters

    private func roleName(_ parameters: [String: String]) throws(FirehoseError) -> String {
        try Self.name(parameters["RoleName"], path: "roleName", length: 1...64)
    }

    private func policyName(_ parameters: [String: String]) throws(FirehoseError) -> String {
        try Self.name(parameters["PolicyName"], path: "policyName", length: 1...128)
    }

    private static func name(_ value: String?, path: String, length: ClosedRange<Int>) throws(FirehoseError)
        -> String
    {
        let violations = ValidationViolation.string(
            value, path: path, required: true, length: length, pattern: "[\\w+=,.@-]+",
            matches: QueryProtocol.isIAMNameText)
        if !violations.isEmpty { throw validationError(violations) }
        return value!
    }

    private static func page(_ parameters: [String: String]) throws(FirehoseError) -> (Int, String?) {
        var violations: [ValidationViolation] = []
        var maxItems = 100
        if let text = parameters["MaxItems"] {
            maxItems = Int(text) ?? 0
            if let violation = ValidationViolation.outOfRange(maxItems, path: "maxItems", range: 1...1000) {
                violations.append(violation)
            }
        }
        violations += ValidationViolation.string(parameters["Marker"], path: "marker", length: 1...320)
        if !violations.isEmpty { throw validationError(violations) }
        return (maxItems, parameters["Marker"])
    }

    private func existing(_ name: String, in roles: [String: IAMRole]) throws(FirehoseError) -> IAMRole {
        guard let role = roles[name.lowercased()] else {
            throw Self.noSuchEntity("The role with name \(name) cannot be found.")
        }
        return role
    }

    // MARK: Answers

    private static func write(_ role: IAMRole, as element: String, into xml: inout S3XML) {
        xml.open(element)
        xml.element("Path", role.path)
        xml.element("RoleName", role.roleName)
        xml.element("RoleId", role.roleID)
        xml.element("Arn", role.arn)
        xml.element("CreateDate", Date(timeIntervalSince1970: role.createDate).formatted(.iso8601))
        xml.element("AssumeRolePolicyDocument", urlEncoded(role.assumeRolePolicyDocument))
        if let description = role.description { xml.element("Description", description) }
        xml.element("MaxSessionDuration", String(role.maxSessionDuration))
        xml.close(element)
    }

    private static func writeTruncation(truncated: Bool, marker: String?, into xml: inout S3XML) {
        xml.element("IsTruncated", truncated ? "true" : "false")
        if truncated, let marker { xml.element("Marker", marker) }
    }

    /// IAM answers policy documents URL-encoded (RFC 3986); SDKs decode them.
    static func urlEncoded(_ text: String) -> String { URIEncoding.encode(text) }

    private static func noSuchEntity(_ message: String) -> FirehoseError {
        FirehoseError(code: "NoSuchEntity", message: message, httpStatus: 404)
    }

    private static func malformed(_ message: String) -> FirehoseError {
        FirehoseError(code: "MalformedPolicyDocument", message: message)
    }

    private static func validationError(_ violations: [ValidationViolation]) -> FirehoseError {
        FirehoseError(code: "ValidationError", message: FirehoseError.validation(violations).message)
    }
}
