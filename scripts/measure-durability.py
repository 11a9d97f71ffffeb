#!/usr/bin/env python3
"""Measure what `--durability fsync` costs compared with `--durability none`.

Starts the real firehose-local twice on a fresh temporary data directory (`Authentication: off`, one
GZIP stream with AWS's default buffering hints and the AppendDelimiterToRecord processor), once per
durability mode, and for a fixed duration drives it with N worker processes (`multiprocessing`).
Each worker holds one keep-alive `http.client` connection and sends, back to back:

* workload `batch`:  a PRE-BUILT PutRecordBatch body, 500 records of ~500-byte JSON events generated
  deterministically from `--seed` (about 250 KB of record data, 340 KB of JSON per request);
* workload `single`: a pre-built PutRecord body holding one 100-byte record.

For each mode and workload it reports requests/s, records/s, payload MB/s (10^6 bytes of record
data, before base64) and the p50/p99 request latency, then the fsync/none ratios; `--json` prints the
same as JSON on stdout (the table then goes to stderr). After each mode it checks that every
acknowledged record was delivered (the objects are read back and their lines counted).

    python3 scripts/measure-durability.py [--binary PATH] [--duration 10] [--processes 4] [--json]

The client is Python: JSON bodies are pre-built, but each request still costs the interpreter a
few hundred microseconds, and on a small machine the workers compete with the server for the same
cores. The numbers are therefore LOWER BOUNDS of what the server sustains, most of all for the
`single` workload; the fsync/none ratio is the meaningful output. The Swift load generator of
issue 6 supersedes this script once it exists.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import http.client
import json
import multiprocessing
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STREAM = "measure"
BUCKET = "measure-bucket"
TARGET = "Firehose_20150804."
CONTENT_TYPE = "application/x-amz-json-1.1"
BATCH_RECORDS = 500
EVENT_BYTES = 500
SINGLE_BYTES = 100


# --------------------------------------------------------------------------
# Payloads (deterministic)
# --------------------------------------------------------------------------


def make_event(rng: random.Random, n: int) -> bytes:
    """A JSON event of about EVENT_BYTES bytes."""
    event = {
        "n": n,
        "ts": 1_795_000_000_000 + rng.randrange(10**9),
        "user": f"user-{rng.randrange(100_000):05d}",
        "session": "%032x" % rng.getrandbits(128),
        "event": rng.choice(["open", "tap", "scroll", "purchase", "close", "search"]),
        "screen": rng.choice(["home", "cart", "detail", "settings", "feed"]),
        "props": {"a": rng.random(), "b": rng.randrange(1000), "c": rng.choice([True, False])},
    }
    text = json.dumps(event, separators=(",", ":"))
    pad = EVENT_BYTES - len(text) - len(',"pad":""')
    if pad > 0:
        alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
        event["pad"] = "".join(rng.choice(alphabet) for _ in range(pad))
    return json.dumps(event, separators=(",", ":")).encode()


def build_bodies(seed: int) -> dict[str, dict]:
    rng = random.Random(seed)
    events = [make_event(rng, n) for n in range(BATCH_RECORDS)]
    batch = json.dumps({
        "DeliveryStreamName": STREAM,
        "Records": [{"Data": base64.b64encode(e).decode()} for e in events],
    }).encode()
    single_record = bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(SINGLE_BYTES))
    single = json.dumps({
        "DeliveryStreamName": STREAM, "Record": {"Data": base64.b64encode(single_record).decode()},
    }).encode()
    return {
        "batch": {"op": "PutRecordBatch", "body": batch, "records": BATCH_RECORDS,
                  "payload": sum(len(e) for e in events)},
        "single": {"op": "PutRecord", "body": single, "records": 1, "payload": SINGLE_BYTES},
    }


# --------------------------------------------------------------------------
# Server
# --------------------------------------------------------------------------


def default_binary() -> Path:
    release = REPO / ".build" / "release" / "firehose-local"
    debug = REPO / ".build" / "debug" / "firehose-local"
    if release.is_file():
        if debug.is_file() and debug.stat().st_mtime > release.stat().st_mtime:
            print(f"warning: {release} is older than {debug}; measuring the release build anyway "
                  "(pass --binary to choose)", file=sys.stderr)
        return release
    return debug


def filesystem_of(path: Path) -> str:
    """'ext4 on /dev/vda' style description of the file system holding ``path``."""
    best, desc = "", "unknown"
    try:
        with open("/proc/mounts") as f:
            for line in f:
                dev, mnt, fstype = line.split()[:3]
                if str(path).startswith(mnt) and len(mnt) > len(best):
                    best, desc = mnt, f"{fstype} on {dev} (mounted at {mnt})"
    except OSError:
        pass
    return desc


class Server:
    def __init__(self, binary: Path, workdir: Path, durability: str, size_mb: int, interval: int):
        self.workdir = workdir
        self.data = workdir / "data"
        self.data.mkdir(parents=True)
        self.port_file = workdir / "port"
        config = {
            "Authentication": "off",
            "DeliveryStreams": [{
                "DeliveryStreamName": STREAM,
                "ExtendedS3DestinationConfiguration": {
                    "BucketARN": f"arn:aws:s3:::{BUCKET}",
                    "BufferingHints": {"SizeInMBs": size_mb, "IntervalInSeconds": interval},
                    "CompressionFormat": "GZIP",
                    "ProcessingConfiguration": {
                        "Enabled": True, "Processors": [{"Type": "AppendDelimiterToRecord"}]},
                },
            }],
        }
        (workdir / "config.json").write_text(json.dumps(config))
        self.stderr = open(workdir / "stderr.log", "wb")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("FIREHOSE_LOCAL_", "AWS_"))}
        self.proc = subprocess.Popen(
            [str(binary), "serve", "--host", "127.0.0.1", "--port", "0", "--port-file", str(self.port_file),
             "--data-dir", str(self.data), "--config", str(workdir / "config.json"),
             "--durability", durability, "--log-level", "warning"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.stderr, env=env)
        self.port = self._wait_ready(20)

    def _wait_ready(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"firehose-local exited with {self.proc.returncode}:\n{self.log()}")
            try:
                port = int(self.port_file.read_text())
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                conn.request("GET", "/_local/health")
                if conn.getresponse().status == 200:
                    conn.close()
                    return port
            except (OSError, ValueError, http.client.HTTPException):
                pass
            time.sleep(0.05)
        self.proc.kill()
        raise SystemExit(f"firehose-local was not ready within {timeout} s:\n{self.log()}")

    def log(self) -> str:
        self.stderr.flush()
        return (self.workdir / "stderr.log").read_text(errors="replace")[-4000:]

    def stop(self, timeout: float = 120) -> float:
        """SIGTERM (delivers every buffer); returns how long the shutdown took."""
        t0 = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise SystemExit(f"firehose-local did not stop within {timeout} s")
        self.stderr.close()
        if rc != 0:
            raise SystemExit(f"firehose-local exited with {rc} after SIGTERM:\n{self.log()}")
        return time.monotonic() - t0

    def delivered_records(self) -> int:
        total = 0
        for path in (self.data / BUCKET).rglob("*"):
            if path.is_file():
                total += gzip.decompress(path.read_bytes()).count(b"\n")
        return total


# --------------------------------------------------------------------------
# Load
# --------------------------------------------------------------------------


def worker(port: int, op: str, body: bytes, start_at: float, duration: float, out) -> None:
    headers = {"Content-Type": CONTENT_TYPE, "X-Amz-Target": TARGET + op}
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.connect()
    latencies: list[float] = []
    errors = 0
    first_error = ""
    now = time.time()
    if start_at > now:
        time.sleep(start_at - now)
    began = time.perf_counter()
    end = began + duration
    while True:
        t0 = time.perf_counter()
        if t0 >= end:
            break
        try:
            conn.request("POST", "/", body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            ok = resp.status == 200
        except (OSError, http.client.HTTPException) as exc:
            ok, data = False, repr(exc).encode()
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        t1 = time.perf_counter()
        if ok:
            latencies.append(t1 - t0)
        else:
            errors += 1
            first_error = first_error or data[:300].decode(errors="replace")
    elapsed = time.perf_counter() - began  # the last request may end after the deadline
    conn.close()
    out.put((latencies, errors, first_error, elapsed))


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[k]


def drive(port: int, workload: dict, processes: int, duration: float) -> dict:
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    start_at = time.time() + 0.5
    procs = [ctx.Process(target=worker, args=(port, workload["op"], workload["body"], start_at, duration, out))
             for _ in range(processes)]
    for p in procs:
        p.start()
    results = [out.get(timeout=duration + 120) for _ in procs]
    for p in procs:
        p.join(30)
    latencies = sorted(l for r in results for l in r[0])
    errors = sum(r[1] for r in results)
    first_error = next((r[2] for r in results if r[2]), "")
    requests = len(latencies)
    elapsed = max([duration] + [r[3] for r in results])
    return {
        "requests": requests,
        "errors": errors,
        "first_error": first_error,
        "elapsed_s": elapsed,
        "requests_per_s": requests / elapsed,
        "records_per_s": requests * workload["records"] / elapsed,
        "payload_mb_per_s": requests * workload["payload"] / elapsed / 1e6,
        "p50_ms": percentile(latencies, 0.50) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "acked_records": requests * workload["records"],
    }


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", type=Path, default=None,
                        help="firehose-local to measure (default: .build/release, else .build/debug)")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per mode and workload (default 10)")
    parser.add_argument("--processes", type=int, default=4, help="client processes (default 4)")
    parser.add_argument("--seed", type=int, default=20261121, help="seed of the generated events")
    parser.add_argument("--size-mb", type=int, default=5, help="SizeInMBs of the stream (default 5, as AWS)")
    parser.add_argument("--interval", type=int, default=300, help="IntervalInSeconds (default 300, as AWS)")
    parser.add_argument("--workloads", default="batch,single", help="comma-separated: batch,single")
    parser.add_argument("--modes", default="fsync,none", help="comma-separated: fsync,none")
    parser.add_argument("--tmp", type=Path, default=None,
                        help="parent of the temporary data directory (its file system decides the fsync cost)")
    parser.add_argument("--json", action="store_true", help="print JSON on stdout (the table goes to stderr)")
    args = parser.parse_args()

    binary = (args.binary or default_binary()).resolve()
    if not binary.is_file():
        print(f"firehose-local not found at {binary}; build it with `swift build -c release`", file=sys.stderr)
        return 2
    help_text = subprocess.run([str(binary), "serve", "--help"], capture_output=True, timeout=30)
    if b"--durability" not in help_text.stdout + help_text.stderr:
        print(f"{binary} does not know --durability: a stale build? Rebuild it or pass --binary.", file=sys.stderr)
        return 2
    table_out = sys.stderr if args.json else sys.stdout
    workloads = build_bodies(args.seed)
    selected = [w.strip() for w in args.workloads.split(",") if w.strip()]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    base = Path(tempfile.mkdtemp(prefix="fhl-measure-", dir=args.tmp))
    info = {
        "binary": str(binary),
        "build": "release" if "/release/" in str(binary) else ("debug" if "/debug/" in str(binary) else "custom"),
        "data_filesystem": filesystem_of(base),
        "cpus": os.cpu_count(),
        "processes": args.processes,
        "duration_s": args.duration,
        "batch": {"records": BATCH_RECORDS, "record_bytes_avg": workloads["batch"]["payload"] / BATCH_RECORDS,
                  "body_bytes": len(workloads["batch"]["body"])},
        "single": {"record_bytes": SINGLE_BYTES, "body_bytes": len(workloads["single"]["body"])},
        "stream": {"compression": "GZIP", "size_mb": args.size_mb, "interval_s": args.interval},
        "seed": args.seed,
    }
    print(f"binary: {binary} ({info['build']} build)", file=table_out)
    print(f"data directory on {info['data_filesystem']}; {info['cpus']} CPUs; {args.processes} client processes; "
          f"{args.duration:g} s per run", file=table_out)
    results = []
    try:
        for mode in modes:
            srv = Server(binary, base / mode, mode, args.size_mb, args.interval)
            acked = 0
            for name in selected:
                r = drive(srv.port, workloads[name], args.processes, args.duration)
                acked += r["acked_records"]
                results.append({"durability": mode, "workload": name, **r})
                print(f"  {mode:5s} {name:6s} {r['requests_per_s']:9.1f} req/s  done", file=table_out)
            shutdown = srv.stop()
            delivered = srv.delivered_records()
            for r in results:
                if r["durability"] == mode:
                    r["shutdown_s"] = shutdown
                    r["delivered_records_mode_total"] = delivered
            if delivered < acked:
                print(f"ERROR: {mode}: {acked} records acknowledged but only {delivered} delivered", file=sys.stderr)
                return 1
    finally:
        shutil.rmtree(base, ignore_errors=True)

    ratios = {}
    for name in selected:
        by = {r["durability"]: r for r in results if r["workload"] == name}
        if "fsync" in by and "none" in by and by["none"]["requests_per_s"] > 0:
            ratios[name] = {
                "throughput_fsync_over_none": by["fsync"]["requests_per_s"] / by["none"]["requests_per_s"],
                "p50_latency_fsync_over_none": by["fsync"]["p50_ms"] / by["none"]["p50_ms"],
                "p99_latency_fsync_over_none": by["fsync"]["p99_ms"] / by["none"]["p99_ms"],
            }

    header = (f"| durability | workload | requests/s | records/s | payload MB/s | p50 ms | p99 ms | errors |\n"
              f"|---|---|---:|---:|---:|---:|---:|---:|")
    print("", file=table_out)
    print(header, file=table_out)
    for r in results:
        print(f"| {r['durability']} | {r['workload']} | {r['requests_per_s']:.1f} | {r['records_per_s']:.0f} | "
              f"{r['payload_mb_per_s']:.2f} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['errors']} |", file=table_out)
    if ratios:
        print("", file=table_out)
        print("| workload | throughput fsync/none | p50 latency fsync/none | p99 latency fsync/none |", file=table_out)
        print("|---|---:|---:|---:|", file=table_out)
        for name, q in ratios.items():
            print(f"| {name} | {q['throughput_fsync_over_none']:.2f} | {q['p50_latency_fsync_over_none']:.2f} | "
                  f"{q['p99_latency_fsync_over_none']:.2f} |", file=table_out)
    for r in results:
        if r["errors"]:
            print(f"note: {r['durability']}/{r['workload']}: {r['errors']} failed requests, first: {r['first_error']}",
                  file=table_out)
    print("\nLower bounds: the Python client is itself a bottleneck (see the docstring).", file=table_out)
    if args.json:
        for r in results:
            if not r["errors"]:
                r.pop("first_error", None)
        json.dump({**info, "results": results, "ratios": ratios}, sys.stdout, indent=2)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
