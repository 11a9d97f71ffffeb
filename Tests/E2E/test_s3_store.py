"""Buckets mapped to an S3-compatible store: objects go to real S3 servers (moto's, and Ceph's RADOS
Gateway from Debian's packages, started here) at the keys and with the bytes a folder bucket gets,
and nothing acknowledged is lost while the store is down, or when firehose-local is killed meanwhile."""
from __future__ import annotations

import gzip
import json
import pathlib
import shutil
import socket
import subprocess
import sys
import threading
import time

import boto3
import pytest
from botocore.config import Config

import fhlocal

STORE_BUCKET = "store-bucket"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MotoS3:
    """moto's S3 server (`moto[server]` from PyPI) in a process of its own."""

    def __init__(self):
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.client = boto3.client(
            "s3", endpoint_url=self.endpoint, region_name="us-east-1", aws_access_key_id="store-key",
            aws_secret_access_key="store-secret", config=Config(retries={"max_attempts": 1}))
        deadline = time.monotonic() + 30
        while True:
            try:
                self.client.list_buckets()
                break
            except Exception:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("moto_server did not start")
                time.sleep(0.2)

    def objects(self, bucket: str = STORE_BUCKET) -> dict[str, bytes]:
        keys = [o["Key"] for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=bucket)
                for o in page.get("Contents", [])]
        return {key: self.client.get_object(Bucket=bucket, Key=key)["Body"].read() for key in keys}

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


class Outage:
    """A TCP relay in front of the store that can be taken down (connections refused, open ones cut)
    and brought back on the same port."""

    def __init__(self, target_port: int):
        self.target_port = target_port
        self.port = free_port()
        self.lock = threading.Lock()
        self.connections: list[socket.socket] = []
        self.listener: socket.socket | None = None
        self.up()

    def up(self):
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self):
        with self.lock:
            listener, self.listener = self.listener, None
            connections, self.connections = self.connections, []
        if listener:
            listener.close()
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()

    def _accept(self, listener: socket.socket):
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            with self.lock:
                if self.listener is not listener:
                    client.close()
                    upstream.close()
                    return
                self.connections += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


@pytest.fixture(scope="module")
def moto():
    server = MotoS3()
    server.client.create_bucket(Bucket=STORE_BUCKET)
    yield server
    server.stop()


@pytest.fixture
def outage(moto):
    relay = Outage(moto.port)
    yield relay
    relay.down()


def store_config(endpoint: str, *streams: dict) -> dict:
    return {
        "Credentials": fhlocal.DEFAULT_CREDENTIALS,
        "DeliveryStreams": list(streams),
        "Buckets": [{
            "Name": "mapped-bucket", "Endpoint": endpoint, "StoreBucket": STORE_BUCKET,
            "Credentials": {"AccessKeyId": "store-key", "SecretAccessKey": "store-secret"},
        }],
    }


def test_objects_go_to_the_store_with_the_bytes_and_keys_of_a_folder(make_server, moto):
    streams = [
        fhlocal.ext_stream("to-store", "mapped-bucket", Prefix="events/", CompressionFormat="GZIP",
                           **fhlocal.hints(64, 900)),
        fhlocal.ext_stream("to-folder", "folder-bucket", Prefix="events/", CompressionFormat="GZIP",
                           **fhlocal.hints(64, 900)),
    ]
    srv = make_server(store_config(moto.endpoint, *streams), name="store")
    fh = srv.client()
    records = [{"Data": json.dumps({"n": n}).encode() + b"\n"} for n in range(500)]
    for stream in ("to-store", "to-folder"):
        fh.put_record_batch(DeliveryStreamName=stream, Records=records)
    flushed = srv.flush()
    assert len(flushed["objects"]) == 2
    stored = {k: v for k, v in moto.objects().items() if k.startswith("events/")}
    (key, data), = stored.items()
    assert "to-store-1-" in key and key.endswith(".gz")
    assert gzip.decompress(data) == b"".join(r["Data"] for r in records)
    assert not (srv.data_dir / "mapped-bucket").exists()
    (folder_key, folder_data), = srv.objects("folder-bucket")
    assert gzip.decompress(folder_data) == gzip.decompress(data)
    assert folder_key.startswith("events/") and key.startswith("events/")
    # The local S3 API says where a mapped bucket's objects are instead of listing it empty.
    error = fhlocal.expect_client_error(
        lambda: srv.s3().list_objects_v2(Bucket="mapped-bucket"), "NoSuchBucket", 404, s3=True)
    assert moto.endpoint in error["Error"]["Message"]
    assert "Bucket delivered to an S3-compatible store" in srv.stderr_text()


