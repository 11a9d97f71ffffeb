#!/usr/bin/env python3
"""Soak: the hostile inputs of issue 12 all at once, beside a normal client, against a real server.

Starts firehose-local on 127.0.0.1 with a fresh data directory and, for --seconds (default 60), runs
together:

- a normal client: boto3 PutRecordBatch of 10 numbered records at a time, retrying 503s as the SDK
  would (each retry is a new call), timing every call;
- gzip bombs: small gzip PutRecordBatch bodies that decode to 5.3 MB of JSON each, 16 at a time;
- stalled uploads: 40 connections that announce an 8 MB body and send a few bytes;
- idle keep-alive connections: 1,500 connections answered once, then left open;
- malformed framing (bad chunks, bodies cut short, unknown transfer codings), repeated JSON members,
  a PutRecord signed without X-Amz-Target replayed as DeleteDeliveryStream, CreateDeliveryStream with
  a prefix whose combining mark hides '..', and a create/tag/delete churn of API streams;
- a stream whose bucket folder cannot be made, put to 5 times a second, so one stream keeps failing
  to deliver (the exit code after SIGTERM is then 1, naming it).

Then flushes, stops the server with SIGTERM and checks every object delivered for the normal stream.
Reports acknowledged records lost (must be 0), the server's peak RSS, the normal client's p50/p99
latency and what each attack got back; exits 1 if a record was lost, a replay deleted a stream, a
hostile prefix was accepted, or the server crashed.

    python3 scripts/soak.py --server .build/release/firehose-local [--seconds 60] [--json out.json]

Loopback only; bounded in time and in connections (about 1,700). Needs boto3.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import http.client
import json
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import boto3
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

NORMAL = "soak-normal"
STUCK = "soak-stuck"
TARGET = "Firehose_20150804."
CONFIG = f"""\
Credentials: [{{AccessKeyId: test, SecretAccessKey: test}}]
DeliveryStreams:
  - DeliveryStreamName: {NORMAL}
    ExtendedS3DestinationConfiguration:
      BucketARN: arn:aws:s3:::soak-bucket
      BufferingHints: {{SizeInMBs: 1, IntervalInSeconds: 2}}
  - DeliveryStreamName: {STUCK}
    ExtendedS3DestinationConfiguration:
      BucketARN: arn:aws:s3:::soak-stuck-bucket
      BufferingHints: {{SizeInMBs: 1, IntervalInSeconds: 1}}
