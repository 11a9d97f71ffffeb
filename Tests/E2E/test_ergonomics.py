"""Test ergonomics against the real process: /_local/streams, /_local/wait,
/_local/metrics, the ``firehose-local flush / objects / cat / tail`` subcommands and
docs/ci-example.sh.

Each test uses its own stream(s) of the module's server, or a dedicated server
when it counts process-wide things (metrics, wait over all streams, SIGTERM).
Every wait is bounded.
"""

from __future__ import annotations

import datetime as _dt
import gzip
import json
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from botocore.exceptions import ClientError

import fhlocal
from fhlocal import BUCKET, DELIMITER, MIB, ext_stream, hints, run, wait_for

SECOND = "erg-second"  # second bucket, for the objects/cat bucket handling

ERGO_STREAMS = [
    ext_stream("erg-streams", **hints(1, 900), CompressionFormat="GZIP"),
    ext_stream("erg-instant", **hints(1, 0), **DELIMITER, CompressionFormat="GZIP"),
    ext_stream("erg-slow", **hints(1, 900)),
    ext_stream("erg-404"),
    ext_stream("erg-cli", **hints(1, 900), **DELIMITER),
    ext_stream("erg-cli-gz", **hints(1, 900), **DELIMITER, CompressionFormat="GZIP", FileExtension=".json"),
    ext_stream("erg-cli-raw", **hints(1, 900)),
    ext_stream("erg-cli-bin", **hints(1, 900)),
    ext_stream("erg-cli-second", bucket=SECOND, **hints(1, 900), **DELIMITER),
    ext_stream("erg-tail", **hints(1, 900), **DELIMITER, CompressionFormat="GZIP"),
    ext_stream("erg-tail-json", **hints(1, 900)),
]


def ergo_config() -> dict:
    return fhlocal.standard_config(DeliveryStreams=ERGO_STREAMS)


@pytest.fixture(scope="module")
def srv(make_module_server):
    return make_module_server(ergo_config(), name="ergo")


def streams_of(server) -> dict[str, dict]:
    r = server.http("GET", "/_local/streams")
    assert r.status == 200, r
    assert r.headers.get("content-type") == "application/json", r.headers
    body = r.json()
    assert list(body) == ["streams", "quarantined"] and body["quarantined"] == [], body
    return {s["name"]: s for s in body["streams"]}


def iso_utc(text: str) -> _dt.datetime:
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z", text), f"not ISO 8601 UTC: {text!r}"
    return _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def wait_path(stream: str | None = None, objects: int | None = None, timeout: float | None = None) -> str:
    params = []
    if stream is not None:
        params.append(f"stream={quote(stream, safe='')}")
    if objects is not None:
        params.append(f"objects={objects}")
    if timeout is not None:
        params.append(f"timeout={timeout:g}")
    return "/_local/wait" + ("?" + "&".join(params) if params else "")


# --------------------------------------------------------------------------
# /_local/streams
# --------------------------------------------------------------------------


def test_streams_lists_every_stream_alphabetically(srv):
    names = list(streams_of(srv))
    assert names == sorted(s["DeliveryStreamName"] for s in ERGO_STREAMS)


