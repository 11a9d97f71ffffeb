import FirehoseWire
import Testing

@testable import IAMPolicy

@Suite("IAM policies: parsing and evaluation")
struct IAMPolicyTests {
    static let stream = "arn:aws:firehose:us-east-1:123456789012:deliverystream/app-events"
    static let other = "arn:aws:firehose:us-east-1:123456789012:deliverystream/billing"

    func policy(_ json: String) throws -> IAMPolicy {
        try IAMPolicy(json: Array(json.utf8))
    }

    func decide(
        _ action: String, on resource: String = stream, context: [String: [String]] = [:], _ policies: IAMPolicy...
    )
        -> IAMDecision
    {
        IAMPolicy.evaluate(IAMRequest(action: action, resource: resource, context: context), policies: policies)
    }

    /// The role policy of a typical mobile-analytics identity pool (firehose/latest/dev/controlling-access.html).
    var mobile: IAMPolicy {
        get throws {
            try policy(
                #"{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["firehose:PutRecord", "firehose:PutRecordBatch"], "Resource": ["\#(Self.stream)"]}]}"#
            )
        }
    }

    @Test func theMobileRoleMayPutToItsStreamOnly() throws {
        let mobile = try mobile
        #expect(decide("firehose:PutRecordBatch", mobile) == .allowed)
        #expect(decide("firehose:PutRecord", mobile) == .allowed)
        #expect(decide("firehose:PutRecord", on: Self.other, mobile) == .implicitDeny)
        #expect(decide("firehose:DescribeDeliveryStream", mobile) == .implicitDeny)
        #expect(decide("firehose:PutRecord", on: Self.stream.uppercased(), mobile) == .implicitDeny)
        // Actions are case-insensitive, resources are not.
        #expect(decide("Firehose:putrecord", mobile) == .allowed)
    }

