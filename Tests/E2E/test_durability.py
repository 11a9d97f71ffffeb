"""Crash recovery: what PutRecord / PutRecordBatch acknowledged survives SIGKILL.

The server is killed with SIGKILL while 8 client threads are sending batches,
restarted on the same data directory, flushed, and every delivered object is
parsed record by record.  Records use a self-checking framing (magic, length,
CRC-32) so a torn record can never pass for a good one and records split
unambiguously even when their payload is arbitrary binary:

    b"\\xf0REC" | u32 length of body | body = b"<thread>-<seq>\\n" + payload | u32 crc32(body)

(followed by the ``\\n`` of AppendDelimiterToRecord on the stream that has it).

Guarantee checked (issue 4): every record whose request got HTTP 200 is
delivered intact; nothing is delivered that was never sent; duplicates only of
records whose request did not get a 200.  The random kill moment comes from a
seeded RNG: the seed is printed and named in every failure; set
``FHL_CRASH_SEED`` to replay one.
"""

from __future__ import annotations

import collections
import json
import os
import random
import struct
import threading
import time
import zlib
from pathlib import Path

import boto3
import pytest

import fhlocal
from fhlocal import BUCKET, STAGING_DIR

GZ = "crash-gz"
PLAIN = "crash-plain"
THREADS = 8
RECORDS_PER_BATCH = 40
MAGIC = b"\xf0REC"
RECOVERED_LOG = "Recovered staged buffers from a previous run"


def crash_config(**top) -> dict:
    return {
        "Authentication": "verify",
        "Credentials": fhlocal.DEFAULT_CREDENTIALS,
        "DeliveryStreams": [
            # 1 MiB: several objects are delivered by size while the clients run.
            fhlocal.ext_stream(GZ, CompressionFormat="GZIP", **fhlocal.hints(1, 900), **fhlocal.DELIMITER),
            fhlocal.ext_stream(PLAIN, CompressionFormat="UNCOMPRESSED", **fhlocal.hints(1, 900)),
        ],
        **top,
    }


# --------------------------------------------------------------------------
# Record framing
# --------------------------------------------------------------------------


def frame(rid: str, payload: bytes) -> bytes:
    body = rid.encode() + b"\n" + payload
    return MAGIC + struct.pack(">I", len(body)) + body + struct.pack(">I", zlib.crc32(body))


def payload_for(rng: random.Random, seq: int) -> bytes:
    """Text-like payloads of 50..3000 bytes, and every 4th one arbitrary binary
    (NUL, 0xff, newlines, bytes that look like our own magic)."""
    if seq % 4 == 0:
        return rng.randbytes(rng.randint(1, 2000)) + MAGIC + b"\x00\xff\n"
    n = rng.randint(50, 3000)
    return (f'{{"seq":{seq},"pad":"'.encode() + b"x" * n + b'"}')


def parse_object(content: bytes, delimiter: bool) -> tuple[list[str], list[str]]:
    """(record ids in order, problems).  Any byte that is not part of an intact
    record is a problem: that is what a torn record looks like."""
    ids, problems = [], []
    off = 0
    while off < len(content):
        if content[off:off + 4] != MAGIC:
            problems.append(f"no record header at offset {off}: {content[off:off + 24]!r}")
            break
        if off + 8 > len(content):
            problems.append(f"truncated record header at offset {off}")
            break
        (length,) = struct.unpack(">I", content[off + 4:off + 8])
        end = off + 8 + length + 4
        if end + (1 if delimiter else 0) > len(content):
            problems.append(f"torn record at offset {off}: needs {end - off} bytes, {len(content) - off} left")
            break
        body = content[off + 8:off + 8 + length]
        (crc,) = struct.unpack(">I", content[off + 8 + length:end])
        if zlib.crc32(body) != crc:
            problems.append(f"record at offset {off} fails its CRC (torn or corrupted): {body[:24]!r}")
            break
        if delimiter:
            if content[end:end + 1] != b"\n":
                problems.append(f"record at offset {off} is not followed by the delimiter")
                break
            end += 1
        ids.append(body.split(b"\n", 1)[0].decode())
        off = end
    return ids, problems


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def staging_dir(srv) -> Path:
    return srv.data_dir / STAGING_DIR / "staging"