@pytest.mark.timeout_s(180)
def test_a_store_down_for_ten_seconds_loses_nothing(make_server, moto, outage):
    stream = fhlocal.ext_stream("outage", "mapped-bucket", Prefix="outage/", **fhlocal.hints(1, 0))
    srv = make_server(store_config(f"http://127.0.0.1:{outage.port}", stream), name="store-outage")
    fh = srv.client()
    sent: list[bytes] = []

    def put(n: int):
        batch = [b"record-%05d\n" % (n * 10 + i) for i in range(10)]
        answer = fh.put_record_batch(DeliveryStreamName="outage", Records=[{"Data": d} for d in batch])
        assert answer["FailedPutCount"] == 0
        sent.extend(batch)

    for n in range(10):
        put(n)
    outage.down()
    down_since = time.monotonic()
    n = 10
    while time.monotonic() - down_since < 10:
        put(n)  # acknowledged while the store is down: staged, delivered later
        n += 1
        time.sleep(0.2)
    status = fhlocal.stream_status(srv, "outage")
    assert status["delivery"]["failing"] and status["buffer"]["records"] > 0, status
    assert "no answer from" in status["delivery"]["lastError"]["message"]
    outage.up()
    for extra in range(n, n + 5):
        put(extra)
    deadline = time.monotonic() + 90
    while True:
        delivered = b"".join(v for k, v in sorted(moto.objects().items()) if k.startswith("outage/"))
        lines = delivered.splitlines(keepends=True)
        if len(lines) >= len(sent) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert sorted(lines) == sorted(sent), f"{len(lines)} delivered of {len(sent)}"
    status = fhlocal.stream_status(srv, "outage")
    assert not status["delivery"]["failing"] and status["delivery"]["failures"] > 0
    metrics = srv.http("GET", "/_local/metrics").body.decode()
    assert 'firehose_local_delivery_failures_total{stream="outage"}' in metrics


def test_a_kill_while_the_store_is_down_delivers_once_the_store_is_back(make_server, moto, outage):
    stream = fhlocal.ext_stream("crash", "mapped-bucket", Prefix="crash/", CompressionFormat="GZIP",
                                **fhlocal.hints(64, 900))
    config = store_config(f"http://127.0.0.1:{outage.port}", stream)
    srv = make_server(config, name="store-crash")
    records = [b"acknowledged %d\n" % n for n in range(200)]
    srv.client().put_record_batch(DeliveryStreamName="crash", Records=[{"Data": r} for r in records])
    outage.down()
    flush = srv.http("POST", "/_local/flush?stream=crash")
    assert flush.status == 503, flush.body
    srv.kill()
    # Restarted while the store is still down: recovery cannot deliver, and retries while it runs.
    restarted = make_server.create(config, name="store-crash-restart")
    restarted.data_dir = srv.data_dir
    restarted.start()
    assert not {k for k in moto.objects() if k.startswith("crash/")}
    outage.up()
    deadline = time.monotonic() + 60
    while not (stored := {k: v for k, v in moto.objects().items() if k.startswith("crash/")}):
        assert time.monotonic() < deadline, restarted.stderr_tail()
        time.sleep(0.5)
    assert len(stored) == 1
    assert gzip.decompress(next(iter(stored.values()))) == b"".join(records)
    assert "Delivered recovered buffers that had failed at start" in restarted.stderr_text()


