import AWSSigV4
import FirehoseTestSupport
import FirehoseWire
import Foundation
import IAMPolicy
import Logging
import ServerCore
import ServiceTestSupport
import Testing

@testable import IAMService

/// IAM alone, as the front door hands it a request: a role store in a folder of its own, SigV4
/// verification against one key pair, and a fixed date.
final class IAMHarness {
    let directory: String
    var keepDirectory = false
    let date = Date(timeIntervalSince1970: 1_795_266_309)  // 2026-11-21T13:05:09Z
    let credentials = AWSCredentials(accessKeyId: "test", secretAccessKey: "test")
    let api: IAMAPI

    init(directory: String? = nil, configuredRoles: [String: [String]] = [:]) throws {
        let directory = try directory ?? TestDirectory("iam").url.path
        self.directory = directory
        let store = try RoleStore(folder: directory)
        try store.apply(configured: configuredRoles, now: date)
        let credentials = credentials
        api = IAMAPI(
            store: store, accountID: "123456789012",
            verifier: SigV4Verifier(region: "us-east-1", service: "iam") {
                $0 == credentials.accessKeyId ? credentials : nil
            },
            boundCaller: { _ in nil }, logger: Logger(label: "iam-tests"))
    }

    deinit {
        if !keepDirectory { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// An IAM Query call, signed for IAM (us-east-1) unless `sign` is false.
    func iam(_ action: String, _ parameters: [String: String] = [:], sign: Bool = true) -> APIResponse {
        let request = SignedRequests.post(
            target: nil, body: SignedRequests.iamQuery(action, parameters), credentials: sign ? credentials : nil,
            service: "iam", date: date, contentType: SignedRequests.formContentType)
        #expect(QueryProtocol.isQueryRequest(request, hasTarget: false))
        return api.handle(
            request, parameters: QueryProtocol.formParameters(request.body), requestID: "request-1", now: date
        ).response
    }
}

@Suite("IAM roles and inline policies (Query protocol)")
struct IAMAPITests {
    static let trust =
        #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"cognito-identity.amazonaws.com"},"Action":"sts:AssumeRoleWithWebIdentity"}]}"#

    @Test(
        "Roles from the configuration file exist at start, with their policies; roles made by the API survive a restart"
    )
    func configuredAndPersisted() throws {
        let policy =
            #"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"firehose:PutRecord","Resource":"*"}}"#
        var harness: IAMHarness? = try IAMHarness(
            configuredRoles: ["arn:aws:iam::123456789012:role/mobile/AppUnauth": [policy]])
        let directory = harness!.directory
        harness!.keepDirectory = true
        let configured = harness!.iam("GetRole", ["RoleName": "AppUnauth"])
        #expect(configured.status == 200)
        #expect(configured.header("Content-Type") == "text/xml")
        #expect(xmlText(configured, "Arn") == "arn:aws:iam::123456789012:role/mobile/AppUnauth")
        #expect(xmlText(configured, "Path") == "/mobile/")
        #expect(xmlText(configured, "RoleId")?.hasPrefix("AROA") == true)
        let document = harness!.iam("GetRolePolicy", ["RoleName": "appunauth", "PolicyName": "policy-1"])
        #expect(xmlText(document, "PolicyDocument") == IAMAPI.urlEncoded(policy))

        let created = harness!.iam(
            "CreateRole", ["RoleName": "Made", "AssumeRolePolicyDocument": Self.trust, "Description": "made here"])
        #expect(created.status == 200)
        #expect(xmlText(created, "Arn") == "arn:aws:iam::123456789012:role/Made")
        #expect(xmlText(created, "CreateDate") == "2026-11-21T13:05:09Z")
        #expect(
            harness!.iam("PutRolePolicy", ["RoleName": "Made", "PolicyName": "p", "PolicyDocument": policy])
                .status == 200)
        harness = nil

        let restarted = try IAMHarness(directory: directory)
        let listed = restarted.iam("ListRoles")
        let text = String(decoding: listed.body, as: UTF8.self)
        #expect(text.contains("<RoleName>AppUnauth</RoleName>") && text.contains("<RoleName>Made</RoleName>"))
        #expect(xmlText(listed, "IsTruncated") == "false")
        let names = restarted.iam("ListRolePolicies", ["RoleName": "Made"])
        #expect(xmlText(names, "member") == "p")
    }

    @Test("IAM's errors as IAM writes them: an XML ErrorResponse with the code, the status and the message")
    func errors() throws {
        let harness = try IAMHarness()
        let missing = harness.iam("GetRole", ["RoleName": "Nobody"])
        #expect(missing.status == 404)
        #expect(xmlText(missing, "Code") == "NoSuchEntity")
        #expect(xmlText(missing, "Type") == "Sender")
        #expect(xmlText(missing, "Message") == "The role with name Nobody cannot be found.")
        #expect(xmlText(missing, "RequestId")?.isEmpty == false)
        let action = harness.iam("AssumeRoleWithWebIdentity")
        #expect(action.status == 400)
        #expect(xmlText(action, "Code") == "InvalidAction")
        let noTrust = harness.iam("CreateRole", ["RoleName": "R"])
        #expect(xmlText(noTrust, "Code") == "ValidationError")
        #expect(
            xmlText(noTrust, "Message")
                == "1 validation error detected: Value null at 'assumeRolePolicyDocument' failed to satisfy constraint: Member must not be null"
        )
        #expect(
            harness.iam("CreateRole", ["RoleName": "R", "AssumeRolePolicyDocument": Self.trust]).status == 200)
        let principal = harness.iam(
            "PutRolePolicy",
            [
                "RoleName": "R", "PolicyName": "p",
                "PolicyDocument": #"{"Statement":{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*"}}"#,
            ])
        #expect(xmlText(principal, "Code") == "MalformedPolicyDocument")
        // IAM's quota: 10,240 characters of inline policy per role, whitespace not counted.
        let actions = (0..<600).map { #""firehose:Action\#($0)""# }.joined(separator: ",")
        let large = #"{"Statement":{"Effect":"Allow","Action":[\#(actions)],"Resource":"*"}}"#
        let tooLarge = harness.iam(
            "PutRolePolicy", ["RoleName": "R", "PolicyName": "large", "PolicyDocument": large])
        #expect(tooLarge.status == 409)
        #expect(xmlText(tooLarge, "Code") == "LimitExceeded")
        #expect(xmlText(tooLarge, "Message") == "Maximum policy size of 10240 bytes exceeded for role R")
        let unsigned = harness.iam("ListRoles", sign: false)
        #expect(unsigned.status == 403)
        // The Query services' spelling of the common error, not the JSON services' `…Exception`.
        #expect(xmlText(unsigned, "Code") == "MissingAuthenticationToken")
        #expect(xmlText(unsigned, "Message") == "Request is missing Authentication Token")
    }

