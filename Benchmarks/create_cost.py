#!/usr/bin/env python3
"""What CreateDeliveryStream costs as the number of streams grows, up to AWS's 5,000 per region.

Starts a release firehose-local (durability fsync, on a real disk), creates --streams streams one
after another through boto3 and times each call, then reports the median create at 10, 1,000 and
5,000 existing streams. The baseline, measured in the same run at the same points, is
DescribeDeliveryStream: a control-plane call that writes nothing, so the ratio create / describe is
what saving the stream costs, and its growth is what the number of streams adds. Last, the server
is restarted over the 5,000 saved streams and the time to accepting is reported.

    python3 Benchmarks/create_cost.py --server .build/release/firehose-local
    python3 Benchmarks/create_cost.py --server ... --streams 1000 --out results.json

Loopback only; about a minute at 5,000 streams. Needs boto3.
"""

from __future__ import annotations

import argparse
import http.client
import json
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import boto3
from botocore.config import Config

DESTINATION = {
    "BucketARN": "arn:aws:s3:::create-cost",
    "RoleARN": "arn:aws:iam::000000000000:role/firehose",
}
CHECKPOINTS = (10, 1_000, 5_000)
BASELINE_CALLS = 50
WINDOW = 50


def health(port: int) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        connection.request("GET", "/_local/health")
        return connection.getresponse().status
    finally:
        connection.close()


class Server:
    def __init__(self, binary: Path, root: Path):
        self.binary = binary
        self.root = root
        self.port_file = root / "port"
        self.process: subprocess.Popen | None = None
        self.port = 0

    def start(self, timeout: float = 120.0) -> float:
        """Starts the server; returns the seconds until it answered its health check."""
        self.port_file.unlink(missing_ok=True)
        started = time.perf_counter()
        self.process = subprocess.Popen(
            [str(self.binary), "serve", "--host", "127.0.0.1", "--port", "0", "--port-file", str(self.port_file),
             "--data-dir", str(self.root / "data"), "--durability", "fsync", "--log-level", "warning"],
            stdout=subprocess.DEVNULL, stderr=open(self.root / "server.log", "ab"))
        deadline = started + timeout
        while time.perf_counter() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"firehose-local exited: {(self.root / 'server.log').read_text()[-2000:]}")
            text = self.port_file.read_text().strip() if self.port_file.exists() else ""
            if text:
                self.port = int(text)
                try:
                    if health(self.port) == 200:
                        return time.perf_counter() - started
                except OSError:
                    pass
            time.sleep(0.001)
        raise RuntimeError("firehose-local did not start accepting in time")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=120)


def client(port: int):
    return boto3.client(
        "firehose", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
        aws_access_key_id="test", aws_secret_access_key="test",
        config=Config(retries={"total_max_attempts": 1}, max_pool_connections=1))


def timed(call) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", required=True, help="firehose-local release binary")
    parser.add_argument("--streams", type=int, default=5_000, help="streams to create (default 5,000: AWS's limit)")
    parser.add_argument("--work-dir", default="/var/tmp", help="where the data directory goes (a real disk)")
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args()
    if not 10 <= args.streams <= 5_000:
        parser.error("--streams must be 10 to 5,000")

    root = Path(tempfile.mkdtemp(prefix="firehose-create-cost-", dir=args.work_dir))
    server = Server(Path(args.server), root)
    try:
        server.start()
        fh = client(server.port)
        creates: list[float] = []
        baselines: dict[int, list[float]] = {}
        checkpoints = [c for c in CHECKPOINTS if c <= args.streams]
        progress = max(1, args.streams // 10)
        for index in range(args.streams):
            name = f"cost-{index:04d}"
            creates.append(timed(lambda: fh.create_delivery_stream(
                DeliveryStreamName=name, ExtendedS3DestinationConfiguration=DESTINATION)))
            count = index + 1
            if count in checkpoints:
                baselines[count] = [timed(lambda: fh.describe_delivery_stream(DeliveryStreamName=name))
                                    for _ in range(BASELINE_CALLS)]
            if count % progress == 0:
                print(f"{count} streams created", file=sys.stderr)
        server.stop()
        restart_seconds = server.start()
        listed = 0
        token = {}
        while True:
            page = client(server.port).list_delivery_streams(Limit=10_000, **token)
            listed += len(page["DeliveryStreamNames"])
            if not page["HasMoreDeliveryStreams"]:
                break
            token = {"ExclusiveStartDeliveryStreamName": page["DeliveryStreamNames"][-1]}
        server.stop()
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)

    if listed != args.streams:
        print(f"error: {listed} streams listed after the restart, {args.streams} created", file=sys.stderr)
        return 1
    rows = []
    for count in checkpoints:
        window = creates[max(0, count - WINDOW):count] if count > 10 else creates[:count]
        create_ms = statistics.median(window) * 1000
        describe_ms = statistics.median(baselines[count]) * 1000
        rows.append({"streams": count, "create_ms": round(create_ms, 3), "describe_ms": round(describe_ms, 3),
                     "create_over_describe": round(create_ms / describe_ms, 2)})
    first = rows[0]["create_ms"]
    for row in rows:
        row["create_vs_first"] = round(row["create_ms"] / first, 2)
    result = {"streams": args.streams, "total_seconds": round(sum(creates), 2), "checkpoints": rows,
              "restart_seconds": round(restart_seconds, 3)}
    print(f"{'streams':>8} {'create p50':>11} {'describe p50':>13} {'create/describe':>16} {'vs first':>9}")
    for row in rows:
        print(f"{row['streams']:>8} {row['create_ms']:>9.2f}ms {row['describe_ms']:>11.2f}ms "
              f"{row['create_over_describe']:>15.2f}x {row['create_vs_first']:>8.2f}x")
    print(f"{args.streams} creates took {result['total_seconds']} s; restart over them: "
          f"{result['restart_seconds'] * 1000:.0f} ms to accepting")
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
