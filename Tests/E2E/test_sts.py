"""STS on the server's port, driven by boto3's sts client, the AWS CLI and the Go SDK against the real
process: GetCallerIdentity for every kind of credential the server knows, signed for any region; AssumeRole
for the roles of the IAM store, their trust policies evaluated, its credentials bound by the role's
policies and surviving a restart."""

from __future__ import annotations

import datetime as dt
import json
import time

import boto3
from botocore.config import Config

import fhlocal
from test_cognito import OTHER, POLICY, STREAM, app_credentials, policy_config, pool_id

ACCOUNT = fhlocal.ACCOUNT_ID


def client(service: str, srv, key: str = "test", secret: str = "test", token: str | None = None,
           region: str | None = None):
    return boto3.session.Session().client(
        service, endpoint_url=srv.endpoint, region_name=region or srv.region,
        aws_access_key_id=key, aws_secret_access_key=secret, aws_session_token=token,
        config=Config(retries={"total_max_attempts": 1, "mode": "standard"}))


def test_get_caller_identity_names_every_kind_of_credential_with_boto3(make_server):
    srv = make_server(policy_config(Credentials=[
        {"AccessKeyId": "test", "SecretAccessKey": "test"},
        {"AccessKeyId": "AKIAPRODUCER", "SecretAccessKey": "producer-secret", "UserName": "producer",
         "Policies": [POLICY]}]), name="sts")

    root = client("sts", srv).get_caller_identity()
    assert (root["Arn"], root["UserId"], root["Account"]) == (f"arn:aws:iam::{ACCOUNT}:root", ACCOUNT, ACCOUNT)

    # A user whose policies allow only Firehose puts: GetCallerIdentity needs no permission. Signed for
    # another region, as SDKs given an endpoint sign STS for their own.
    user = client("sts", srv, "AKIAPRODUCER", "producer-secret", region="eu-west-1").get_caller_identity()
    assert user["Arn"] == f"arn:aws:iam::{ACCOUNT}:user/producer"
    assert user["UserId"].startswith("AIDA") and len(user["UserId"]) == 21, user
    assert client("sts", srv, "AKIAPRODUCER", "producer-secret").get_caller_identity()["UserId"] == user["UserId"]

    # Credentials Cognito issued: a session of the pool's role, named as Cognito names it.
    _, credentials = app_credentials(srv, pool_id(srv))
    session = client("sts", srv, credentials["AccessKeyId"], credentials["SecretKey"],
                     credentials["SessionToken"]).get_caller_identity()
    role_id = client("iam", srv).get_role(RoleName="AppUnauth")["Role"]["RoleId"]
    assert session["Arn"] == f"arn:aws:sts::{ACCOUNT}:assumed-role/AppUnauth/CognitoIdentityCredentials"
    assert session["UserId"] == f"{role_id}:CognitoIdentityCredentials"
    assert session["Account"] == ACCOUNT

    err = fhlocal.expect_client_error(
        lambda: client("sts", srv, "AKIAUNKNOWN", "secret").get_caller_identity(), "InvalidClientTokenId", 403, query=True)
    assert err["Error"]["Message"] == "The security token included in the request is invalid."
    err = fhlocal.expect_client_error(
        lambda: client("sts", srv, "test", "wrong").get_caller_identity(), "SignatureDoesNotMatch", 403, query=True)
    metrics = srv.http("GET", "/_local/metrics").body.decode()
    assert 'firehose_local_sts_requests_total{operation="GetCallerIdentity",code="OK"} 4' in metrics, [
        line for line in metrics.splitlines() if "sts" in line]


