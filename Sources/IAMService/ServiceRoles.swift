import IAMPolicy
import ServerCore

/// A role as an AWS service acting for the account finds it: what firehose-local checks, when asked to,
/// before delivery writes with a stream's role.
extension RoleStore {
    /// Why `service` (`firehose.amazonaws.com`) may not act as the role `roleARN` to do `action` on
    /// `resource` (and whether it cannot even assume the role), or nil when it may: the role must exist here, its trust policy let the service
    /// assume it (with the account as `sts:ExternalId` and `aws:SourceAccount`, and `sourceARN` as
    /// `aws:SourceArn`, as Firehose assumes roles:
    /// firehose/latest/dev/controlling-access.html#firehose-assume-role), and its inline policies
    /// allow the action.
    package func refusal(
        service: String, roleARN: String, action: String, resource: String, account: String, sourceARN: String
    ) -> (cannotAssume: Bool, reason: String)? {
        guard let role = assumableRole(arn: roleARN) else {
            return (
                true,
                "the role \(roleARN) does not exist here: declare it under Roles in the configuration file, or make it with IAM's CreateRole"
            )
        }
        guard case .success(let trust) = role.trust else {
            return (true, "firehose-local cannot evaluate the trust policy of \(roleARN), so it lets no one in")
        }
        let context = ["sts:ExternalId": [account], "aws:SourceAccount": [account], "aws:SourceArn": [sourceARN]]
        let assume = IAMRequest(action: "sts:AssumeRole", resource: role.arn, context: context)
        guard
            IAMPolicy.evaluateTrust(assume, principal: IAMPrincipal(kind: "Service", names: [service]), policy: trust)
                == .allowedForPrincipal
        else {
            return (true, "the trust policy of \(roleARN) does not let \(service) assume it (sts:AssumeRole)")
        }
        let request = IAMRequest(action: action, resource: resource)
        switch IAMPolicy.evaluate(request, policies: policies(ofRoleARN: role.arn) ?? []) {
        case .allowed: return nil
        case .implicitDeny:
            return (false, "no policy of the role \(roleARN) allows \(action) on \(resource)")
        case .explicitDeny:
            return (false, "a policy of the role \(roleARN) denies \(action) on \(resource)")
        }
    }
}
