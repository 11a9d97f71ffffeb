"""The process itself: --help, the port file, configuration through the
environment, SIGTERM/SIGINT, and refusal of bad config files."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

import fhlocal
from fhlocal import BUCKET, HOUR_PREFIX_RE, expect_client_error, run

OPTIONS = [
    "--host", "--port", "--port-file", "--data-dir", "--config",
    "--region", "--account-id", "--log-level",
]


# --------------------------------------------------------------------------
# --help
# --------------------------------------------------------------------------


def test_help_lists_every_option(firehose_bin):
    top = run([str(firehose_bin), "--help"], env=fhlocal.clean_env(), timeout=15)
    assert top.returncode == 0, top.stderr.decode()
    top_text = (top.stdout + top.stderr).decode()
    serve = run([str(firehose_bin), "serve", "--help"], env=fhlocal.clean_env(), timeout=15)
    assert serve.returncode == 0, serve.stderr.decode()
    serve_text = (serve.stdout + serve.stderr).decode()
    assert "serve" in top_text, top_text
    for opt in OPTIONS:
        assert re.search(re.escape(opt) + r"(?![a-z-])", serve_text), f"`serve --help` does not mention {opt}:\n{serve_text}"
    for text in (top_text, serve_text):
        assert "Fatal error" not in text and "Stack dump" not in text


# --------------------------------------------------------------------------
# Port file
# --------------------------------------------------------------------------


def test_port_file_is_atomic_and_names_the_listening_port(make_server):
    srv = make_server.create(fhlocal.standard_config(), name="portfile")
    seen: list[str] = []
    stop = threading.Event()

    def watch():
        while not stop.is_set():
            try:
                seen.append(srv.port_file.read_text())
            except FileNotFoundError:
                pass
            time.sleep(0.0005)

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    try:
        srv.start()
        time.sleep(0.1)
    finally:
        stop.set()
        t.join(5)
    assert seen, "never saw the port file"
    partial = {s for s in seen if not re.fullmatch(r"\d+\n", s)}
    assert not partial, f"port file was observed incomplete (not written atomically): {partial}"
    port = int(srv.port_file.read_text())
    assert port == srv.port and 0 < port < 65536
    # Something really listens there, and it is us.
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        pass
    assert srv.health().json() == {"status": "ok"}
    # The bound address is logged to stderr.
    wait_text = fhlocal.wait_for(lambda: str(port) in srv.stderr_text() and srv.stderr_text(), 5,
                                 what="the bound port in stderr")
    assert "127.0.0.1" in wait_text, wait_text
    # No leftovers of the atomic write next to the port file.
    assert sorted(p.name for p in srv.port_file.parent.iterdir() if p.name.startswith("port")) == ["port"]


def test_two_servers_get_different_ports(make_server):
    a = make_server(fhlocal.standard_config(), name="a")
    b = make_server(fhlocal.standard_config(), name="b")
    assert a.port != b.port


def test_second_server_on_the_same_data_dir_exits_naming_the_first(make_server):
    """Two servers on one data directory would deliver each other's staged
    buffers: the second exits at start, naming the first one's PID. The lock
    dies with its process, so kill -9 never leaves the directory locked."""
    config = fhlocal.standard_config()
    first = make_server(config, name="lock-first")
    second = make_server.create(config, name="lock-second")
    second.data_dir = first.data_dir
    proc = second.spawn()
    try:
        assert proc.wait(30) == 1
    finally:
        second.kill()
    err = second.stderr_text()
    assert f"in use by another firehose-local (PID {first.proc.pid})" in err, err
    assert str(first.data_dir) in err and "--data-dir" in err, err
    assert not second.port_file.exists()
    assert first.health().status == 200
    first.client().put_record(DeliveryStreamName="roundtrip", Record={"Data": b"kept\n"})

    first.kill()
    third = make_server.create(config, name="lock-third")
    third.data_dir = first.data_dir
    third.start()  # delivers what the killed server had staged before it accepts requests
    assert third.delivered("roundtrip") == b"kept\n"


def non_loopback_address() -> str | None:
    """An address of this machine that is not loopback (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))
        except OSError:
            return None
        address = s.getsockname()[0]
    return None if address.startswith("127.") else address


