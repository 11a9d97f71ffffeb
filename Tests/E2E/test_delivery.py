"""Put records, flush, read the objects back byte for byte."""

from __future__ import annotations

import gzip
import json
import random
import subprocess

import pytest

import fhlocal
from fhlocal import BUCKET, SECOND_BUCKET


def put_all(fh, stream: str, records: list[bytes], batch_size: int = 0) -> None:
    """PutRecord each record (batch_size 0) or PutRecordBatch in chunks."""
    if batch_size <= 0:
        for r in records:
            fh.put_record(DeliveryStreamName=stream, Record={"Data": r})
        return
    for i in range(0, len(records), batch_size):
        chunk = records[i : i + batch_size]
        resp = fh.put_record_batch(DeliveryStreamName=stream, Records=[{"Data": r} for r in chunk])
        assert resp["FailedPutCount"] == 0, resp


def single_object(server, stream: str, bucket: str = BUCKET) -> str:
    keys = server.stream_keys(stream, bucket)
    assert len(keys) == 1, f"expected exactly one object for {stream}, found {keys}"
    return keys[0]


# --------------------------------------------------------------------------


def test_health_endpoint(server):
    r = server.health()
    assert r.status == 200, r
    assert r.json() == {"status": "ok"}


def test_put_record_response_shape(server, fh):
    resp = fh.put_record(DeliveryStreamName="shape", Record={"Data": b"hello\n"})
    assert isinstance(resp["RecordId"], str) and resp["RecordId"]
    assert resp["Encrypted"] is False
    assert resp["ResponseMetadata"]["HTTPStatusCode"] == 200

    # The raw success body carries exactly what AWS sends and never "__type".
    r = server.raw({"DeliveryStreamName": "shape", "Record": {"Data": fhlocal.b64(b"raw\n")}})
    assert r.status == 200, r
    body = r.json()
    assert "__type" not in body
    assert set(body) == {"RecordId", "Encrypted"}, body
    assert body["Encrypted"] is False
    assert r.headers.get("x-amzn-requestid"), r.headers
    server.flush("shape")


def test_put_record_batch_response_shape(server, fh):
    records = [{"Data": f"rec-{i}\n".encode()} for i in range(7)]
    resp = fh.put_record_batch(DeliveryStreamName="shape", Records=records)
    assert resp["FailedPutCount"] == 0
    assert resp["Encrypted"] is False
    rr = resp["RequestResponses"]
    assert len(rr) == 7
    for entry in rr:
        assert isinstance(entry.get("RecordId"), str) and entry["RecordId"], entry
        assert "ErrorCode" not in entry and "ErrorMessage" not in entry, entry
    assert len({e["RecordId"] for e in rr}) == 7, "RecordIds must be unique"

    r = server.raw(
        {"DeliveryStreamName": "shape", "Records": [{"Data": fhlocal.b64(b"x")}, {"Data": fhlocal.b64(b"y")}]},
        op="PutRecordBatch",
    )
    assert r.status == 200, r
    body = r.json()
    assert "__type" not in body
    assert body["FailedPutCount"] == 0 and body["Encrypted"] is False
    assert len(body["RequestResponses"]) == 2
    server.flush("shape")


def test_success_bodies_are_compact_json(server):
    """Fluent Bit's firehose output looks for the literal `"FailedPutCount":0` in the answer (no space),
    and every answer is compact: no whitespace outside strings."""
    batch = server.raw(
        {"DeliveryStreamName": "shape", "Records": [{"Data": fhlocal.b64(b"a")}, {"Data": fhlocal.b64(b"b")}]},
        op="PutRecordBatch",
    )
    assert batch.status == 200, batch
    assert b'"FailedPutCount":0' in batch.body, batch.body
    single = server.raw({"DeliveryStreamName": "shape", "Record": {"Data": fhlocal.b64(b"c")}})
    assert single.status == 200, single
    for body in (batch.body, single.body):
        assert json.dumps(json.loads(body), separators=(",", ":")).encode() == body, body
    server.flush("shape")


def test_roundtrip_exact_bytes_and_flush_response(server, fh):
    records = [b'{"event":"signup","n":1}', b'{"event":"login","n":2}', b"plain text", b"\n", b"tail"]
    fh.put_record(DeliveryStreamName="roundtrip", Record={"Data": records[0]})
    fh.put_record_batch(DeliveryStreamName="roundtrip", Records=[{"Data": r} for r in records[1:]])
    expected = b"".join(records)

    result = server.flush("roundtrip")
    objs = result["objects"]
    assert len(objs) == 1, result
    entry = objs[0]
    assert entry["stream"] == "roundtrip"
    assert entry["bucket"] == BUCKET
    assert entry["records"] == len(records)
    assert entry["bytes"] == len(expected)
    # The object is on disk the moment flush answers, under the key it reports.
    path = server.bucket_dir(BUCKET) / entry["key"]
    assert path.is_file(), f"flush reported {entry['key']} but it is not on disk"
    assert path.read_bytes() == expected
    assert server.stream_keys("roundtrip") == [entry["key"]]