def test_the_aws_cli_asks_who_it_is(make_server, tmp_path):
    srv = make_server(fhlocal.standard_config(), name="sts-cli")
    env = fhlocal.clean_env({
        "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": "eu-central-1",
        "HOME": str(tmp_path), "AWS_CONFIG_FILE": str(tmp_path / "config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "credentials")})
    got = fhlocal.run(fhlocal.aws_cli_command() + [
        "sts", "get-caller-identity", "--endpoint-url", srv.endpoint, "--output", "json"], env=env)
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout) == {"UserId": ACCOUNT, "Account": ACCOUNT, "Arn": f"arn:aws:iam::{ACCOUNT}:root"}


def test_iam_takes_a_credential_scoped_to_the_clients_region(make_server):
    # boto3 given an endpoint signs IAM for its own region, not us-east-1.
    srv = make_server(policy_config(), name="iam-region")
    roles = client("iam", srv, region="eu-west-1").list_roles()["Roles"]
    assert [r["RoleName"] for r in roles] == ["AppUnauth"]


def test_expired_credentials_are_told_so(make_server):
    srv = make_server(policy_config(lifetime=2), name="sts-expiry")
    _, credentials = app_credentials(srv, pool_id(srv))
    session = client("sts", srv, credentials["AccessKeyId"], credentials["SecretKey"], credentials["SessionToken"])
    assert session.get_caller_identity()["Arn"].endswith(":assumed-role/AppUnauth/CognitoIdentityCredentials")
    # Expiry is the server's wall clock: wait it out.
    time.sleep(max(0.0, (credentials["Expiration"] - dt.datetime.now(dt.timezone.utc)).total_seconds()) + 0.5)
    err = fhlocal.expect_client_error(session.get_caller_identity, "ExpiredToken", 403, query=True)
    assert err["Error"]["Message"] == "The security token included in the request is expired"


ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/etl/Loader"


def trust(principal) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": principal, "Action": "sts:AssumeRole"}]})


def make_loader_role(srv, principal=None, max_session: int = 7200) -> str:
    """A role for a service that loads: allowed to put to STREAM only; trusting the account unless told."""
    iam = client("iam", srv)
    role = iam.create_role(
        RoleName="Loader", Path="/etl/", MaxSessionDuration=max_session,
        AssumeRolePolicyDocument=trust(principal or {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}))["Role"]
    iam.put_role_policy(RoleName="Loader", PolicyName="put", PolicyDocument=json.dumps(POLICY))
    return role["RoleId"]


def assumed(srv, answer: dict, **kw):
    c = answer["Credentials"]
    return client(kw.pop("service", "firehose"), srv, c["AccessKeyId"], c["SecretAccessKey"], c["SessionToken"])


def test_assume_role_with_boto3_issues_credentials_bound_by_the_role(make_server):
    srv = make_server(policy_config(), name="assume-role")
    role_id = make_loader_role(srv)
    sts = client("sts", srv)
    before = dt.datetime.now(dt.timezone.utc)
    answer = sts.assume_role(RoleArn=ROLE_ARN, RoleSessionName="nightly", DurationSeconds=7200)
    assert answer["AssumedRoleUser"] == {
        "Arn": f"arn:aws:sts::{ACCOUNT}:assumed-role/Loader/nightly", "AssumedRoleId": f"{role_id}:nightly"}
    credentials = answer["Credentials"]
    assert credentials["AccessKeyId"].startswith("ASIA") and len(credentials["AccessKeyId"]) == 20
    lifetime = (credentials["Expiration"] - before).total_seconds()
    assert 7190 <= lifetime <= 7210, credentials["Expiration"]
    assert "PackedPolicySize" not in answer

    who = assumed(srv, answer, service="sts").get_caller_identity()
    assert (who["Arn"], who["UserId"], who["Account"]) == (
        f"arn:aws:sts::{ACCOUNT}:assumed-role/Loader/nightly", f"{role_id}:nightly", ACCOUNT)
    fh = assumed(srv, answer)
    fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"as the loader\n"})
    err = fhlocal.expect_client_error(
        lambda: fh.put_record(DeliveryStreamName=OTHER, Record={"Data": b"x\n"}), "AccessDeniedException")
    assert err["Error"]["Message"] == (
        f"User: arn:aws:sts::{ACCOUNT}:assumed-role/Loader/nightly is not authorized to perform: firehose:PutRecord "
        f"on resource: arn:aws:firehose:us-east-1:{ACCOUNT}:deliverystream/{OTHER} because no identity-based policy "
        "allows the firehose:PutRecord action")

    # A session policy narrows the session to what both allow.
    narrowed = sts.assume_role(RoleArn=ROLE_ARN, RoleSessionName="batch-only", Policy=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "firehose:PutRecordBatch", "Resource": "*"}]}))
    assert 1 <= narrowed["PackedPolicySize"] <= 100
    batch = assumed(srv, narrowed)
    batch.put_record_batch(DeliveryStreamName=STREAM, Records=[{"Data": b"batched\n"}])
    err = fhlocal.expect_client_error(
        lambda: batch.put_record(DeliveryStreamName=STREAM, Record={"Data": b"x\n"}), "AccessDeniedException")
    assert err["Error"]["Message"].endswith("because no session policy allows the firehose:PutRecord action")

    # Credentials are kept: a restart does not invalidate what a service holds.
    srv.stop()
    again = make_server.create(policy_config(), name="assume-role-after")
    again.data_dir = srv.data_dir
    again.start()
    assert assumed(again, answer, service="sts").get_caller_identity()["Arn"].endswith(":assumed-role/Loader/nightly")
    assumed(again, answer).put_record(DeliveryStreamName=STREAM, Record={"Data": b"after restart\n"})
    again.flush(STREAM)
    assert again.delivered(STREAM).decode() == "as the loader\nbatched\nafter restart\n"
    metrics = again.http("GET", "/_local/metrics").body.decode()
    assert 'firehose_local_sts_requests_total{operation="GetCallerIdentity",code="OK"} 1' in metrics