def journal_key(path: Path) -> str | None:
    """The object key a staging journal's header line names (``FHL1 {json}``)."""
    header = path.read_bytes().split(b"\n", 1)[0]
    return json.loads(header[len(b"FHL1 "):]).get("key")


def staging_files(srv) -> list[str]:
    d = staging_dir(srv)
    return sorted(p.name for p in d.iterdir()) if d.is_dir() else []


def restart(make_server, old, config, name: str, extra_args=()) -> "fhlocal.FirehoseLocal":
    """A new process on the data directory of ``old`` (which must be dead)."""
    assert not old.running
    srv = make_server.create(config, name=name, extra_args=list(extra_args))
    srv.data_dir = old.data_dir
    return srv.start()


def delivered_ids(srv) -> tuple[dict[str, collections.Counter], list[str]]:
    """Per stream: Counter of record ids over every object; and every problem found."""
    out: dict[str, collections.Counter] = {}
    problems: list[str] = []
    for stream, delim in ((GZ, True), (PLAIN, False)):
        counts: collections.Counter = collections.Counter()
        for key, _ in srv.stream_objects(stream):
            content = srv.read_object(BUCKET, key)
            ids, probs = parse_object(content, delim)
            problems += [f"{stream} {key}: {p}" for p in probs]
            counts.update(ids)
        out[stream] = counts
    # Nothing but our streams' objects in the bucket.
    ours = {k for s in (GZ, PLAIN) for k, _ in srv.stream_objects(s)}
    strays = [k for k, _ in srv.object_paths() if k not in ours]
    problems += [f"unexpected object {k}" for k in strays]
    return out, problems


def assert_staging_empty(srv) -> None:
    left = staging_files(srv)
    assert not left, f"staging files remain after recovery and flush: {left}"


def put_marker_and_kill(srv, durability_desc: str):
    """One acknowledged PutRecord per stream, then SIGKILL straight away."""
    fh = srv.client()
    gz_rec = frame(f"single-gz-{durability_desc}", b"\x00binary\xff payload\n")
    plain_rec = frame(f"single-plain-{durability_desc}", b"plain payload")
    before = time.time()
    r1 = fh.put_record(DeliveryStreamName=GZ, Record={"Data": gz_rec})
    r2 = fh.put_record(DeliveryStreamName=PLAIN, Record={"Data": plain_rec})
    after = time.time()
    assert r1["ResponseMetadata"]["HTTPStatusCode"] == 200 and r2["ResponseMetadata"]["HTTPStatusCode"] == 200
    srv.kill()  # SIGKILL, no chance to deliver
    assert srv.returncode == -9, f"expected death by SIGKILL, got {srv.returncode}"
    return gz_rec, plain_rec, before, after


# --------------------------------------------------------------------------
# Crash under concurrent load
# --------------------------------------------------------------------------

BASE_SEED = int(os.environ.get("FHL_CRASH_SEED") or random.SystemRandom().randrange(1, 2**31))

# (lo, hi, durability): the kill comes uniform(lo, hi) seconds after the first acknowledged batch.
# `none` must survive a killed process too (it only gives up power-loss safety).
KILL_POINTS = [
    (0.0, 0.15, "fsync"), (0.2, 0.6, "fsync"), (0.7, 1.3, "fsync"), (1.5, 2.3, "fsync"), (2.5, 3.5, "fsync"),
    (0.3, 0.9, "none"), (2.0, 3.0, "none"),
]