def test_streams_fields_after_traffic(srv):
    fh = srv.client()
    before = streams_of(srv)["erg-streams"]
    assert before == {
        "name": "erg-streams",
        "bucket": BUCKET,
        "status": "ACTIVE",
        "compression": "GZIP",
        "buffer": {
            "records": 0, "bytes": 0, "sizeLimitBytes": MIB, "intervalSeconds": 900, "openPartitions": 0,
            "partitions": [],
        },
        "recordsReceived": 0,
        "bytesReceived": 0,
        "objectsWritten": 0,
        "recordsDropped": 0,
        "errorRecords": {},
        "faults": {},
        "throttledRecords": 0,
        "lastDelivery": None,
        "delivery": {"failing": False, "failures": 0, "lastError": None},
        "warnings": [],
    }
    records = [b"alpha\n", b"beta\n", b"gamma-gamma\n"]
    fh.put_record_batch(DeliveryStreamName="erg-streams", Records=[{"Data": d} for d in records])
    fh.put_record(DeliveryStreamName="erg-streams", Record={"Data": b"delta\n"})
    total = sum(map(len, records)) + len(b"delta\n")

    during = streams_of(srv)["erg-streams"]
    [partition] = during["buffer"].pop("partitions")
    assert during["buffer"] == {
        "records": 4, "bytes": total, "sizeLimitBytes": MIB, "intervalSeconds": 900, "openPartitions": 1
    }
    # The open buffer: where its object will go, what it holds, and when its interval closes it.
    assert re.fullmatch(r"\d{4}/\d\d/\d\d/\d\d/", partition["prefix"]), partition
    assert (partition["errorOutputType"], partition["records"], partition["bytes"]) == (None, 4, total)
    opened = iso_utc(partition["firstArrival"])
    assert iso_utc(partition["closesAt"]) - opened == _dt.timedelta(seconds=900)
    assert abs((_dt.datetime.now(_dt.timezone.utc) - opened).total_seconds()) < 60
    assert (during["recordsReceived"], during["bytesReceived"], during["objectsWritten"]) == (4, total, 0)
    assert during["lastDelivery"] is None

    t0 = time.time()
    flushed = srv.flush("erg-streams")["objects"]
    t1 = time.time()
    assert len(flushed) == 1
    after = streams_of(srv)["erg-streams"]
    assert after["buffer"]["records"] == 0 and after["buffer"]["bytes"] == 0
    assert (after["recordsReceived"], after["bytesReceived"], after["objectsWritten"]) == (4, total, 1)
    last = after["lastDelivery"]
    assert {"key", "time", "records", "bytes"} <= set(last), last
    assert last["key"] == flushed[0]["key"]
    assert (last["records"], last["bytes"]) == (4, total)
    assert (srv.bucket_dir(BUCKET) / last["key"]).is_file()
    when = iso_utc(last["time"]).timestamp()
    assert t0 - 1 <= when <= t1 + 1, (last["time"], t0, t1)


def test_streams_shows_streams_created_through_the_api(srv):
    fh = srv.client()
    try:
        fh.create_delivery_stream(
            DeliveryStreamName="erg-api-made",
            ExtendedS3DestinationConfiguration={"BucketARN": "arn:aws:s3:::api-bucket", "RoleARN": fhlocal.ROLE_ARN},
        )
    except ClientError as e:
        if e.response["Error"]["Code"] == "UnknownOperationException":
            pytest.skip("this firehose-local has no CreateDeliveryStream")
        raise
    made = streams_of(srv)["erg-api-made"]
    assert made["bucket"] == "api-bucket"
    assert made["status"] == "ACTIVE"
    assert made["buffer"]["sizeLimitBytes"] == 5 * MIB and made["buffer"]["intervalSeconds"] == 300
    fh.delete_delivery_stream(DeliveryStreamName="erg-api-made")
    assert "erg-api-made" not in streams_of(srv)


# --------------------------------------------------------------------------
# /_local/wait
# --------------------------------------------------------------------------


def test_wait_returns_as_soon_as_an_interval_zero_stream_delivers(srv):
    fh = srv.client()
    result: dict = {}

    def waiter():
        result["started"] = time.monotonic()
        result["response"] = srv.http("GET", wait_path("erg-instant", 1, 60), timeout=90)
        result["answered"] = time.monotonic()

    thread = threading.Thread(target=waiter, daemon=True)
    thread.start()
    # The wait is pending: the stream has written nothing yet.
    wait_for(lambda: "started" in result, 5, what="the wait request to start")
    time.sleep(0.3)
    assert "response" not in result, f"wait answered before any object existed: {result}"
    fh.put_record_batch(DeliveryStreamName="erg-instant", Records=[{"Data": b"one"}, {"Data": b"two"}])
    put_done = time.monotonic()
    thread.join(60)
    assert not thread.is_alive(), "wait did not answer within 60 s of the delivery"
    r = result["response"]
    assert r.status == 200, r
    assert r.headers.get("content-type") == "application/json"
    assert r.json() == {"objects": 1}
    assert result["answered"] - put_done < 5, "wait answered long after the object was written"
    # The object exists when the wait answers.
    keys = srv.stream_keys("erg-instant")
    assert len(keys) == 1
    assert srv.read_object(BUCKET, keys[0]) == b"one\ntwo\n"


