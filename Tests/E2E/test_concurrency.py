"""64 concurrent clients, 64 simultaneous connections, and the largest legal batch."""

from __future__ import annotations

import collections
import http.client
import json
import random
import re
import shutil
import subprocess
import threading
import zlib

import boto3
import pytest

import fhlocal
from fhlocal import BUCKET, MAX_BATCH_BYTES, MAX_BATCH_RECORDS, MAX_RECORD, b64

THREADS = 64
BATCHES = 4
PER_BATCH = 25
SINGLES = 3


def record(thread: int, seq: int) -> bytes:
    return f"t{thread:02d}-{seq:04d}|{'p' * (seq % 17)}\n".encode()


@pytest.mark.timeout_s(120)
def test_64_concurrent_clients_every_record_exactly_once(server):
    stream = "conc"
    session = boto3.session.Session()
    # One client per thread (created up front from one session: fast, and each
    # client has its own connection pool, so 64 connections are in use).
    clients = [server.client(session=session, cache=False) for _ in range(THREADS)]
    barrier = threading.Barrier(THREADS, timeout=60)
    errors: list[str] = []

    def worker(t: int) -> None:
        c = clients[t]
        seq = 0
        try:
            for b in range(BATCHES):
                recs = [record(t, seq + i) for i in range(PER_BATCH)]
                seq += PER_BATCH
                barrier.wait()  # all 64 hit the server at the same moment
                resp = c.put_record_batch(DeliveryStreamName=stream, Records=[{"Data": r} for r in recs])
                if resp["FailedPutCount"] != 0 or len(resp["RequestResponses"]) != PER_BATCH:
                    errors.append(f"thread {t} batch {b}: {resp}")
            for _ in range(SINGLES):
                c.put_record(DeliveryStreamName=stream, Record={"Data": record(t, seq)})
                seq += 1
        except threading.BrokenBarrierError:
            errors.append(f"thread {t}: barrier broken")
        except Exception as exc:  # noqa: BLE001
            errors.append(f"thread {t}: {exc!r}")
            barrier.abort()

    threads = [threading.Thread(target=worker, args=(t,), daemon=True) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(90)
    assert not any(th.is_alive() for th in threads), "client threads hung"
    assert not errors, "\n".join(errors[:10])

    server.flush(stream)
    keys = server.stream_keys(stream)
    assert len(keys) == 1, f"~150 KB in a 5 MiB buffer should give one object, got {keys}"
    content = server.read_object(BUCKET, keys[0])
    lines = content.split(b"\n")
    assert lines[-1] == b""
    lines = lines[:-1]
    per_thread = BATCHES * PER_BATCH + SINGLES
    expected = {record(t, s)[:-1] for t in range(THREADS) for s in range(per_thread)}
    counts = collections.Counter(lines)
    dupes = [l for l, n in counts.items() if n > 1]
    assert not dupes, f"{len(dupes)} records delivered more than once, e.g. {dupes[:3]}"
    missing = expected - set(counts)
    assert not missing, f"{len(missing)} records lost, e.g. {sorted(missing)[:3]}"
    assert set(counts) == expected
    assert len(lines) == THREADS * per_thread
    # Per-client order is preserved (each client's puts are sequential).
    order: dict[int, list[int]] = collections.defaultdict(list)
    for line in lines:
        m = re.match(rb"t(\d{2})-(\d{4})\|", line)
        order[int(m.group(1))].append(int(m.group(2)))
    for t, s in order.items():
        assert s == sorted(s), f"thread {t}'s records are out of order"


@pytest.mark.timeout_s(90)
def test_64_simultaneous_connections(server):
    """Open 64 connections first, send a request on each, and only then read the
    responses: a server that handles fewer connections at once deadlocks here
    (and the socket timeout turns that into a failure)."""
    conns = [http.client.HTTPConnection(server.host, server.port, timeout=30) for _ in range(THREADS)]
    try:
        for c in conns:
            c.connect()
        for i, c in enumerate(conns):
            hdrs, body = server.request_parts(
                {"DeliveryStreamName": "conns", "Record": {"Data": b64(f"conn-{i:02d}\n".encode())}}
            )
            c.request("POST", "/", body=body, headers=hdrs)
        statuses = []
        for c in conns:
            resp = c.getresponse()
            payload = resp.read()
            statuses.append((resp.status, payload))
        bad = [(s, p) for s, p in statuses if s != 200]
        assert not bad, bad[:3]
        for c in conns:  # the health endpoint on every still-open connection
            c.request("GET", "/_local/health")
            r = c.getresponse()
            assert r.status == 200 and json.loads(r.read()) == {"status": "ok"}
    finally:
        for c in conns:
            c.close()
    server.flush("conns")
    lines = sorted(server.delivered("conns").split(b"\n")[:-1])
    assert lines == [f"conn-{i:02d}".encode() for i in range(THREADS)]


@pytest.mark.timeout_s(90)
def test_full_500_record_4_mib_batch(server, fh):
    # 500 records summing to exactly 4,194,304 bytes: both limits at once.
    base, extra = divmod(MAX_BATCH_BYTES, MAX_BATCH_RECORDS)
    rng = random.Random(42)
    records = [rng.randbytes(base + (1 if i < extra else 0)) for i in range(MAX_BATCH_RECORDS)]
    assert len(records) == 500 and sum(map(len, records)) == MAX_BATCH_BYTES
    assert max(map(len, records)) <= MAX_RECORD
    resp = fh.put_record_batch(DeliveryStreamName="big-batch", Records=[{"Data": r} for r in records])
    assert resp["FailedPutCount"] == 0
    assert len(resp["RequestResponses"]) == 500
    assert all("RecordId" in e and "ErrorCode" not in e for e in resp["RequestResponses"])
    result = server.flush("big-batch")
    assert sum(o["records"] for o in result["objects"]) == 500
    keys = server.stream_keys("big-batch")
    assert len(keys) == 1, "4 MiB fits in the default 5 MiB buffer: one object"
    assert server.read_object(BUCKET, keys[0], decompress=False) == b"".join(records)


@pytest.mark.timeout_s(120)
def test_concurrent_large_batches_to_one_gzip_stream_make_one_valid_member(server):
    """Large batches to one GZIP stream are compressed in parallel segments and joined: the object
    must still be a single gzip member that independent decoders (Python's zlib, gzip -t) accept,
    with every record once and each client's records in order."""
    stream, threads, batches, per_batch = "conc-gz", 10, 3, 250
    session = boto3.session.Session()
    clients = [server.client(session=session, cache=False) for _ in range(threads)]
    errors: list[str] = []

    def rec(t: int, seq: int) -> bytes:
        rng = random.Random(t * 100_000 + seq)
        words = [b"screen_view", b"purchase", b"session", b'"sku":"A-', b"tap", b"ios", b"17.4"]
        body = b" ".join(rng.choice(words) for _ in range(30 + seq % 50))
        return b"t%02d-%05d|" % (t, seq) + body

    def worker(t: int) -> None:
        seq = 0
        try:
            for _ in range(batches):
                recs = [rec(t, seq + i) for i in range(per_batch)]
                seq += per_batch
                resp = clients[t].put_record_batch(DeliveryStreamName=stream, Records=[{"Data": r} for r in recs])
                if resp["FailedPutCount"]:
                    errors.append(f"thread {t}: {resp['FailedPutCount']} failed")
                # A small put between large ones takes the serial path inside the same object.
                clients[t].put_record(DeliveryStreamName=stream, Record={"Data": rec(t, seq)})
                seq += 1
        except Exception as exc:  # noqa: BLE001
            errors.append(f"thread {t}: {exc!r}")

    workers = [threading.Thread(target=worker, args=(t,), daemon=True) for t in range(threads)]
    for th in workers:
        th.start()
    for th in workers:
        th.join(90)
    assert not errors, errors[:5]
    server.flush(stream)
    keys = server.stream_keys(stream)
    assert len(keys) == 1
    raw = server.read_object(BUCKET, keys[0], decompress=False)
    inflater = zlib.decompressobj(wbits=31)
    content = inflater.decompress(raw) + inflater.flush()
    assert inflater.eof and inflater.unused_data == b"", "the object must be exactly one gzip member"
    path = dict(server.object_paths())[keys[0]]
    if shutil.which("gzip"):
        subprocess.run(["gzip", "-t", str(path)], check=True, timeout=30)
    lines = content.split(b"\n")
    assert lines[-1] == b""
    expected = {rec(t, s) for t in range(threads) for s in range(batches * (per_batch + 1))}
    assert collections.Counter(lines[:-1]) == collections.Counter(expected)
    order: dict[int, list[int]] = collections.defaultdict(list)
    for line in lines[:-1]:
        m = re.match(rb"t(\d{2})-(\d{5})\|", line)
        order[int(m.group(1))].append(int(m.group(2)))
    assert all(s == sorted(s) for s in order.values()), "a client's records are out of order"