def test_an_object_over_the_threshold_goes_up_in_parts(make_server, moto):
    stream = fhlocal.ext_stream("in-parts", "mapped-bucket", Prefix="parts/", **fhlocal.hints(64, 900))
    config = store_config(moto.endpoint, stream)
    config["Buckets"][0].update(MultipartThresholdMB=5, PartSizeMB=5)
    srv = make_server(config, name="store-multipart")
    fh = srv.client()
    records = [b"%06d %s\n" % (n, b"m" * 1000) for n in range(12_000)]  # 12 MiB: parts of 5, 5 and 2
    for start in range(0, len(records), 500):
        answer = fh.put_record_batch(
            DeliveryStreamName="in-parts", Records=[{"Data": r} for r in records[start:start + 500]])
        assert answer["FailedPutCount"] == 0
    (flushed,) = srv.flush("in-parts")["objects"]
    head = moto.client.head_object(Bucket=STORE_BUCKET, Key=flushed["key"])
    assert head["ETag"].endswith('-3"'), head["ETag"]  # S3's ETag of a 3-part upload
    stored = moto.client.get_object(Bucket=STORE_BUCKET, Key=flushed["key"])["Body"].read()
    assert stored == b"".join(records)
    assert not moto.client.list_multipart_uploads(Bucket=STORE_BUCKET).get("Uploads")


def test_a_store_that_checks_signatures_and_digests_takes_every_object(make_server):
    """moto does not check signatures: a second firehose-local, whose S3 API verifies SigV4 (S3's
    dialect) and Content-MD5, stands in for a strict store, so what the real transport sends is checked."""
    keys = {"AccessKeyId": "store-key", "SecretAccessKey": "store-secret"}
    store = make_server({"Credentials": [keys], "DeliveryStreams": []}, name="verifying-store")
    store.s3(access_key="store-key", secret_key="store-secret").create_bucket(Bucket=STORE_BUCKET)
    streams = [fhlocal.ext_stream("strict", "mapped-bucket", Prefix="strict/", CompressionFormat="GZIP",
                                  **fhlocal.hints(64, 900))]
    srv = make_server(store_config(store.endpoint, *streams), name="store-client")
    records = [{"Data": b"checked %d\n" % n} for n in range(100)]
    srv.client().put_record_batch(DeliveryStreamName="strict", Records=records)
    (flushed,) = srv.flush("strict")["objects"]
    stored = store.data_dir / STORE_BUCKET / flushed["key"]
    assert gzip.decompress(stored.read_bytes()) == b"".join(r["Data"] for r in records)

    assert_wrong_secret_is_refused(make_server, store.endpoint, name="store-wrong-key")


def assert_wrong_secret_is_refused(make_server, endpoint: str, name: str):
    """A store that checks signatures refuses the wrong secret, and the stream says why while the
    object waits."""
    config = store_config(endpoint, fhlocal.ext_stream("wrong-key", "mapped-bucket", **fhlocal.hints(64, 900)))
    config["Buckets"][0]["Credentials"] = {"AccessKeyId": "store-key", "SecretAccessKey": "not-the-secret"}
    wrong = make_server(config, name=name)
    wrong.client().put_record(DeliveryStreamName="wrong-key", Record={"Data": b"kept\n"})
    assert wrong.http("POST", "/_local/flush?stream=wrong-key").status == 503
    status = fhlocal.stream_status(wrong, "wrong-key")
    assert "HTTP 403 SignatureDoesNotMatch" in status["delivery"]["lastError"]["message"], status
    assert status["buffer"]["records"] == 1
    wrong.kill()  # it could never deliver: a SIGTERM would exit 1, naming the staged record