def get_from(address: str, port: int, path: str) -> tuple[int, dict]:
    """GET over a connection whose client address is ``address``."""
    import http.client
    import json as _json

    connection = http.client.HTTPConnection(address, port, timeout=10, source_address=(address, 0))
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        return response.status, (_json.loads(body) if body else {})
    finally:
        connection.close()


@pytest.mark.parametrize("mode", ["loopback", "open"])
def test_local_endpoints_answer_only_this_machine_unless_opened(make_server, mode):
    """With --host 0.0.0.0 the Firehose API answers everyone, but /_local (flush,
    wait, streams, metrics) answers other hosts 403 unless --local-endpoints
    open; /_local/health answers everyone. The start warns about what is exposed."""
    address = non_loopback_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address to connect from")
    srv = make_server.create(fhlocal.standard_config(), name=f"exposed-{mode}",
                             extra_args=["--local-endpoints", mode])
    srv.host = "0.0.0.0"
    srv.start()
    status, body = get_from(address, srv.port, "/_local/streams")
    if mode == "loopback":
        assert status == 403 and body["__type"] == "AccessDeniedException", (status, body)
        assert "--local-endpoints open" in body["message"], body
        assert "/_local endpoints answer only this machine (--local-endpoints open exposes them)" in srv.stderr_text()
    else:
        assert status == 200 and "streams" in body, (status, body)
        assert "every /_local endpoint (flush, wait, streams, metrics) answer any client" in srv.stderr_text()
    assert get_from(address, srv.port, "/_local/health") == (200, {"status": "ok"})
    assert srv.http("GET", "/_local/streams").status == 200  # from 127.0.0.1
    # The Firehose API itself answers other hosts either way.
    remote = fhlocal.boto3.client(
        "firehose", endpoint_url=f"http://{address}:{srv.port}", region_name=fhlocal.REGION,
        aws_access_key_id="test", aws_secret_access_key="test")
    assert remote.put_record(DeliveryStreamName="roundtrip", Record={"Data": b"remote\n"})["RecordId"]


def test_waits_hold_at_most_a_quarter_of_the_connections(make_server):
    """--max-connections 4 lets one /_local/wait wait at a time; another is
    refused at once with 503 instead of taking a connection, and puts go on."""
    srv = make_server(fhlocal.standard_config(), name="wait-share", extra_args=["--max-connections", "4"])
    results = []

    def wait_once_admitted():
        # A probe below may hold the only slot for an instant: then this wait is refused; retry it.
        while (r := srv.http("GET", "/_local/wait?stream=roundtrip&objects=1&timeout=20")).status == 503:
            time.sleep(0.01)
        results.append(r)

    waiter = threading.Thread(target=wait_once_admitted)
    waiter.start()
    # A probe that is admitted answers at once (timeout 0); one that is not is refused.
    second = fhlocal.wait_for(
        lambda: (r := srv.http("GET", "/_local/wait?stream=roundtrip&objects=1&timeout=0")).status == 503 and r,
        timeout=10, what="the waiter to hold the only wait slot")
    assert second.json()["__type"] == "ServiceUnavailableException", second
    assert "1 request is already waiting (/_local/wait" in second.json()["message"], second.json()
    srv.client().put_record(DeliveryStreamName="roundtrip", Record={"Data": b"x\n"})
    srv.flush("roundtrip")
    waiter.join(30)
    assert results and results[0].status == 200 and results[0].json() == {"objects": 1}, results


