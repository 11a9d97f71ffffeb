"""STS on the server's port, driven by boto3's sts client and the AWS CLI against the real process:
GetCallerIdentity for every kind of credential the server knows, signed for any region."""

from __future__ import annotations

import datetime as dt
import json
import time

import boto3
from botocore.config import Config

import fhlocal
from test_cognito import POLICY, app_credentials, policy_config, pool_id

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