def test_wait_answers_at_once_when_enough_objects_exist(srv):
    fh = srv.client()
    fh.put_record(DeliveryStreamName="erg-404", Record={"Data": b"x"})
    srv.flush("erg-404")
    t = time.monotonic()
    r = srv.http("GET", wait_path("erg-404", 1, 30))
    assert r.status == 200 and r.json() == {"objects": 1}, r
    assert time.monotonic() - t < 2
    r = srv.http("GET", wait_path("erg-404", 0))
    assert r.status == 200 and r.json() == {"objects": 1}, r


def test_wait_times_out_with_408_and_the_count(srv):
    t = time.monotonic()
    r = srv.http("GET", wait_path("erg-slow", 1, 1.5))
    elapsed = time.monotonic() - t
    body = fhlocal.assert_raw_error(r, "Timeout", 408)
    assert body["objects"] == 0
    assert "1.5 s" in body["message"] and "erg-slow" in body["message"], body
    assert 1.4 <= elapsed < 10, elapsed


def test_wait_refuses_unknown_streams_and_bad_parameters(srv):
    r = srv.http("GET", wait_path("no-such-stream", 1, 1))
    body = fhlocal.assert_raw_error(r, "ResourceNotFoundException", 404)
    assert body["message"] == "Firehose no-such-stream under account 000000000000 not found."
    for query in ["objects=-1", "objects=two", "timeout=301", "timeout=-1", "timeout=soon", "objekts=1"]:
        r = srv.http("GET", "/_local/wait?stream=erg-slow&" + query)
        fhlocal.assert_raw_error(r, "InvalidArgumentException", 400)
    r = srv.http("POST", wait_path("erg-slow"), body=b"")
    assert r.status == 405 and r.headers.get("allow") == "GET", r


def test_wait_over_all_streams_and_ends_on_sigterm(make_server):
    server = make_server(
        fhlocal.standard_config(
            DeliveryStreams=[ext_stream("a", **hints(1, 0)), ext_stream("b", **hints(1, 0)), ext_stream("c")]
        ),
        name="wait-all",
    )
    fh = server.client()
    fh.put_record(DeliveryStreamName="a", Record={"Data": b"1"})
    fh.put_record(DeliveryStreamName="b", Record={"Data": b"2"})
    r = server.http("GET", wait_path(objects=2, timeout=10))
    assert r.status == 200 and r.json() == {"objects": 2}, r

    # A pending wait does not hold up a graceful shutdown: it answers 503, then the server exits 0
    # (delivering stream c's buffer on the way out).
    fh.put_record(DeliveryStreamName="c", Record={"Data": b"3"})
    result: dict = {}

    def waiter():
        result["response"] = server.http("GET", wait_path(objects=10, timeout=120), timeout=60)

    thread = threading.Thread(target=waiter, daemon=True)
    thread.start()
    time.sleep(0.5)
    t = time.monotonic()
    assert server.stop() == 0
    thread.join(30)
    assert not thread.is_alive()
    assert time.monotonic() - t < 10
    body = fhlocal.assert_raw_error(result["response"], "ServiceUnavailableException", 503)
    assert body["objects"] == 2
    assert server.delivered("c") == b"3"


# --------------------------------------------------------------------------
# /_local/metrics
# --------------------------------------------------------------------------

SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def scrape(server) -> tuple[dict[str, str], list[tuple[str, dict[str, str], float]]]:
    r = server.http("GET", "/_local/metrics")
    assert r.status == 200, r
    assert r.headers.get("content-type", "").startswith("text/plain; version=0.0.4"), r.headers
    types: dict[str, str] = {}
    samples = []
    for line in r.body.decode().splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            types[name] = kind
        elif line.startswith("#") or not line:
            continue
        else:
            m = SAMPLE_RE.match(line)
            assert m, f"not a Prometheus sample line: {line!r}"
            labels = dict(LABEL_RE.findall(m.group(2) or ""))
            samples.append((m.group(1), labels, float(m.group(3))))
    return types, samples


def value(samples, name: str, **labels: str) -> float | None:
    for n, l, v in samples:
        if n == name and l == labels:
            return v
    return None