# --------------------------------------------------------------------------
# Environment variables instead of flags
# --------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_configuration_from_environment(make_server, tmp_path):
    data_dir = tmp_path / "env-data"
    data_dir.mkdir()
    port_file = tmp_path / "env-port"
    # No Credentials key: the default pair test/test applies.  GzipLevel 1 is legal.
    config = {
        "GzipLevel": 1,
        "DeliveryStreams": [fhlocal.ext_stream("env-stream", bucket="env-bucket", CompressionFormat="GZIP")],
    }
    port = free_port()
    srv = make_server.create(
        config,
        name="env",
        use_flags=False,
        region="eu-west-1",
        account_id="123456789012",
        extra_env={
            "FIREHOSE_LOCAL_HOST": "127.0.0.1",
            "FIREHOSE_LOCAL_PORT": str(port),
            "FIREHOSE_LOCAL_PORT_FILE": str(port_file),
            "FIREHOSE_LOCAL_DATA_DIR": str(data_dir),
            "FIREHOSE_LOCAL_CONFIG": "PLACEHOLDER",
            "FIREHOSE_LOCAL_REGION": "eu-west-1",
            "FIREHOSE_LOCAL_ACCOUNT_ID": "123456789012",
            "FIREHOSE_LOCAL_LOG_LEVEL": "debug",
        },
    )
    srv.extra_env["FIREHOSE_LOCAL_CONFIG"] = str(srv.config_path)
    srv.port_file = port_file
    srv.data_dir = data_dir
    assert srv.command() == [str(srv.binary), "serve"]
    srv.start()
    assert srv.port == port, "FIREHOSE_LOCAL_PORT was not honoured"
    assert port_file.read_text() == f"{port}\n"

    # FIREHOSE_LOCAL_REGION: eu-west-1 signatures verify, us-east-1 ones do not.
    c = srv.client(region="eu-west-1")
    c.put_record(DeliveryStreamName="env-stream", Record={"Data": b"from env\n"})
    expect_client_error(
        lambda: srv.client(region="us-east-1").put_record(DeliveryStreamName="env-stream", Record={"Data": b"x"}),
        "InvalidSignatureException",
    )
    # FIREHOSE_LOCAL_ACCOUNT_ID
    resp = expect_client_error(
        lambda: c.put_record(DeliveryStreamName="nope", Record={"Data": b"x"}), "ResourceNotFoundException"
    )
    assert resp["Error"]["Message"] == "Firehose nope under account 123456789012 not found."
    # FIREHOSE_LOCAL_DATA_DIR
    result = srv.flush("env-stream")
    assert result["objects"][0]["bucket"] == "env-bucket"
    keys = srv.stream_keys("env-stream", bucket="env-bucket")
    assert len(keys) == 1
    fhlocal.match_key(keys[0], "env-stream", ext=".gz")
    assert srv.read_object("env-bucket", keys[0]) == b"from env\n"
    assert (data_dir / "env-bucket" / keys[0]).is_file()
    # FIREHOSE_LOCAL_LOG_LEVEL=debug: something was logged.
    assert srv.stderr_text().strip()


# --------------------------------------------------------------------------
# Signals
# --------------------------------------------------------------------------


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_delivers_every_buffer_then_exits_zero(make_server, sig):
    srv = make_server(fhlocal.standard_config(), name=f"signal-{sig.name}")
    fh = srv.client()
    fh.put_record(DeliveryStreamName="app-events", Record={"Data": b"plain-1\n"})
    fh.put_record_batch(DeliveryStreamName="app-events", Records=[{"Data": b"plain-2\n"}, {"Data": b"\x00\xff"}])
    fh.put_record_batch(DeliveryStreamName="gz-events", Records=[{"Data": b"gz-%d\n" % i} for i in range(100)])
    fh.put_record(DeliveryStreamName="pfx-hive", Record={"Data": b"hive\n"})
    fh.put_record(DeliveryStreamName="elsewhere", Record={"Data": b"second bucket"})
    assert srv.objects(BUCKET) == [] and srv.objects(fhlocal.SECOND_BUCKET) == []

    rc = srv.stop(sig)
    assert rc == 0, f"exit code {rc} after {sig.name}\n{srv.stderr_tail()}"
    assert srv.delivered("app-events", decompress=False) == b"plain-1\nplain-2\n\x00\xff"
    assert srv.delivered("gz-events") == b"".join(b"gz-%d\n" % i for i in range(100))
    fhlocal.match_key(srv.stream_keys("gz-events")[0], "gz-events", ext=".gz")
    hive = srv.stream_keys("pfx-hive")
    assert len(hive) == 1 and hive[0].startswith("year=")
    assert srv.delivered("elsewhere", bucket=fhlocal.SECOND_BUCKET) == b"second bucket"
    assert "Fatal error" not in srv.stderr_text()


