"""Fault injection: rules from the configuration file and from /_local/faults, seen by real clients.

Every test checks the promise that makes injected faults safe to test with: a record reported failed
is never delivered, and a record reported stored always is.
"""

from __future__ import annotations

import json
import socket
import time

import boto3
import botocore
import pytest
from botocore.config import Config

import fhlocal
from fhlocal import BUCKET, ext_stream, hints

STREAM = "faulty"


def config(*faults: dict, streams: list[dict] | None = None) -> dict:
    return fhlocal.standard_config(
        DeliveryStreams=streams or [ext_stream(STREAM, **hints(128, 900))], Faults=list(faults))


def delivered_ids(srv, stream: str = STREAM) -> list[str]:
    """Every newline-separated record of the stream's objects, in key order."""
    srv.flush(stream)
    out: list[str] = []
    for key, body in srv.objects():
        if key.split("/")[-1].startswith(stream + "-"):
            out += [line for line in body.decode().split("\n") if line]
    return out


def boto_client(srv, mode: str, attempts: int):
    return boto3.session.Session().client(
        "firehose", endpoint_url=srv.endpoint, region_name=srv.region, aws_access_key_id="test",
        aws_secret_access_key="test",
        config=Config(retries={"total_max_attempts": attempts, "mode": mode}, read_timeout=30))


def faults(srv) -> list[dict]:
    r = srv.http("GET", "/_local/faults")
    assert r.status == 200, r
    return r.json()["faults"]


def test_per_record_failures_are_seeded_shaped_as_aws_and_never_delivered(make_server):
    rule = {"Name": "third", "FailRecords": {"Fraction": 0.3}, "Seed": 7}
    runs = []
    for attempt in range(2):
        srv = make_server(config(rule), name=f"run{attempt}")
        fh = srv.client()
        answer = fh.put_record_batch(
            DeliveryStreamName=STREAM, Records=[{"Data": f"r{i}\n".encode()} for i in range(200)])
        entries = answer["RequestResponses"]
        failed = [i for i, e in enumerate(entries) if "ErrorCode" in e]
        assert answer["FailedPutCount"] == len(failed)
        assert 30 <= len(failed) <= 90, failed  # about 30 % of 200
        for i, entry in enumerate(entries):
            if i in failed:
                assert entry == {"ErrorCode": "ServiceUnavailableException", "ErrorMessage": "Slow down."}
            else:
                assert set(entry) == {"RecordId"}
        stored = [f"r{i}" for i in range(200) if i not in failed]
        assert delivered_ids(srv) == stored
        runs.append(failed)
        assert fhlocal.stream_status(srv, STREAM)["faults"] == {"third": 1}
    # The same seed and the same requests fail the same records.
    assert runs[0] == runs[1]


def test_patterns_and_internal_failure(make_server):
    srv = make_server(config(
        {"Name": "every-3rd", "FailRecords": {"Every": 3, "ErrorCode": "InternalFailure"}, "Count": 1},
        {"Name": "first-ten", "FailRecords": {"Records": "0-9"}, "Count": 1},
    ))
    fh = srv.client()
    batch = [{"Data": f"a{i}\n".encode()} for i in range(10)]
    first = fh.put_record_batch(DeliveryStreamName=STREAM, Records=batch)["RequestResponses"]
    assert [i for i, e in enumerate(first) if "ErrorCode" in e] == [2, 5, 8]
    assert first[2] == {"ErrorCode": "InternalFailure", "ErrorMessage": "Internal service failure."}
    second = fh.put_record_batch(DeliveryStreamName=STREAM, Records=batch)
    assert second["FailedPutCount"] == 10
    third = fh.put_record_batch(DeliveryStreamName=STREAM, Records=batch)
    assert third["FailedPutCount"] == 0
    expected = [f"a{i}" for i in range(10) if i not in (2, 5, 8)] + [f"a{i}" for i in range(10)]
    assert delivered_ids(srv) == expected
    listed = {rule["Name"]: rule for rule in faults(srv)}
    assert listed["every-3rd"]["Fired"] == 1 and listed["every-3rd"]["Spent"] is True
    assert listed["first-ten"]["FailRecords"]["Records"] == "0-9"