def test_metrics_after_traffic(make_server):
    server = make_server(
        fhlocal.standard_config(
            DeliveryStreams=[ext_stream("m-main", **hints(1, 900)), ext_stream("m-instant", **hints(1, 0))]
        ),
        name="metrics",
    )
    fh = server.client()
    fh.put_record_batch(DeliveryStreamName="m-main", Records=[{"Data": b"abc"}, {"Data": b"defg"}])
    fh.put_record_batch(DeliveryStreamName="m-main", Records=[{"Data": b"hi"}])
    fh.put_record(DeliveryStreamName="m-instant", Record={"Data": b"now"})
    fhlocal.expect_client_error(
        lambda: fh.put_record(DeliveryStreamName="m-missing", Record={"Data": b"x"}), "ResourceNotFoundException"
    )

    types, samples = scrape(server)
    assert types == {
        "firehose_local_buffer_bytes": "gauge",
        "firehose_local_buffer_records": "gauge",
        "firehose_local_bytes_received_total": "counter",
        "firehose_local_delivery_failing": "gauge",
        "firehose_local_delivery_failures_total": "counter",
        "firehose_local_delivery_latency_seconds": "histogram",
        "firehose_local_flushes_total": "counter",
        "firehose_local_objects_written_total": "counter",
        "firehose_local_records_received_total": "counter",
        "firehose_local_request_duration_seconds": "histogram",
        "firehose_local_requests_total": "counter",
    }
    requests = {(l["operation"], l["code"]): v for n, l, v in samples if n == "firehose_local_requests_total"}
    assert requests == {
        ("PutRecordBatch", "OK"): 2,
        ("PutRecord", "OK"): 1,
        ("PutRecord", "ResourceNotFoundException"): 1,
    }
    assert value(samples, "firehose_local_request_duration_seconds_count", operation="PutRecord") == 2
    assert value(samples, "firehose_local_request_duration_seconds_bucket", operation="PutRecordBatch", le="+Inf") == 2
    assert value(samples, "firehose_local_records_received_total", stream="m-main") == 3
    assert value(samples, "firehose_local_bytes_received_total", stream="m-main") == 9
    assert value(samples, "firehose_local_buffer_bytes", stream="m-main") == 9
    assert value(samples, "firehose_local_buffer_records", stream="m-main") == 3
    assert value(samples, "firehose_local_buffer_bytes", stream="m-instant") == 0
    assert value(samples, "firehose_local_objects_written_total", stream="m-main") == 0
    assert value(samples, "firehose_local_objects_written_total", stream="m-instant") == 1
    assert value(samples, "firehose_local_flushes_total", stream="m-instant", reason="interval") == 1

    server.flush("m-main")
    _, samples = scrape(server)
    assert value(samples, "firehose_local_flushes_total", stream="m-main", reason="flush") == 1
    assert value(samples, "firehose_local_objects_written_total", stream="m-main") == 1
    assert value(samples, "firehose_local_buffer_bytes", stream="m-main") == 0
    assert value(samples, "firehose_local_delivery_latency_seconds_count", stream="m-main") == 1
    latency = value(samples, "firehose_local_delivery_latency_seconds_sum", stream="m-main")
    assert 0 <= latency < 60, latency
    # Local endpoints are not counted as API requests.
    assert sum(v for n, _, v in samples if n == "firehose_local_requests_total") == 4