# --------------------------------------------------------------------------
# Bad configuration files
# --------------------------------------------------------------------------


def bad_stream(**dest) -> dict:
    return {"DeliveryStreams": [fhlocal.ext_stream("s1", **dest)]}


STORE_KEYS = {"AccessKeyId": "k", "SecretAccessKey": "s"}

BAD_CONFIGS = {
    # id: (config (dict or raw text), words that must all appear in stderr, any-of group)
    "unknown-compression": (bad_stream(CompressionFormat="BROTLI"), ["CompressionFormat", "BROTLI"], []),
    "lowercase-gzip": (bad_stream(CompressionFormat="gzip"), ["CompressionFormat"], []),
    "lzo": (bad_stream(CompressionFormat="LZO"), ["CompressionFormat", "LZO"], []),
    "size-500": (bad_stream(BufferingHints={"SizeInMBs": 500, "IntervalInSeconds": 60}), ["SizeInMBs", "500"], []),
    "size-0": (bad_stream(BufferingHints={"SizeInMBs": 0, "IntervalInSeconds": 60}), ["SizeInMBs"], []),
    "interval-901": (bad_stream(BufferingHints={"SizeInMBs": 5, "IntervalInSeconds": 901}), ["IntervalInSeconds"], []),
    "size-hint-alone": (bad_stream(BufferingHints={"SizeInMBs": 5}), [], ["BufferingHints", "IntervalInSeconds"]),
    "interval-hint-alone": (bad_stream(BufferingHints={"IntervalInSeconds": 60}), [], ["BufferingHints", "SizeInMBs"]),
    "bucket-traversal": (bad_stream(BucketARN="arn:aws:s3:::../evil"), ["BucketARN"], []),
    "bucket-not-arn": (bad_stream(BucketARN="demo-bucket"), ["BucketARN"], []),
    "stream-name-slash": (
        {"DeliveryStreams": [fhlocal.ext_stream("a/b")]}, ["DeliveryStreamName"], []),
    "stream-name-too-long": (
        {"DeliveryStreams": [fhlocal.ext_stream("s" * 65)]}, ["DeliveryStreamName"], []),
    "duplicate-stream": (
        {"DeliveryStreams": [fhlocal.ext_stream("dup"), fhlocal.ext_stream("dup")]}, ["dup"], []),
    "two-destinations": (
        {"DeliveryStreams": [{**fhlocal.ext_stream("both"), **fhlocal.s3_stream("both")}]},
        [], ["ExtendedS3DestinationConfiguration", "S3DestinationConfiguration"]),
    "prefix-expr-without-error-prefix": (
        bad_stream(Prefix="year=!{timestamp:yyyy}/"), ["ErrorOutputPrefix"], []),
    "dynamic-partitioning-without-keys": (
        bad_stream(DynamicPartitioningConfiguration={"Enabled": True}), ["Prefix", "Dynamic Partitioning namespaces"],
        []),
    "prefix-combining-mark-hides-dotdot": (
        bad_stream(Prefix="a/../\u0301x/"), ["Prefix", "path segment '..' is not allowed"], []),
    "prefix-1024-emoji": (
        bad_stream(Prefix="\U0001F600" * 1024), ["Prefix", "length less than or equal to 1024"], []),
    "gzip-level-10": ({"GzipLevel": 10, **bad_stream()}, ["GzipLevel"], []),
    "gzip-implementation-pigz": (
        {"GzipImplementation": "pigz", **bad_stream()}, ["GzipImplementation", "'zlib' or 'libdeflate', not 'pigz'"],
        []),
    "authentication-maybe": ({"Authentication": "maybe", **bad_stream()}, ["Authentication"], []),
    "unknown-top-level-key": ({"Bogus": 1, **bad_stream()}, ["Bogus"], []),
    "unreadable-yaml": ("DeliveryStreams:\n  - DeliveryStreamName: [unclosed\n    : : :\n\t-\n", [], []),
    "store-endpoint-ftp": (
        {"Buckets": [{"Name": "bucket-one", "Endpoint": "ftp://example.com", "Credentials": STORE_KEYS}], **bad_stream()},
        ["Buckets[0].Endpoint", "http:// or https://"], []),
    "store-endpoint-path": (
        {"Buckets": [{"Name": "bucket-one", "Endpoint": "http://127.0.0.1:9000/x", "Credentials": STORE_KEYS}],
         **bad_stream()}, ["Buckets[0].Endpoint", "without a path"], []),
    "store-without-credentials": (
        {"Buckets": [{"Name": "bucket-one", "Endpoint": "http://127.0.0.1:9000"}], **bad_stream()},
        ["Buckets[0].Credentials"], []),
    "store-credentials-twice": (
        {"Buckets": [{"Name": "bucket-one", "Endpoint": "http://127.0.0.1:9000", "Credentials": STORE_KEYS,
                      "CredentialsFrom": "environment"}], **bad_stream()}, ["give Credentials or CredentialsFrom"], []),
    "store-unknown-profile": (
        {"Buckets": [{"Name": "bucket-one", "Endpoint": "http://127.0.0.1:9000", "CredentialsFrom": "profile:nobody"}],
         **bad_stream()}, ["profile 'nobody'"], []),
    "store-mapped-twice": (
        {"Buckets": [{"Name": "bucket-one", "Endpoint": "http://127.0.0.1:9000", "Credentials": STORE_KEYS}] * 2,
         **bad_stream()}, ["Buckets[1].Name", "mapped twice"], []),
    "store-virtual-ip": (
        {"Buckets": [{"Name": "bucket-one", "Endpoint": "http://127.0.0.1:9000", "Credentials": STORE_KEYS,
                      "AddressingStyle": "virtual"}], **bad_stream()}, ["AddressingStyle", "host name"], []),
    "store-name-not-s3": (
        {"Buckets": [{"Name": "Bad_Bucket", "Endpoint": "http://127.0.0.1:9000", "Credentials": STORE_KEYS}],
         **bad_stream()}, ["Buckets[0].Name", "StoreBucket"], []),
    "store-addressing": (
        {"Buckets": [{"Name": "bucket-one", "Endpoint": "http://127.0.0.1:9000", "Credentials": STORE_KEYS,
                      "AddressingStyle": "dns"}], **bad_stream()}, ["AddressingStyle"], []),
    "store-part-size-under-5": (
        {"Buckets": [{"Name": "bucket-one", "Endpoint": "http://127.0.0.1:9000", "Credentials": STORE_KEYS,
                      "PartSizeMB": 4}], **bad_stream()}, ["Buckets[0].PartSizeMB", "5 to 512"], []),
    "store-threshold-zero": (
        {"Buckets": [{"Name": "bucket-one", "Endpoint": "http://127.0.0.1:9000", "Credentials": STORE_KEYS,
                      "MultipartThresholdMB": 0}], **bad_stream()}, ["Buckets[0].MultipartThresholdMB"], []),
    "fault-every-zero": (
        {"Faults": [{"Name": "x", "FailRecords": {"Every": 0}}], **bad_stream()},
        ["Faults[0].FailRecords.Every", "from 1 to 500"], []),
    "fault-two-actions": (
        {"Faults": [{"Error": {"Code": "InternalFailure"}, "Hang": {}}], **bad_stream()},
        ["Faults[0]", "at most one of FailRecords, Error, ResetConnection and Hang"], []),
    "fault-fail-records-on-put-record": (
        {"Faults": [{"Operations": ["PutRecord"], "FailRecords": {"Fraction": 0.1}}], **bad_stream()},
        ["Faults[0].Operations", "PutRecordBatch or to kinesis:PutRecords"], []),
    "fault-unknown-operation": (
        {"Faults": [{"Operations": ["PutRecords"], "Error": {"Code": "InternalFailure"}}], **bad_stream()},
        ["Faults[0].Operations[0]", "'PutRecords' is not a Firehose operation"], []),
    "fault-name-twice": (
        {"Faults": [{"Name": "a", "Latency": {"Milliseconds": 1}}] * 2, **bad_stream()},
        ["Faults[1].Name", "comes earlier"], []),
    "fault-typo": (
        {"Faults": [{"Probabilty": 0.5, "Latency": {"Milliseconds": 1}}], **bad_stream()},
        ["Probabilty", "Probability"], []),
    "cognito-lifetime-zero": (
        {"Cognito": {"CredentialLifetimeSeconds": 0}, **bad_stream()},
        ["Cognito.CredentialLifetimeSeconds", "between 1 and 43200"], []),
    "cognito-pool-name": (
        {"Cognito": {"IdentityPools": [{"IdentityPoolName": "a/b", "AllowUnauthenticatedIdentities": True}]},
         **bad_stream()}, ["Cognito.IdentityPools[0]", "Value 'a/b' at 'identityPoolName'"], []),
    "cognito-role-type": (
        {"Cognito": {"IdentityPools": [{"IdentityPoolName": "a", "AllowUnauthenticatedIdentities": True,
                                        "Roles": {"guest": "arn:aws:iam::000000000000:role/Guest"}}]},
         **bad_stream()}, ["Cognito.IdentityPools[0]", "Value 'guest' at 'roles'"], []),
    "cognito-role-not-arn": (
        {"Cognito": {"IdentityPools": [{"IdentityPoolName": "a", "AllowUnauthenticatedIdentities": True,
                                        "Roles": {"authenticated": "role/AppAuth-with-a-long-name"}}]},
         **bad_stream()}, ["Cognito.IdentityPools[0]", "Invalid roles ARN"], []),
    "cognito-pool-typo": (
        {"Cognito": {"IdentityPools": [{"IdentityPoolName": "a", "AllowUnauthenticatedIdentities": True, "Role": {}}]},
         **bad_stream()}, ["unknown field 'Role'"], []),
    "kinesis-stream-name": (
        {"KinesisStreams": [{"StreamName": "a/b"}], **bad_stream()},
        ["KinesisStreams[0]", "Value 'a/b' at 'streamName'"], []),
    "kinesis-stream-twice": (
        {"KinesisStreams": [{"StreamName": "a"}, {"StreamName": "a", "ShardCount": 1}], **bad_stream()},
        ["KinesisStreams[1].StreamName", "defined twice"], []),
    "kinesis-shards-over-quota": (
        {"KinesisStreams": [{"StreamName": "a", "ShardCount": 300}, {"StreamName": "b", "ShardCount": 201}],
         **bad_stream()}, ["KinesisStreams", "501 shards", "at most 500"], []),
    "kinesis-stream-typo": (
        {"KinesisStreams": [{"StreamName": "a", "Shards": 2}], **bad_stream()}, ["unknown field 'Shards'"], []),
    "role-without-name": (
        {"Roles": [{"Policies": []}], **bad_stream()}, ["Roles[0]", "give RoleName or RoleArn"], []),
    "role-policy-with-principal": (
        {"Roles": [{"RoleName": "App", "Policies": [{"Version": "2012-10-17", "Statement": {
            "Effect": "Allow", "Principal": "*", "Action": "firehose:*", "Resource": "*"}}]}], **bad_stream()},
        ["Roles[0].Policies[0].Statement[0].Principal", "should not specify a principal"], []),
    "role-policy-not-json": (
        {"Roles": [{"RoleName": "App", "Policies": ["{not json"]}], **bad_stream()},
        ["Roles[0].Policies[0]", "not valid JSON"], []),
    "user-name-without-policies": (
        {"Credentials": [{"AccessKeyId": "a", "SecretAccessKey": "b", "UserName": "ci"}], **bad_stream()},
        ["Credentials[0].UserName", "give Policies too"], []),
    "cognito-pool-twice": (
        {"Cognito": {"IdentityPools": [{"IdentityPoolName": "a", "AllowUnauthenticatedIdentities": True},
                                       {"IdentityPoolName": "a", "AllowUnauthenticatedIdentities": False}]},
         **bad_stream()}, ["Cognito.IdentityPools[1]", "defined twice"], []),
}