    @Test("Who a caller is, for GetCallerIdentity: a named user, the account's root, or a role's session")
    func callerIdentity() {
        var policies = AccessPolicies()
        policies.users["AKIAUSER"] = .init(arn: "arn:aws:iam::123456789012:user/alice", policies: [])
        policies.configuredKeys = ["AKIAUSER", "test"]
        var grant = CredentialGrant(
            accessKeyId: "ASIAGRANT", secretAccessKey: "s", sessionToken: "t", expiration: 0,
            roleArn: "arn:aws:iam::210987654321:role/mobile/App_Unauth", bound: nil)
        grant.identityId = "us-east-1:identity"
        grant.identityPoolId = "us-east-1:pool"
        grant.amr = ["unauthenticated"]
        var assumed = CredentialGrant(
            accessKeyId: "ASIAASSUMED", secretAccessKey: "s", sessionToken: "t", expiration: 0,
            roleArn: "arn:aws:iam::123456789012:role/Loader", bound: true, sessionName: "nightly")
        assumed.sessionPolicy = #"{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}"#
        let grants = [grant.accessKeyId: grant, assumed.accessKeyId: assumed]
        func identity(_ key: String, roleID: String? = nil) -> CallerIdentity? {
            policies.identity(
                accessKeyID: key, accountID: "123456789012", issued: { grants[$0] }, roleID: { _ in roleID })
        }
        let user = identity("AKIAUSER")
        #expect(user?.arn == "arn:aws:iam::123456789012:user/alice")
        #expect(user?.account == "123456789012")
        #expect(user?.userID.count == 21)
        #expect(user?.userID.hasPrefix("AIDA") == true)
        #expect(user?.userID.dropFirst(4).allSatisfy { "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".contains($0) } == true)
        #expect(identity("AKIAUSER")?.userID == user?.userID, "the same id at every call")
        #expect(
            identity("test")
                == CallerIdentity(
                    arn: "arn:aws:iam::123456789012:root", userID: "123456789012", account: "123456789012"))
        #expect(
            identity("ASIAGRANT", roleID: "AROAROLEIDEXAMPLE")
                == CallerIdentity(
                    arn: "arn:aws:sts::210987654321:assumed-role/App_Unauth/CognitoIdentityCredentials",
                    userID: "AROAROLEIDEXAMPLE:CognitoIdentityCredentials", account: "210987654321",
                    principalArn: "arn:aws:iam::210987654321:role/mobile/App_Unauth"))
        // AssumeRole's session: named as it was asked.
        #expect(
            identity("ASIAASSUMED", roleID: "AROALOADER")
                == CallerIdentity(
                    arn: "arn:aws:sts::123456789012:assumed-role/Loader/nightly", userID: "AROALOADER:nightly",
                    account: "123456789012", principalArn: "arn:aws:iam::123456789012:role/Loader"))
        // A role described nowhere here: an id made from its ARN, the same at every call.
        let unknownRole = identity("ASIAGRANT")?.userID
        #expect(unknownRole?.hasPrefix("AROA") == true)
        #expect(unknownRole?.hasSuffix(":CognitoIdentityCredentials") == true)
        #expect(unknownRole?.count == 21 + ":CognitoIdentityCredentials".count)
        #expect(identity("ASIAGRANT")?.userID == unknownRole)
        #expect(identity("AKIAOTHER") == nil)
    }

    @Test(
        "An assumed role's session is bound by its role's policies and its session policy both, without Cognito's keys")
    func sessionPolicyBinds() throws {
        let allowAll = #"{"Statement":{"Effect":"Allow","Action":["firehose:*","s3:*"],"Resource":"*"}}"#
        var grant = CredentialGrant(
            accessKeyId: "ASIAASSUMED", secretAccessKey: "s", sessionToken: "t", expiration: 0,
            roleArn: "arn:aws:iam::123456789012:role/Loader", bound: true, sessionName: "nightly")
        grant.sessionPolicy = #"{"Statement":{"Effect":"Allow","Action":"firehose:PutRecord","Resource":"*"}}"#
        let caller = try #require(
            AccessPolicies().caller(
                accessKeyID: "ASIAASSUMED", issued: { $0 == grant.accessKeyId ? grant : nil },
                rolePolicies: { _ in [try! IAMPolicy(json: Array(allowAll.utf8))] }))
        #expect(caller.arn == "arn:aws:sts::123456789012:assumed-role/Loader/nightly")
        #expect(caller.context["cognito-identity.amazonaws.com:aud"] == nil)
        #expect(caller.context["aws:PrincipalArn"] == ["arn:aws:iam::123456789012:role/Loader"])
        #expect(throws: Never.self) { try caller.authorize(action: "firehose:PutRecord", resource: "*") }
        #expect {
            try caller.authorize(action: "s3:PutObject", resource: "arn:aws:s3:::b/k")
        } throws: { error in
            (error as? FirehoseError)?.message
                == "User: arn:aws:sts::123456789012:assumed-role/Loader/nightly is not authorized to perform: s3:PutObject on resource: arn:aws:s3:::b/k because no session policy allows the s3:PutObject action"
        }
        #expect {
            try caller.authorize(action: "kinesis:GetRecords", resource: "*")
        } throws: { error in
            (error as? FirehoseError)?.message.hasSuffix(
                "because no identity-based policy allows the kinesis:GetRecords action") == true
        }
    }

    @Test("Firehose may act as a role that exists, trusts it (with the account as external id) and allows the action")
    func deliveryRoleRefusals() throws {
        let directory = try TestDirectory("iam").url.path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try RoleStore(folder: directory)
        let role = "arn:aws:iam::123456789012:role/Delivery"
        let trust =
            #"{"Statement": {"Effect": "Allow", "Principal": {"Service": "firehose.amazonaws.com"}, "Action": "sts:AssumeRole", "Condition": {"StringEquals": {"sts:ExternalId": "123456789012"}}}}"#
        let putOnly =
            #"{"Statement": [{"Effect": "Allow", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::b/*"}, {"Effect": "Deny", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::b/secret/*"}]}"#
        try store.apply(configured: [role: [putOnly]], trustPolicies: [role: trust], now: Date())
        func refusal(_ resource: String, role: String = role, account: String = "123456789012") -> String? {
            store.refusal(
                service: "firehose.amazonaws.com", roleARN: role, action: "s3:PutObject", resource: resource,
                account: account, sourceARN: "arn:aws:firehose:us-east-1:123456789012:deliverystream/s")?.reason
        }
        #expect(refusal("arn:aws:s3:::b/2026/key") == nil)
        let assume = store.refusal(
            service: "firehose.amazonaws.com", roleARN: role, action: "s3:PutObject", resource: "arn:aws:s3:::b/k",
            account: "1", sourceARN: "arn:aws:firehose:us-east-1:1:deliverystream/s")
        #expect(assume?.cannotAssume == true)
        let policy = store.refusal(
            service: "firehose.amazonaws.com", roleARN: role, action: "s3:PutObject", resource: "arn:aws:s3:::c/k",
            account: "123456789012", sourceARN: "arn:aws:firehose:us-east-1:1:deliverystream/s")
        #expect(policy?.cannotAssume == false)
        #expect(
            refusal("arn:aws:s3:::other/key")
                == "no policy of the role \(role) allows s3:PutObject on arn:aws:s3:::other/key")
        #expect(
            refusal("arn:aws:s3:::b/secret/key")
                == "a policy of the role \(role) denies s3:PutObject on arn:aws:s3:::b/secret/key")
        #expect(
            refusal("arn:aws:s3:::b/k", account: "999999999999")?.contains(
                "does not let firehose.amazonaws.com assume it") == true)
        #expect(
            refusal("arn:aws:s3:::b/k", role: "arn:aws:iam::123456789012:role/Nobody")?.hasPrefix(
                "the role arn:aws:iam::123456789012:role/Nobody does not exist here") == true)
        // A role declared without a trust policy trusts Cognito only.
        try store.apply(configured: ["arn:aws:iam::123456789012:role/App": [putOnly]], now: Date())
        #expect(
            refusal("arn:aws:s3:::b/k", role: "arn:aws:iam::123456789012:role/App")?.contains(
                "does not let firehose.amazonaws.com assume it") == true)
    }

    @Test("A role's id is found by its ARN, regardless of case")
    func roleIDByARN() throws {
        let harness = try IAMHarness(configuredRoles: ["arn:aws:iam::123456789012:role/AppUnauth": []])
        let role = harness.iam("GetRole", ["RoleName": "AppUnauth"])
        let id = try #require(xmlText(role, "RoleId"))
        #expect(harness.api.store.roleID(ofRoleARN: "arn:aws:iam::123456789012:role/appunauth") == id)
        #expect(harness.api.store.roleID(ofRoleARN: "arn:aws:iam::123456789012:role/Other") == nil)
    }

    @Test("A role session's ARN is the role's name without its path, as STS writes it")
    func sessionARN() {
        #expect(
            CallerIdentity.sessionARN(role: "arn:aws:iam::123456789012:role/mobile/App_Unauth", session: "S")
                == "arn:aws:sts::123456789012:assumed-role/App_Unauth/S")
        #expect(CallerIdentity.sessionARN(role: "not-an-arn", session: "S") == "not-an-arn")
    }
}
