#!/usr/bin/env python3
"""How much memory an open GZIP buffer costs: starts a release firehose-local with 400 GZIP streams
(the benchmark's generated config: default hints, level 6), puts one record into each of the first N
streams with boto3, and prints the server's RSS after each step. Numbers for docs/durability.md.

    scripts/measure-buffer-memory.py [--binary .build/release/firehose-local] [--record-bytes 200000]
"""
import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "Benchmarks"))
import bench  # noqa: E402  (Server, proc_status: the benchmark's own server handling)

import boto3  # noqa: E402
from botocore.config import Config  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=str(ROOT / ".build/release/firehose-local"))
    parser.add_argument("--record-bytes", type=int, default=200_000)
    parser.add_argument("--steps", default="0,100,200,400", help="open-buffer counts to measure at")
    args = parser.parse_args()
    steps = sorted(int(step) for step in args.steps.split(","))
    if steps[-1] > 400:
        parser.error("at most 400 streams")

    server = bench.Server(Path(args.binary), "/var/tmp", "GZIP", "none", 400).start()
    try:
        client = boto3.client(
            "firehose", endpoint_url=server.endpoint, region_name="us-east-1",
            aws_access_key_id="test", aws_secret_access_key="test",
            config=Config(retries={"max_attempts": 1}))
        # Varied bytes so the record compresses like real data, not like one repeated character.
        record = (os.urandom(args.record_bytes // 4).hex() * 2)[: args.record_bytes].encode()
        opened = 0
        print("| open GZIP buffers | RSS |\n|---:|---:|")
        for step in steps:
            while opened < step:
                client.put_record(DeliveryStreamName=f"bench-{opened}", Record={"Data": record})
                opened += 1
            time.sleep(1.0)
            rss = bench.proc_status(server.process.pid).get("VmRSS", 0) / bench.MIB
            print(f"| {step} | {rss:.1f} MiB |", flush=True)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