@pytest.mark.parametrize("mode", ["standard", "adaptive"])
def test_boto3_retries_a_burst_of_503s_and_the_records_arrive_once(make_server, mode):
    srv = make_server(config(
        {"Name": "outage", "Error": {"Code": "ServiceUnavailableException", "Status": 503}, "Count": 2}))
    fh = boto_client(srv, mode, attempts=3)
    fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"survivor\n"})
    assert delivered_ids(srv) == ["survivor"]
    assert faults(srv)[0]["Fired"] == 2
    metrics = srv.http("GET", "/_local/metrics").body.decode()
    assert f'firehose_local_faults_injected_total{{rule="outage",stream="{STREAM}"}} 2' in metrics
    assert 'code="ServiceUnavailableException"' in metrics
    # The server's log names the rule that fired.
    assert "Fault injected" in srv.stderr_tail(200_000) and "outage" in srv.stderr_tail(200_000)


def test_any_error_code_and_status(make_server):
    srv = make_server(config(
        {"Name": "expired", "Error": {"Code": "ExpiredTokenException"}, "Count": 1},
        {"Name": "throttled", "Error": {"Code": "ThrottlingException", "Status": 400, "Message": "Rate exceeded"},
         "Count": 1},
        {"Name": "internal", "Operations": ["DescribeDeliveryStream"], "Error": {"Code": "InternalFailure"},
         "Count": 1},
    ))
    fh = srv.client()
    put = lambda: fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"x\n"})  # noqa: E731
    err = fhlocal.expect_client_error(put, "ExpiredTokenException", 400)
    assert err["Error"]["Message"] == "The security token included in the request is expired"
    err = fhlocal.expect_client_error(put, "ThrottlingException", 400)
    assert err["Error"]["Message"] == "Rate exceeded"
    put()
    fhlocal.expect_client_error(lambda: fh.describe_delivery_stream(DeliveryStreamName=STREAM), "InternalFailure", 500)
    assert fh.describe_delivery_stream(DeliveryStreamName=STREAM)["DeliveryStreamDescription"]["DeliveryStreamName"] == STREAM
    assert delivered_ids(srv) == ["x"]


def test_rules_match_streams_and_access_keys(make_server):
    streams = [ext_stream(STREAM, **hints(128, 900)), ext_stream("calm", **hints(128, 900))]
    credentials = fhlocal.DEFAULT_CREDENTIALS + [{"AccessKeyId": "other", "SecretAccessKey": "other-secret"}]
    srv = make_server(fhlocal.standard_config(
        DeliveryStreams=streams, Credentials=credentials,
        Faults=[{"Name": "only-other", "Streams": [STREAM], "AccessKeyId": "other",
                 "Error": {"Code": "AccessDeniedException"}}]))
    srv.client().put_record(DeliveryStreamName=STREAM, Record={"Data": b"a\n"})
    other = srv.client("other", "other-secret")
    other.put_record(DeliveryStreamName="calm", Record={"Data": b"b\n"})
    fhlocal.expect_client_error(
        lambda: other.put_record(DeliveryStreamName=STREAM, Record={"Data": b"c\n"}), "AccessDeniedException", 400)
    assert delivered_ids(srv) == ["a"]
    assert delivered_ids(srv, "calm") == ["b"]


def test_latency_fixed_and_window(make_server):
    srv = make_server(config({"Name": "slow", "Latency": {"Milliseconds": 400}, "ForSeconds": 60}))
    fh = srv.client()
    started = time.monotonic()
    fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"late\n"})
    assert time.monotonic() - started >= 0.4
    srv.http("DELETE", "/_local/faults?name=slow")
    started = time.monotonic()
    fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"fast\n"})
    assert time.monotonic() - started < 0.4
    assert delivered_ids(srv) == ["late", "fast"]


def raw_put(srv, data: bytes, timeout: float = 10) -> tuple[bytes, bool]:
    """Sends a signed PutRecord over a plain socket; returns what came back and whether the connection
    ended with a reset (rather than an orderly close)."""
    headers, body = srv.request_parts({"DeliveryStreamName": STREAM, "Record": {"Data": fhlocal.b64(data)}})
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    request = f"POST / HTTP/1.1\r\n{head}Content-Length: {len(body)}\r\n\r\n".encode() + body
    received = b""
    with socket.create_connection((srv.host, srv.port), timeout=timeout) as sock:
        sock.sendall(request)
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except ConnectionResetError:
            return received, True
    return received, False


