"""Buffering hints: IntervalInSeconds 0 / N and SizeInMBs, without /_local/flush.

Records here are numbered lines so that every object can be checked to hold a
contiguous, increasing run of them: that proves per-stream order and
exactly-once delivery without relying on file timestamps (two objects written in
the same clock tick have equal mtimes).
"""

from __future__ import annotations

import gzip
import os
import re
import threading
import time
from pathlib import Path

import pytest

import fhlocal
from fhlocal import BUCKET, MIB, HOUR_PREFIX_RE, UUID4_RE, wait_for

REC = 100_000  # bytes per record in the size tests


def numbered(n: int, size: int, tag: str, start: int = 0) -> list[bytes]:
    """n records of exactly ``size`` bytes: b"<tag>-<seq>|aaaa...\\n"."""
    out = []
    for i in range(start, start + n):
        head = f"{tag}-{i:06d}|".encode()
        out.append(head + b"a" * (size - len(head) - 1) + b"\n")
    return out


def seqs(content: bytes, tag: str) -> list[int]:
    lines = content.split(b"\n")
    assert lines[-1] == b"", f"object does not end at a record boundary: ...{content[-40:]!r}"
    out = []
    for line in lines[:-1]:
        m = re.match(rb"^" + tag.encode() + rb"-(\d{6})\|", line)
        assert m, f"unexpected record in object: {line[:60]!r}"
        out.append(int(m.group(1)))
    return out


def assert_runs(contents: list[bytes], tag: str, expected: list[bytes]) -> None:
    """Every object is a contiguous increasing run; together, in run order, they
    are exactly ``expected``."""
    runs = []
    for c in contents:
        s = seqs(c, tag)
        assert s, "empty object delivered"
        assert s == list(range(s[0], s[0] + len(s))), f"object is not a contiguous run: {s[:5]}...{s[-5:]}"
        runs.append((s[0], c))
    runs.sort()
    assert b"".join(c for _, c in runs) == b"".join(expected), "records lost, duplicated or reordered"


def contents_of(server, stream: str) -> list[bytes]:
    return [server.read_object(BUCKET, k) for k in server.stream_keys(stream)]


# --------------------------------------------------------------------------


@pytest.mark.parametrize("stream,ext", [("instant", ""), ("instant-gz", ".gz")])
def test_interval_zero_delivers_before_put_returns(server, fh, stream, ext):
    recs = numbered(6, 40, "i0")
    fh.put_record(DeliveryStreamName=stream, Record={"Data": recs[0]})
    # No polling: the object must already be there when PutRecord has returned.
    assert_runs(contents_of(server, stream), "i0", recs[:1])

    fh.put_record_batch(DeliveryStreamName=stream, Records=[{"Data": r} for r in recs[1:4]])
    assert_runs(contents_of(server, stream), "i0", recs[:4])

    fh.put_record(DeliveryStreamName=stream, Record={"Data": recs[4]})
    fh.put_record(DeliveryStreamName=stream, Record={"Data": recs[5]})
    assert_runs(contents_of(server, stream), "i0", recs)

    for key in server.stream_keys(stream):
        fhlocal.match_key(key, stream, ext=ext)
    assert server.flush(stream) == {"objects": []}, "nothing may remain buffered with interval 0"


@pytest.mark.timeout_s(60)
def test_interval_delivers_without_flush(server, fh):
    stream, interval = "interval2", 2
    recs = numbered(40, 30, "iv")
    t0 = time.monotonic()
    fh.put_record(DeliveryStreamName=stream, Record={"Data": recs[0]})
    assert server.stream_keys(stream) == [], "delivered at once although IntervalInSeconds is 2"

    # Keep a record arriving every 0.2 s for ~6.5 s.  The interval counts from
    # the *first* record of the buffer, so objects must keep coming (a timer that
    # restarts on every record would never fire), but no more often than the
    # interval allows.
    i = 1
    while time.monotonic() - t0 < 6.5 and i < len(recs):
        time.sleep(0.2)
        fh.put_record(DeliveryStreamName=stream, Record={"Data": recs[i]})
        i += 1
    sent = recs[:i]
    during = len(server.stream_keys(stream))
    assert during >= 2, f"only {during} object(s) in 6.5 s with IntervalInSeconds {interval}"
    assert during <= 4, f"{during} objects in 6.5 s: delivered more often than every {interval} s"

    # The last buffer is delivered by the interval as well - no flush.
    wait_for(
        lambda: sum(len(c) for c in contents_of(server, stream)) == sum(map(len, sent)),
        timeout=interval + 10,
        what="the last buffer to be delivered by the interval",
    )
    assert_runs(contents_of(server, stream), "iv", sent)
    assert server.flush(stream) == {"objects": []}