"""


class Server:
    def __init__(self, binary: Path, root: Path):
        self.root = root
        (root / "firehose.yaml").write_text(CONFIG)
        (root / "data").mkdir()
        # A file where the stuck stream's bucket folder would go: its deliveries keep failing.
        (root / "data" / "soak-stuck-bucket").write_text("not a folder")
        self.log = open(root / "server.log", "wb")
        self.process = subprocess.Popen(
            [str(binary), "serve", "--port", "0", "--port-file", str(root / "port"), "--data-dir",
             str(root / "data"), "--config", str(root / "firehose.yaml"), "--log-level", "warning"],
            stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.monotonic() + 30
        while not (root / "port").exists() or not (root / "port").read_text().strip():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"firehose-local did not start:\n{(root / 'server.log').read_text()[-2000:]}")
            time.sleep(0.01)
        self.port = int((root / "port").read_text())
        self.endpoint = f"http://127.0.0.1:{self.port}"

    def peak_rss_mib(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def request(self, method: str, path: str, body: bytes = b"", headers: dict | None = None, timeout=30):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def signed(self, operation: str, body: bytes, *, target: str | None = None, gzip_body=False) -> dict:
        headers = {"Host": f"127.0.0.1:{self.port}", "Content-Type": "application/x-amz-json-1.1"}
        if target is not False:
            headers["X-Amz-Target"] = target or TARGET + operation
        if gzip_body:
            headers["Content-Encoding"] = "gzip"
        request = AWSRequest(method="POST", url=self.endpoint + "/", data=body, headers=headers)
        SigV4Auth(Credentials("test", "test"), "firehose", "us-east-1").add_auth(request)
        return dict(request.headers.items())


def status_of(answer: bytes) -> str:
    """The status code of a raw HTTP answer, or "closed" when the server sent nothing."""
    return answer.split(b" ")[1].decode() if answer else "closed"


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        self.problems: list[str] = []

    def add(self, attack: str, outcome) -> None:
        with self.lock:
            self.counts[attack][str(outcome)] += 1

    def problem(self, text: str) -> None:
        with self.lock:
            if len(self.problems) < 50:
                self.problems.append(text)


def run(stop: threading.Event, work) -> threading.Thread:
    def loop():
        while not stop.is_set():
            try:
                work()
            except Exception as exc:  # an attack's own failure is part of the report, not a crash
                TALLY.add("errors", type(exc).__name__)
    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    return thread


TALLY = Tally()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", required=True, help="firehose-local binary (a release build measures best)")
    parser.add_argument("--seconds", type=float, default=60, help="how long the attacks run (10-600, default 60)")
    parser.add_argument("--work-dir", default=tempfile.gettempdir())
    parser.add_argument("--json", help="write the report here as JSON")
    args = parser.parse_args()
    if not 10 <= args.seconds <= 600:
        parser.error("--seconds must be 10 to 600")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, 4096), hard), hard))

    root = Path(tempfile.mkdtemp(prefix="firehose-soak-", dir=args.work_dir))
    server = Server(Path(args.server), root)
    stop = threading.Event()
    acknowledged: set[int] = set()
    latencies: list[float] = []
    ack_lock = threading.Lock()
    held: list[socket.socket] = []
    try:
        fh = boto3.client("firehose", endpoint_url=server.endpoint, region_name="us-east-1",
                          aws_access_key_id="test", aws_secret_access_key="test",
                          config=Config(retries={"total_max_attempts": 1}, max_pool_connections=4))
        counter = iter(range(10**9))
        counter_lock = threading.Lock()

        def normal():
            with counter_lock:
                ids = [next(counter) for _ in range(10)]
            records = [{"Data": f"n-{i}\n".encode()} for i in ids]
            while not stop.is_set():
                started = time.perf_counter()
                try:
                    answer = fh.put_record_batch(DeliveryStreamName=NORMAL, Records=records)
                except ClientError as exc:
                    latencies.append(time.perf_counter() - started)
                    TALLY.add("normal", exc.response["Error"]["Code"])
                    time.sleep(0.05)
                    continue  # 503: retried, as an SDK would
                latencies.append(time.perf_counter() - started)
                if answer["FailedPutCount"] != 0:
                    TALLY.problem(f"FailedPutCount {answer['FailedPutCount']}")
                with ack_lock:
                    acknowledged.update(ids)
                TALLY.add("normal", 200)
                return

        bomb = json.dumps({"DeliveryStreamName": NORMAL, "Records": [{"Data": "QUFB" * 1975}] * 500}).encode()
        bomb_gz = gzip.compress(bomb)

        def gzip_bomb():
            headers = server.signed("PutRecordBatch", bomb_gz, gzip_body=True)
            status, _ = server.request("POST", "/", bomb_gz, headers)
            TALLY.add("gzip-bomb", status)

        def stalled():
            s = socket.create_connection(("127.0.0.1", server.port), timeout=60)
            s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.1\r\n"
                      b"X-Amz-Target: Firehose_20150804.PutRecord\r\nContent-Length: 8000000\r\n\r\n{\"Deli")
            try:
                answer = s.recv(200)
                TALLY.add("stalled-upload", status_of(answer))
            except OSError as exc:
                TALLY.add("stalled-upload", type(exc).__name__)
            finally:
                s.close()

        framings = [
            b"Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n",
            b"Transfer-Encoding: gzip\r\n\r\n{}",
            b"Transfer-Encoding: x-custom, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
            b"Content-Length: 50\r\n\r\n{\"a\":",
        ]

        def malformed():
            for framing in framings:
                s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
                try:
                    s.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: Firehose_20150804.PutRecord\r\n" + framing)
                    if framing.startswith(b"Content-Length"):
                        s.shutdown(socket.SHUT_WR)
                    answer = s.recv(200)
                    TALLY.add("malformed-framing", status_of(answer))
                except OSError as exc:
                    TALLY.add("malformed-framing", type(exc).__name__)
                finally:
                    s.close()
            time.sleep(0.05)

        def replay_and_hostile_json():
            body = json.dumps({"DeliveryStreamName": NORMAL, "Record": {"Data": "eA=="}}).encode()
            headers = server.signed("PutRecord", body, target=False)
            headers["X-Amz-Target"] = TARGET + "DeleteDeliveryStream"
            status, answer = server.request("POST", "/", body, headers)
            TALLY.add("unsigned-target-replay", status)
            if status == 200:
                TALLY.problem("a PutRecord signed without X-Amz-Target was replayed as DeleteDeliveryStream")
            repeated = (b'{"DeliveryStreamName":"nope","Records":[{"Data":"eA=="}],"DeliveryStreamName":"'
                        + NORMAL.encode() + b'","Records":[{"Data":"eQ=="}]}')
            status, _ = server.request("POST", "/", repeated, server.signed("PutRecordBatch", repeated))
            TALLY.add("repeated-members", status)
            create = json.dumps({"DeliveryStreamName": "soak-hostile", "ExtendedS3DestinationConfiguration": {
                "BucketARN": "arn:aws:s3:::soak-bucket", "RoleARN": "arn:aws:iam::000000000000:role/r",
                "Prefix": "a/../\u0301x/"}}).encode()
            status, _ = server.request("POST", "/", create, server.signed("CreateDeliveryStream", create))
            TALLY.add("hostile-prefix", status)
            if status == 200:
                TALLY.problem("a prefix whose combining mark hides '..' was accepted")
            time.sleep(0.05)

        def stuck():
            try:
                fh.put_record(DeliveryStreamName=STUCK, Record={"Data": b"stuck\n"})
                TALLY.add("stuck-stream-puts", 200)
            except ClientError as exc:
                TALLY.add("stuck-stream-puts", exc.response["Error"]["Code"])
            time.sleep(0.2)

        churn_ids = iter(range(10**9))

        def churn():
            name = f"soak-churn-{next(churn_ids) % 20}"
            try:
                fh.create_delivery_stream(DeliveryStreamName=name, ExtendedS3DestinationConfiguration={
                    "BucketARN": "arn:aws:s3:::soak-churn", "RoleARN": "arn:aws:iam::000000000000:role/r"})
                fh.tag_delivery_stream(DeliveryStreamName=name, Tags=[{"Key": "k", "Value": "v"}])
                fh.put_record(DeliveryStreamName=name, Record={"Data": b"churn\n"})
                fh.delete_delivery_stream(DeliveryStreamName=name)
                TALLY.add("control-plane-churn", "ok")
            except ClientError as exc:
                TALLY.add("control-plane-churn", exc.response["Error"]["Code"])

        # 1,500 idle keep-alive connections, answered once each.
        for _ in range(1500):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            s.sendall(b"GET /_local/health HTTP/1.1\r\nHost: x\r\n\r\n")
            s.recv(4096)
            held.append(s)
        TALLY.add("idle-keep-alive", f"{len(held)} held")

        started = time.monotonic()
        threads = [run(stop, normal) for _ in range(2)]
        threads += [run(stop, gzip_bomb) for _ in range(16)]
        threads += [run(stop, stalled) for _ in range(40)]
        threads += [run(stop, malformed), run(stop, replay_and_hostile_json), run(stop, churn), run(stop, stuck)]
        while time.monotonic() - started < args.seconds:
            time.sleep(1)
            if server.process.poll() is not None:
                TALLY.problem(f"the server exited during the soak (code {server.process.returncode})")
                break
        stop.set()
        for thread in threads:
            thread.join(60)
        for s in held:
            s.close()
        peak = server.peak_rss_mib()
        flush_status, _ = server.request("POST", f"/_local/flush?stream={NORMAL}", timeout=120)
        server.process.send_signal(signal.SIGTERM)
        exit_code = server.process.wait(120)
    finally:
        stop.set()
        if server.process.poll() is None:
            server.process.kill()

    delivered: collections.Counter = collections.Counter()
    bucket = root / "data" / "soak-bucket"
    # The stream has no delimiter processor, and the gzip bombs' records end without a newline, so a
    # numbered record can follow one of theirs on the same line.
    for path in bucket.rglob("*") if bucket.exists() else []:
        if path.is_file() and path.name.startswith(NORMAL):
            delivered.update(int(number) for number in re.findall(rb"n-(\d+)\n", path.read_bytes()))
    lost = sorted(acknowledged - set(delivered))
    sorted_latencies = sorted(latencies)
    report = {
        "seconds": args.seconds,
        "acknowledged_records": len(acknowledged),
        "acknowledged_records_lost": len(lost),
        "duplicates_delivered": sum(1 for n in delivered.values() if n > 1),
        "peak_rss_mib": round(peak, 1),
        "normal_calls": len(latencies),
        "normal_p50_ms": round(statistics.median(sorted_latencies) * 1000, 2) if latencies else None,
        "normal_p99_ms": round(sorted_latencies[int(len(sorted_latencies) * 0.99) - 1] * 1000, 2)
        if len(latencies) >= 100 else None,
        "flush_status": flush_status,
        # 1: the stuck stream's records stay staged, and the server says so.
        "exit_code_after_sigterm": exit_code,
        "answers": {attack: dict(counter) for attack, counter in sorted(TALLY.counts.items())},
        "problems": TALLY.problems,
    }
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    failed = lost or TALLY.problems
    if not failed:
        shutil.rmtree(root, ignore_errors=True)
    else:
        print(f"kept for inspection: {root}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