@pytest.mark.parametrize("stream,compressed", [("bin-plain", False), ("bin-gz", True)])
def test_binary_records_all_byte_values(server, fh, stream, compressed):
    rng = random.Random(1234)
    records = [
        bytes(range(256)),
        bytes(reversed(range(256))),
        b"\x00",
        b"\x1f\x8b\x08\x00",  # looks like a gzip header, must stay raw
        b"\r\n\r\n",
        "ünïcödé ✓ 🚀".encode("utf-8"),
        b"\xff" * 1000,
        rng.randbytes(10_000),
        rng.randbytes(1),
        bytes(range(256)) * 40,
    ]
    put_all(fh, stream, records[:5])
    put_all(fh, stream, records[5:], batch_size=3)
    expected = b"".join(records)

    result = server.flush(stream)
    assert [o["stream"] for o in result["objects"]] == [stream]
    assert result["objects"][0]["records"] == len(records)
    key = single_object(server, stream)
    raw = (server.bucket_dir() / key).read_bytes()
    if compressed:
        assert key.endswith(".gz")
        assert raw[:2] == b"\x1f\x8b", "GZIP object does not start with the gzip magic"
        assert gzip.decompress(raw) == expected
        assert result["objects"][0]["bytes"] in (len(expected), len(raw))
    else:
        assert raw == expected
        assert result["objects"][0]["bytes"] == len(expected)


def test_empty_records_accepted(server, fh):
    fh.put_record(DeliveryStreamName="empty-recs", Record={"Data": b""})
    resp = fh.put_record_batch(
        DeliveryStreamName="empty-recs",
        Records=[{"Data": b"a"}, {"Data": b""}, {"Data": b""}, {"Data": b"b"}, {"Data": b""}],
    )
    assert resp["FailedPutCount"] == 0
    assert len(resp["RequestResponses"]) == 5
    result = server.flush("empty-recs")
    assert len(result["objects"]) == 1, result
    assert result["objects"][0]["records"] == 6
    assert result["objects"][0]["bytes"] == 2
    assert server.delivered("empty-recs", decompress=False) == b"ab"


def test_records_concatenated_without_delimiter(server, fh):
    docs = [json.dumps({"i": i}).encode() for i in range(5)]
    put_all(fh, "nodelim", docs, batch_size=2)
    server.flush("nodelim")
    assert server.delivered("nodelim", decompress=False) == b'{"i": 0}{"i": 1}{"i": 2}{"i": 3}{"i": 4}'