    @Test func wildcardsInActionsAndResources() throws {
        let wide = try policy(
            #"{"Statement": {"Effect": "Allow", "Action": "firehose:Put*", "Resource": "arn:aws:firehose:*:123456789012:deliverystream/app-??????"}}"#
        )
        #expect(decide("firehose:PutRecordBatch", wide) == .allowed)
        #expect(decide("firehose:PutRecord", on: Self.other, wide) == .implicitDeny)
        #expect(decide("firehose:ListDeliveryStreams", on: "*", wide) == .implicitDeny)
        let everything = try policy(#"{"Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}"#)
        #expect(decide("firehose:ListDeliveryStreams", on: "*", everything) == .allowed)
        #expect(Wildcard.matches("a*b?c", "aXXbYc", ignoringCase: false))
        #expect(!Wildcard.matches("a*b?c", "aXXbc", ignoringCase: false))
        #expect(Wildcard.matches("*", "", ignoringCase: false))
        #expect(Wildcard.matches("arn:*", "arn:aws:firehose:x:y:deliverystream/z", ignoringCase: false))
        // A pattern built to backtrack stays fast.
        let text = String(repeating: "a", count: 10_000)
        #expect(!Wildcard.matches(String(repeating: "*a", count: 50) + "b", text, ignoringCase: false))
    }

    @Test func notActionAndAnExplicitDenyThatWins() throws {
        let allButDelete = try policy(
            #"{"Statement": [{"Effect": "Allow", "NotAction": "firehose:Delete*", "Resource": "*"}]}"#)
        #expect(decide("firehose:PutRecord", allButDelete) == .allowed)
        #expect(decide("firehose:DeleteDeliveryStream", allButDelete) == .implicitDeny)
        let denyBilling = try policy(
            #"{"Statement": [{"Sid": "NoBilling", "Effect": "Deny", "Action": "firehose:*", "Resource": "\#(Self.other)"}]}"#
        )
        #expect(decide("firehose:PutRecord", on: Self.other, allButDelete, denyBilling) == .explicitDeny)
        #expect(decide("firehose:PutRecord", on: Self.stream, allButDelete, denyBilling) == .allowed)
        let notResource = try policy(
            #"{"Statement": [{"Effect": "Deny", "Action": "*", "NotResource": "\#(Self.stream)"}]}"#)
        #expect(decide("firehose:PutRecord", on: Self.other, allButDelete, notResource) == .explicitDeny)
        #expect(decide("firehose:PutRecord", on: Self.stream, allButDelete, notResource) == .allowed)
    }

    @Test func cognitoConditionKeys() throws {
        let unauthenticated = try policy(
            #"""
            {"Statement": [{"Effect": "Allow", "Action": "firehose:PutRecord*", "Resource": "*",
              "Condition": {"StringEquals": {"cognito-identity.amazonaws.com:aud": "us-east-1:4f4f0bd8-0000-4000-8000-000000000001"},
                            "ForAnyValue:StringLike": {"cognito-identity.amazonaws.com:amr": "unauthenticated"}}}]}
            """#)
        let pool = "us-east-1:4f4f0bd8-0000-4000-8000-000000000001"
        #expect(
            decide(
                "firehose:PutRecord",
                context: [
                    "Cognito-Identity.amazonaws.com:aud": [pool],
                    "cognito-identity.amazonaws.com:amr": ["unauthenticated"],
                ],
                unauthenticated) == .allowed)
        #expect(
            decide(
                "firehose:PutRecord",
                context: [
                    "cognito-identity.amazonaws.com:aud": [pool],
                    "cognito-identity.amazonaws.com:amr": ["authenticated", "graph.facebook.com"],
                ], unauthenticated) == .implicitDeny)
        #expect(
            decide(
                "firehose:PutRecord",
                context: [
                    "cognito-identity.amazonaws.com:aud": ["us-east-1:other"],
                    "cognito-identity.amazonaws.com:amr": ["unauthenticated"],
                ],
                unauthenticated) == .implicitDeny)
        // A missing key fails a condition.
        #expect(
            decide("firehose:PutRecord", context: ["cognito-identity.amazonaws.com:aud": [pool]], unauthenticated)
                == .implicitDeny)
    }

    @Test func missingKeysSetOperatorsIfExistsAndNull() throws {
        func holds(_ condition: String, _ context: [String: [String]]) throws -> Bool {
            let policy = try policy(
                #"{"Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*", "Condition": \#(condition)}]}"#)
            return decide("firehose:PutRecord", context: context, policy) == .allowed
        }
        #expect(try holds(#"{"StringNotEquals": {"k": "x"}}"#, [:]))
        #expect(try !holds(#"{"StringEquals": {"k": "x"}}"#, [:]))
        #expect(try holds(#"{"StringEqualsIfExists": {"k": "x"}}"#, [:]))
        #expect(try !holds(#"{"StringEqualsIfExists": {"k": "x"}}"#, ["k": ["y"]]))
        #expect(try !holds(#"{"ForAnyValue:StringEquals": {"k": "x"}}"#, [:]))
        #expect(try holds(#"{"ForAllValues:StringEquals": {"k": "x"}}"#, [:]))
        #expect(try holds(#"{"ForAllValues:StringLike": {"k": ["a*", "b*"]}}"#, ["k": ["ab", "bc"]]))
        #expect(try !holds(#"{"ForAllValues:StringLike": {"k": ["a*", "b*"]}}"#, ["k": ["ab", "cd"]]))
        #expect(try holds(#"{"StringEqualsIgnoreCase": {"k": "ABC"}}"#, ["k": ["abc"]]))
        #expect(try holds(#"{"Null": {"k": "true"}}"#, [:]))
        #expect(try !holds(#"{"Null": {"k": "true"}}"#, ["k": ["v"]]))
        #expect(try holds(#"{"Bool": {"aws:SecureTransport": false}}"#, ["aws:securetransport": ["false"]]))
        // Keys in one operator, and operators in one block, must all hold.
        #expect(try !holds(#"{"StringEquals": {"a": "1", "b": "2"}}"#, ["a": ["1"]]))
        #expect(
            try holds(#"{"StringEquals": {"a": ["1", "9"]}, "StringLike": {"b": "2*"}}"#, ["a": ["9"], "b": ["22"]]))
    }

    @Test func malformedPoliciesNameWhatIsWrong() throws {
        let cases: [(String, String, String)] = [
            (#"[]"#, "", "JSON object"),
            (#"{"Statement": []}"#, "Statement", "empty"),
            (
                #"{"Version": "2020-01-01", "Statement": {"Effect": "Allow", "Action": "*", "Resource": "*"}}"#,
                "Version", "2012-10-17"
            ),
            (
                #"{"Statement": {"Effect": "Permit", "Action": "*", "Resource": "*"}}"#, "Statement[0].Effect",
                "Allow or Deny"
            ),
            (
                #"{"Statement": {"Effect": "Allow", "Action": "*", "NotAction": "x:y", "Resource": "*"}}"#,
                "Statement[0]", "exactly one of Action and NotAction"
            ),
            (
                #"{"Statement": {"Effect": "Allow", "Action": "PutRecord", "Resource": "*"}}"#, "Statement[0].Action",
                "service:Action"
            ),
            (
                #"{"Statement": {"Effect": "Allow", "Action": "*"}}"#, "Statement[0]",
                "exactly one of Resource and NotResource"
            ),
            (
                #"{"Statement": {"Effect": "Allow", "Action": "*", "Resource": "*", "Principal": "*"}}"#,
                "Statement[0].Principal", "should not specify a principal"
            ),
            (
                #"{"Statement": {"Effect": "Allow", "Action": "*", "Resource": "*", "Condition": {"NumericLessThan": {"k": 1}}}}"#,
                "Statement[0].Condition.NumericLessThan", "not supported"
            ),
            (
                #"{"Statement": {"Effect": "Allow", "Action": "*", "Resource": "*", "Condition": {"ForSomeValues:StringLike": {"k": "v"}}}}"#,
                "Statement[0].Condition.ForSomeValues:StringLike", "set operator"
            ),
            (
                #"{"Statement": {"Effect": "Allow", "Action": [{"a": 1}], "Resource": "*"}}"#, "Statement[0].Action",
                "list of strings"
            ),
            (
                #"{"Statement": {"Effect": "Allow", "Actions": "*", "Resource": "*"}}"#, "Statement[0].Actions",
                "Unknown"
            ),
            (#"{"Statement": "#, "", "not valid JSON"),
        ]
        for (json, field, words) in cases {
            do {
                _ = try policy(json)
                Issue.record("accepted: \(json)")
            } catch let error as IAMPolicyError {
                #expect(error.field == field, "\(json): \(error)")
                #expect(error.message.contains(words), "\(json): \(error)")
            }
        }
    }

    func trust(_ json: String) throws -> IAMPolicy {
        try IAMPolicy(json: Array(json.utf8), kind: .trust)
    }

    func trusts(_ policy: IAMPolicy, _ principal: IAMPrincipal, context: [String: [String]] = [:]) -> TrustDecision {
        IAMPolicy.evaluateTrust(
            IAMRequest(action: "sts:AssumeRole", resource: "arn:aws:iam::123456789012:role/R", context: context),
            principal: principal, policy: policy)
    }

    static let alice = IAMPrincipal(
        kind: "AWS", names: ["arn:aws:iam::123456789012:user/alice"], account: "123456789012")
    static let session = IAMPrincipal(
        kind: "AWS",
        names: ["arn:aws:sts::123456789012:assumed-role/Loader/s1", "arn:aws:iam::123456789012:role/Loader"],
        account: "123456789012")
    static let stranger = IAMPrincipal(
        kind: "AWS", names: ["arn:aws:iam::210987654321:user/eve"], account: "210987654321")

    @Test func trustPoliciesNamePrincipalsByNameOrByAccount() throws {
        let byAccount = try trust(
            #"{"Statement": {"Effect": "Allow", "Principal": {"AWS": "123456789012"}, "Action": "sts:AssumeRole"}}"#)
        #expect(trusts(byAccount, Self.alice) == .allowedForAccount)
        #expect(trusts(byAccount, Self.stranger) == .implicitDeny)
        let byRoot = try trust(
            #"{"Statement": {"Effect": "Allow", "Principal": {"AWS": ["arn:aws:iam::123456789012:root"]}, "Action": "sts:AssumeRole"}}"#
        )
        #expect(trusts(byRoot, Self.session) == .allowedForAccount)
        // By name wins over by account; a role's ARN names its sessions; names compare regardless of case.
        let both = try trust(
            #"{"Statement": [{"Effect": "Allow", "Principal": {"AWS": "123456789012"}, "Action": "sts:AssumeRole"}, {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::123456789012:role/loader"}, "Action": "sts:*"}]}"#
        )
        #expect(trusts(both, Self.session) == .allowedForPrincipal)
        #expect(trusts(both, Self.alice) == .allowedForAccount)
        let everyone = try trust(#"{"Statement": {"Effect": "Allow", "Principal": "*", "Action": "sts:AssumeRole"}}"#)
        #expect(trusts(everyone, Self.stranger) == .allowedForPrincipal)
        let anyAWS = try trust(
            #"{"Statement": {"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}}"#)
        #expect(trusts(anyAWS, Self.stranger) == .allowedForPrincipal)
        #expect(trusts(anyAWS, IAMPrincipal(kind: "Service", names: ["firehose.amazonaws.com"])) == .implicitDeny)
        let service = try trust(
            #"{"Statement": {"Effect": "Allow", "Principal": {"Service": ["firehose.amazonaws.com"]}, "Action": "sts:AssumeRole"}}"#
        )
        #expect(trusts(service, Self.alice) == .implicitDeny)
        #expect(
            trusts(service, IAMPrincipal(kind: "Service", names: ["firehose.amazonaws.com"])) == .allowedForPrincipal)
        // Another action, a deny, a condition, NotPrincipal.
        let webIdentity = try trust(
            #"{"Statement": {"Effect": "Allow", "Principal": "*", "Action": "sts:AssumeRoleWithWebIdentity"}}"#)
        #expect(trusts(webIdentity, Self.alice) == .implicitDeny)
        let denied = try trust(
            #"{"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "sts:AssumeRole"}, {"Effect": "Deny", "Principal": {"AWS": "arn:aws:iam::123456789012:user/alice"}, "Action": "*"}]}"#
        )
        #expect(trusts(denied, Self.alice) == .explicitDeny)
        #expect(trusts(denied, Self.session) == .allowedForPrincipal)
        let conditioned = try trust(
            #"{"Statement": {"Effect": "Allow", "Principal": {"AWS": "123456789012"}, "Action": "sts:AssumeRole", "Condition": {"StringEquals": {"sts:ExternalId": "x-1"}}}}"#
        )
        #expect(trusts(conditioned, Self.alice) == .implicitDeny)
        #expect(trusts(conditioned, Self.alice, context: ["sts:ExternalId": ["x-1"]]) == .allowedForAccount)
    }

    @Test func malformedTrustPoliciesNameWhatIsWrong() throws {
        let cases: [(String, String, String)] = [
            (#"{"Statement": {"Effect": "Allow", "Action": "sts:AssumeRole"}}"#, "Statement[0]", "Principal"),
            (
                #"{"Statement": {"Effect": "Allow", "Principal": "*", "Action": "sts:AssumeRole", "Resource": "*"}}"#,
                "Statement[0].Resource", "prohibited field Resource"
            ),
            (
                #"{"Statement": {"Effect": "Allow", "Principal": {"Robot": "r2"}, "Action": "sts:AssumeRole"}}"#,
                "Statement[0].Principal.Robot", "principal kind"
            ),
            (
                #"{"Statement": {"Effect": "Allow", "Principal": "everyone", "Action": "sts:AssumeRole"}}"#,
                "Statement[0].Principal", "object of principals"
            ),
            (
                #"{"Statement": {"Effect": "Allow", "Principal": {"AWS": []}, "Action": "sts:AssumeRole"}}"#,
                "Statement[0].Principal.AWS", "empty"
            ),
            (
                #"{"Statement": {"Effect": "Allow", "NotPrincipal": {"AWS": "arn:aws:iam::1:user/eve"}, "Action": "sts:AssumeRole"}}"#,
                "Statement[0].NotPrincipal", "prohibited field NotPrincipal"
            ),
        ]
        for (json, field, words) in cases {
            do {
                _ = try trust(json)
                Issue.record("accepted: \(json)")
            } catch let error as IAMPolicyError {
                #expect(error.field == field, "\(json): \(error)")
                #expect(error.message.contains(words), "\(json): \(error)")
            }
        }
    }

    @Test func aPolicyFromYAMLNumbersAndBooleansReadAsIAMReadsThem() throws {
        let document = JSONValue.object([
            "Statement": .object([
                "Effect": .string("Allow"), "Action": .string("*"), "Resource": .string("*"),
                "Condition": .object(["StringEquals": .object(["aws:PrincipalAccount": .number(123_456_789_012)])]),
            ])
        ])
        let parsed = try IAMPolicy(document: document)
        #expect(parsed.statements[0].conditions[0].values == ["123456789012"])
        #expect(parsed.statements[0].conditions[0].key == "aws:principalaccount")
    }
}
