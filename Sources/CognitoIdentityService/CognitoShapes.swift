import FirehoseWire

/// The `IdentityPool` shape of Cognito Identity (2014-06-30): what CreateIdentityPool takes (less
/// the id), DescribeIdentityPool answers and UpdateIdentityPool replaces.
package struct IdentityPool: Codable, Sendable, Equatable {
    package var identityPoolId: String?
    package var identityPoolName: String?
    package var allowUnauthenticatedIdentities: Bool?
    package var allowClassicFlow: Bool?
    package var supportedLoginProviders: [String: String]?
    package var developerProviderName: String?
    package var openIdConnectProviderARNs: [String]?
    package var cognitoIdentityProviders: [CognitoIdentityProvider]?
    package var samlProviderARNs: [String]?
    package var identityPoolTags: [String: String]?

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case identityPoolId = "IdentityPoolId"
        case identityPoolName = "IdentityPoolName"
        case allowUnauthenticatedIdentities = "AllowUnauthenticatedIdentities"
        case allowClassicFlow = "AllowClassicFlow"
        case supportedLoginProviders = "SupportedLoginProviders"
        case developerProviderName = "DeveloperProviderName"
        case openIdConnectProviderARNs = "OpenIdConnectProviderARNs"
        case cognitoIdentityProviders = "CognitoIdentityProviders"
        case samlProviderARNs = "SamlProviderARNs"
        case identityPoolTags = "IdentityPoolTags"
    }

    /// The names a `Logins` map may use for this pool: AWS's keys for each kind of provider.
    var loginProviderNames: Set<String> {
        var names = Set(supportedLoginProviders.map { Array($0.keys) } ?? [])
        if let developerProviderName { names.insert(developerProviderName) }
        for provider in cognitoIdentityProviders ?? [] {
            if let name = provider.providerName { names.insert(name) }
        }
        // An OpenID Connect provider's key is its ARN's resource without `oidc-provider/`; a SAML
        // provider's key is its ARN.
        for arn in openIdConnectProviderARNs ?? [] {
            if let range = arn.firstRange(of: ":oidc-provider/") { names.insert(String(arn[range.upperBound...])) }
        }
        for arn in samlProviderARNs ?? [] { names.insert(arn) }
        return names
    }
}

package struct CognitoIdentityProvider: Codable, Sendable, Equatable {
    var providerName: String?
    var clientId: String?
    var serverSideTokenCheck: Bool?

    enum CodingKeys: String, CodingKey {
        case providerName = "ProviderName"
        case clientId = "ClientId"
        case serverSideTokenCheck = "ServerSideTokenCheck"
    }
}

struct IdentityPoolIDInput: Decodable {
    var identityPoolId: String?

    enum CodingKeys: String, CodingKey {
        case identityPoolId = "IdentityPoolId"
    }
}

struct ListIdentityPoolsInput: Decodable {
    var maxResults: Double?
    var nextToken: String?

    enum CodingKeys: String, CodingKey {
        case maxResults = "MaxResults"
        case nextToken = "NextToken"
    }
}

struct SetIdentityPoolRolesInput: Decodable {
    var identityPoolId: String?
    var roles: [String: String]?
    var roleMappings: JSONValue?

    enum CodingKeys: String, CodingKey {
        case identityPoolId = "IdentityPoolId"
        case roles = "Roles"
        case roleMappings = "RoleMappings"
    }
}

// MARK: Answers, members in the order firehose-local writes them
// swift-format-ignore: AlwaysUseLowerCamelCase

struct ListIdentityPoolsOutput: Encodable {
    struct Pool: Encodable {
        var IdentityPoolId: String
        var IdentityPoolName: String
    }

    var IdentityPools: [Pool]
    var NextToken: String?
}

// swift-format-ignore: AlwaysUseLowerCamelCase
struct GetIdentityPoolRolesOutput: Encodable {
    var IdentityPoolId: String
    var Roles: [String: String]
}
