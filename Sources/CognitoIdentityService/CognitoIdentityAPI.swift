package import AWSSigV4
package import FirehoseWire
package import Logging
package import ServerCore

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// Amazon Cognito Identity (2014-06-30, AWS JSON 1.1) on the server's port: identity pools, their
/// identities, and temporary credentials for them that the Firehose and S3 endpoints accept.
///
/// GetId, GetCredentialsForIdentity and GetOpenIdToken are unsigned, as in AWS (a signature sent
/// anyway is ignored); the pool operations are signed with the server's configured credentials.
/// Login tokens are not checked with their providers: a non-empty token is accepted, and it names its
/// user by its `sub` claim when it is a JWT, else by itself (a hash of it is what is kept).
package struct CognitoIdentityAPI: Sendable {
    package static let targetPrefix = "AWSCognitoIdentityService."
    static let maxPools = 1_000

    package let store: CognitoStore
    let region: String
    let accountID: String
    /// How long issued credentials are valid (AWS: one hour).
    let credentialLifetime: TimeInterval
    /// The policies that bind a caller of the pool operations, if any do.
    let boundCaller: @Sendable (_ accessKeyID: String) -> BoundCaller?
    /// Whether a role exists here (its policies then bind the credentials issued for it).
    let roleExists: @Sendable (_ roleARN: String) -> Bool
    let verifier: SigV4Verifier?
    let logger: Logger

    package init(
        store: CognitoStore, region: String, accountID: String, credentialLifetime: TimeInterval,
        boundCaller: @escaping @Sendable (_ accessKeyID: String) -> BoundCaller?,
        roleExists: @escaping @Sendable (_ roleARN: String) -> Bool, verifier: SigV4Verifier?, logger: Logger
    ) {
        self.store = store
        self.region = region
        self.accountID = accountID
        self.credentialLifetime = credentialLifetime
        self.boundCaller = boundCaller
        self.roleExists = roleExists
        self.verifier = verifier
        self.logger = logger
    }

    package enum Operation: String, CaseIterable {
        case createIdentityPool = "CreateIdentityPool"
        case describeIdentityPool = "DescribeIdentityPool"
        case listIdentityPools = "ListIdentityPools"
        case updateIdentityPool = "UpdateIdentityPool"
        case deleteIdentityPool = "DeleteIdentityPool"
        case setIdentityPoolRoles = "SetIdentityPoolRoles"
        case getIdentityPoolRoles = "GetIdentityPoolRoles"
        case getId = "GetId"
        case getCredentialsForIdentity = "GetCredentialsForIdentity"
        case getOpenIdToken = "GetOpenIdToken"

        var isUnsigned: Bool { self == .getId || self == .getCredentialsForIdentity || self == .getOpenIdToken }
    }

    package func handle(_ request: APIRequest, target: String, body: [UInt8], now: Date) throws(FirehoseError)
        -> [UInt8]
    {
        guard let operation = Operation(rawValue: String(target.dropFirst(Self.targetPrefix.count))) else {
            throw .unknownOperation(
                "firehose-local's Cognito Identity does not serve \(target); it serves \(Operation.allCases.map(\.rawValue).joined(separator: ", "))."
            )
        }
        if !operation.isUnsigned, let verifier {
            let credentials = try verifier.verify(request, now: now)
            if let caller = boundCaller(credentials.accessKeyId) {
                let pool = (try? RequestJSON.decode(IdentityPoolIDInput.self, from: body))?.identityPoolId
                let resource =
                    operation == .createIdentityPool || operation == .listIdentityPools
                    ? "*" : pool.map { "arn:aws:cognito-identity:\(region):\(accountID):identitypool/\($0)" } ?? "*"
                try caller.authorize(action: "cognito-identity:\(operation.rawValue)", resource: resource)
                if operation == .setIdentityPoolRoles,
                    let roles = (try? RequestJSON.decode(SetIdentityPoolRolesInput.self, from: body))?.roles
                {
                    // As in AWS: giving a pool a role needs leave to pass that role.
                    for role in roles.values.sorted() { try caller.authorize(action: "iam:PassRole", resource: role) }
                }
            }
        }
        switch operation {
        case .createIdentityPool: return try create(body)
        case .describeIdentityPool: return Self.encode(try existing(try poolID(body)).pool)
        case .listIdentityPools: return try list(body)
        case .updateIdentityPool: return try update(body)
        case .deleteIdentityPool: return try delete(body)
        case .setIdentityPoolRoles: return try setRoles(body)
        case .getIdentityPoolRoles: return try getRoles(body)
        case .getId: return try getID(body, now: now)
        case .getCredentialsForIdentity: return try credentials(body, now: now)
        case .getOpenIdToken: return try openIDToken(body, now: now)
        }
    }

    // MARK: Pools

    private func create(_ body: [UInt8]) throws(FirehoseError) -> [UInt8] {
        var pool = try RequestJSON.decode(IdentityPool.self, from: body)
        pool.identityPoolId = nil
        try Self.validate(pool, creating: true)
        pool.identityPoolId = "\(region):\(UUID().uuidString.lowercased())"
        let created = try store.changePools { directory throws(FirehoseError) in
            guard directory.pools.count < Self.maxPools else {
                throw FirehoseError(
                    code: "LimitExceededException",
                    message: "You have reached the limit of \(Self.maxPools) identity pools in this account.")
            }
            var pools = directory.pools
            pools[pool.identityPoolId!] = StoredIdentityPool(pool: pool, roles: [:])
            return (pools, pool)
        }
        logger.info(
            "Identity pool created",
            metadata: [
                "identity_pool_id": .string(created.identityPoolId!), "name": .string(created.identityPoolName ?? ""),
            ])
        return Self.encode(created)
    }

    private func update(_ body: [UInt8]) throws(FirehoseError) -> [UInt8] {
        let pool = try RequestJSON.decode(IdentityPool.self, from: body)
        try Self.validate(pool, creating: false)
        let updated = try store.changePools { directory throws(FirehoseError) in
            var stored = try Self.existing(pool.identityPoolId!, in: directory)
            stored.pool = pool
            var pools = directory.pools
            pools[pool.identityPoolId!] = stored
            return (pools, pool)
        }
        logger.info("Identity pool updated", metadata: ["identity_pool_id": .string(updated.identityPoolId!)])
        return Self.encode(updated)
    }

    private func delete(_ body: [UInt8]) throws(FirehoseError) -> [UInt8] {
        let id = try poolID(body)
        try store.changePools { directory throws(FirehoseError) in
            _ = try Self.existing(id, in: directory)
            var pools = directory.pools
            pools[id] = nil
            return (pools, ())
        }
        logger.info("Identity pool deleted, with its identities", metadata: ["identity_pool_id": .string(id)])
        return Array("{}".utf8)
    }

    private func list(_ body: [UInt8]) throws(FirehoseError) -> [UInt8] {
        let input = try RequestJSON.decode(ListIdentityPoolsInput.self, from: body)
        var violations: [ValidationViolation] = []
        if let maxResults = input.maxResults {
            if let violation = ValidationViolation.outOfRange(maxResults, path: "maxResults", range: 1...60) {
                violations.append(violation)
            }
        } else {
            violations.append(.missing("maxResults"))
        }
        violations += ValidationViolation.string(
            input.nextToken, path: "nextToken", length: 1...65_535, pattern: "[\\S]+",
            matches: { !$0.unicodeScalars.contains(where: Self.isJavaSpace) })
        if !violations.isEmpty { throw .validation(violations) }
        let pools = store.read { $0.pools.values.map(\.pool) }.sorted { $0.identityPoolId! < $1.identityPoolId! }
        let after = input.nextToken.map { token in pools.filter { $0.identityPoolId! > token } } ?? pools
        let page = after.prefix(Int(input.maxResults!))
        let more = page.count < after.count
        return OrderedJSONEncoder.encode(
            ListIdentityPoolsOutput(
                IdentityPools: page.map {
                    .init(IdentityPoolId: $0.identityPoolId!, IdentityPoolName: $0.identityPoolName ?? "")
                },
                NextToken: more ? page.last?.identityPoolId : nil))
    }

    private func setRoles(_ body: [UInt8]) throws(FirehoseError) -> [UInt8] {
        let input = try RequestJSON.decode(SetIdentityPoolRolesInput.self, from: body)
        let violations = Self.poolIDViolations(input.identityPoolId) + Self.rolesViolations(input.roles)
        if !violations.isEmpty { throw .validation(violations) }
        if let mappings = input.roleMappings, mappings != .object([:]), mappings != .null {
            throw FirehoseError(
                code: "InvalidParameterException",
                message:
                    "RoleMappings are not supported by firehose-local: credentials always act as the pool's authenticated or unauthenticated role."
            )
        }
        let roles = input.roles!
        try Self.checkRoleARNs(roles)
        let id = input.identityPoolId!
        try store.changePools { directory throws(FirehoseError) in
            var stored = try Self.existing(id, in: directory)
            stored.roles = roles
            var pools = directory.pools
            pools[id] = stored
            return (pools, ())
        }
        logger.info(
            "Identity pool roles set",
            metadata: [
                "identity_pool_id": .string(id),
                "roles": .dictionary(roles.mapValues { .string($0) }),
            ])
        return Array("{}".utf8)
    }

    private func getRoles(_ body: [UInt8]) throws(FirehoseError) -> [UInt8] {
        let id = try poolID(body)
        let stored = try existing(id)
        return OrderedJSONEncoder.encode(GetIdentityPoolRolesOutput(IdentityPoolId: id, Roles: stored.roles))
    }

    // MARK: Identities and credentials

    private func getID(_ body: [UInt8], now: Date) throws(FirehoseError) -> [UInt8] {
        let input = try RequestJSON.decode(CognitoWire.GetIdInput.self, from: body)
        var violations = Self.poolIDViolations(input.IdentityPoolId)
        violations += ValidationViolation.string(
            input.AccountId, path: "accountId", length: 1...15, pattern: "\\d+",
            matches: { $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } })
        violations += Self.loginsViolations(input.Logins)
        if !violations.isEmpty { throw .validation(violations) }
        let stored = try existing(input.IdentityPoolId!)
        let logins = try Self.linkedLogins(input.Logins ?? [:], pool: stored.pool)
        if logins.isEmpty, stored.pool.allowUnauthenticatedIdentities != true { throw Self.unauthenticatedRefused }
        let identity = try store.identity(pool: input.IdentityPoolId!, logins: logins, now: now)
        return OrderedJSONEncoder.encode(CognitoWire.GetIdOutput(IdentityId: identity.identityId))
    }

    private func credentials(_ body: [UInt8], now: Date) throws(FirehoseError) -> [UInt8] {
        let input = try RequestJSON.decode(CognitoWire.IdentityInput.self, from: body)
        var violations = Self.identityInputViolations(input)
        violations += ValidationViolation.string(input.CustomRoleArn, path: "customRoleArn", length: 20...2048)
        if !violations.isEmpty { throw .validation(violations) }
        let (identity, stored) = try authorized(input)
        let roleType = identity.isAuthenticated ? "authenticated" : "unauthenticated"
        guard let role = stored.roles[roleType] else {
            throw FirehoseError(
                code: "InvalidIdentityPoolConfigurationException",
                message: "Invalid identity pool configuration. Check assigned IAM roles for this pool.")
        }
        if let custom = input.CustomRoleArn, custom != role {
            throw FirehoseError(
                code: "InvalidParameterException",
                message:
                    "CustomRoleArn \(custom) is not this identity's role: firehose-local issues credentials for the pool's \(roleType) role only (\(role))."
            )
        }
        let grant: CredentialGrant
        do {
            grant = try store.credentials.issue(
                for: identity, roleArn: role, bound: roleExists(role), lifetime: credentialLifetime, now: now)
        } catch {
            throw .cognitoStorage(error)
        }
        logger.info(
            "Credentials issued",
            metadata: [
                "identity_id": .string(identity.identityId), "role": .string(role),
                "access_key_id": .string(grant.accessKeyId), "expires": .stringConvertible(Int(grant.expiration)),
            ])
        return OrderedJSONEncoder.encode(
            CognitoWire.GetCredentialsForIdentityOutput(
                IdentityId: identity.identityId,
                Credentials: .init(
                    AccessKeyId: grant.accessKeyId, SecretKey: grant.secretAccessKey, SessionToken: grant.sessionToken,
                    Expiration: grant.expiration)))
    }

    /// Cognito's OpenID token for the identity: a JWT with its `sub`, `aud` (the pool) and `amr`,
    /// valid 10 minutes, which STS's AssumeRoleWithWebIdentity takes (`OpenIDTokens`).
    private func openIDToken(_ body: [UInt8], now: Date) throws(FirehoseError) -> [UInt8] {
        let input = try RequestJSON.decode(CognitoWire.IdentityInput.self, from: body)
        let violations = Self.identityInputViolations(input)
        if !violations.isEmpty { throw .validation(violations) }
        let (identity, stored) = try authorized(input)
        // The basic flow's first step: a pool must allow it, as AWS's do only with AllowClassicFlow.
        guard stored.pool.allowClassicFlow == true else {
            throw FirehoseError(
                code: "InvalidParameterException",
                message: "Basic (classic) flow is not enabled, please use enhanced flow.")
        }
        let issued = Int(now.timeIntervalSince1970)
        let token = store.tokens.token(
            for: OpenIDTokens.Claims(
                sub: identity.identityId, aud: identity.identityPoolId, amr: identity.amr, iat: issued,
                exp: issued + 600))
        return OrderedJSONEncoder.encode(
            CognitoWire.GetOpenIdTokenOutput(IdentityId: identity.identityId, Token: token))
    }

    /// The identity and its pool, when the request's logins allow acting as it: an authenticated
    /// identity needs one of its logins; an unauthenticated one, a pool that allows them.
    private func authorized(_ input: CognitoWire.IdentityInput) throws(FirehoseError) -> (
        CognitoIdentity, StoredIdentityPool
    ) {
        let id = input.IdentityId!
        let found = store.read { directory in
            directory.identities[id].flatMap { identity in
                directory.pools[identity.identityPoolId].map { (identity, $0) }
            }
        }
        guard let (identity, stored) = found else {
            throw FirehoseError(code: "ResourceNotFoundException", message: "Identity '\(id)' not found.")
        }
        let logins = try Self.linkedLogins(input.Logins ?? [:], pool: stored.pool)
        if identity.isAuthenticated || !logins.isEmpty {
            guard !logins.isEmpty, logins.allSatisfy({ identity.logins.contains($0) }) else {
                throw FirehoseError(
                    code: "NotAuthorizedException",
                    message:
                        "Logins don't match. Please include at least one valid login for this identity or identity pool."
                )
            }
        } else if stored.pool.allowUnauthenticatedIdentities != true {
            throw Self.unauthenticatedRefused
        }
        return (identity, stored)
    }

    private static let unauthenticatedRefused = FirehoseError(
        code: "NotAuthorizedException", message: "Unauthenticated access is not supported for this identity pool.")

    /// The logins as identities link them, each from a provider the pool names.
    private static func linkedLogins(_ logins: [String: String], pool: IdentityPool) throws(FirehoseError)
        -> [LinkedLogin]
    {
        let providers = pool.loginProviderNames
        var linked: [LinkedLogin] = []
        for (provider, token) in logins.sorted(by: { $0.key < $1.key }) {
            guard providers.contains(provider) else {
                throw FirehoseError(
                    code: "NotAuthorizedException",
                    message: "Token is not from a supported provider of this identity pool.")
            }
            linked.append(LinkedLogin(provider: provider, user: Self.user(of: token)))
        }
        return linked
    }

    /// Who a login token stands for: a JWT's `sub` claim (its signature is not checked), else the
    /// token itself, kept as its SHA-256.
    static func user(of token: String) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 3, let payload = Base64.decodeURL(parts[1]),
            let claims = try? JSONDecoder().decode(JSONValue.self, from: Data(payload)),
            let subject = claims["sub"]?.stringValue, !subject.isEmpty
        {
            return "sub:" + subject
        }
        return "token-sha256:" + SHA256Hex.hash(token)
    }

    // MARK: Validation

    private func poolID(_ body: [UInt8]) throws(FirehoseError) -> String {
        let input = try RequestJSON.decode(IdentityPoolIDInput.self, from: body)
        let violations = Self.poolIDViolations(input.identityPoolId)
        if !violations.isEmpty { throw .validation(violations) }
        return input.identityPoolId!
    }

    private func existing(_ id: String) throws(FirehoseError) -> StoredIdentityPool {
        guard let stored = store.read({ $0.pools[id] }) else { throw Self.poolNotFound(id) }
        return stored
    }

    private static func existing(_ id: String, in directory: IdentityDirectory) throws(FirehoseError)
        -> StoredIdentityPool
    {
        guard let stored = directory.pools[id] else { throw poolNotFound(id) }
        return stored
    }

    private static func poolNotFound(_ id: String) -> FirehoseError {
        FirehoseError(code: "ResourceNotFoundException", message: "IdentityPool '\(id)' not found.")
    }

    static let idPattern = "[\\w-]+:[0-9a-f-]+"

    /// `[\w-]+:[0-9a-f-]+`, Java's `\w` being ASCII letters, digits and `_`.
    static func isID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, colon < bytes.count - 1 else {
            return false
        }
        return bytes[..<colon].allSatisfy { isWordCharacter($0) || $0 == UInt8(ascii: "-") }
            && bytes[(colon + 1)...].allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
                    || $0 == UInt8(ascii: "-")
            }
    }

    private static func isWordCharacter(_ byte: UInt8) -> Bool {
        byte.isASCIIAlphanumeric || byte == UInt8(ascii: "_")
    }

    private static func isJavaSpace(_ scalar: Unicode.Scalar) -> Bool {
        [" ", "\t", "\n", "\u{0B}", "\u{0C}", "\r"].contains(scalar)
    }

    private static func poolIDViolations(_ id: String?) -> [ValidationViolation] {
        ValidationViolation.string(
            id, path: "identityPoolId", required: true, length: 1...55, pattern: idPattern, matches: isID)
    }

    private static func identityInputViolations(_ input: CognitoWire.IdentityInput) -> [ValidationViolation] {
        ValidationViolation.string(
            input.IdentityId, path: "identityId", required: true, length: 1...55, pattern: idPattern, matches: isID)
            + loginsViolations(input.Logins)
    }

    private static func loginsViolations(_ logins: [String: String]?) -> [ValidationViolation] {
        guard let logins else { return [] }
        var violations: [ValidationViolation] = []
        if logins.count > 10 {
            violations.append(
                ValidationViolation(
                    value: nil, path: "logins", constraint: "Member must have length less than or equal to 10"))
        }
        for (provider, token) in logins.sorted(by: { $0.key < $1.key }) {
            violations += ValidationViolation.string(provider, path: "logins", length: 1...128)
            violations += ValidationViolation.string(token, path: "logins", length: 1...50_000, rendered: "***")
        }
        return violations
    }

    private static func validate(_ pool: IdentityPool, creating: Bool) throws(FirehoseError) {
        var violations: [ValidationViolation] = []
        if !creating { violations += poolIDViolations(pool.identityPoolId) }
        violations += ValidationViolation.string(
            pool.identityPoolName, path: "identityPoolName", required: true, length: 1...128,
            pattern: "[\\w\\s+=,.@-]+",
            matches: {
                $0.unicodeScalars.allSatisfy { scalar in
                    scalar.isASCII
                        && (isWordCharacter(UInt8(scalar.value)) || isJavaSpace(scalar)
                            || "+=,.@-".unicodeScalars.contains(scalar))
                }
            })
        if pool.allowUnauthenticatedIdentities == nil { violations.append(.missing("allowUnauthenticatedIdentities")) }
        violations += ValidationViolation.string(
            pool.developerProviderName, path: "developerProviderName", length: 1...128, pattern: "[\\w._-]+",
            matches: {
                $0.utf8.allSatisfy { isWordCharacter($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
            }
        )
        if let providers = pool.supportedLoginProviders {
            if providers.count > 10 {
                violations.append(
                    ValidationViolation(
                        value: nil, path: "supportedLoginProviders",
                        constraint: "Member must have length less than or equal to 10"))
            }
            for (name, id) in providers.sorted(by: { $0.key < $1.key }) {
                violations += ValidationViolation.string(name, path: "supportedLoginProviders", length: 1...128)
                violations += ValidationViolation.string(id, path: "supportedLoginProviders", length: 1...128)
            }
        }
        for (index, provider) in (pool.cognitoIdentityProviders ?? []).enumerated() {
            violations += ValidationViolation.string(
                provider.providerName, path: "cognitoIdentityProviders.\(index + 1).member.providerName",
                length: 1...128, pattern: "[\\w._:/-]+",
                matches: { $0.utf8.allSatisfy { isWordCharacter($0) || "._:/-".utf8.contains($0) } })
            violations += ValidationViolation.string(
                provider.clientId, path: "cognitoIdentityProviders.\(index + 1).member.clientId", length: 1...128,
                pattern: "[\\w_]+", matches: { $0.utf8.allSatisfy(isWordCharacter) })
        }
        for (index, arn) in (pool.openIdConnectProviderARNs ?? []).enumerated() {
            violations += ValidationViolation.string(
                arn, path: "openIdConnectProviderARNs.\(index + 1).member", length: 20...2048)
        }
        for (index, arn) in (pool.samlProviderARNs ?? []).enumerated() {
            violations += ValidationViolation.string(
                arn, path: "samlProviderARNs.\(index + 1).member", length: 20...2048)
        }
        for (key, value) in (pool.identityPoolTags ?? [:]).sorted(by: { $0.key < $1.key }) {
            violations += ValidationViolation.string(key, path: "identityPoolTags", length: 1...128)
            violations += ValidationViolation.string(value, path: "identityPoolTags", length: 0...256)
        }
        if !violations.isEmpty { throw .validation(violations) }
    }

    private static func rolesViolations(_ roles: [String: String]?) -> [ValidationViolation] {
        guard let roles else { return [.missing("roles")] }
        var violations: [ValidationViolation] = []
        if roles.count > 2 {
            violations.append(
                ValidationViolation(
                    value: nil, path: "roles", constraint: "Member must have length less than or equal to 2"))
        }
        for (type, arn) in roles.sorted(by: { $0.key < $1.key }) {
            violations += ValidationViolation.string(
                type, path: "roles", length: 1...128, pattern: "(un)?authenticated",
                matches: { $0 == "authenticated" || $0 == "unauthenticated" })
            violations += ValidationViolation.string(arn, path: "roles", length: 20...2048)
        }
        return violations
    }

    private static func checkRoleARNs(_ roles: [String: String]) throws(FirehoseError) {
        for arn in roles.values.sorted() where !isRoleARN(arn) {
            throw FirehoseError(code: "InvalidParameterException", message: "Invalid roles ARN: \(arn)")
        }
    }

    /// A pool of the configuration file, checked as CreateIdentityPool and SetIdentityPoolRoles check
    /// theirs. Without an `IdentityPoolId` it gets one made from its name, the same at every start, so
    /// an app can be configured with it.
    package static func configuredPool(_ pool: IdentityPool, roles: [String: String], region: String)
        throws(FirehoseError) -> StoredIdentityPool
    {
        var pool = pool
        if pool.identityPoolId == nil, let name = pool.identityPoolName {
            let hex = Array(SHA256Hex.hash("firehose-local identity pool \(name)").prefix(32))
            let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }
            pool.identityPoolId = "\(region):" + groups.joined(separator: "-")
        }
        try validate(pool, creating: false)
        let violations = rolesViolations(roles)
        if !violations.isEmpty { throw .validation(violations) }
        try checkRoleARNs(roles)
        return StoredIdentityPool(pool: pool, roles: roles)
    }

    /// `arn:aws:iam::ACCOUNT:role/NAME` (any partition, any path).
    package static func isRoleARN(_ arn: String) -> Bool {
        let parts = arn.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
        return parts.count == 6 && parts[0] == "arn" && !parts[1].isEmpty && parts[2] == "iam" && parts[3].isEmpty
            && !parts[4].isEmpty && parts[5].hasPrefix("role/") && parts[5].count > 5
    }

    // MARK: Encoding

    /// A pool as DescribeIdentityPool, CreateIdentityPool and UpdateIdentityPool answer it.
    private static func encode(_ pool: IdentityPool) -> [UInt8] { OrderedJSONEncoder.encode(pool) }
}