def test_gzip_object_readable_by_python_and_zcat(server, fh):
    lines = [f'{{"seq":{i},"pad":"{"x" * (i % 50)}"}}\n'.encode() for i in range(2000)]
    put_all(fh, "gz-events", lines, batch_size=250)
    server.flush("gz-events")
    key = single_object(server, "gz-events")
    assert key.endswith(".gz") and not key.endswith(".gz.gz")
    path = server.bucket_dir() / key
    expected = b"".join(lines)
    with gzip.open(path, "rb") as f:
        assert f.read() == expected
    assert path.stat().st_size < len(expected), "GZIP object is not compressed"
    out = subprocess.run(["zcat", str(path)], capture_output=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout == expected
    test = subprocess.run(["gzip", "-t", str(path)], capture_output=True, timeout=30)
    assert test.returncode == 0, test.stderr


def test_uncompressed_object_is_raw(server, fh):
    fh.put_record(DeliveryStreamName="app-events", Record={"Data": b"hello world\n"})
    server.flush("app-events")
    key = server.stream_keys("app-events")[-1]
    fhlocal.match_key(key, "app-events", ext="")
    assert (server.bucket_dir() / key).read_bytes() == b"hello world\n"


def test_file_extension_override_gzip(server, fh):
    fh.put_record(DeliveryStreamName="gz-ext", Record={"Data": b'{"a":1}\n'})
    server.flush("gz-ext")
    key = single_object(server, "gz-ext")
    fhlocal.match_key(key, "gz-ext", ext=".json.gz")
    assert not key.endswith(".gz.json.gz")
    assert server.read_object(BUCKET, key, decompress=True) == b'{"a":1}\n'


def test_file_extension_override_uncompressed(server, fh):
    fh.put_record(DeliveryStreamName="plain-ext", Record={"Data": b'{"a":2}\n'})
    server.flush("plain-ext")
    key = single_object(server, "plain-ext")
    fhlocal.match_key(key, "plain-ext", ext=".jsonl")
    assert (server.bucket_dir() / key).read_bytes() == b'{"a":2}\n'


@pytest.mark.parametrize("stream", ["delim", "delim-gz"])
def test_append_delimiter_processor(server, fh, stream):
    fh.put_record(DeliveryStreamName=stream, Record={"Data": b'{"a":1}'})
    fh.put_record_batch(
        DeliveryStreamName=stream,
        Records=[{"Data": b""}, {"Data": b"already\n"}, {"Data": b"\x00\xff"}],
    )
    server.flush(stream)
    key = single_object(server, stream)
    if stream.endswith("-gz"):
        assert key.endswith(".gz")
    assert server.read_object(BUCKET, key) == b'{"a":1}\n\nalready\n\n\x00\xff\n'


def test_order_preserved_across_many_puts(server, fh):
    expected = []
    n = 0
    for round_ in range(3):
        for _ in range(60):
            rec = f"{n:06d};".encode()
            fh.put_record(DeliveryStreamName="order", Record={"Data": rec})
            expected.append(rec)
            n += 1
        batch = [f"{n + i:06d};".encode() for i in range(100)]
        fh.put_record_batch(DeliveryStreamName="order", Records=[{"Data": r} for r in batch])
        expected.extend(batch)
        n += 100
    server.flush("order")
    single_object(server, "order")
    assert server.delivered("order", decompress=False) == b"".join(expected)


def test_buffer_not_delivered_before_flush(server, fh):
    # Default hints (5 MiB / 300 s): nothing may appear per call (the peers' defect).
    fh.put_record(DeliveryStreamName="no-early", Record={"Data": b"one"})
    fh.put_record_batch(DeliveryStreamName="no-early", Records=[{"Data": b"two"}, {"Data": b"three"}])
    # All three wait in the one open buffer: a buffer retired by a call would have left it (and,
    # for a bucket folder, been renamed into place before the call was answered).
    partitions = fhlocal.stream_status(server, "no-early")["buffer"]["partitions"]
    assert [p["records"] for p in partitions] == [3]
    assert server.stream_keys("no-early") == []
    server.flush("no-early")
    single_object(server, "no-early")
    assert server.delivered("no-early", decompress=False) == b"onetwothree"


def test_each_flush_makes_a_new_object(server, fh):
    fh.put_record(DeliveryStreamName="two-flushes", Record={"Data": b"first"})
    k1 = server.flush("two-flushes")["objects"][0]["key"]
    fh.put_record(DeliveryStreamName="two-flushes", Record={"Data": b"second"})
    k2 = server.flush("two-flushes")["objects"][0]["key"]
    assert k1 != k2
    assert server.read_object(BUCKET, k1, decompress=False) == b"first"
    assert server.read_object(BUCKET, k2, decompress=False) == b"second"
    assert sorted(server.stream_keys("two-flushes")) == sorted([k1, k2])


def test_flush_single_stream_leaves_others_buffered(server, fh):
    fh.put_record(DeliveryStreamName="flush-a", Record={"Data": b"A"})
    fh.put_record(DeliveryStreamName="flush-b", Record={"Data": b"B"})
    result = server.flush("flush-a")
    assert [(o["stream"], o["records"]) for o in result["objects"]] == [("flush-a", 1)]
    assert server.delivered("flush-a") == b"A"
    assert server.stream_keys("flush-b") == [], "flush?stream=flush-a also delivered flush-b"
    result = server.flush("flush-b")
    assert [o["stream"] for o in result["objects"]] == ["flush-b"]
    assert server.delivered("flush-b") == b"B"


def test_flush_empty_stream_returns_no_objects(server):
    assert server.flush("flush-empty") == {"objects": []}


def test_flush_all_streams_and_buckets(server, fh):
    fh.put_record(DeliveryStreamName="flush-c", Record={"Data": b"C"})
    fh.put_record(DeliveryStreamName="elsewhere", Record={"Data": b"E"})
    result = server.flush()
    by_stream = {o["stream"]: o for o in result["objects"]}
    assert {"flush-c", "elsewhere"} <= set(by_stream), result
    assert by_stream["flush-c"]["bucket"] == BUCKET
    assert by_stream["elsewhere"]["bucket"] == SECOND_BUCKET
    for o in result["objects"]:
        assert (server.data_dir / o["bucket"] / o["key"]).is_file(), o
    assert server.delivered("flush-c") == b"C"
    assert server.delivered("elsewhere", bucket=SECOND_BUCKET) == b"E"
    assert server.stream_keys("elsewhere", bucket=BUCKET) == []
    # Nothing is left of these two: a second flush delivers nothing for them.
    again = {o["stream"] for o in server.flush()["objects"]}
    assert not again & {"flush-c", "elsewhere"}


def test_flush_unknown_stream_is_404(server):
    r = server.http("POST", "/_local/flush?stream=no-such-stream", body=b"")
    assert r.status == 404, r
    body = r.json()
    assert body["__type"] == "ResourceNotFoundException"
    assert isinstance(body.get("message"), str) and body["message"]


def test_legacy_s3_destination_configuration(server, fh):
    fh.put_record(DeliveryStreamName="legacy-s3", Record={"Data": b"legacy\n"})
    server.flush("legacy-s3")
    [(key, _)] = [(k, p) for k, p in server.object_paths() if "legacy-s3-" in k]
    fhlocal.match_key(key, "legacy-s3", prefix_re="legacy/" + fhlocal.HOUR_PREFIX_RE, ext=".gz")
    assert server.read_object(BUCKET, key) == b"legacy\n"


def test_staging_area_is_not_in_bucket_folders(server):
    # Whatever the server keeps while working lives under <data-dir>/.firehose-local.
    for bucket in server.buckets():
        for key, _ in server.object_paths(bucket):
            assert fhlocal.STAGING_DIR not in key.split("/")
    assert fhlocal.STAGING_DIR not in server.buckets()
