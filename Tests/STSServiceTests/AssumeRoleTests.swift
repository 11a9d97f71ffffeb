import AWSSigV4
import FirehoseTestSupport
import Foundation
import IAMPolicy
import ServerCore
import ServiceTestSupport
import Testing

@testable import STSService

@Suite("STS AssumeRole")
struct AssumeRoleTests {
    static let account = "123456789012"
    static let roleArn = "arn:aws:iam::123456789012:role/service/Loader"

    static func role(trust: String, maxSessionDuration: Int = 3_600) -> AssumableRole {
        AssumableRole(
            arn: roleArn, roleID: "AROALOADEREXAMPLE12", trustPolicy: trust, maxSessionDuration: maxSessionDuration)
    }

    static func trust(_ principal: String, condition: String? = nil, effect: String = "Allow") -> String {
        let condition = condition.map { #","Condition":\#($0)"# } ?? ""
        return
            #"{"Version":"2012-10-17","Statement":[{"Effect":"\#(effect)","Principal":\#(principal),"Action":"sts:AssumeRole"\#(condition)}]}"#
    }

    static let trustsAccount = trust(#"{"AWS":"arn:aws:iam::123456789012:root"}"#)

    static func policy(_ json: String) throws -> IAMPolicy { try IAMPolicy(json: Array(json.utf8)) }

    static func assume(
        _ harness: STSHarness, as credentials: AWSCredentials = STSHarness.root, _ parameters: [String: String] = [:]
    ) -> APIResponse {
        var all = ["RoleArn": roleArn, "RoleSessionName": "loader-session"]
        all.merge(parameters) { $1 }
        return harness.call(STSHarness.request("AssumeRole", all, credentials: credentials)).response
    }

    static func text(_ response: APIResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test(
        "A role that trusts the account is assumed: STS's answer, credentials that sign, a session that is its caller")
    func assumed() throws {
        let harness = try STSHarness(roles: [Self.role(trust: Self.trustsAccount, maxSessionDuration: 7_200)])
        let response = Self.assume(harness, ["DurationSeconds": "7200"])
        #expect(response.status == 200, "\(Self.text(response))")
        let body = Self.text(response)
        #expect(
            body.contains(
                "<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><AssumeRoleResult><AssumedRoleUser>"
            ))
        #expect(xmlText(response, "AssumedRoleId") == "AROALOADEREXAMPLE12:loader-session")
        #expect(xmlText(response, "Arn") == "arn:aws:sts::123456789012:assumed-role/Loader/loader-session")
        #expect(xmlText(response, "Expiration") == "2026-11-21T15:05:09Z")
        #expect(xmlText(response, "PackedPolicySize") == nil)
        let key = try #require(xmlText(response, "AccessKeyId"))
        #expect(key.hasPrefix("ASIA") && key.count == 20)
        let grant = try #require(harness.issued.grant(forAccessKey: key))
        #expect(grant.roleArn == Self.roleArn && grant.sessionName == "loader-session" && grant.bound == true)
        #expect(grant.identityId == nil && grant.sessionPolicy == nil)
        #expect(xmlText(response, "SecretAccessKey") == grant.secretAccessKey)
        #expect(xmlText(response, "SessionToken") == grant.sessionToken)

        let credentials = AWSCredentials(
            accessKeyId: key, secretAccessKey: grant.secretAccessKey, sessionToken: grant.sessionToken)
        let identity = harness.call(STSHarness.request("GetCallerIdentity", credentials: credentials)).response
        #expect(xmlText(identity, "Arn") == "arn:aws:sts::123456789012:assumed-role/Loader/loader-session")

        // Saved before it was answered: a restart keeps it.
        let reopened = try IssuedCredentials(path: "\(harness.directory)/credentials.jsonl", now: STSHarness.date)
        #expect(reopened.grant(forAccessKey: key) == grant)
    }

    @Test(
        "A role whose trust policy does not name the caller, or that does not exist, is AccessDenied and issues nothing"
    )
    func refused() throws {
        let harness = try STSHarness(roles: [
            Self.role(trust: Self.trust(#"{"Service":"firehose.amazonaws.com"}"#))
        ])
        let response = Self.assume(harness)
        #expect(response.status == 403)
        #expect(xmlText(response, "Code") == "AccessDenied")
        #expect(
            xmlText(response, "Message")
                == "User: arn:aws:iam::123456789012:root is not authorized to perform: sts:AssumeRole on resource: \(Self.roleArn) (no statement of the role's trust policy allows it)"
        )
        let missing = Self.assume(harness, ["RoleArn": "arn:aws:iam::123456789012:role/Nobody"])
        #expect(missing.status == 403)
        #expect(
            xmlText(missing, "Message")?.hasPrefix(
                "User: arn:aws:iam::123456789012:root is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::123456789012:role/Nobody"
            ) == true)
        let denied = try STSHarness(roles: [
            Self.role(trust: Self.trustsAccount),
            AssumableRole(
                arn: "arn:aws:iam::123456789012:role/Denied", roleID: "AROADENIED",
                trustPolicy: Self.trust(#""*""#, effect: "Deny"), maxSessionDuration: 3_600),
        ])
        let deny = Self.assume(denied, ["RoleArn": "arn:aws:iam::123456789012:role/Denied"])
        #expect(xmlText(deny, "Message")?.hasSuffix("(the role's trust policy denies it)") == true)
        #expect(try String(contentsOfFile: "\(harness.directory)/credentials.jsonl", encoding: .utf8).isEmpty)
    }

    @Test(
        "A trust policy naming a user lets it in by itself; naming the account, only as far as the user's own policies allow"
    )
    func userPolicies() throws {
        let alice = "arn:aws:iam::123456789012:user/alice"
        let withoutPermission = BoundCaller(
            arn: alice,
            policies: [try Self.policy(#"{"Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}"#)],
            context: [:])
        let byName = try STSHarness(
            roles: [Self.role(trust: Self.trust(#"{"AWS":["arn:aws:iam::123456789012:user/alice"]}"#))],
            bound: [STSHarness.user.accessKeyId: withoutPermission])
        #expect(Self.assume(byName, as: STSHarness.user).status == 200)

        let byAccount = try STSHarness(
            roles: [Self.role(trust: Self.trust(#"{"AWS":"123456789012"}"#))],
            bound: [STSHarness.user.accessKeyId: withoutPermission])
        let refused = Self.assume(byAccount, as: STSHarness.user)
        #expect(refused.status == 403)
        #expect(
            xmlText(refused, "Message")
                == "User: \(alice) is not authorized to perform: sts:AssumeRole on resource: \(Self.roleArn) (the role's trust policy trusts the account only, and the caller's own policies do not allow it: because no identity-based policy allows the sts:AssumeRole action)"
        )

        let permitted = BoundCaller(
            arn: alice,
            policies: [
                try Self.policy(
                    #"{"Statement":{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"arn:aws:iam::123456789012:role/service/*"}}"#
                )
            ], context: [:])
        let allowed = try STSHarness(
            roles: [Self.role(trust: Self.trust(#"{"AWS":"123456789012"}"#))],
            bound: [STSHarness.user.accessKeyId: permitted])
        #expect(Self.assume(allowed, as: STSHarness.user).status == 200)

        let denying = BoundCaller(
            arn: alice,
            policies: [try Self.policy(#"{"Statement":{"Effect":"Deny","Action":"sts:*","Resource":"*"}}"#)],
            context: [:])
        let explicit = try STSHarness(
            roles: [Self.role(trust: Self.trust(#"{"AWS":"arn:aws:iam::123456789012:user/alice"}"#))],
            bound: [STSHarness.user.accessKeyId: denying])
        #expect(
            xmlText(Self.assume(explicit, as: STSHarness.user), "Message")?.hasSuffix(
                "(with an explicit deny in an identity-based policy)") == true)
    }

    @Test("Trust conditions read the external id, the session name and the caller's role")
    func conditions() throws {
        let harness = try STSHarness(roles: [
            Self.role(
                trust: Self.trust(
                    #"{"AWS":"123456789012"}"#,
                    condition:
                        #"{"StringEquals":{"sts:ExternalId":"partner-42"},"StringLike":{"sts:RoleSessionName":"loader-*"}}"#
                ))
        ])
        #expect(Self.assume(harness).status == 403)
        #expect(Self.assume(harness, ["ExternalId": "partner-41"]).status == 403)
        #expect(Self.assume(harness, ["ExternalId": "partner-42", "RoleSessionName": "other"]).status == 403)
        #expect(Self.assume(harness, ["ExternalId": "partner-42"]).status == 200)

        // A role's session is named by its session ARN or its role's ARN.
        let chained = try STSHarness(roles: [
            Self.role(trust: Self.trust(#"{"AWS":"arn:aws:iam::123456789012:role/App_Unauth"}"#))
        ])
        #expect(Self.assume(chained, as: STSHarness.session).status == 200)
        #expect(Self.assume(chained, as: STSHarness.user).status == 403)

        // The account's root is named by its bare id as by its ARN; with authentication off no policy
        // binds anyone.
        let bareID = try STSHarness(roles: [Self.role(trust: Self.trust(#"{"AWS": "123456789012"}"#))])
        #expect(Self.assume(bareID).status == 200)
        let open = try STSHarness(
            authentication: false, roles: [Self.role(trust: Self.trust(#"{"AWS": "123456789012"}"#))],
            bound: [STSHarness.user.accessKeyId: BoundCaller(arn: "x", policies: [], context: [:])])
        #expect(Self.assume(open, as: STSHarness.user).status == 200)
    }

    @Test("DurationSeconds: within 900 to 43200, the role's maximum, and an hour when chained, in STS's words")
    func durations() throws {
        let harness = try STSHarness(roles: [
            Self.role(trust: Self.trust(#"{"AWS":"*"}"#), maxSessionDuration: 7_200)
        ])
        let tooShort = Self.assume(harness, ["DurationSeconds": "899"])
        #expect(tooShort.status == 400)
        #expect(xmlText(tooShort, "Code") == "ValidationError")
        #expect(
            xmlText(tooShort, "Message")
                == "1 validation error detected: Value '899' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to 900"
        )
        let overRole = Self.assume(harness, ["DurationSeconds": "7201"])
        #expect(xmlText(overRole, "Code") == "ValidationError")
        #expect(
            xmlText(overRole, "Message")
                == "The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")
        let chained = Self.assume(harness, as: STSHarness.session, ["DurationSeconds": "3601"])
        #expect(
            xmlText(chained, "Message")
                == "The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.")
        let oneHour = Self.assume(harness, as: STSHarness.session, ["DurationSeconds": "3600"])
        #expect(xmlText(oneHour, "Expiration") == "2026-11-21T14:05:09Z")
    }

    @Test(
        "Parameters are checked as the model says, every violation at once; what is not taken here is refused by name")
    func validation() throws {
        let harness = try STSHarness(roles: [Self.role(trust: Self.trustsAccount)])
        let bad = harness.call(
            STSHarness.request(
                "AssumeRole", ["RoleArn": "arn:short", "RoleSessionName": "has space"], credentials: STSHarness.root)
        ).response
        #expect(bad.status == 400)
        #expect(
            xmlText(bad, "Message")
                == "2 validation errors detected: Value 'arn:short' at 'roleArn' failed to satisfy constraint: Member must have length greater than or equal to 20; Value 'has space' at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*"
        )
        let missing = harness.call(STSHarness.request("AssumeRole", credentials: STSHarness.root)).response
        #expect(xmlText(missing, "Message")?.hasPrefix("2 validation errors detected: Value null at 'roleArn'") == true)
        let tags = Self.assume(harness, ["Tags.member.1.Key": "team", "Tags.member.1.Value": "data"])
        #expect(xmlText(tags, "Code") == "ValidationError")
        #expect(
            xmlText(tags, "Message")
                == "firehose-local's STS does not take session tags (Tags) yet: assume the role without them.")
        #expect(xmlText(Self.assume(harness, ["ExternalId": "a b"]), "Code") == "ValidationError")
        #expect(
            Self.assume(harness, ["ExternalId": "urn:partner/42", "SourceIdentity": "alice@example.com"]).status == 200)
    }

    @Test("A session policy is checked, kept with the credentials, and its packed size answered")
    func sessionPolicy() throws {
        let harness = try STSHarness(roles: [Self.role(trust: Self.trustsAccount)])
        let malformed = Self.assume(harness, ["Policy": #"{"Statement":{"Effect":"Allow","Action":"s3:GetObject"}}"#])
        #expect(malformed.status == 400)
        #expect(xmlText(malformed, "Code") == "MalformedPolicyDocument")
        let policy =
            #"{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "firehose:PutRecord", "Resource": "*"}}"#
        let response = Self.assume(harness, ["Policy": policy, "SourceIdentity": "alice"])
        #expect(response.status == 200)
        #expect(AssumeRoleTests.compactLength(policy) == 100)
        #expect(xmlText(response, "PackedPolicySize") == "5")
        #expect(xmlText(response, "SourceIdentity") == "alice")
        let grant = try #require(harness.issued.grant(forAccessKey: xmlText(response, "AccessKeyId") ?? ""))
        #expect(grant.sessionPolicy == policy)

        let huge =
            #"{"Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":["#
            + (0..<100).map { #""arn:aws:s3:::bucket-\#($0)/*""# }.joined(separator: ",") + "]}}"
        let tooLarge = Self.assume(harness, ["Policy": huge])
        #expect(xmlText(tooLarge, "Code") == "PackedPolicyTooLarge")
        #expect(xmlText(tooLarge, "Message")?.hasPrefix("Packed policy consumes ") == true)
    }

    static func compactLength(_ text: String) -> Int { STSAPI.compactLength(text) }
}
