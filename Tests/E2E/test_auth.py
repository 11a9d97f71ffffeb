"""SigV4 verification (docs/compatibility.md, "Authentication"), session tokens, gzip request bodies,
and Authentication: off."""

from __future__ import annotations

import datetime as dt
import gzip
import json
import random

import pytest

import fhlocal
from fhlocal import ACCOUNT_ID, assert_raw_error, b64, expect_client_error

MISMATCH = (
    "The request signature we calculated does not match the signature you provided. "
    "Check your AWS Secret Access Key and signing method."
)
INVALID_TOKEN = "The security token included in the request is invalid."


def put_body(stream: str = "auth", data: bytes = b"x") -> dict:
    return {"DeliveryStreamName": stream, "Record": {"Data": b64(data)}}


def assert_ok(r):
    assert r.status == 200, r
    assert "RecordId" in r.json(), r


@pytest.fixture
def auth_stream_clean(server):
    """The 'auth' stream must hold exactly what the test lets through."""
    server.flush("auth")
    yield
    server.flush("auth")


# --------------------------------------------------------------------------
# Signed with boto3 / botocore: the good cases
# --------------------------------------------------------------------------


def test_raw_signed_request_accepted(server):
    assert_ok(server.raw(put_body()))


def test_boto3_request_accepted(fh):
    assert fh.put_record(DeliveryStreamName="auth", Record={"Data": b"ok"})["RecordId"]


def test_date_header_instead_of_x_amz_date(server):
    # botocore signs with the Date header (RFC 1123) when one is present; the
    # server must then take the time from Date.
    hdrs, body = server.request_parts(put_body(), headers={"Date": "placeholder"})
    assert "X-Amz-Date" not in hdrs and "Date" in hdrs, hdrs
    assert_ok(server.http("POST", "/", body, hdrs))


def test_extra_signed_headers_are_canonicalized(server):
    # Fluent Bit / iOS style: more headers signed, values with runs of spaces.
    body = json.dumps(put_body()).encode()
    hdrs, body = server.request_parts(
        body,
        headers={
            "Content-Length": str(len(body)),
            "X-Amz-Meta-Spaces": "  a   b    c  ",
            "User-Agent": "e2e-test/1.0",
        },
    )
    auth = hdrs["Authorization"]
    assert "content-length" in auth and "x-amz-meta-spaces" in auth, auth
    assert_ok(server.http("POST", "/", body, hdrs))


def test_unsigned_session_token_header_accepted(server):
    # "Accept X-Amz-Security-Token whether signed or not."
    def add_token(h):
        h["X-Amz-Security-Token"] = "tok123"

    r = server.raw(put_body(), access_key="ASIATEMP", secret_key="tempsecret", mutate=add_token)
    assert_ok(r)
    assert "x-amz-security-token" not in r.headers  # (sanity: nothing echoed)


# --------------------------------------------------------------------------
# Failures
# --------------------------------------------------------------------------


def test_missing_authentication(server, auth_stream_clean):
    r = server.raw(put_body(), sign=False)
    body = assert_raw_error(r, "MissingAuthenticationTokenException")
    assert body["message"] == "Missing Authentication Token"
    assert server.flush("auth") == {"objects": []}


def _drop_auth_part(part: str):
    def mutate(h):
        scheme, rest = h["Authorization"].split(" ", 1)
        parts = [p.strip() for p in rest.split(",")]
        h["Authorization"] = scheme + " " + ", ".join(p for p in parts if not p.startswith(part + "="))

    return mutate


@pytest.mark.parametrize("part", ["Credential", "SignedHeaders", "Signature"])
def test_incomplete_signature(server, part, auth_stream_clean):
    r = server.raw(put_body(), mutate=_drop_auth_part(part))
    body = assert_raw_error(r, "IncompleteSignatureException")
    if part == "Credential":
        assert "Authorization header requires 'Credential' parameter." in body["message"], body
    else:
        assert part in body["message"], body
    assert server.flush("auth") == {"objects": []}


def test_incomplete_signature_without_date(server, auth_stream_clean):
    def drop_date(h):
        del h["X-Amz-Date"]

    r = server.raw(put_body(), mutate=drop_date)
    assert_raw_error(r, "IncompleteSignatureException")
    assert server.flush("auth") == {"objects": []}


def test_unknown_access_key(server, auth_stream_clean):
    c = server.client(access_key="AKIDUNKNOWN00000", secret_key="whatever")
    resp = expect_client_error(
        lambda: c.put_record(DeliveryStreamName="auth", Record={"Data": b"x"}), "UnrecognizedClientException"
    )
    assert resp["Error"]["Message"] == INVALID_TOKEN
    assert server.flush("auth") == {"objects": []}