@pytest.mark.parametrize("stream", ["size1", "size1-gz"])
def test_size_hint_delivers_without_flush(server, fh, stream):
    recs = numbered(25, REC, "sz")  # 2.5 MB, highly compressible
    for r in recs[:12]:
        fh.put_record(DeliveryStreamName=stream, Record={"Data": r})
    # One batch that alone is larger than SizeInMBs: it must be split as well.
    resp = fh.put_record_batch(DeliveryStreamName=stream, Records=[{"Data": r} for r in recs[12:]])
    assert resp["FailedPutCount"] == 0

    # Interval is 900 s: whatever shows up now was delivered because of the size.
    wait_for(lambda: len(server.stream_keys(stream)) >= 2, timeout=10,
             what="two size-triggered objects (SizeInMBs 1, 2.5 MB sent)")
    time.sleep(0.3)
    by_size = contents_of(server, stream)
    for c in by_size:
        # Uncompressed size counts, even for GZIP (the data compresses ~1000x).
        assert MIB - REC <= len(c) <= MIB + REC, (
            f"size-triggered object holds {len(c)} bytes; expected about 1 MiB "
            f"(never more than 1 MiB plus one record)"
        )

    server.flush(stream)
    all_contents = contents_of(server, stream)
    for c in all_contents:
        assert len(c) <= MIB + REC
    assert_runs(all_contents, "sz", recs)
    ext = ".gz" if stream.endswith("-gz") else ""
    for key in server.stream_keys(stream):
        fhlocal.match_key(key, stream, ext=ext)
        if ext:
            raw = (server.bucket_dir() / key).read_bytes()
            assert raw[:2] == b"\x1f\x8b" and len(raw) < MIB // 10


OBJECT_NAME = re.compile(
    r"^[A-Za-z0-9_.-]+-\d+-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}-" + UUID4_RE + r"(\.gz|\.json\.gz|\.jsonl)?$"
)


class BucketWatcher(threading.Thread):
    """Polls every file under the data dir (except the staging folder) as fast as
    it can; records any file that is ever seen with two different sizes, any
    gzip object that does not decompress completely, any name that is not an
    object key, and any object that disappears."""

    def __init__(self, data_dir: Path):
        super().__init__(daemon=True)
        self.data_dir = data_dir
        self.stop_event = threading.Event()
        self.sizes: dict[str, set[int]] = {}
        self.violations: list[str] = []
        self.scans = 0

    def scan(self) -> None:
        present = set()
        for dirpath, dirnames, filenames in os.walk(self.data_dir):
            if Path(dirpath) == self.data_dir:
                dirnames[:] = [d for d in dirnames if d != fhlocal.STAGING_DIR]
            for name in filenames:
                path = os.path.join(dirpath, name)
                present.add(path)
                try:
                    size = os.stat(path).st_size
                except FileNotFoundError:
                    self.violations.append(f"{path} vanished")
                    continue
                known = self.sizes.setdefault(path, set())
                if size in known:
                    continue
                known.add(size)
                if len(known) > 1:
                    self.violations.append(f"{path} seen with sizes {sorted(known)} (written in place)")
                if not OBJECT_NAME.match(name):
                    self.violations.append(f"{path}: not an object name (temporary file in a bucket folder?)")
                if name.endswith(".gz"):
                    try:
                        with open(path, "rb") as f:
                            gzip.decompress(f.read())
                    except (EOFError, OSError, gzip.BadGzipFile) as exc:
                        self.violations.append(f"{path}: incomplete gzip when first seen ({exc!r})")
        for path in self.sizes:
            if path not in present:
                self.violations.append(f"{path} vanished")
        self.scans += 1

    def run(self) -> None:
        while not self.stop_event.is_set():
            self.scan()
            time.sleep(0.002)


@pytest.mark.timeout_s(90)
def test_no_partial_files_ever_visible(server):
    watcher = BucketWatcher(server.data_dir)
    watcher.start()
    errors: list[BaseException] = []

    def pump(stream: str, tag: str) -> None:
        try:
            client = server.client(cache=False)
            recs = numbered(60, REC, tag)  # 6 MB per stream -> several 1 MiB objects
            for i in range(0, len(recs), 10):
                resp = client.put_record_batch(
                    DeliveryStreamName=stream, Records=[{"Data": r} for r in recs[i : i + 10]]
                )
                assert resp["FailedPutCount"] == 0
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=pump, args=("watch-plain", "wp"), daemon=True),
        threading.Thread(target=pump, args=("watch-gz", "wg"), daemon=True),
    ]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
            assert not t.is_alive(), "producer thread hung"
        server.flush("watch-plain")
        server.flush("watch-gz")
        time.sleep(0.1)
    finally:
        watcher.stop_event.set()
        watcher.join(10)
    assert not errors, errors
    watcher.scan()
    assert watcher.scans > 10
    assert watcher.violations == [], "\n".join(watcher.violations[:20])
    assert len(server.stream_keys("watch-plain")) >= 5
    assert len(server.stream_keys("watch-gz")) >= 5
    assert_runs(contents_of(server, "watch-plain"), "wp", numbered(60, REC, "wp"))
    assert_runs(contents_of(server, "watch-gz"), "wg", numbered(60, REC, "wg"))