class Load:
    """8 threads, each with its own boto3 client and connection, sending
    PutRecordBatch requests alternately to both streams until told to stop."""

    def __init__(self, srv, seed: int):
        self.lock = threading.Lock()
        self.sent: dict[str, str] = {}  # id -> stream
        self.acked: set[str] = set()
        self.not_acked: set[str] = set()  # sent, but the request got no 200
        self.acked_batches = 0
        self.in_flight = 0
        self.unexpected: list[str] = []
        self.stop = threading.Event()
        self.killed = threading.Event()
        self.first_ack = threading.Event()
        session = boto3.session.Session()
        self.clients = [srv.client(session=session, cache=False) for _ in range(THREADS)]
        self.seed = seed
        self.threads = [threading.Thread(target=self.worker, args=(t,), daemon=True) for t in range(THREADS)]

    def worker(self, t: int) -> None:
        rng = random.Random(self.seed * 1000 + t)
        client = self.clients[t]
        seq = 0
        batch_no = 0
        while not self.stop.is_set():
            stream = GZ if (batch_no + t) % 2 == 0 else PLAIN
            batch_no += 1
            ids, records = [], []
            for _ in range(RECORDS_PER_BATCH):
                rid = f"{t}-{seq}"
                ids.append(rid)
                records.append({"Data": frame(rid, payload_for(rng, seq))})
                seq += 1
            with self.lock:
                for rid in ids:
                    self.sent[rid] = stream
                self.in_flight += 1
            ok, problem = False, ""
            try:
                resp = client.put_record_batch(DeliveryStreamName=stream, Records=records)
                status = resp["ResponseMetadata"]["HTTPStatusCode"]
                ok = status == 200 and resp["FailedPutCount"] == 0 and len(resp["RequestResponses"]) == len(ids)
                problem = "" if ok else f"unexpected response {status}: {resp}"
            except Exception as exc:  # noqa: BLE001 - connection reset by the kill, or a bug
                problem = repr(exc)
            with self.lock:
                self.in_flight -= 1
                if ok:
                    self.acked.update(ids)
                    self.acked_batches += 1
                else:
                    self.not_acked.update(ids)
                    if not self.killed.is_set():
                        self.unexpected.append(f"thread {t}: {problem}")
            if ok:
                self.first_ack.set()
            else:
                return  # the server is gone (or misbehaving): stop this client

    def start(self) -> None:
        for th in self.threads:
            th.start()

    def join(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        for th in self.threads:
            th.join(max(0.1, deadline - time.monotonic()))
        assert not any(th.is_alive() for th in self.threads), "client threads hung after the kill"


@pytest.mark.timeout_s(90)
@pytest.mark.parametrize("point", KILL_POINTS, ids=[f"{mode}-kill-{lo}-{hi}s" for lo, hi, mode in KILL_POINTS])
def test_sigkill_under_concurrent_load_loses_no_acknowledged_record(make_server, point):
    index = KILL_POINTS.index(point)
    lo, hi, mode = point
    seed = BASE_SEED + index
    rng = random.Random(seed)
    delay = rng.uniform(lo, hi)
    tag = f"[seed={seed} (FHL_CRASH_SEED={BASE_SEED}), durability {mode}, kill {delay:.3f} s after the first ack]"
    print(f"crash test {tag}")
    config = crash_config()
    srv = make_server(config, name=f"crash{index}", extra_args=["--durability", mode])
    load = Load(srv, seed)
    load.start()
    try:
        assert load.first_ack.wait(30), f"no batch acknowledged within 30 s {tag}: {load.unexpected[:3]}"
        time.sleep(delay)
        # Kill while requests are in flight (they nearly always are; wait briefly if not).
        deadline = time.monotonic() + 2
        while load.in_flight == 0 and time.monotonic() < deadline:
            time.sleep(0.001)
        with load.lock:
            load.killed.set()
            in_flight_at_kill = load.in_flight
        srv.kill()
    finally:
        load.stop.set()
        load.killed.set()
        srv.kill()
    load.join(30)
    assert srv.returncode == -9, f"server was not killed by SIGKILL (rc {srv.returncode}) {tag}"
    assert not load.unexpected, f"requests failed before the kill {tag}: {load.unexpected[:5]}"

    delivered_before = len(srv.object_paths())
    delivered_keys = {key for key, _ in srv.object_paths()}
    staged = staging_files(srv)
    # Buffers recovery must deliver: a journal with at least one commit line and its data file, whose
    # object is not in the bucket yet. (A buffer encoded at delivery keeps its content staged until
    # its object is renamed in: killed in between, it is delivered again at the same key.)
    committed_journals = [
        n for n in staged
        if n.endswith(".journal") and n[: -len(".journal")] + ".partial" in staged
        and b"\nC " in (staging_dir(srv) / n).read_bytes()
        and journal_key(staging_dir(srv) / n) not in delivered_keys
    ]
    print(f"{tag}: acked {len(load.acked)} records in {load.acked_batches} batches, "
          f"{len(load.not_acked)} unacknowledged, {in_flight_at_kill} requests in flight at the kill, "
          f"{delivered_before} objects delivered by size before the kill, staged files {len(staged)}")

    srv2 = restart(make_server, srv, config, f"crash{index}-restart")
    # Recovery happens at start, before the server answers; a flush then delivers nothing staged.
    if committed_journals:
        assert RECOVERED_LOG in srv2.stderr_text(), f"{len(committed_journals)} committed buffers, no recovery logged {tag}"
    assert len(srv2.object_paths()) >= delivered_before + len(committed_journals), tag
    srv2.flush()
    assert_staging_empty(srv2)

    counts, problems = delivered_ids(srv2)
    assert not problems, f"torn or foreign data in delivered objects {tag}:\n" + "\n".join(problems[:10])

    seen: collections.Counter = collections.Counter()
    misplaced = []
    for stream, c in counts.items():
        seen.update(c)
        misplaced += [rid for rid in c if load.sent.get(rid) not in (None, stream)]
    never_sent = [rid for rid in seen if rid not in load.sent]
    lost = sorted(load.acked - set(seen))
    dup_acked = sorted(rid for rid in load.acked if seen[rid] > 1)
    dup_other = sorted(rid for rid in load.not_acked if seen[rid] > 1)
    delivered_unacked = sum(1 for rid in load.not_acked if seen[rid])
    print(f"{tag}: delivered {len(seen)} distinct records; {delivered_unacked} of the "
          f"{len(load.not_acked)} unacknowledged ones were delivered too (allowed); "
          f"duplicates: {len(dup_acked)} acknowledged, {len(dup_other)} unacknowledged")

    assert not never_sent, f"records delivered that were never sent {tag}: {never_sent[:5]}"
    assert not misplaced, f"records delivered to the wrong stream {tag}: {misplaced[:5]}"
    assert not lost, f"{len(lost)} acknowledged records LOST {tag}, e.g. {lost[:10]}"
    assert not dup_acked, f"{len(dup_acked)} acknowledged records delivered more than once {tag}: {dup_acked[:10]}"
    assert len(load.acked) >= RECORDS_PER_BATCH, tag


# --------------------------------------------------------------------------
# One acknowledged record, then SIGKILL
# --------------------------------------------------------------------------

DURABILITY_MODES = {
    "fsync-flag": (["--durability", "fsync"], {}),
    "none-flag": (["--durability", "none"], {}),
    "none-config": ([], {"Durability": "none"}),
    "default": ([], {}),
}


@pytest.mark.timeout_s(60)
@pytest.mark.parametrize("mode", list(DURABILITY_MODES), ids=list(DURABILITY_MODES))
def test_single_acknowledged_put_survives_sigkill(make_server, mode):
    """kill -9 right after PutRecord returned: the next start delivers the record
    by itself (recovery, before any flush), at the key time of its arrival, once;
    ``durability none`` still survives a killed process (only power loss is out)."""
    args, top = DURABILITY_MODES[mode]
    config = crash_config(**top)
    srv = make_server(config, name=f"single-{mode}", extra_args=args)
    gz_rec, plain_rec, before, after = put_marker_and_kill(srv, mode)
    staged = staging_files(srv)
    assert sum(n.endswith(".journal") for n in staged) == 2 and sum(n.endswith(".partial") for n in staged) == 2, (
        f"expected one staged buffer per stream, found {staged}")
    assert srv.object_paths() == [], "nothing should have been delivered before the kill"
    # Restart at least a second later so the key time tells arrival from recovery time.
    time.sleep(max(0.0, int(after) + 1.2 - time.time()))

    srv2 = restart(make_server, srv, config, f"single-{mode}-restart", args)
    err = srv2.stderr_text()
    assert RECOVERED_LOG in err, f"no recovery logged:\n{err}"
    # Delivered by recovery, before any flush.
    gz_keys, plain_keys = srv2.stream_keys(GZ), srv2.stream_keys(PLAIN)
    assert len(gz_keys) == 1 and len(plain_keys) == 1, f"recovery delivered {gz_keys} / {plain_keys}"
    assert srv2.read_object(BUCKET, gz_keys[0]) == gz_rec + b"\n"
    assert srv2.read_object(BUCKET, plain_keys[0], decompress=False) == plain_rec
    for key, stream, ext in ((gz_keys[0], GZ, ".gz"), (plain_keys[0], PLAIN, "")):
        m = fhlocal.match_key(key, stream, ext=ext)
        fhlocal.assert_hour_prefix_matches(m)
        fhlocal.assert_time_in_window(fhlocal.key_time(m), before, after, slack=0.0)
    assert_staging_empty(srv2)
    # The normal flush finds nothing left to deliver.
    assert srv2.flush()["objects"] == []
    assert len(srv2.object_paths()) == 2
    # The restarted server works as usual.
    srv2.client().put_record(DeliveryStreamName=PLAIN, Record={"Data": b"after"})
    [obj] = srv2.flush()["objects"]
    assert obj["records"] == 1
    assert_staging_empty(srv2)


@pytest.mark.timeout_s(60)
def test_repeated_crashes_deliver_each_acknowledged_record_exactly_once(make_server):
    """Three kill -9 / restart cycles with records acknowledged in each: nothing is
    lost and nothing recovered once is recovered again."""
    config = crash_config()
    srv = make_server(config, name="cycle0")
    expected: dict[str, list[bytes]] = {GZ: [], PLAIN: []}
    for cycle in range(3):
        fh = srv.client()
        for stream in (GZ, PLAIN):
            recs = [frame(f"c{cycle}-{stream}-{i}", bytes([i]) * (i + 1)) for i in range(20)]
            fh.put_record_batch(DeliveryStreamName=stream, Records=[{"Data": r} for r in recs])
            fh.put_record(DeliveryStreamName=stream, Record={"Data": frame(f"c{cycle}-{stream}-single", b"s")})
            expected[stream] += recs + [frame(f"c{cycle}-{stream}-single", b"s")]
        srv.kill()
        srv = restart(make_server, srv, config, f"cycle{cycle + 1}")
        assert_staging_empty(srv)
    assert srv.flush()["objects"] == []
    counts, problems = delivered_ids(srv)
    assert not problems, problems
    for stream, delim in ((GZ, True), (PLAIN, False)):
        want = collections.Counter(parse_object(b"".join(expected[stream]), False)[0])
        assert counts[stream] == want, (
            f"{stream}: lost {sorted(set(want) - set(counts[stream]))[:5]}, "
            f"duplicated {[k for k, n in counts[stream].items() if n > 1][:5]}")
        assert len(srv.stream_keys(stream)) == 3, "one recovered object per crashed buffer"


@pytest.mark.timeout_s(60)
def test_stray_and_torn_staging_files_are_cleaned_up(make_server):
    """After a kill: a torn (half-written) journal line and data beyond the last
    commit are ignored, not delivered; a data file without a journal is dropped.
    Exactly the committed records come back."""
    config = crash_config()
    srv = make_server(config, name="torn")
    fh = srv.client()
    recs = [frame(f"torn-{i}", b"p" * 100) for i in range(5)]
    fh.put_record_batch(DeliveryStreamName=PLAIN, Records=[{"Data": r} for r in recs])
    srv.kill()
    sdir = staging_dir(srv)
    [journal] = [p for p in sdir.iterdir() if p.suffix == ".journal"]
    partial = journal.with_suffix(".partial")
    # Simulate a crash in the middle of the next commit: bytes appended to the
    # data file and half a journal line.
    with open(partial, "ab") as f:
        f.write(frame("uncommitted", b"x" * 50))
    size = partial.stat().st_size
    with open(journal, "ab") as f:
        # A complete commit line whose CRC does not match the bytes, then a torn line.
        f.write(f"C {size} {size} 6 12345\n".encode() + b"C 99999 99999 7 1")
    (sdir / "0badf00d-0000-4000-8000-000000000000.partial").write_bytes(b"never committed")

    srv2 = restart(make_server, srv, config, "torn-restart")
    assert_staging_empty(srv2)
    srv2.flush()
    counts, problems = delivered_ids(srv2)
    assert not problems, problems
    assert counts[PLAIN] == collections.Counter(f"torn-{i}" for i in range(5))


@pytest.mark.timeout_s(60)
def test_staged_records_of_a_stream_that_no_longer_exists_are_quarantined_then_delivered(make_server):
    """Records acknowledged for a stream that is gone at the next start (it left
    the configuration file) are not left in staging forever: they move to the
    quarantine folder with a warning naming the stream and the record count,
    /_local/streams lists them, and the first start at which a stream of that
    name exists again delivers them, once."""
    gone = "q-gone"
    with_stream = {"Credentials": fhlocal.DEFAULT_CREDENTIALS,
                   "DeliveryStreams": [fhlocal.ext_stream(gone, **fhlocal.hints(1, 900))]}
    without = {"Credentials": fhlocal.DEFAULT_CREDENTIALS, "DeliveryStreams": [fhlocal.ext_stream("q-other")]}
    srv = make_server(with_stream, name="quarantine")
    srv.client().put_record_batch(DeliveryStreamName=gone, Records=[{"Data": b"a\n"}, {"Data": b"b\n"}])
    srv.kill()

    srv2 = restart(make_server, srv, without, "quarantine-without")
    err = srv2.stderr_text()
    assert "kept in quarantine until a stream of that name exists" in err and f"stream={gone}" in err, err
    assert_staging_empty(srv2)
    [kept] = srv2.http("GET", "/_local/streams").json()["quarantined"]
    assert kept["stream"] == gone and kept["records"] == 2 and kept["bytes"] == 4, kept
    assert (srv2.data_dir / kept["path"]).is_file(), kept
    assert srv2.object_paths() == []
    assert srv2.stop() == 0

    srv3 = restart(make_server, srv2, with_stream, "quarantine-back")
    assert srv3.delivered(gone) == b"a\nb\n"
    assert srv3.http("GET", "/_local/streams").json()["quarantined"] == []
    assert not (srv3.data_dir / kept["path"]).exists()
    assert srv3.flush()["objects"] == []


def test_a_recovered_buffer_that_cannot_be_delivered_counts_flushes_and_fails_as_any_buffer(make_server):
    """A buffer whose delivery failed, then SIGKILL: at the next start its delivery fails again. It was
    invisible: /_local/streams showed nothing buffered, a flush answered 200 without it, and SIGTERM
    exited 0 with the record still staged. Now it is its stream's buffer until it is delivered."""
    name = "blocked"
    config = {"Credentials": fhlocal.DEFAULT_CREDENTIALS,
              "DeliveryStreams": [fhlocal.ext_stream(name, **fhlocal.hints(1, 900))]}
    srv = make_server(config, name="blocked-first")
    blocker = srv.data_dir / fhlocal.BUCKET
    blocker.write_bytes(b"a file where the bucket's folder must go")
    srv.client().put_record(DeliveryStreamName=name, Record={"Data": b"acknowledged\n"})
    assert srv.http("POST", f"/_local/flush?stream={name}").status == 503
    srv.kill()

    srv2 = restart(make_server, srv, config, "blocked-recovered")
    assert fhlocal.stream_status(srv2, name)["buffer"]["records"] == 1
    failed = srv2.http("POST", "/_local/flush")
    assert failed.status == 503, failed
    [failure] = failed.json()["failures"]
    assert failure["stream"] == name and failure["stagedRecords"] == 1, failure
    assert srv2.stop() == 1
    assert name in srv2.stderr_text().split("Records stay staged", 1)[-1]

    srv3 = restart(make_server, srv2, config, "blocked-unblocked")
    blocker.unlink()
    [delivered] = srv3.flush()["objects"]
    assert delivered["stream"] == name and delivered["records"] == 1, delivered
    assert srv3.delivered(name) == b"acknowledged\n"
    assert fhlocal.stream_status(srv3, name)["buffer"]["records"] == 0
    assert srv3.flush()["objects"] == []
    assert srv3.stop() == 0
    assert_staging_empty(srv3)
