// Cognito Identity's shapes of the calls an app makes for credentials: the one set the Swift
// client's credentials provider and the server read and write. Member names are AWS's; members are
// declared in the order firehose-local writes them.
// swift-format-ignore-file: AlwaysUseLowerCamelCase

/// Cognito Identity's wire shapes that more than one module reads or writes.
package enum CognitoWire {
    /// GetId's input.
    package struct GetIdInput: Codable, Sendable {
        package var AccountId: String?
        package var IdentityPoolId: String?
        package var Logins: [String: String]?

        package init(AccountId: String? = nil, IdentityPoolId: String?, Logins: [String: String]?) {
            self.AccountId = AccountId
            self.IdentityPoolId = IdentityPoolId
            self.Logins = Logins
        }
    }

    package struct GetIdOutput: Codable, Sendable {
        package var IdentityId: String

        package init(IdentityId: String) { self.IdentityId = IdentityId }
    }

    /// GetCredentialsForIdentity's and GetOpenIdToken's input (the latter has no `CustomRoleArn`).
    package struct IdentityInput: Codable, Sendable {
        package var IdentityId: String?
        package var Logins: [String: String]?
        package var CustomRoleArn: String?

        package init(IdentityId: String?, Logins: [String: String]?, CustomRoleArn: String? = nil) {
            self.IdentityId = IdentityId
            self.Logins = Logins
            self.CustomRoleArn = CustomRoleArn
        }
    }

    package struct GetCredentialsForIdentityOutput: Codable, Sendable {
        package struct Credentials: Codable, Sendable {
            package var AccessKeyId: String
            package var SecretKey: String
            package var SessionToken: String
            /// Seconds since the epoch, as AWS JSON writes timestamps.
            package var Expiration: Double

            package init(AccessKeyId: String, SecretKey: String, SessionToken: String, Expiration: Double) {
                self.AccessKeyId = AccessKeyId
                self.SecretKey = SecretKey
                self.SessionToken = SessionToken
                self.Expiration = Expiration
            }
        }

        package var IdentityId: String
        package var Credentials: Credentials

        package init(IdentityId: String, Credentials: Credentials) {
            self.IdentityId = IdentityId
            self.Credentials = Credentials
        }
    }

    package struct GetOpenIdTokenOutput: Codable, Sendable {
        package var IdentityId: String
        package var Token: String

        package init(IdentityId: String, Token: String) {
            self.IdentityId = IdentityId
            self.Token = Token
        }
    }
}