def test_assume_role_refuses_as_sts_refuses_and_issues_nothing(make_server):
    srv = make_server(policy_config(Credentials=[
        {"AccessKeyId": "test", "SecretAccessKey": "test"},
        {"AccessKeyId": "AKIAPRODUCER", "SecretAccessKey": "producer-secret", "UserName": "producer",
         "Policies": [POLICY]}]), name="assume-role-refused")
    make_loader_role(srv, max_session=3600)
    sts = client("sts", srv)

    # The account is trusted, but the producer's own policies do not allow sts:AssumeRole.
    err = fhlocal.expect_client_error(
        lambda: client("sts", srv, "AKIAPRODUCER", "producer-secret").assume_role(
            RoleArn=ROLE_ARN, RoleSessionName="s1"), "AccessDenied", 403, query=True)
    assert err["Error"]["Message"].startswith(
        f"User: arn:aws:iam::{ACCOUNT}:user/producer is not authorized to perform: sts:AssumeRole on resource: {ROLE_ARN}")
    err = fhlocal.expect_client_error(
        lambda: sts.assume_role(RoleArn=f"arn:aws:iam::{ACCOUNT}:role/Nobody", RoleSessionName="s1"),
        "AccessDenied", 403, query=True)
    assert err["Error"]["Message"].startswith(
        f"User: arn:aws:iam::{ACCOUNT}:root is not authorized to perform: sts:AssumeRole on resource: "
        f"arn:aws:iam::{ACCOUNT}:role/Nobody")
    # A role only Firehose may assume, as delivery roles are.
    client("iam", srv).create_role(
        RoleName="Delivery", AssumeRolePolicyDocument=trust({"Service": "firehose.amazonaws.com"}))
    fhlocal.expect_client_error(
        lambda: sts.assume_role(RoleArn=f"arn:aws:iam::{ACCOUNT}:role/Delivery", RoleSessionName="s1"),
        "AccessDenied", 403, query=True)

    err = fhlocal.expect_client_error(
        lambda: sts.assume_role(RoleArn=ROLE_ARN, RoleSessionName="s1", DurationSeconds=7200), "ValidationError",
        query=True)
    assert err["Error"]["Message"] == "The requested DurationSeconds exceeds the MaxSessionDuration set for this role."
    err = fhlocal.expect_client_error(
        lambda: sts.assume_role(RoleArn=ROLE_ARN, RoleSessionName="no spaces allowed"), "ValidationError", query=True)
    assert err["Error"]["Message"] == (
        "1 validation error detected: Value 'no spaces allowed' at 'roleSessionName' failed to satisfy constraint: "
        "Member must satisfy regular expression pattern: [\\w+=,.@-]*")
    err = fhlocal.expect_client_error(
        lambda: sts.assume_role(RoleArn=ROLE_ARN, RoleSessionName="s1", Tags=[{"Key": "team", "Value": "data"}]),
        "ValidationError", query=True)
    assert "session tags" in err["Error"]["Message"]
    fhlocal.expect_client_error(
        lambda: sts.assume_role(RoleArn=ROLE_ARN, RoleSessionName="s1", Policy='{"Statement": {"Effect": "Allow"}}'),
        "MalformedPolicyDocument", query=True)

    # Role chaining: a session's credentials may assume a role (one that trusts its role by name) for an
    # hour at most.
    client("iam", srv).create_role(
        RoleName="Reporter", MaxSessionDuration=43200, AssumeRolePolicyDocument=trust({"AWS": ROLE_ARN}))
    first = sts.assume_role(RoleArn=ROLE_ARN, RoleSessionName="first")
    chained = assumed(srv, first, service="sts")
    reporter = f"arn:aws:iam::{ACCOUNT}:role/Reporter"
    err = fhlocal.expect_client_error(
        lambda: chained.assume_role(RoleArn=reporter, RoleSessionName="second", DurationSeconds=3601),
        "ValidationError", query=True)
    assert err["Error"]["Message"] == (
        "The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.")
    assert chained.assume_role(RoleArn=reporter, RoleSessionName="second")["AssumedRoleUser"]["Arn"].endswith(
        "/Reporter/second")
    metrics = srv.http("GET", "/_local/metrics").body.decode()
    assert 'firehose_local_sts_requests_total{operation="AssumeRole",code="AccessDenied"} 3' in metrics
    assert 'firehose_local_sts_requests_total{operation="AssumeRole",code="OK"} 2' in metrics