@pytest.mark.parametrize("moment,stored", [("BeforeRead", False), ("AfterRead", True)])
def test_connection_reset(make_server, moment, stored):
    srv = make_server(config({"Name": "drop", "ResetConnection": moment, "Count": 1}))
    # Not one byte of an answer before the reset.
    assert raw_put(srv, b"first\n") == (b"", True)
    # boto3 sees a connection error, retries, and the second attempt is answered.
    fh = boto_client(srv, "standard", attempts=2)
    fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"second\n"})
    assert delivered_ids(srv) == (["first", "second"] if stored else ["second"])


def test_hang_until_the_client_gives_up(make_server):
    srv = make_server(config({"Name": "stall", "Hang": {"Seconds": 60}, "Count": 1}))
    fh = boto3.session.Session().client(
        "firehose", endpoint_url=srv.endpoint, region_name=srv.region, aws_access_key_id="test",
        aws_secret_access_key="test", config=Config(retries={"total_max_attempts": 1}, read_timeout=1))
    started = time.monotonic()
    with pytest.raises(botocore.exceptions.ReadTimeoutError):
        fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"never\n"})
    assert 1 <= time.monotonic() - started < 10
    fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"after\n"})
    assert delivered_ids(srv) == ["after"]
    # The server noticed that the client left: the hang does not hold its 60 s.
    fhlocal.wait_for(lambda: "the client closed the connection" in srv.stderr_tail(100_000), 5,
                     what="the hang to end with the client")


def test_a_hang_ends_when_the_server_stops(make_server):
    import threading

    srv = make_server(config({"Name": "stall", "Hang": {"Seconds": 600}}))
    outcome: list = []
    client = threading.Thread(target=lambda: outcome.append(raw_put(srv, b"held\n", timeout=60)))
    client.start()
    fhlocal.wait_for(lambda: "Fault injected" in srv.stderr_tail(100_000), 10, what="the hang to begin")
    started = time.monotonic()
    assert srv.stop() == 0
    assert time.monotonic() - started < 10
    client.join(10)
    assert outcome == [(b"", True)]
    assert "the server is shutting down" in srv.stderr_tail(100_000)


def test_a_delay_the_client_gives_up_on_is_not_carried_out(make_server):
    srv = make_server(config({"Name": "slow", "Latency": {"Milliseconds": 3000}, "Count": 1}))
    fh = boto3.session.Session().client(
        "firehose", endpoint_url=srv.endpoint, region_name=srv.region, aws_access_key_id="test",
        aws_secret_access_key="test", config=Config(retries={"total_max_attempts": 1}, read_timeout=1))
    with pytest.raises(botocore.exceptions.ReadTimeoutError):
        fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"abandoned\n"})
    fhlocal.wait_for(lambda: "Fault delay cut short" in srv.stderr_tail(100_000), 5, what="the delay to be cut")
    fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"after\n"})
    assert delivered_ids(srv) == ["after"]


JSON = {"Content-Type": "application/json"}


def test_runtime_rules_create_list_delete(make_server):
    srv = make_server(config())
    rule = {"Name": "burst", "Operations": ["PutRecord"], "Error": {"Code": "ServiceUnavailableException"},
            "Count": 3}
    r = srv.http("POST", "/_local/faults", json.dumps(rule).encode(), {"Content-Type": "application/json"})
    assert r.status == 201, r
    assert r.json()["Remaining"] == 3
    again = srv.http("POST", "/_local/faults", json.dumps(rule).encode(), JSON)
    assert again.status == 409 and again.json()["__type"] == "ResourceInUseException"
    unnamed = srv.http("POST", "/_local/faults", b'{"Latency": {"Milliseconds": 1}}', JSON)
    assert unnamed.status == 201 and unnamed.json()["Name"] == "fault-1"
    typo = srv.http("POST", "/_local/faults", b'{"Eror": {"Code": "X"}}', JSON)
    assert typo.status == 400 and "unknown field 'Eror'" in typo.json()["message"]
    bad = srv.http("POST", "/_local/faults", b'{"FailRecords": {"Fraction": 1.5}}', JSON)
    assert bad.status == 400 and bad.json()["message"].startswith("FailRecords.Fraction: must be from 0 to 1")
    assert [f["Name"] for f in faults(srv)] == ["burst", "fault-1"]
    fh = srv.client()
    fhlocal.expect_client_error(
        lambda: fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"x\n"}), "ServiceUnavailableException", 500)
    assert srv.http("DELETE", "/_local/faults?name=burst").json() == {"removed": 1}
    assert srv.http("DELETE", "/_local/faults?name=burst").status == 404
    assert srv.http("DELETE", "/_local/faults?name=").status == 400
    fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"x\n"})
    assert srv.http("DELETE", "/_local/faults").json() == {"removed": 1}
    assert faults(srv) == []