def test_wrong_secret(server, auth_stream_clean):
    c = server.client(access_key="test", secret_key="not-the-secret")
    resp = expect_client_error(
        lambda: c.put_record(DeliveryStreamName="auth", Record={"Data": b"x"}), "InvalidSignatureException"
    )
    assert resp["Error"]["Message"].startswith(MISMATCH), resp["Error"]
    assert server.flush("auth") == {"objects": []}


def test_wrong_region(server, auth_stream_clean):
    c = server.client(region="us-west-2")
    resp = expect_client_error(
        lambda: c.put_record(DeliveryStreamName="auth", Record={"Data": b"x"}), "InvalidSignatureException"
    )
    msg = resp["Error"]["Message"]
    assert "region" in msg.lower() or msg.startswith(MISMATCH), msg
    assert server.flush("auth") == {"objects": []}


def test_wrong_service_in_scope(server, auth_stream_clean):
    r = server.raw(put_body(), service="kinesis")
    assert_raw_error(r, "InvalidSignatureException")
    assert server.flush("auth") == {"objects": []}


def test_tampered_body(server, auth_stream_clean):
    signed = json.dumps(put_body(data=b"original")).encode()
    sent = json.dumps(put_body(data=b"tampered")).encode()
    r = server.raw(sent, sign_body=signed)
    body = assert_raw_error(r, "InvalidSignatureException")
    assert body["message"].startswith(MISMATCH), body
    assert server.flush("auth") == {"objects": []}


def test_tampered_signed_header(server, auth_stream_clean):
    def change(h):
        h["X-Amz-Meta-Tag"] = "two"

    r = server.raw(put_body(), headers={"X-Amz-Meta-Tag": "one"}, mutate=change)
    body = assert_raw_error(r, "InvalidSignatureException")
    assert body["message"].startswith(MISMATCH), body
    assert server.flush("auth") == {"objects": []}


@pytest.mark.parametrize("op", ["DeleteDeliveryStream", "PutRecord"])
def test_operation_must_be_signed(server, fh, op):
    """A request whose SignedHeaders leave out X-Amz-Target verifies whatever
    operation it names: a captured PutRecord replayed as DeleteDeliveryStream
    (same body, same signature) would delete the stream. It is refused, naming
    the header, for every operation."""
    name = "auth-replay"
    fh.create_delivery_stream(DeliveryStreamName=name, ExtendedS3DestinationConfiguration=fhlocal.destination())
    try:

        def add_target(h):
            h["X-Amz-Target"] = fhlocal.TARGET_PREFIX + op

        r = server.raw(put_body(name), target=None, mutate=add_target)
        body = assert_raw_error(r, "InvalidSignatureException")
        assert body["message"] == "'X-Amz-Target' must be a 'SignedHeader' in the AWS Authorization.", body
        assert fh.describe_delivery_stream(DeliveryStreamName=name)["DeliveryStreamDescription"]
        assert server.flush(name) == {"objects": []}
    finally:
        fh.delete_delivery_stream(DeliveryStreamName=name)


@pytest.mark.parametrize(
    "minutes,prefix",
    [(-10, "Signature expired:"), (10, "Signature not yet current:")],
)
def test_clock_skew_rejected(server, minutes, prefix, auth_stream_clean):
    when = dt.datetime.now(dt.timezone.utc) + dt.timedelta(minutes=minutes)
    r = server.raw(put_body(), when=when)
    body = assert_raw_error(r, "InvalidSignatureException")
    assert body["message"].startswith(prefix), body
    assert "5 min" in body["message"], body
    assert server.flush("auth") == {"objects": []}


@pytest.mark.parametrize("minutes", [-4, 4])
def test_small_clock_skew_accepted(server, minutes):
    when = dt.datetime.now(dt.timezone.utc) + dt.timedelta(minutes=minutes)
    assert_ok(server.raw(put_body(), when=when))


# --------------------------------------------------------------------------
# Session-token credentials
# --------------------------------------------------------------------------


def test_session_token_credentials_accepted(server):
    c = server.client(access_key="ASIATEMP", secret_key="tempsecret", token="tok123")
    assert c.put_record(DeliveryStreamName="auth", Record={"Data": b"temp"})["RecordId"]
    assert c.put_record_batch(DeliveryStreamName="auth", Records=[{"Data": b"t2"}])["FailedPutCount"] == 0