def test_the_aws_cli_and_the_go_sdk_assume_a_role(make_server, tmp_path, tmp_path_factory):
    srv = make_server(policy_config(), name="assume-role-clients")
    make_loader_role(srv)
    env = fhlocal.clean_env({
        "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": "us-east-1",
        "HOME": str(tmp_path), "AWS_CONFIG_FILE": str(tmp_path / "config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "credentials")})
    got = fhlocal.run(fhlocal.aws_cli_command() + [
        "sts", "assume-role", "--role-arn", ROLE_ARN, "--role-session-name", "cli", "--endpoint-url", srv.endpoint,
        "--output", "json"], env=env)
    assert got.returncode == 0, got.stderr
    answer = json.loads(got.stdout)
    assert answer["AssumedRoleUser"]["Arn"] == f"arn:aws:sts::{ACCOUNT}:assumed-role/Loader/cli"
    assert answer["Credentials"]["AccessKeyId"].startswith("ASIA")

    program = fhlocal.build_go_program("assumerole", tmp_path_factory)
    got = fhlocal.run([program, "-endpoint", srv.endpoint, "-role", ROLE_ARN, "-session", "go-service",
                       "-streams", f"{STREAM},{OTHER}"], timeout=60)
    assert got.returncode == 0, got.stderr
    report = json.loads(got.stdout)
    assert "error" not in report, report
    assert report["accessKeyId"].startswith("ASIA")
    assert report["callerArn"] == f"arn:aws:sts::{ACCOUNT}:assumed-role/Loader/go-service"
    assert report["puts"][STREAM] == "ok"
    assert report["puts"][OTHER].startswith(
        f"AccessDeniedException: User: arn:aws:sts::{ACCOUNT}:assumed-role/Loader/go-service is not authorized")
    srv.flush(STREAM)
    assert srv.delivered(STREAM).decode() == f"go as role to {STREAM}\n"


def test_a_configured_role_gives_its_trust_policy(make_server):
    config = policy_config()
    config["Roles"].append({
        "RoleArn": ROLE_ARN, "Policies": [POLICY],
        "AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Principal": {"AWS": ACCOUNT}, "Action": "sts:AssumeRole",
            "Condition": {"StringEquals": {"sts:ExternalId": "ci-run"}}}]}})
    srv = make_server(config, name="configured-trust")
    sts = client("sts", srv)
    role = client("iam", srv).get_role(RoleName="Loader")["Role"]
    assert role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {"AWS": ACCOUNT}
    fhlocal.expect_client_error(
        lambda: sts.assume_role(RoleArn=ROLE_ARN, RoleSessionName="ci"), "AccessDenied", 403, query=True)
    answer = sts.assume_role(RoleArn=ROLE_ARN, RoleSessionName="ci", ExternalId="ci-run")
    assumed(srv, answer).put_record(DeliveryStreamName=STREAM, Record={"Data": b"configured\n"})
    # The pool's role, declared without one, keeps Cognito's trust policy: no IAM principal may assume it.
    fhlocal.expect_client_error(
        lambda: sts.assume_role(RoleArn=f"arn:aws:iam::{ACCOUNT}:role/AppUnauth", RoleSessionName="ci"),
        "AccessDenied", 403, query=True)