def test_metrics_keep_the_objects_of_a_stream_deleted_before_the_first_scrape(make_server):
    """objects_written_total counts deliveries as they happen: a stream created,
    written and deleted between two scrapes (or before any) still shows its
    objects, and a stream of the same name created again counts on from there."""
    server = make_server(fhlocal.standard_config(DeliveryStreams=[ext_stream("m-keep")]), name="metrics-deleted")
    fh = server.client()
    fh.create_delivery_stream(DeliveryStreamName="m-brief", ExtendedS3DestinationConfiguration={
        **fhlocal.destination(), "BufferingHints": {"SizeInMBs": 1, "IntervalInSeconds": 0}})
    fh.put_record(DeliveryStreamName="m-brief", Record={"Data": b"one"})
    fh.put_record(DeliveryStreamName="m-brief", Record={"Data": b"two"})
    fhlocal.wait_for(lambda: len(server.stream_keys("m-brief")) == 2, timeout=30, what="two objects of m-brief")
    fh.delete_delivery_stream(DeliveryStreamName="m-brief")
    _, samples = scrape(server)
    assert value(samples, "firehose_local_objects_written_total", stream="m-brief") == 2
    assert value(samples, "firehose_local_flushes_total", stream="m-brief", reason="interval") == 2
    assert value(samples, "firehose_local_buffer_bytes", stream="m-brief") is None  # no buffer any more

    fh.create_delivery_stream(DeliveryStreamName="m-brief", ExtendedS3DestinationConfiguration={
        **fhlocal.destination(), "BufferingHints": {"SizeInMBs": 1, "IntervalInSeconds": 0}})
    fh.put_record(DeliveryStreamName="m-brief", Record={"Data": b"three"})
    fhlocal.wait_for(lambda: len(server.stream_keys("m-brief")) == 3, timeout=30, what="a third object")
    _, samples = scrape(server)
    assert value(samples, "firehose_local_objects_written_total", stream="m-brief") == 3


# --------------------------------------------------------------------------
# firehose-local flush / objects / cat
# --------------------------------------------------------------------------


def cli(firehose_bin, *args: str, env: dict[str, str] | None = None, timeout: float = 60, cwd=None):
    return run([str(firehose_bin), *args], env=fhlocal.clean_env(env), timeout=timeout, cwd=cwd)


def test_cli_flush(srv, firehose_bin):
    fh = srv.client()
    fh.put_record_batch(DeliveryStreamName="erg-cli-raw", Records=[{"Data": b"ab"}, {"Data": b"cde"}])
    p = cli(firehose_bin, "flush", "--stream", "erg-cli-raw", "--endpoint", srv.endpoint)
    assert p.returncode == 0, p.stderr.decode()
    lines = p.stdout.decode().splitlines()
    assert len(lines) == 1, lines
    bucket, key, records, stored = lines[0].split("\t")
    assert (bucket, records, stored) == (BUCKET, "2", "5")
    assert srv.read_object(BUCKET, key) == b"abcde"

    # --json prints the server's answer; the endpoint may come from the environment.
    fh.put_record(DeliveryStreamName="erg-cli-raw", Record={"Data": b"f"})
    p = cli(firehose_bin, "flush", "--stream", "erg-cli-raw", "--json", env={"FIREHOSE_LOCAL_ENDPOINT": srv.endpoint})
    assert p.returncode == 0, p.stderr.decode()
    doc = json.loads(p.stdout)
    assert [(o["stream"], o["records"], o["bytes"]) for o in doc["objects"]] == [("erg-cli-raw", 1, 1)]

    # Nothing buffered: nothing printed.
    p = cli(firehose_bin, "flush", "--stream", "erg-cli-raw", "--endpoint", srv.endpoint)
    assert p.returncode == 0 and p.stdout == b"", p

    p = cli(firehose_bin, "flush", "--stream", "no-such-stream", "--endpoint", srv.endpoint)
    assert p.returncode == 1
    assert p.stderr.decode().strip() == (
        "error: flush failed: HTTP 404 ResourceNotFoundException: "
        "Firehose no-such-stream under account 000000000000 not found."
    )


def test_cli_flush_without_a_server(firehose_bin, tmp_path):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = cli(firehose_bin, "flush", "--endpoint", f"http://127.0.0.1:{port}", timeout=30)
    assert p.returncode == 1
    err = p.stderr.decode()
    assert f"cannot reach firehose-local at http://127.0.0.1:{port}" in err, err
    assert "Connection refused" in err, err
    p = cli(firehose_bin, "flush", "--endpoint", "https://127.0.0.1:1")
    assert p.returncode != 0 and "invalid endpoint" in p.stderr.decode()


