"""Cognito identity pools and their temporary credentials, driven by boto3's cognito-identity client
and the AWS CLI against the real process: the mobile flow (GetId, GetCredentialsForIdentity, sign
Firehose and S3 requests), expiry, restarts, and pools from the configuration file.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time

import boto3
from botocore.config import Config

import fhlocal
from fhlocal import BUCKET, ext_stream, hints

STREAM = "app-events"
UNAUTH_ROLE = "arn:aws:iam::000000000000:role/AppUnauth"
AUTH_ROLE = "arn:aws:iam::000000000000:role/AppAuth"
ID_RE = re.compile(r"^us-east-1:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def config(**cognito) -> dict:
    top = {"DeliveryStreams": [ext_stream(STREAM, **hints(1, 60))]}
    if cognito:
        top["Cognito"] = cognito
    return fhlocal.standard_config(**top)


def cognito_client(srv, signed: bool = True):
    kwargs = {"aws_access_key_id": "test", "aws_secret_access_key": "test"}
    return boto3.session.Session().client(
        "cognito-identity", endpoint_url=srv.endpoint, region_name=srv.region,
        config=Config(retries={"total_max_attempts": 1, "mode": "standard"}), **kwargs)


def app_credentials(srv, pool: str, logins: dict | None = None) -> tuple[str, dict]:
    """What an app does: an identity, then credentials for it (both calls unsigned, as boto3 sends them)."""
    ci = cognito_client(srv)
    extra = {"Logins": logins} if logins else {}
    identity = ci.get_id(IdentityPoolId=pool, **extra)["IdentityId"]
    answer = ci.get_credentials_for_identity(IdentityId=identity, **extra)
    assert answer["IdentityId"] == identity
    return identity, answer["Credentials"]


def firehose_with(srv, credentials: dict):
    return srv.client(credentials["AccessKeyId"], credentials["SecretKey"], credentials["SessionToken"], cache=False)


def test_the_mobile_flow_with_boto3(make_server):
    srv = make_server(config(), name="flow")
    ci = cognito_client(srv)
    pool = ci.create_identity_pool(IdentityPoolName="My App", AllowUnauthenticatedIdentities=True,
                                   SupportedLoginProviders={"graph.facebook.com": "1234567890"})
    pool_id = pool["IdentityPoolId"]
    assert ID_RE.match(pool_id), pool_id
    assert pool["IdentityPoolName"] == "My App"
    ci.set_identity_pool_roles(IdentityPoolId=pool_id,
                               Roles={"unauthenticated": UNAUTH_ROLE, "authenticated": AUTH_ROLE})
    assert ci.get_identity_pool_roles(IdentityPoolId=pool_id)["Roles"] == {
        "unauthenticated": UNAUTH_ROLE, "authenticated": AUTH_ROLE}
    assert ci.describe_identity_pool(IdentityPoolId=pool_id)["SupportedLoginProviders"] == {
        "graph.facebook.com": "1234567890"}
    listed = ci.list_identity_pools(MaxResults=60)["IdentityPools"]
    assert listed == [{"IdentityPoolId": pool_id, "IdentityPoolName": "My App"}]

    before = dt.datetime.now(dt.timezone.utc)
    identity, credentials = app_credentials(srv, pool_id)
    assert ID_RE.match(identity), identity
    assert credentials["AccessKeyId"].startswith("ASIA") and len(credentials["AccessKeyId"]) == 20
    assert len(credentials["SecretKey"]) == 40 and len(credentials["SessionToken"]) > 100
    # boto3 parses Expiration (epoch seconds on the wire) into an aware datetime, an hour ahead.
    lifetime = (credentials["Expiration"] - before).total_seconds()
    assert 3590 <= lifetime <= 3601, credentials["Expiration"]

    fh = firehose_with(srv, credentials)
    fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"from the app\n"})
    fh.put_record_batch(DeliveryStreamName=STREAM, Records=[{"Data": b"batch %d\n" % i} for i in range(3)])
    srv.flush(STREAM)
    assert srv.delivered(STREAM).decode() == "from the app\nbatch 0\nbatch 1\nbatch 2\n"

    # The same credentials read the bucket through S3, as an app's own backend check might.
    s3 = boto3.session.Session().client(
        "s3", endpoint_url=srv.endpoint, region_name=srv.region, aws_access_key_id=credentials["AccessKeyId"],
        aws_secret_access_key=credentials["SecretKey"], aws_session_token=credentials["SessionToken"],
        config=Config(s3={"addressing_style": "path"}))
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET)["Contents"]] == srv.stream_keys(STREAM)

    # A Facebook login: the same token is the same identity, and its credentials need the login.
    logins = {"graph.facebook.com": "EAAB-token-of-alice"}
    alice, alice_credentials = app_credentials(srv, pool_id, logins)
    assert app_credentials(srv, pool_id, logins)[0] == alice
    assert alice != identity
    fhlocal.expect_client_error(lambda: ci.get_credentials_for_identity(IdentityId=alice), "NotAuthorizedException")
    firehose_with(srv, alice_credentials).put_record(DeliveryStreamName=STREAM, Record={"Data": b"alice\n"})

    err = fhlocal.expect_client_error(
        lambda: ci.get_id(IdentityPoolId=pool_id, Logins={"accounts.google.com": "token"}), "NotAuthorizedException")
    assert err["Error"]["Message"] == "Token is not from a supported provider of this identity pool."
    err = fhlocal.expect_client_error(
        lambda: ci.get_id(IdentityPoolId="us-east-1:00000000-0000-0000-0000-000000000000"),
        "ResourceNotFoundException")
    assert err["Error"]["Message"] == "IdentityPool 'us-east-1:00000000-0000-0000-0000-000000000000' not found."

    ci.delete_identity_pool(IdentityPoolId=pool_id)
    fhlocal.expect_client_error(lambda: ci.describe_identity_pool(IdentityPoolId=pool_id), "ResourceNotFoundException")
    metrics = srv.http("GET", "/_local/metrics").body.decode()
    assert 'firehose_local_cognito_identity_requests_total{operation="GetId",code="OK"} 3' in metrics, metrics
    assert ('firehose_local_cognito_identity_requests_total{operation="GetId",code="NotAuthorizedException"} 1'
            in metrics)
    log = srv.stderr_text()
    assert "Identity pool created" in log and "Credentials issued" in log and pool_id in log


def test_pool_calls_need_a_signature_and_identity_calls_do_not(make_server):
    srv = make_server(config(), name="signing")
    ci = cognito_client(srv)
    pool_id = ci.create_identity_pool(IdentityPoolName="app", AllowUnauthenticatedIdentities=True)["IdentityPoolId"]
    wrong = boto3.session.Session().client(
        "cognito-identity", endpoint_url=srv.endpoint, region_name=srv.region, aws_access_key_id="test",
        aws_secret_access_key="not-the-secret", config=Config(retries={"total_max_attempts": 1}))
    fhlocal.expect_client_error(lambda: wrong.list_identity_pools(MaxResults=10), "InvalidSignatureException")
    # GetId is unsigned in the model; boto3 sends it without Authorization whatever its credentials.
    assert ID_RE.match(wrong.get_id(IdentityPoolId=pool_id)["IdentityId"])
    # A pool without roles gives identities but no credentials.
    identity = wrong.get_id(IdentityPoolId=pool_id)["IdentityId"]
    err = fhlocal.expect_client_error(lambda: wrong.get_credentials_for_identity(IdentityId=identity),
                                      "InvalidIdentityPoolConfigurationException")
    assert err["Error"]["Message"] == "Invalid identity pool configuration. Check assigned IAM roles for this pool."


def test_expired_credentials_are_refused_as_aws_refuses_them(make_server):
    srv = make_server(config(
        CredentialLifetimeSeconds=3,
        IdentityPools=[{"IdentityPoolName": "short", "AllowUnauthenticatedIdentities": True,
                        "Roles": {"unauthenticated": UNAUTH_ROLE}}]), name="expiry")
    pool_id = cognito_client(srv).list_identity_pools(MaxResults=1)["IdentityPools"][0]["IdentityPoolId"]
    _, credentials = app_credentials(srv, pool_id)
    fh = firehose_with(srv, credentials)
    fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"in time\n"})
    time.sleep(max(0.0, (credentials["Expiration"] - dt.datetime.now(dt.timezone.utc)).total_seconds()) + 0.5)
    err = fhlocal.expect_client_error(
        lambda: fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"too late\n"}), "ExpiredTokenException")
    assert err["Error"]["Message"] == "The security token included in the request is expired"
    # Refreshing is asking again: the app's identity stays, its new credentials work.
    identity = cognito_client(srv).get_id(IdentityPoolId=pool_id)["IdentityId"]
    fresh = cognito_client(srv).get_credentials_for_identity(IdentityId=identity)["Credentials"]
    firehose_with(srv, fresh).put_record(DeliveryStreamName=STREAM, Record={"Data": b"refreshed\n"})
    srv.flush(STREAM)
    assert srv.delivered(STREAM).decode() == "in time\nrefreshed\n"


def test_pools_identities_and_credentials_survive_a_restart(make_server):
    pools = [{"IdentityPoolName": "configured", "AllowUnauthenticatedIdentities": False,
              "DeveloperProviderName": "login.myapp", "Roles": {"authenticated": AUTH_ROLE}}]
    srv = make_server(config(IdentityPools=pools), name="before")
    ci = cognito_client(srv)
    configured = ci.list_identity_pools(MaxResults=60)["IdentityPools"]
    assert [p["IdentityPoolName"] for p in configured] == ["configured"]
    configured_id = configured[0]["IdentityPoolId"]
    assert ID_RE.match(configured_id)
    described = ci.describe_identity_pool(IdentityPoolId=configured_id)
    assert described["AllowUnauthenticatedIdentities"] is False and described["DeveloperProviderName"] == "login.myapp"
    fhlocal.expect_client_error(lambda: ci.get_id(IdentityPoolId=configured_id), "NotAuthorizedException")
    logins = {"login.myapp": "user-42"}
    identity, credentials = app_credentials(srv, configured_id, logins)
    made = ci.create_identity_pool(IdentityPoolName="made", AllowUnauthenticatedIdentities=True)["IdentityPoolId"]
    srv.stop()

    again = make_server.create(config(IdentityPools=pools), name="after")
    again.data_dir = srv.data_dir
    again.start()
    ci = cognito_client(again)
    # The configured pool keeps its id (made from its name), the API's pool is still there.
    assert sorted(p["IdentityPoolId"] for p in ci.list_identity_pools(MaxResults=60)["IdentityPools"]) == sorted(
        [configured_id, made])
    assert ci.get_id(IdentityPoolId=configured_id, Logins=logins)["IdentityId"] == identity
    firehose_with(again, credentials).put_record(DeliveryStreamName=STREAM, Record={"Data": b"after restart\n"})
    again.flush(STREAM)
    assert again.delivered(STREAM).decode() == "after restart\n"


def test_the_aws_cli_gets_an_identity_and_credentials(make_server):
    srv = make_server(config(IdentityPools=[{
        "IdentityPoolId": "us-east-1:11111111-2222-3333-4444-555555555555", "IdentityPoolName": "cli",
        "AllowUnauthenticatedIdentities": True, "Roles": {"unauthenticated": UNAUTH_ROLE}}]), name="cli")
    env = fhlocal.clean_env({"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                             "AWS_DEFAULT_REGION": srv.region})
    cli = fhlocal.aws_cli_command() + ["--endpoint-url", srv.endpoint, "--output", "json"]
    got = fhlocal.run(cli + ["cognito-identity", "get-id", "--identity-pool-id",
                             "us-east-1:11111111-2222-3333-4444-555555555555"], env=env)
    assert got.returncode == 0, got.stderr
    identity = json.loads(got.stdout)["IdentityId"]
    got = fhlocal.run(cli + ["cognito-identity", "get-credentials-for-identity", "--identity-id", identity], env=env)
    assert got.returncode == 0, got.stderr
    credentials = json.loads(got.stdout)["Credentials"]
    assert credentials["AccessKeyId"].startswith("ASIA")
    env.update(AWS_ACCESS_KEY_ID=credentials["AccessKeyId"], AWS_SECRET_ACCESS_KEY=credentials["SecretKey"],
               AWS_SESSION_TOKEN=credentials["SessionToken"])
    got = fhlocal.run(cli + ["firehose", "put-record", "--delivery-stream-name", STREAM, "--record",
                             '{"Data": "from the cli\\n"}'], env=env)
    assert got.returncode == 0, got.stderr
    srv.flush(STREAM)
    assert srv.delivered(STREAM).decode() == "from the cli\n"


# --------------------------------------------------------------------------
# IAM policies of the pools' roles
# --------------------------------------------------------------------------

OTHER = "other-events"
POLICY = {"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Action": ["firehose:PutRecord", "firehose:PutRecordBatch"],
    "Resource": f"arn:aws:firehose:us-east-1:{fhlocal.ACCOUNT_ID}:deliverystream/{STREAM}"}]}


def policy_config(lifetime: int = 3600, **top) -> dict:
    return fhlocal.standard_config(
        DeliveryStreams=[ext_stream(STREAM, **hints(1, 60)), ext_stream(OTHER, **hints(1, 60))],
        Cognito={"CredentialLifetimeSeconds": lifetime, "IdentityPools": [{
            "IdentityPoolName": "mobile", "AllowUnauthenticatedIdentities": True,
            "Roles": {"unauthenticated": f"arn:aws:iam::{fhlocal.ACCOUNT_ID}:role/AppUnauth"}}]},
        # The policy as pasted from the console: its JSON text.
        Roles=[{"RoleName": "AppUnauth", "Policies": [json.dumps(POLICY)]}], **top)


def pool_id(srv) -> str:
    return cognito_client(srv).list_identity_pools(MaxResults=1)["IdentityPools"][0]["IdentityPoolId"]


def denial(stream: str, action: str = "PutRecord") -> str:
    return (f"User: arn:aws:sts::{fhlocal.ACCOUNT_ID}:assumed-role/AppUnauth/CognitoIdentityCredentials is not "
            f"authorized to perform: firehose:{action} on resource: "
            f"arn:aws:firehose:us-east-1:{fhlocal.ACCOUNT_ID}:deliverystream/{stream} because no identity-based "
            f"policy allows the firehose:{action} action")


def test_the_roles_policy_allows_its_stream_and_refuses_the_rest_with_boto3(make_server):
    srv = make_server(policy_config(lifetime=4), name="policy")
    _, credentials = app_credentials(srv, pool_id(srv))
    fh = firehose_with(srv, credentials)
    fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"allowed\n"})
    assert fh.put_record_batch(DeliveryStreamName=STREAM, Records=[{"Data": b"batch\n"}])["FailedPutCount"] == 0
    err = fhlocal.expect_client_error(
        lambda: fh.put_record(DeliveryStreamName=OTHER, Record={"Data": b"refused\n"}), "AccessDeniedException")
    assert err["Error"]["Message"] == denial(OTHER)
    err = fhlocal.expect_client_error(lambda: fh.describe_delivery_stream(DeliveryStreamName=STREAM),
                                      "AccessDeniedException")
    assert err["Error"]["Message"] == denial(STREAM, "DescribeDeliveryStream")
    time.sleep(max(0.0, (credentials["Expiration"] - dt.datetime.now(dt.timezone.utc)).total_seconds()) + 0.5)
    fhlocal.expect_client_error(
        lambda: fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"late\n"}), "ExpiredTokenException")
    srv.flush()
    assert srv.delivered(STREAM).decode() == "allowed\nbatch\n"
    assert srv.stream_keys(OTHER) == []
    # The configured test/test keys are bound by nothing.
    srv.client().put_record(DeliveryStreamName=OTHER, Record={"Data": b"admin\n"})


def test_the_go_sdk_gets_credentials_and_meets_the_policy(make_server, tmp_path_factory):
    program = fhlocal.build_go_program("cognitoput", tmp_path_factory)
    srv = make_server(policy_config(lifetime=4), name="go")
    got = fhlocal.run([program, "-endpoint", srv.endpoint, "-pool", pool_id(srv), "-streams", f"{STREAM},{OTHER}",
                       "-after-expiry"], timeout=60)
    assert got.returncode == 0, got.stderr
    report = json.loads(got.stdout)
    assert "error" not in report, report
    assert ID_RE.match(report["identityId"]) and report["accessKeyId"].startswith("ASIA")
    # The Go SDK's STS client (the Query protocol) asks who these credentials are.
    assert report["callerArn"] == f"arn:aws:sts::{fhlocal.ACCOUNT_ID}:assumed-role/AppUnauth/CognitoIdentityCredentials"
    assert report["puts"] == {STREAM: "ok", OTHER: "AccessDeniedException: " + denial(OTHER)}
    assert report["afterExpiry"] == "ExpiredTokenException: The security token included in the request is expired"
    srv.flush(STREAM)
    assert srv.delivered(STREAM).decode() == f"go to {STREAM}\n"


def test_a_configured_key_given_policies_is_bound_by_them(make_server):
    srv = make_server(policy_config(Credentials=[
        {"AccessKeyId": "test", "SecretAccessKey": "test"},
        {"AccessKeyId": "AKIAPRODUCER", "SecretAccessKey": "producer-secret", "UserName": "producer",
         "Policies": [POLICY]}]), name="user")
    producer = srv.client("AKIAPRODUCER", "producer-secret")
    producer.put_record(DeliveryStreamName=STREAM, Record={"Data": b"produced\n"})
    err = fhlocal.expect_client_error(
        lambda: producer.put_record(DeliveryStreamName=OTHER, Record={"Data": b"x\n"}), "AccessDeniedException")
    assert err["Error"]["Message"].startswith(
        f"User: arn:aws:iam::{fhlocal.ACCOUNT_ID}:user/producer is not authorized to perform: firehose:PutRecord")
    srv.client().put_record(DeliveryStreamName=OTHER, Record={"Data": b"test key\n"})


def test_the_mobile_guide_configuration_does_what_the_guide_says(make_server):
    """docs/mobile.md's configuration, as written there: the app's stream is allowed, another team's is
    refused with the very message the guide quotes."""
    guide = (fhlocal.REPO_ROOT / "docs" / "mobile.md").read_text()
    config = re.search(r"```yaml\n(.*?)```", guide, re.S).group(1)
    quoted = re.search(r"A call it does not allow answers what IAM answers:\n\n```\n(.*?)```", guide, re.S).group(1)
    srv = make_server(config, name="guide")
    _, credentials = app_credentials(srv, "us-east-1:7c3b9d2e-5f1a-4c8b-9e6d-1a2b3c4d5e6f")
    fh = firehose_with(srv, credentials)
    fh.put_record(DeliveryStreamName="myapp-events", Record={"Data": b'{"event":"open"}\n'})
    err = fhlocal.expect_client_error(
        lambda: fh.put_record(DeliveryStreamName="billing-events", Record={"Data": b"x"}), "AccessDeniedException")
    assert "AccessDeniedException: " + err["Error"]["Message"] == " ".join(quoted.split())
    srv.flush("myapp-events")
    assert srv.delivered("myapp-events", bucket="myapp-analytics") == b'{"event":"open"}\n'


def test_roles_and_policies_made_at_run_time_with_boto3s_iam_client(make_server):
    """A test that sets everything up through the APIs: a pool, an IAM role with an inline policy, and
    the policy changed while the app's credentials are in use; all of it kept across a restart."""
    srv = make_server(policy_config(), name="iam")
    aws = dict(endpoint_url=srv.endpoint, region_name=srv.region, aws_access_key_id="test",
               aws_secret_access_key="test")
    iam = boto3.session.Session().client("iam", **aws)
    ci = cognito_client(srv)
    trust = {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Federated": "cognito-identity.amazonaws.com"},
        "Action": "sts:AssumeRoleWithWebIdentity"}]}
    role = iam.create_role(RoleName="RuntimeRole", AssumeRolePolicyDocument=json.dumps(trust))["Role"]
    assert role["Arn"] == f"arn:aws:iam::{fhlocal.ACCOUNT_ID}:role/RuntimeRole"
    assert role["RoleId"].startswith("AROA") and role["AssumeRolePolicyDocument"] == trust
    pool = ci.create_identity_pool(IdentityPoolName="runtime", AllowUnauthenticatedIdentities=True)["IdentityPoolId"]
    ci.set_identity_pool_roles(IdentityPoolId=pool, Roles={"unauthenticated": role["Arn"]})

    # A role that exists with no policy allows nothing, as in IAM.
    _, credentials = app_credentials(srv, pool)
    fh = firehose_with(srv, credentials)
    err = fhlocal.expect_client_error(
        lambda: fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"x\n"}), "AccessDeniedException")
    assert "assumed-role/RuntimeRole/CognitoIdentityCredentials" in err["Error"]["Message"]

    iam.put_role_policy(RoleName="RuntimeRole", PolicyName="put", PolicyDocument=json.dumps(POLICY))
    assert iam.get_role_policy(RoleName="RuntimeRole", PolicyName="put")["PolicyDocument"] == POLICY
    assert iam.list_role_policies(RoleName="RuntimeRole")["PolicyNames"] == ["put"]
    fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"allowed now\n"})
    fhlocal.expect_client_error(
        lambda: fh.put_record(DeliveryStreamName=OTHER, Record={"Data": b"x\n"}), "AccessDeniedException")

    # IAM's own refusals, with IAM's codes and statuses.
    err = fhlocal.expect_client_error(lambda: iam.get_role(RoleName="Missing"), "NoSuchEntity", 404, query=True)
    assert err["Error"]["Message"] == "The role with name Missing cannot be found."
    fhlocal.expect_client_error(lambda: iam.delete_role(RoleName="RuntimeRole"), "DeleteConflict", 409, query=True)
    fhlocal.expect_client_error(
        lambda: iam.create_role(RoleName="runtimerole", AssumeRolePolicyDocument=json.dumps(trust)),
        "EntityAlreadyExists", 409, query=True)
    fhlocal.expect_client_error(
        lambda: iam.put_role_policy(RoleName="RuntimeRole", PolicyName="bad", PolicyDocument="{not json"),
        "MalformedPolicyDocument", query=True)
    srv.stop()

    again = make_server.create(policy_config(), name="iam-after")
    again.data_dir = srv.data_dir
    again.start()
    iam = boto3.session.Session().client("iam", **{**aws, "endpoint_url": again.endpoint})
    assert sorted(r["RoleName"] for r in iam.list_roles()["Roles"]) == ["AppUnauth", "RuntimeRole"]
    fh = firehose_with(again, credentials)
    fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"after restart\n"})
    fhlocal.expect_client_error(
        lambda: fh.put_record(DeliveryStreamName=OTHER, Record={"Data": b"x\n"}), "AccessDeniedException")
    iam.delete_role_policy(RoleName="RuntimeRole", PolicyName="put")
    iam.delete_role(RoleName="RuntimeRole")
    metrics = again.http("GET", "/_local/metrics").body.decode()
    assert 'firehose_local_iam_requests_total{operation="DeleteRole",code="OK"} 1' in metrics, metrics
    assert 'firehose_local_iam_requests_total{operation="ListRoles",code="OK"} 1' in metrics
    assert "IAM role changed" in again.stderr_text() and "DeleteRole" in again.stderr_text()
    # The role is gone: the credentials issued for it allow nothing any more, as IAM refuses a deleted
    # role's sessions.
    fhlocal.expect_client_error(
        lambda: fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"x\n"}), "AccessDeniedException")