def unsigned_sts(srv):
    """STS as an app in Cognito's basic flow has it: no credentials yet (boto3 sends
    AssumeRoleWithWebIdentity unsigned anyway)."""
    from botocore import UNSIGNED
    return boto3.session.Session().client(
        "sts", endpoint_url=srv.endpoint, region_name=srv.region,
        config=Config(signature_version=UNSIGNED, retries={"total_max_attempts": 1, "mode": "standard"}))


def basic_flow_config(trust_pool: str | None = None) -> dict:
    """policy_config with the pool's role trusting Cognito as Cognito's guide writes it: the pool (aud)
    and unauthenticated identities (amr)."""
    config = policy_config()
    config["Cognito"]["IdentityPools"][0]["AllowClassicFlow"] = True
    condition = {"ForAnyValue:StringLike": {"cognito-identity.amazonaws.com:amr": "unauthenticated"}}
    if trust_pool:
        condition["StringEquals"] = {"cognito-identity.amazonaws.com:aud": trust_pool}
    config["Roles"][0]["AssumeRolePolicyDocument"] = {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Federated": "cognito-identity.amazonaws.com"},
        "Action": "sts:AssumeRoleWithWebIdentity", "Condition": condition}]}
    return config


def test_the_classic_cognito_flow_completes_with_boto3(make_server):
    """GetId, GetOpenIdToken, then STS's AssumeRoleWithWebIdentity: what the AWS iOS SDK does when given
    unauthRoleArn (Cognito's basic authflow)."""
    srv = make_server(basic_flow_config(), name="basic-flow")
    pool = pool_id(srv)
    from test_cognito import cognito_client
    ci = cognito_client(srv)
    identity = ci.get_id(IdentityPoolId=pool)["IdentityId"]
    token = ci.get_open_id_token(IdentityId=identity)["Token"]
    role_arn = f"arn:aws:iam::{ACCOUNT}:role/AppUnauth"
    sts = unsigned_sts(srv)
    answer = sts.assume_role_with_web_identity(RoleArn=role_arn, RoleSessionName="app", WebIdentityToken=token)
    assert answer["SubjectFromWebIdentityToken"] == identity
    assert (answer["Audience"], answer["Provider"]) == (pool, "cognito-identity.amazonaws.com")
    assert answer["AssumedRoleUser"]["Arn"] == f"arn:aws:sts::{ACCOUNT}:assumed-role/AppUnauth/app"
    fh = assumed(srv, answer)
    fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"basic flow\n"})
    err = fhlocal.expect_client_error(
        lambda: fh.put_record(DeliveryStreamName=OTHER, Record={"Data": b"x\n"}), "AccessDeniedException")
    assert err["Error"]["Message"].startswith(
        f"User: arn:aws:sts::{ACCOUNT}:assumed-role/AppUnauth/app is not authorized to perform: firehose:PutRecord")
    assert assumed(srv, answer, service="sts").get_caller_identity()["Arn"].endswith("/AppUnauth/app")

    # Bad tokens get STS's errors; nothing is issued for them.
    err = fhlocal.expect_client_error(
        lambda: sts.assume_role_with_web_identity(
            RoleArn=role_arn, RoleSessionName="app", WebIdentityToken=token[:-4] + "AAAA"),
        "InvalidIdentityToken", 400, query=True)
    assert "signature is not valid" in err["Error"]["Message"]
    fhlocal.expect_client_error(
        lambda: sts.assume_role_with_web_identity(
            RoleArn=role_arn, RoleSessionName="app", WebIdentityToken="not.a.token"),
        "InvalidIdentityToken", 400, query=True)
    metrics = srv.http("GET", "/_local/metrics").body.decode()
    assert 'firehose_local_sts_requests_total{operation="AssumeRoleWithWebIdentity",code="OK"} 1' in metrics
    assert 'firehose_local_sts_requests_total{operation="AssumeRoleWithWebIdentity",code="InvalidIdentityToken"} 2' in metrics

    # The AWS CLI's unsigned call, as a script in the basic flow makes it.
    env = fhlocal.clean_env({"AWS_DEFAULT_REGION": "us-east-1", "AWS_CONFIG_FILE": "/dev/null",
                             "AWS_SHARED_CREDENTIALS_FILE": "/dev/null"})
    got = fhlocal.run(fhlocal.aws_cli_command() + [
        "sts", "assume-role-with-web-identity", "--role-arn", role_arn, "--role-session-name", "cli",
        "--web-identity-token", token, "--endpoint-url", srv.endpoint, "--output", "json"], env=env)
    assert got.returncode == 0, got.stderr
    cli = json.loads(got.stdout)
    assert cli["AssumedRoleUser"]["Arn"] == f"arn:aws:sts::{ACCOUNT}:assumed-role/AppUnauth/cli"
    assert cli["SubjectFromWebIdentityToken"] == identity and cli["Credentials"]["AccessKeyId"].startswith("ASIA")

    # A pool without AllowClassicFlow gives no OpenID token, as AWS's refuses the basic flow.
    plain = ci.create_identity_pool(IdentityPoolName="enhanced-only", AllowUnauthenticatedIdentities=True)
    anonymous = ci.get_id(IdentityPoolId=plain["IdentityPoolId"])["IdentityId"]
    err = fhlocal.expect_client_error(
        lambda: ci.get_open_id_token(IdentityId=anonymous), "InvalidParameterException")
    assert err["Error"]["Message"] == "Basic (classic) flow is not enabled, please use enhanced flow."

    # A token survives a restart for the ten minutes it lasts: the key that signs it is kept.
    srv.stop()
    again = make_server.create(basic_flow_config(), name="basic-flow-after")
    again.data_dir = srv.data_dir
    again.start()
    unsigned_sts(again).assume_role_with_web_identity(RoleArn=role_arn, RoleSessionName="app", WebIdentityToken=token)


def test_the_trust_policy_conditions_on_the_pool_decide(make_server):
    srv = make_server(basic_flow_config(trust_pool="us-east-1:99999999-9999-9999-9999-999999999999"),
                      name="basic-flow-other-pool")
    from test_cognito import cognito_client
    ci = cognito_client(srv)
    identity = ci.get_id(IdentityPoolId=pool_id(srv))["IdentityId"]
    token = ci.get_open_id_token(IdentityId=identity)["Token"]
    err = fhlocal.expect_client_error(
        lambda: unsigned_sts(srv).assume_role_with_web_identity(
            RoleArn=f"arn:aws:iam::{ACCOUNT}:role/AppUnauth", RoleSessionName="app", WebIdentityToken=token),
        "AccessDenied", 403, query=True)
    assert err["Error"]["Message"] == "Not authorized to perform sts:AssumeRoleWithWebIdentity"