def test_cli_objects_and_cat(srv, firehose_bin, tmp_path):
    fh = srv.client()
    since = _dt.datetime.now(_dt.timezone.utc) - _dt.timedelta(seconds=2)
    fh.put_record_batch(DeliveryStreamName="erg-cli", Records=[{"Data": b'{"a":1}'}, {"Data": b'{"a":2}'}])
    fh.put_record_batch(DeliveryStreamName="erg-cli-gz", Records=[{"Data": b"x"}, {"Data": b"y"}, {"Data": b"z"}])
    fh.put_record(DeliveryStreamName="erg-cli-second", Record={"Data": b"elsewhere"})
    binary = bytes(range(256)) + b"\x1f\x8b\r\n\x00"
    fh.put_record(DeliveryStreamName="erg-cli-bin", Record={"Data": binary})
    for stream in ["erg-cli", "erg-cli-gz", "erg-cli-second", "erg-cli-bin"]:
        srv.flush(stream)
    data = str(srv.data_dir)

    # Plain listing: one tab-separated line per object; record counts known only with the config.
    p = cli(firehose_bin, "objects", "--data-dir", data, "--stream", "erg-cli")
    assert p.returncode == 0, p.stderr.decode()
    lines = p.stdout.decode().splitlines()
    assert len(lines) == 1
    bucket, key, size, when, records = lines[0].split("\t")
    assert bucket == BUCKET and key == srv.stream_keys("erg-cli")[0]
    assert int(size) == len(b'{"a":1}\n{"a":2}\n') and records == "-"
    assert iso_utc(when) >= since

    args = ["objects", "--data-dir", data, "--config", str(srv.config_path), "--json"]
    p = cli(firehose_bin, *args, "--since", since.strftime("%Y-%m-%dT%H:%M:%SZ"))
    assert p.returncode == 0, p.stderr.decode()
    objects = {o["stream"]: o for o in json.loads(p.stdout)["objects"]}
    assert {"erg-cli", "erg-cli-gz", "erg-cli-second", "erg-cli-bin"} <= set(objects)
    assert objects["erg-cli"]["records"] == 2
    assert objects["erg-cli-gz"]["records"] == 3
    assert objects["erg-cli-second"]["records"] == 1 and objects["erg-cli-second"]["bucket"] == SECOND
    assert objects["erg-cli-bin"]["records"] is None  # no delimiter: not knowable
    gz = objects["erg-cli-gz"]
    assert gz["key"].endswith(".json") and gz["size"] == os.path.getsize(gz["path"])
    assert set(gz) == {"bucket", "key", "path", "stream", "size", "time", "records"}
    assert not any(".firehose-local" in o["path"] for o in json.loads(p.stdout)["objects"])

    # --since as a time ago; --bucket.
    p = cli(firehose_bin, "objects", "--data-dir", data, "--since", "10m", "--bucket", SECOND)
    assert p.returncode == 0 and [l.split("\t")[0] for l in p.stdout.decode().splitlines()] == [SECOND], p
    future = (_dt.datetime.now(_dt.timezone.utc) + _dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    p = cli(firehose_bin, "objects", "--data-dir", data, "--since", future)
    assert p.returncode == 0 and p.stdout == b"", p
    p = cli(firehose_bin, "objects", "--data-dir", data, "--since", "last tuesday")
    assert p.returncode != 0 and b"--since" in p.stderr
    p = cli(firehose_bin, "objects", "--data-dir", str(tmp_path / "nothing-here"))
    assert p.returncode == 1 and b"does not exist" in p.stderr
    # FIREHOSE_LOCAL_DATA_DIR works like --data-dir.
    p = cli(firehose_bin, "objects", "--stream", "erg-cli", env={"FIREHOSE_LOCAL_DATA_DIR": data})
    assert p.returncode == 0 and p.stdout.decode().splitlines() == lines, p

    # cat: gzip recognised by content (the extension is .json), plain and binary bytes unchanged.
    p = cli(firehose_bin, "cat", "--data-dir", data, gz["key"])
    assert p.returncode == 0 and p.stdout == b"x\ny\nz\n", p
    p = cli(firehose_bin, "cat", "--data-dir", data, "--bucket", BUCKET, key)
    assert p.returncode == 0 and p.stdout == b'{"a":1}\n{"a":2}\n', p
    p = cli(firehose_bin, "cat", "--data-dir", data, f"{BUCKET}/{objects['erg-cli-bin']['key']}")
    assert p.returncode == 0 and p.stdout == binary, p
    p = cli(firehose_bin, "cat", "--data-dir", data, "--bucket", BUCKET, objects["erg-cli-second"]["key"])
    assert p.returncode == 1 and b"no object" in p.stderr, p
    p = cli(firehose_bin, "cat", "--data-dir", data, "../" + key)
    assert p.returncode != 0 and p.stdout == b"", p


class LineReader:
    """Reads the lines a child writes, waiting at most a given time for each."""

    def __init__(self, proc: subprocess.Popen):
        import selectors

        self.proc = proc
        self.buffer = b""
        self.selector = selectors.DefaultSelector()
        self.selector.register(proc.stdout, selectors.EVENT_READ)

    def lines(self, count: int, timeout: float = 20) -> list[bytes]:
        deadline = time.monotonic() + timeout
        while self.buffer.count(b"\n") < count:
            left = deadline - time.monotonic()
            assert left > 0, f"{count} lines did not come within {timeout} s; got {self.buffer!r}"
            if self.selector.select(left):
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                assert chunk, f"the output ended; got {self.buffer!r}"
                self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n", count)
        return lines


def test_cli_tail(srv, firehose_bin):
    fh = srv.client()
    data = str(srv.data_dir)
    command = [str(firehose_bin), "tail", "--data-dir", data, "--config", str(srv.config_path)]
    # The objects there before are left out by --since; a time taken here rather than "0s", which
    # the child reads only once it has started, maybe after the first put.
    since = _dt.datetime.now(_dt.timezone.utc) - _dt.timedelta(seconds=0.05)
    follower = subprocess.Popen(
        [*command, "--follow", "--json", "--since", since.isoformat(), "--interval", "0.1", "--bucket", BUCKET],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=fhlocal.clean_env(),
    )
    try:
        reader = LineReader(follower)
        fh.put_record_batch(DeliveryStreamName="erg-tail", Records=[{"Data": b"alpha"}, {"Data": b"beta \xff"}])
        srv.flush("erg-tail")
        fh.put_record_batch(DeliveryStreamName="erg-tail-json", Records=[{"Data": b'{"n":1}'}, {"Data": b"[2]"}])
        srv.flush("erg-tail-json")
        records = [json.loads(line) for line in reader.lines(4)]
        gz_key = srv.stream_keys("erg-tail")[0]
        assert records[0] == {
            "stream": "erg-tail", "bucket": BUCKET, "key": gz_key, "offset": 0, "split": "lines", "text": "alpha",
        }
        assert records[1]["offset"] == 6 and records[1]["base64"] == "YmV0YSD/"
        assert [(r["stream"], r["split"], r["offset"], r.get("text")) for r in records[2:]] == [
            ("erg-tail-json", "json", 0, '{"n":1}'), ("erg-tail-json", "json", 7, "[2]"),
        ]
        # A later object is printed when it appears; nothing is printed twice.
        fh.put_record(DeliveryStreamName="erg-tail", Record={"Data": b"gamma"})
        srv.flush("erg-tail")
        [later] = reader.lines(1)
        assert json.loads(later)["text"] == "gamma"
        assert reader.buffer == b""
    finally:
        follower.send_signal(signal.SIGINT)
        follower.wait(10)
        follower.stdout.close()
        follower.stderr.close()

    # Without --follow: what is there, then exit; records as they are, one per line.
    p = cli(firehose_bin, "tail", "--data-dir", data, "--config", str(srv.config_path), "--stream", "erg-tail")
    assert p.returncode == 0 and p.stdout == b"alpha\nbeta \xff\ngamma\n", p
    # Without the config the lines stream is not known: its objects are printed whole.
    p = cli(firehose_bin, "tail", "--data-dir", data, "--stream", "erg-tail")
    assert p.returncode == 0 and p.stdout == b"alpha\nbeta \xff\ngamma\n", p
    p = cli(firehose_bin, "tail", "--data-dir", data, "--since", "soon")
    assert p.returncode != 0 and b"--since" in p.stderr


def test_cli_tail_follow_waits_for_the_data_directory(firehose_bin, tmp_path):
    data = tmp_path / "not-yet"
    follower = subprocess.Popen(
        [str(firehose_bin), "tail", "-f", "--data-dir", str(data), "--interval", "0.1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=fhlocal.clean_env(),
    )
    try:
        time.sleep(0.5)
        assert follower.poll() is None, follower.stderr.read()
        name = "s-1-2026-11-21-13-05-09-3f1c9c0e-8d3b-4a63-9a57-2c1bd0f3f0a1"
        (data / "b").mkdir(parents=True)
        (data / "b" / name).write_bytes(b'{"late":true}')
        assert LineReader(follower).lines(1) == [b'{"late":true}']
    finally:
        follower.send_signal(signal.SIGINT)
        follower.wait(10)
        follower.stdout.close()
    err = follower.stderr.read().decode()
    follower.stderr.close()
    assert err.count("does not exist") == 1 and "(still looking)" in err, err


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_cli_tail_follow_stops_at_a_signal_when_started_as_a_background_job(firehose_bin, tmp_path, stop):
    """A non-interactive shell starts `cmd &` with SIGINT and SIGQUIT ignored (SigIgn: 0x6); the
    follower handles SIGINT and SIGTERM itself, so either stops it, and it exits 0."""
    def as_a_background_job():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGQUIT, signal.SIG_IGN)

    follower = subprocess.Popen(
        [str(firehose_bin), "tail", "-f", "--data-dir", str(tmp_path / "not-yet"), "--interval", "0.1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=fhlocal.clean_env(), preexec_fn=as_a_background_job,
    )
    try:
        # Its first look has reported the missing directory: the signals are handled by then.
        assert b"still looking" in follower.stderr.readline()
        follower.send_signal(stop)
        assert follower.wait(10) == 0
    finally:
        if follower.poll() is None:
            follower.kill()
            follower.wait()
        follower.stdout.close()
        follower.stderr.close()


def test_cli_help_lists_the_subcommands(firehose_bin):
    p = cli(firehose_bin, "--help")
    assert p.returncode == 0
    text = p.stdout.decode()
    for sub in ["serve", "flush", "objects", "cat", "tail"]:
        assert re.search(rf"^\s+{sub}\b", text, re.M), text
    p = cli(firehose_bin, "objects", "--help")
    assert p.returncode == 0 and b"AppendDelimiterToRecord" in p.stdout


# --------------------------------------------------------------------------
# docs/ci-example.sh
# --------------------------------------------------------------------------


@pytest.mark.timeout_s(180)
def test_ci_example_script(make_server, firehose_bin, tmp_path):
    # The script creates its stream with CreateDeliveryStream: check this binary has it.
    probe = make_server(fhlocal.standard_config(DeliveryStreams=[]), name="probe")
    try:
        probe.client().create_delivery_stream(
            DeliveryStreamName="probe",
            ExtendedS3DestinationConfiguration={"BucketARN": "arn:aws:s3:::probe", "RoleARN": fhlocal.ROLE_ARN},
        )
    except ClientError as e:
        if e.response["Error"]["Code"] == "UnknownOperationException":
            pytest.skip("docs/ci-example.sh needs CreateDeliveryStream, which this firehose-local lacks")
        raise
    home = tmp_path / "home"
    home.mkdir()
    aws = fhlocal.aws_cli_command()
    env = fhlocal.clean_env(
        {
            "FIREHOSE_LOCAL_BIN": str(firehose_bin),
            "AWS_CLI": " ".join(aws),
            "HOME": str(home),
            "TMPDIR": str(tmp_path),
        }
    )
    script = fhlocal.REPO_ROOT / "docs" / "ci-example.sh"
    p = subprocess.run(
        ["bash", str(script)], capture_output=True, timeout=150, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL
    )
    out = p.stdout.decode()
    assert p.returncode == 0, f"exit {p.returncode}\nstdout:\n{out}\nstderr:\n{p.stderr.decode()}"
    assert "== passed" in out
    assert re.search(r"== object ci-bucket/\d{4}/\d{2}/\d{2}/\d{2}/ci-events-1-.*\.gz \(\d+ bytes, .*, 2 records\)", out), out
    # It cleaned up after itself and left no server behind.
    assert not any(tmp_path.glob("tmp.*")), list(tmp_path.iterdir())