def aws_cli(srv, tmp_path, *args: str, attempts: int = 1):
    env = fhlocal.clean_env({
        "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": srv.region,
        "HOME": str(tmp_path), "AWS_CONFIG_FILE": str(tmp_path / "config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "credentials"),
        "AWS_MAX_ATTEMPTS": str(attempts), "AWS_RETRY_MODE": "standard",
    })
    cmd = fhlocal.aws_cli_command() + ["firehose", *args, "--endpoint-url", srv.endpoint, "--output", "json"]
    return fhlocal.run(cmd, env=env, timeout=60)


def test_aws_cli_sees_failed_records_and_retries_refusals(make_server, tmp_path):
    srv = make_server(config({"Name": "halves", "FailRecords": {"Every": 2}, "Count": 1}))
    # awscli v1 base64-encodes the Data text itself: the records are the texts below.
    records = json.dumps([{"Data": f"cli{i}\n"} for i in range(4)])
    proc = aws_cli(srv, tmp_path, "put-record-batch", "--delivery-stream-name", STREAM, "--records", records)
    assert proc.returncode == 0, proc.stderr.decode()
    out = json.loads(proc.stdout)
    assert out["FailedPutCount"] == 2
    assert [sorted(e) for e in out["RequestResponses"]] == [
        ["RecordId"], ["ErrorCode", "ErrorMessage"], ["RecordId"], ["ErrorCode", "ErrorMessage"]]
    assert out["RequestResponses"][1]["ErrorCode"] == "ServiceUnavailableException"

    burst = {"Name": "burst", "Error": {"Code": "ServiceUnavailableException"}, "Count": 3}
    assert srv.http("POST", "/_local/faults", json.dumps(burst).encode(), JSON).status == 201
    put = ("put-record", "--delivery-stream-name", STREAM, "--record", '{"Data":"cli-retried\\n"}')
    refused = aws_cli(srv, tmp_path, *put)
    assert refused.returncode != 0
    assert "ServiceUnavailableException" in refused.stderr.decode() and "Slow down." in refused.stderr.decode()
    # Two refusals (500, as AWS answers ServiceUnavailableException) left in the burst: three attempts get through.
    proc = aws_cli(srv, tmp_path, *put, attempts=3)
    assert proc.returncode == 0, proc.stderr.decode()
    assert [f for f in faults(srv) if f["Name"] == "burst"][0]["Spent"] is True
    assert delivered_ids(srv) == ["cli0", "cli2", "cli-retried"]


def test_quotas_throttle_as_aws_does_and_boto3_retries(make_server):
    # One request a second: the PutRecord right after the batch is over the quota, however slow the machine.
    srv = make_server(config() | {"Quotas": {"RecordsPerSecond": 100, "RequestsPerSecond": 1}})
    fh = srv.client()
    first = fh.put_record_batch(DeliveryStreamName=STREAM, Records=[{"Data": f"q{i}\n".encode()} for i in range(150)])
    # The records quota holds one second's worth: the first 100 go in, the rest fail as AWS fails them.
    assert first["FailedPutCount"] == 50
    assert all("RecordId" in e for e in first["RequestResponses"][:100])
    assert all(e == {"ErrorCode": "ServiceUnavailableException", "ErrorMessage": "Slow down."}
               for e in first["RequestResponses"][100:])
    fhlocal.expect_client_error(
        lambda: fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"refused\n"}), "ServiceUnavailableException",
        500)
    # boto3's standard retry mode backs off and gets through once the bucket refills.
    boto_client(srv, "standard", attempts=10).put_record(DeliveryStreamName=STREAM, Record={"Data": b"retried\n"})
    assert delivered_ids(srv) == [f"q{i}" for i in range(100)] + ["retried"]
    assert fhlocal.stream_status(srv, STREAM)["throttledRecords"] >= 51
    assert "Per-stream quotas in force" in srv.stderr_tail(200_000)