@pytest.mark.parametrize("case", list(BAD_CONFIGS), ids=list(BAD_CONFIGS))
def test_bad_config_is_refused(firehose_bin, tmp_path, case):
    config, must, any_of = BAD_CONFIGS[case]
    srv = fhlocal.FirehoseLocal(firehose_bin, tmp_path, config, name=f"bad-{case}", config_name=f"bad-{case}.yaml")
    srv.spawn()
    try:
        srv.proc.wait(fhlocal.BAD_CONFIG_EXIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        srv.kill()
        pytest.fail(f"server with a bad config ({case}) was still running after "
                    f"{fhlocal.BAD_CONFIG_EXIT_TIMEOUT:.0f} s\n{srv.stderr_tail()}")
    finally:
        srv.kill()
    err = srv.stderr_text()
    assert srv.proc.returncode != 0, f"bad config {case} accepted (exit 0)\n{err}"
    assert srv.proc.returncode > 0, f"killed by signal {-srv.proc.returncode} instead of exiting\n{err}"
    assert f"bad-{case}.yaml" in err, f"stderr does not name the config file:\n{err}"
    for word in must:
        assert word in err, f"stderr does not mention {word!r}:\n{err}"
    if any_of:
        assert any(w in err for w in any_of), f"stderr mentions none of {any_of}:\n{err}"
    for crash in ("Fatal error", "Stack dump", "Backtrace", "Segmentation fault"):
        assert crash not in err, f"crash output in stderr:\n{err}"
    assert not srv.port_file.exists(), "port file written although startup failed"


def test_missing_config_file_is_refused(firehose_bin, tmp_path):
    srv = fhlocal.FirehoseLocal(firehose_bin, tmp_path, None, name="no-config", config_name="absent.yaml")
    srv.spawn()
    try:
        srv.proc.wait(fhlocal.BAD_CONFIG_EXIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running without a config file\n{srv.stderr_tail()}")
    finally:
        srv.kill()
    err = srv.stderr_text()
    assert srv.proc.returncode > 0, err
    assert "absent.yaml" in err, err
    assert "Fatal error" not in err and "Stack dump" not in err, err


def test_valid_yaml_variants_start(make_server):
    # The spec's own example shape (flow mappings, comments, Prefix "") is accepted.
    text = """\
Authentication: verify        # or off; default verify
Credentials:
  - AccessKeyId: test
    SecretAccessKey: test
  - AccessKeyId: ASIATEMP
    SecretAccessKey: tempsecret
    SessionToken: tok123
GzipLevel: 6
DeliveryStreams:
  - DeliveryStreamName: app-events
    ExtendedS3DestinationConfiguration:
      BucketARN: arn:aws:s3:::demo-bucket
      RoleARN: arn:aws:iam::000000000000:role/firehose
      Prefix: ""
      ErrorOutputPrefix: ""
      BufferingHints: {SizeInMBs: 5, IntervalInSeconds: 300}
      CompressionFormat: GZIP
      FileExtension: .json.gz
      CustomTimeZone: America/New_York
      ProcessingConfiguration: {Enabled: true, Processors: [{Type: AppendDelimiterToRecord}]}
  - DeliveryStreamName: minimal
    S3DestinationConfiguration:
      BucketARN: arn:aws:s3:::demo-bucket
"""
    srv = make_server(text, name="spec-example")
    fh = srv.client()
    fh.put_record(DeliveryStreamName="app-events", Record={"Data": b'{"a":1}'})
    fh.put_record(DeliveryStreamName="minimal", Record={"Data": b"m"})
    srv.flush()
    [key] = srv.stream_keys("app-events")
    fhlocal.match_key(key, "app-events", ext=".json.gz")
    assert srv.read_object(BUCKET, key) == b'{"a":1}\n'
    [mkey] = srv.stream_keys("minimal")
    fhlocal.match_key(mkey, "minimal", ext="")
    assert srv.read_object(BUCKET, mkey, decompress=False) == b"m"