def test_wrong_session_token(server, auth_stream_clean):
    c = server.client(access_key="ASIATEMP", secret_key="tempsecret", token="not-the-token")
    resp = expect_client_error(
        lambda: c.put_record(DeliveryStreamName="auth", Record={"Data": b"x"}), "UnrecognizedClientException"
    )
    assert resp["Error"]["Message"] == INVALID_TOKEN
    assert server.flush("auth") == {"objects": []}


def test_missing_session_token(server, auth_stream_clean):
    # Assumption: a key configured with a SessionToken is useless without it.
    c = server.client(access_key="ASIATEMP", secret_key="tempsecret", token=None)
    resp = expect_client_error(
        lambda: c.put_record(DeliveryStreamName="auth", Record={"Data": b"x"}), "UnrecognizedClientException"
    )
    assert resp["Error"]["Message"] == INVALID_TOKEN
    assert server.flush("auth") == {"objects": []}


# --------------------------------------------------------------------------
# Content-Encoding: gzip request bodies (AWS iOS SDK)
# --------------------------------------------------------------------------


def test_gzip_request_body_put_record_batch(server):
    rng = random.Random(7)
    records = [rng.randbytes(rng.randint(0, 3000)) for _ in range(60)] + [bytes(range(256))]
    body = {"DeliveryStreamName": "gzbody", "Records": [{"Data": b64(r)} for r in records]}
    r = server.raw(body, op="PutRecordBatch", gzip_body=True)
    assert r.status == 200, r
    out = r.json()
    assert out["FailedPutCount"] == 0 and len(out["RequestResponses"]) == len(records)
    server.flush("gzbody")
    assert server.delivered("gzbody", decompress=False) == b"".join(records)


def test_gzip_request_body_put_record(server):
    r = server.raw(put_body("gzbody", b"gzipped single\n"), gzip_body=True)
    assert_ok(r)
    server.flush("gzbody")
    assert server.delivered("gzbody", decompress=False).endswith(b"gzipped single\n")


def test_gzip_body_signature_must_cover_compressed_bytes(server, auth_stream_clean):
    plain = json.dumps(put_body()).encode()
    # Signed over the *uncompressed* JSON but sent gzipped: must not verify.
    r = server.raw(plain, gzip_body=True, sign_body=plain)
    body = assert_raw_error(r, "InvalidSignatureException")
    assert body["message"].startswith(MISMATCH), body
    assert server.flush("auth") == {"objects": []}


# --------------------------------------------------------------------------
# Authentication: off  (dedicated server; JSON config; --region/--account-id flags)
# --------------------------------------------------------------------------

OFF_REGION = "us-west-2"
OFF_ACCOUNT = "111122223333"


@pytest.fixture(scope="module")
def open_server(make_module_server):
    config = {
        "Authentication": "off",
        "DeliveryStreams": [fhlocal.ext_stream("open", bucket="open-bucket")],
    }
    return make_module_server(
        config,
        name="auth-off",
        config_name="firehose.json",  # JSON is accepted as well as YAML
        extra_args=["--region", OFF_REGION, "--account-id", OFF_ACCOUNT],
        region=OFF_REGION,
        account_id=OFF_ACCOUNT,
    )


def test_auth_off_accepts_unsigned_raw_request(open_server):
    r = open_server.raw(put_body("open", b"unsigned\n"), sign=False)
    assert_ok(r)
    open_server.flush("open")
    assert open_server.delivered("open", bucket="open-bucket").endswith(b"unsigned\n")


def test_auth_off_accepts_unsigned_boto3(open_server):
    c = open_server.client(signed=False)
    c.put_record(DeliveryStreamName="open", Record={"Data": b"boto-unsigned\n"})
    open_server.flush("open")
    assert open_server.delivered("open", bucket="open-bucket").endswith(b"boto-unsigned\n")


def test_auth_off_accepts_any_credentials(open_server):
    # Assumption: "off" means no verification at all, so any key/secret works.
    c = open_server.client(access_key="AKIAANYTHING", secret_key="anything")
    c.put_record(DeliveryStreamName="open", Record={"Data": b"any-creds\n"})
    open_server.flush("open")
    assert open_server.delivered("open", bucket="open-bucket").endswith(b"any-creds\n")


def test_region_and_account_id_flags(open_server):
    c = open_server.client(signed=False)
    resp = expect_client_error(
        lambda: c.put_record(DeliveryStreamName="ghost", Record={"Data": b"x"}), "ResourceNotFoundException"
    )
    assert resp["Error"]["Message"] == f"Firehose ghost under account {OFF_ACCOUNT} not found."
    assert ACCOUNT_ID not in resp["Error"]["Message"]