def test_quotas_line_aws_uses_the_regions_defaults(make_server):
    # 5 MiB/s in us-east-1: a full 4 MiB batch goes in whole.
    big = [{"Data": b"x" * 1_000_000 + b"\n"}] * 4
    east = make_server(config() | {"Quotas": "aws"}, name="east")
    assert east.client().put_record_batch(DeliveryStreamName=STREAM, Records=big)["FailedPutCount"] == 0
    # 1 MiB/s in Frankfurt: a bucket of one second holds one such record, never the batch.
    frankfurt = make_server(config() | {"Quotas": "aws"}, name="frankfurt", region="eu-central-1",
                            extra_args=["--region", "eu-central-1"])
    answer = frankfurt.client().put_record_batch(DeliveryStreamName=STREAM, Records=big)
    assert answer["FailedPutCount"] == 3 and "RecordId" in answer["RequestResponses"][0]


@pytest.mark.parametrize("mode", ["standard", "adaptive"])
def test_the_testing_guides_retry_loop(make_server, mode):
    """The boto3 loop of docs/testing.md ("Testing your retry logic"), as written there, with boto3's own
    retries taking a burst of 503s and random refusals (500) on top of 30 % failed records."""
    srv = make_server(config(
        {"Name": "burst", "Operations": ["PutRecordBatch"],
         "Error": {"Code": "ServiceUnavailableException", "Status": 503}, "Count": 2},
        {"Name": "refusals", "Operations": ["PutRecordBatch"], "Error": {"Code": "ServiceUnavailableException"},
         "Probability": 0.2},
        {"Name": "flaky", "FailRecords": {"Fraction": 0.3}},
    ))
    firehose = boto_client(srv, mode, attempts=10)
    records = [f"id-{i}\n".encode() for i in range(200)]
    pending = list(records)
    rounds = 0
    while pending:
        answer = firehose.put_record_batch(DeliveryStreamName=STREAM, Records=[{"Data": r} for r in pending])
        pending = [r for r, e in zip(pending, answer["RequestResponses"]) if "ErrorCode" in e]
        rounds += 1
    assert rounds > 1
    assert sorted(delivered_ids(srv)) == sorted(r.decode().strip() for r in records)
    fired = {f["Name"]: f["Fired"] for f in faults(srv)}
    assert fired["burst"] == 2 and fired["flaky"] >= rounds - 1, fired


@pytest.fixture(scope="module")
def firehoseput(tmp_path_factory) -> str:
    return fhlocal.build_go_program("firehoseput", tmp_path_factory)


def test_go_sdk_retries_refusals_and_resends_failed_entries(make_server, firehoseput):
    srv = make_server(config(
        {"Name": "refusals", "Operations": ["PutRecordBatch"], "Error": {"Code": "ServiceUnavailableException"},
         "Probability": 0.3},
        {"Name": "thirty-percent", "FailRecords": {"Fraction": 0.3}},
    ))
    run = fhlocal.run([firehoseput, "-endpoint", srv.endpoint, "-stream", STREAM, "-records", "1200"], timeout=120)
    assert run.returncode == 0, run.stdout.decode() + run.stderr.decode()
    report = json.loads(run.stdout)
    # The SDK retried the refused requests itself (HTTP 500, as AWS answers them) ...
    assert report["failedAttempts"].get("ServiceUnavailableException 500", 0) > 0, report
    # ... and the failed entries were sent again by the program.
    assert report["failedEntries"].get("ServiceUnavailableException: Slow down.", 0) > 0, report
    assert report["rounds"] > 1
    assert sorted(delivered_ids(srv)) == sorted(f"go-{i}" for i in range(1200))