CEPH_SCRIPTS = pathlib.Path(__file__).parent / "ceph"


class CephRGW:
    """Ceph's RADOS Gateway over a one-node cluster held in memory (Tests/E2E/ceph/start-rgw.sh)."""

    def __init__(self, workdir: pathlib.Path):
        self.dir = workdir / "ceph"
        self.port = free_port()
        try:
            run = subprocess.run(
                ["bash", str(CEPH_SCRIPTS / "start-rgw.sh"), str(self.dir), str(self.port), str(free_port()),
                 "store-key", "store-secret"], capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            self.stop()
            raise
        if run.returncode != 0:
            logs = "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
                             for p in sorted((self.dir / "log").glob("*")))
            self.stop()
            raise RuntimeError(f"Ceph RGW did not start: {run.stderr}\n{logs}")
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.client = boto3.client(
            "s3", endpoint_url=self.endpoint, region_name="us-east-1", aws_access_key_id="store-key",
            aws_secret_access_key="store-secret", config=Config(retries={"max_attempts": 3}))

    def stop(self):
        subprocess.run(["bash", str(CEPH_SCRIPTS / "stop-rgw.sh"), str(self.dir)], timeout=60)


@pytest.fixture(scope="module")
def rgw(tmp_path_factory):
    if shutil.which("radosgw") is None or shutil.which("ceph-mon") is None or shutil.which("ceph-osd") is None:
        pytest.skip("needs radosgw, ceph-mon, ceph-osd and ceph-common (apt); scripts/prerequisites test installs them")
    gateway = CephRGW(tmp_path_factory.mktemp("rgw"))
    try:
        gateway.client.create_bucket(Bucket=STORE_BUCKET)
        yield gateway
    finally:
        gateway.stop()


@pytest.mark.timeout_s(600)
def test_objects_go_to_ceph_rgw_whole_and_in_parts(make_server, rgw):
    streams = [
        fhlocal.ext_stream("to-rgw", "mapped-bucket", Prefix="whole/", CompressionFormat="GZIP",
                           **fhlocal.hints(64, 900)),
        fhlocal.ext_stream("rgw-parts", "mapped-bucket", Prefix="parts/", **fhlocal.hints(64, 900)),
    ]
    config = store_config(rgw.endpoint, *streams)
    config["Buckets"][0].update(MultipartThresholdMB=5, PartSizeMB=5)
    srv = make_server(config, name="store-rgw")
    fh = srv.client()
    small = [{"Data": b"rgw %d\n" % n} for n in range(300)]
    fh.put_record_batch(DeliveryStreamName="to-rgw", Records=small)
    large = [b"%06d %s\n" % (n, b"r" * 1000) for n in range(12_000)]  # 12 MiB: parts of 5, 5 and 2
    for start in range(0, len(large), 500):
        answer = fh.put_record_batch(
            DeliveryStreamName="rgw-parts", Records=[{"Data": r} for r in large[start:start + 500]])
        assert answer["FailedPutCount"] == 0
    flushed = {o["stream"]: o["key"] for o in srv.flush()["objects"]}
    whole = rgw.client.get_object(Bucket=STORE_BUCKET, Key=flushed["to-rgw"])
    assert gzip.decompress(whole["Body"].read()) == b"".join(r["Data"] for r in small)
    parts = rgw.client.get_object(Bucket=STORE_BUCKET, Key=flushed["rgw-parts"])
    assert parts["Body"].read() == b"".join(large)
    assert parts["ETag"].endswith('-3"'), parts["ETag"]
    assert not rgw.client.list_multipart_uploads(Bucket=STORE_BUCKET).get("Uploads")
    # RGW answers CompleteMultipartUpload with an empty ETag (a known Ceph defect): still delivered.
    assert "Upload to the store failed" not in srv.stderr_text()
    # RGW checks signatures.
    assert_wrong_secret_is_refused(make_server, rgw.endpoint, name="store-rgw-wrong-key")
