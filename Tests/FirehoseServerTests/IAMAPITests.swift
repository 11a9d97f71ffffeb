import AWSSigV4
import FirehoseSink
import FirehoseTestSupport
import Foundation
import ServerCore
import Testing

@testable import FirehoseServer

extension APIHarness {
    /// An IAM Query call, signed for IAM (us-east-1, whatever the server's region).
    func iam(_ action: String, _ parameters: [String: String] = [:]) async -> APIResponse {
        let pairs = [("Action", action), ("Version", "2010-05-08")] + parameters.sorted { $0.key < $1.key }
        let body = pairs.map { "\($0.0)=\(IAMAPI.urlEncoded($0.1))" }.joined(separator: "&")
        return await api.handle(
            request(
                operation: nil, body: Array(body.utf8), contentType: "application/x-www-form-urlencoded; charset=utf-8",
                service: "iam"))
    }
}

private func xmlText(_ response: APIResponse, _ element: String) -> String? {
    let text = String(decoding: response.body, as: UTF8.self)
    guard let start = text.range(of: "<\(element)>"),
        let end = text.range(of: "</\(element)>", range: start.upperBound..<text.endIndex)
    else { return nil }
    return S3XML.unescaped(text[start.upperBound..<end.lowerBound])
}

@Suite("IAM roles and inline policies (Query protocol)")
struct IAMAPITests {
    static let trust =
        #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"cognito-identity.amazonaws.com"},"Action":"sts:AssumeRoleWithWebIdentity"}]}"#

    @Test(
        "Roles from the configuration file exist at start, with their policies; roles made by the API survive a restart"
    )
    func configuredAndPersisted() async throws {
        let policy =
            #"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"firehose:PutRecord","Resource":"*"}}"#
        var harness: APIHarness? = try APIHarness {
            $0.accessPolicies.roles["arn:aws:iam::123456789012:role/mobile/AppUnauth"] = [policy]
        }
        let directory = harness!.directory
        harness!.keepDirectory = true
        let configured = await harness!.iam("GetRole", ["RoleName": "AppUnauth"])
        #expect(configured.status == 200)
        #expect(configured.header("Content-Type") == "text/xml")
        #expect(xmlText(configured, "Arn") == "arn:aws:iam::123456789012:role/mobile/AppUnauth")
        #expect(xmlText(configured, "Path") == "/mobile/")
        #expect(xmlText(configured, "RoleId")?.hasPrefix("AROA") == true)
        let document = await harness!.iam("GetRolePolicy", ["RoleName": "appunauth", "PolicyName": "policy-1"])
        #expect(xmlText(document, "PolicyDocument") == IAMAPI.urlEncoded(policy))

        let created = await harness!.iam(
            "CreateRole", ["RoleName": "Made", "AssumeRolePolicyDocument": Self.trust, "Description": "made here"])
        #expect(created.status == 200)
        #expect(xmlText(created, "Arn") == "arn:aws:iam::123456789012:role/Made")
        #expect(xmlText(created, "CreateDate") == "2026-11-21T13:05:09Z")
        #expect(
            await harness!.iam("PutRolePolicy", ["RoleName": "Made", "PolicyName": "p", "PolicyDocument": policy])
                .status == 200)
        harness = nil

        let restarted = try APIHarness(directory: directory)
        let listed = await restarted.iam("ListRoles")
        let text = String(decoding: listed.body, as: UTF8.self)
        #expect(text.contains("<RoleName>AppUnauth</RoleName>") && text.contains("<RoleName>Made</RoleName>"))
        #expect(xmlText(listed, "IsTruncated") == "false")
        let names = await restarted.iam("ListRolePolicies", ["RoleName": "Made"])
        #expect(xmlText(names, "member") == "p")
    }

    @Test("IAM's errors as IAM writes them: an XML ErrorResponse with the code, the status and the message")
    func errors() async throws {
        let harness = try APIHarness()
        let missing = await harness.iam("GetRole", ["RoleName": "Nobody"])
        #expect(missing.status == 404)
        #expect(xmlText(missing, "Code") == "NoSuchEntity")
        #expect(xmlText(missing, "Type") == "Sender")
        #expect(xmlText(missing, "Message") == "The role with name Nobody cannot be found.")
        #expect(xmlText(missing, "RequestId")?.isEmpty == false)
        let action = await harness.iam("AssumeRoleWithWebIdentity")
        #expect(action.status == 400)
        #expect(xmlText(action, "Code") == "InvalidAction")
        let noTrust = await harness.iam("CreateRole", ["RoleName": "R"])
        #expect(xmlText(noTrust, "Code") == "ValidationError")
        #expect(
            xmlText(noTrust, "Message")
                == "1 validation error detected: Value null at 'assumeRolePolicyDocument' failed to satisfy constraint: Member must not be null"
        )
        #expect(
            await harness.iam("CreateRole", ["RoleName": "R", "AssumeRolePolicyDocument": Self.trust]).status == 200)
        let principal = await harness.iam(
            "PutRolePolicy",
            [
                "RoleName": "R", "PolicyName": "p",
                "PolicyDocument": #"{"Statement":{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*"}}"#,
            ])
        #expect(xmlText(principal, "Code") == "MalformedPolicyDocument")
        // IAM's quota: 10,240 characters of inline policy per role, whitespace not counted.
        let actions = (0..<600).map { #""firehose:Action\#($0)""# }.joined(separator: ",")
        let large = #"{"Statement":{"Effect":"Allow","Action":[\#(actions)],"Resource":"*"}}"#
        let tooLarge = await harness.iam(
            "PutRolePolicy", ["RoleName": "R", "PolicyName": "large", "PolicyDocument": large])
        #expect(tooLarge.status == 409)
        #expect(xmlText(tooLarge, "Code") == "LimitExceeded")
        #expect(xmlText(tooLarge, "Message") == "Maximum policy size of 10240 bytes exceeded for role R")
        let unsigned = await harness.api.handle(
            harness.request(
                operation: nil, body: Array("Action=ListRoles&Version=2010-05-08".utf8),
                contentType: "application/x-www-form-urlencoded", sign: false))
        #expect(unsigned.status == 403)
        #expect(xmlText(unsigned, "Code") == "MissingAuthenticationTokenException")
    }
}
