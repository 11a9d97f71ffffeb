#!/usr/bin/env python3
"""The whole firehose-local benchmark in one run: the issue's scenarios, the zlib ceiling and the moto
peer, all measured now, on this machine, with the same records. Run it through Benchmarks/run.sh,
which builds the tools first. Every request goes to 127.0.0.1; every loop is bounded in count and time.

Each scenario run starts a fresh firehose-local (release build) on a free port with a generated
config and a new data directory, runs Benchmarks' firehose-load against it, stops it with SIGTERM
(which delivers every buffer) and deletes the data directory. Figures are medians over --runs runs.
"""

import argparse
import http.client
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MIB = 1024 * 1024


# --- scenarios ------------------------------------------------------------------------------------

# name -> server settings and load. "batch" = PutRecordBatch of 500 app events, "small" = PutRecord
# of one 100 B record; 16 connections throughout, as in the targets.
SCENARIOS = [
    dict(name="gzip-1-stream-fsync", what="PutRecordBatch 500 app events, 16 conns, 1 GZIP-6 stream, fsync",
         compression="GZIP", durability="fsync", streams=1, load="batch"),
    # Not a target: tells how much of the one-stream figure fsync costs.
    dict(name="gzip-1-stream-none", what="diagnostic: as gzip-1-stream-fsync with durability none",
         compression="GZIP", durability="none", streams=1, load="batch"),
    dict(name="gzip-8-streams-fsync", what="same load over 8 GZIP-6 streams, fsync",
         compression="GZIP", durability="fsync", streams=8, load="batch"),
    # Issue 20: the same loads with GzipImplementation: libdeflate (records staged as they are, each
    # object compressed whole at delivery).
    dict(name="gzip-1-stream-fsync-libdeflate", what="as gzip-1-stream-fsync, GzipImplementation: libdeflate",
         compression="GZIP", durability="fsync", streams=1, load="batch", gzip_implementation="libdeflate"),
    dict(name="gzip-8-streams-fsync-libdeflate", what="as gzip-8-streams-fsync, GzipImplementation: libdeflate",
         compression="GZIP", durability="fsync", streams=8, load="batch", gzip_implementation="libdeflate"),
    # Not a target: with gzip-1-stream-none, tells how much of the eight-stream figure fsync costs.
    dict(name="gzip-8-streams-none", what="diagnostic: as gzip-8-streams-fsync with durability none",
         compression="GZIP", durability="none", streams=8, load="batch"),
    dict(name="uncompressed-none", what="PutRecordBatch 500 app events, 16 conns, 1 UNCOMPRESSED stream, durability none",
         compression="UNCOMPRESSED", durability="none", streams=1, load="batch"),
    # Not a target: the same with the data directory in memory (/dev/shm), so the disk is not the limit.
    # This machine's virtual disk writes anywhere from about 200 to 880 MB/s depending on the moment
    # (Benchmarks/disk-write-probe.py), and UNCOMPRESSED delivery writes every payload byte.
    dict(name="uncompressed-none-memory", what="diagnostic: as uncompressed-none, data directory on /dev/shm",
         compression="UNCOMPRESSED", durability="none", streams=1, load="batch", work_dir="/dev/shm"),
    dict(name="putrecord-none", what="PutRecord 100 B, 16 conns, 1 GZIP-6 stream, durability none",
         compression="GZIP", durability="none", streams=1, load="small"),
    dict(name="putrecord-fsync", what="PutRecord 100 B, 16 conns, 1 GZIP-6 stream, fsync",
         compression="GZIP", durability="fsync", streams=1, load="small"),
    dict(name="gzip-100-streams-rss", what="PutRecordBatch 500 app events, 16 conns over 100 GZIP-6 streams (default hints), fsync",
         compression="GZIP", durability="fsync", streams=100, load="batch"),
    # Dynamic partitioning (issue 13): the same load as gzip-1-stream-fsync into one stream whose
    # records jq partitions by two keys, event x screen: about 120 active partitions.
    # Its buffers are compressed at delivery, so the size hint is 1 MiB: every partition delivers
    # a few times within a run and the measured rate includes compressing what was taken in.
    dict(name="gzip-partitioned-fsync",
         what="as gzip-1-stream-fsync, the stream partitioned by a 2-key jq query (event, screen: ~120 partitions), "
              "SizeInMBs 1",
         compression="GZIP", durability="fsync", streams=1, load="batch",
         partitioning=dict(query="{event: .event, screen: .screen}",
                           prefix="event=!{partitionKeyFromQuery:event}/screen=!{partitionKeyFromQuery:screen}/",
                           size_in_mbs=1)),
    # The Lambda processor (issue 14): the same load through a function that gives every record back
    # unchanged at next to no cost (Benchmarks' lambda-identity), with the processor's default hints
    # (1 MB / 60 s): a process per invocation, or one Invoke API server. What is measured is
    # firehose-local's side: staging the source records, the event, the answer, staging the result.
    dict(name="gzip-lambda-command-fsync",
         what="as gzip-1-stream-fsync, through a Lambda processor (1 MB batches) whose function is a command",
         compression="GZIP", durability="fsync", streams=1, load="batch", transformation="command"),
    dict(name="gzip-lambda-endpoint-fsync",
         what="as gzip-1-stream-fsync, through a Lambda processor (1 MB batches) whose function is an Invoke API server",
         compression="GZIP", durability="fsync", streams=1, load="batch", transformation="endpoint"),
    # Delivery to an S3-compatible store (issue 15): the same load, bench-bucket mapped to moto's S3
    # server, so every object is a PutObject over loopback instead of a rename. The backlog left at
    # the end is flushed and its time counted, as for the Lambda processor.
    dict(name="gzip-1-stream-store",
         what="as gzip-1-stream-fsync, the bucket mapped to moto's S3 server (one PutObject per object)",
         compression="GZIP", durability="fsync", streams=1, load="batch", store=True),
    # Kinesis Data Streams (issue 18): the same records in PutRecords of 500 (partition keys pk-0 ...
    # pk-499) to a 4-shard data stream; every request one SQLite transaction synced to disk, whatever
    # --durability says. After the load, kinesis-read reads the stream back to its end (one consumer
    # per shard, GetRecords pages of 10,000): the GetRecords figure.
    dict(name="kinesis-putrecords", what="PutRecords 500 app events, 16 conns, a 4-shard data stream (synced); "
         "then GetRecords of all of it", compression="GZIP", durability="fsync", streams=0, load="kinesis",
         kinesis_shards=4),
    dict(name="gzip-500-partitions-rss",
         what="as gzip-1-stream-fsync, partitioned into 500 active partitions (.ts % 500)",
         compression="GZIP", durability="fsync", streams=1, load="batch",
         partitioning=dict(query="{p: (.ts % 500)}", prefix="p=!{partitionKeyFromQuery:p}/")),
]

LOADS = {
    "batch": ["--operation", "PutRecordBatch", "--records-per-batch", "500", "--record-profile", "app-events"],
    "small": ["--operation", "PutRecord", "--record-profile", "small"],
    "kinesis": ["--operation", "PutRecords", "--records-per-batch", "500", "--record-profile", "app-events"],
}


def log(message):
    print(message, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def proc_status(pid):
    values = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0]) * 1024
    except OSError:
        pass
    return values


def health(port, path="/_local/health"):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        connection.request("GET", path)
        return connection.getresponse().status
    finally:
        connection.close()


def flush(port, timeout=600):
    """POST /_local/flush; returns the seconds it took (everything accepted is then delivered)."""
    began = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("POST", "/_local/flush", body=b"")
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"flush answered {response.status}")
    finally:
        connection.close()
    return time.perf_counter() - began


# --- firehose-local ------------------------------------------------------------------------------

def write_config(path, compression, streams, gzip_level, partitioning=None, function=None, store_endpoint=None,
                 kinesis_shards=None, gzip_implementation=None):
    # zlib unless the scenario names libdeflate: the scenarios compare with the zlib ceiling, and
    # libdeflate is the server's default for hints up to 32 MiB.
    lines = ["Authentication: verify", f"GzipLevel: {gzip_level}",
             f"GzipImplementation: {gzip_implementation or 'zlib'}"]
    if kinesis_shards:
        lines += ["KinesisStreams:", f"  - {{StreamName: bench-0, ShardCount: {kinesis_shards}}}"]
    if store_endpoint:
        lines += ["Buckets:", f"  - {json.dumps(dict(Name='bench-bucket', Endpoint=store_endpoint, Credentials=dict(AccessKeyId='test', SecretAccessKey='test')))}"]
    if function:
        lines += ["LambdaFunctions:", f"  - {json.dumps(dict(FunctionName='identity', **function))}"]
    if streams:
        lines.append("DeliveryStreams:")
    for index in range(streams):
        lines += [
            f"  - DeliveryStreamName: bench-{index}",
            "    ExtendedS3DestinationConfiguration:",
            "      BucketARN: arn:aws:s3:::bench-bucket",
            "      RoleARN: arn:aws:iam::000000000000:role/firehose",
            f"      CompressionFormat: {compression}",
            "      ProcessingConfiguration:",
            "        Enabled: true",
            "        Processors:",
        ]
        if function:
            lines += [
                "          - Type: Lambda",
                "            Parameters: [{ParameterName: LambdaArn, "
                "ParameterValue: 'arn:aws:lambda:us-east-1:000000000000:function:identity'}]",
            ]
        lines.append("          - {Type: AppendDelimiterToRecord}")
        if partitioning:
            lines += [
                "          - Type: MetadataExtraction",
                "            Parameters:",
                f"              - {{ParameterName: MetadataExtractionQuery, ParameterValue: {json.dumps(partitioning['query'])}}}",
                "              - {ParameterName: JsonParsingEngine, ParameterValue: JQ-1.6}",
                f"      Prefix: {json.dumps(partitioning['prefix'])}",
                "      ErrorOutputPrefix: \"errors/!{firehose:error-output-type}/\"",
                "      DynamicPartitioningConfiguration: {Enabled: true}",
            ]
            if "size_in_mbs" in partitioning:
                lines.append(f"      BufferingHints: {{SizeInMBs: {partitioning['size_in_mbs']}, IntervalInSeconds: 300}}")
    path.write_text("\n".join(lines) + "\n")


class Server:
    """A firehose-local process on a free port, with its own data directory."""

    def __init__(self, binary, work_root, compression="GZIP", durability="fsync", streams=1, gzip_level=6,
                 partitioning=None, transformation=None, bin_dir=None, store_endpoint=None, kinesis_shards=None,
                 gzip_implementation=None):
        self.binary = binary
        self.root = Path(tempfile.mkdtemp(prefix="firehose-bench-", dir=work_root))
        self.config = self.root / "firehose.yaml"
        self.port_file = self.root / "port"
        self.function = None
        function = None
        if transformation == "command":
            function = {"Command": [str(bin_dir / "lambda-identity")]}
        elif transformation == "endpoint":
            function_port = self.root / "function-port"
            self.function = subprocess.Popen([str(bin_dir / "lambda-identity"), "--port-file", str(function_port)])
            deadline = time.perf_counter() + 20
            while not function_port.exists():
                if time.perf_counter() > deadline or self.function.poll() is not None:
                    raise RuntimeError("lambda-identity did not start")
                time.sleep(0.01)
            function = {"Endpoint": f"http://127.0.0.1:{function_port.read_text().strip()}"}
        write_config(self.config, compression, streams, gzip_level, partitioning, function, store_endpoint,
                     kinesis_shards, gzip_implementation)
        self.durability = durability
        self.process = None
        self.port = None
        self.start_seconds = None

    def start(self, timeout=20.0):
        started = time.perf_counter()
        self.process = subprocess.Popen(
            [str(self.binary), "serve", "--host", "127.0.0.1", "--port", "0", "--port-file", str(self.port_file),
             "--data-dir", str(self.root / "data"), "--config", str(self.config),
             "--durability", self.durability, "--log-level", "warning"],
            stdout=subprocess.DEVNULL, stderr=open(self.root / "server.log", "wb"))
        deadline = started + timeout
        while time.perf_counter() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"firehose-local exited: {(self.root / 'server.log').read_text()[-2000:]}")
            if self.port is None and self.port_file.exists():
                text = self.port_file.read_text().strip()
                self.port = int(text) if text else None
            if self.port is not None:
                try:
                    if health(self.port) == 200:
                        self.start_seconds = time.perf_counter() - started
                        return self
                except OSError:
                    pass
            time.sleep(0.0005)
        raise RuntimeError("firehose-local did not start accepting in time")

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.function:
            self.function.terminate()
            self.function.wait()
        shutil.rmtree(self.root, ignore_errors=True)


# --- moto ------------------------------------------------------------------------------------------

class Moto:
    """moto's server mode with a bucket and `streams` delivery streams made through boto3."""

    def __init__(self, streams=1, kinesis_shards=None):
        self.port = free_port()
        self.streams = streams
        self.kinesis_shards = kinesis_shards
        self.process = None

    def start(self, timeout=60.0):
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=self.log, stderr=self.log)
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("moto_server exited")
            try:
                health(self.port, "/moto-api/")
                break
            except OSError:
                time.sleep(0.05)
        import boto3
        session = boto3.session.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name="us-east-1")
        session.client("s3", endpoint_url=self.endpoint).create_bucket(Bucket="bench-bucket")
        firehose = session.client("firehose", endpoint_url=self.endpoint)
        for index in range(self.streams):
            firehose.create_delivery_stream(
                DeliveryStreamName=f"bench-{index}",
                ExtendedS3DestinationConfiguration={
                    "RoleARN": "arn:aws:iam::000000000000:role/firehose",
                    "BucketARN": "arn:aws:s3:::bench-bucket",
                    "CompressionFormat": "GZIP",
                })
        if self.kinesis_shards:
            session.client("kinesis", endpoint_url=self.endpoint).create_stream(
                StreamName="bench-0", ShardCount=self.kinesis_shards)
        return self

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# --- tools ---------------------------------------------------------------------------------------

def machine_busy_seconds():
    """CPU seconds all cores have spent busy since boot (/proc/stat), and the tick length."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid):
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text[text.rindex(")") + 2:].split()
    # Its own time and its reaped children's: a command-mode Lambda function runs as the server's child.
    return sum(int(field) for field in fields[11:15]) / os.sysconf("SC_CLK_TCK")


class Quiet:
    """Other users of the machine (builds, test suites) skew a 2-core benchmark. Before each run wait
    (within a total budget) until the machine is idle, and repeat a run during which something else
    used more than `limit` cores. Every run still reports the load it saw ("other load")."""

    def __init__(self, limit, budget_seconds, retries):
        self.limit, self.budget, self.retries = limit, budget_seconds, retries
        self.waited = 0.0

    def wait(self):
        while self.budget - self.waited > 0:
            busy, began = machine_busy_seconds(), time.perf_counter()
            time.sleep(1.0)
            elapsed = time.perf_counter() - began
            self.waited += elapsed
            if (machine_busy_seconds() - busy) / elapsed <= self.limit:
                return

    def measure(self, label, run):
        """`run()` returns a report with `otherLoadCores`; repeated while it is noisy."""
        for attempt in range(self.retries + 1):
            self.wait()
            report = run()
            report["noisy"] = report["otherLoadCores"] > self.limit
            if not report["noisy"] or attempt == self.retries or self.budget - self.waited <= 0:
                return report
            log(f"{label}: other load {report['otherLoadCores']:.2f} cores, measuring again")
        return report


def run_load(bin_dir, endpoint, pid, load, streams, duration, warmup, seed, label):
    command = [str(bin_dir / "firehose-load"), "--endpoint", endpoint, "--connections", "16",
               "--streams", str(streams), "--duration", str(duration), "--warmup", str(warmup),
               "--seed", str(seed), "--server-pid", str(pid), "--label", label, "--json"] + LOADS[load]
    # What else the machine did meanwhile (other users' builds): busy CPU minus server and generator.
    wall, busy, server = time.perf_counter(), machine_busy_seconds(), process_cpu_seconds(pid)
    children = os.times()
    finished = subprocess.run(command, capture_output=True, text=True, timeout=duration + warmup + 120)
    after = os.times()
    wall = time.perf_counter() - wall
    busy = machine_busy_seconds() - busy
    server = process_cpu_seconds(pid) - server
    generator = (after.children_user - children.children_user) + (after.children_system - children.children_system)
    if finished.returncode not in (0, 2) or not finished.stdout.strip():
        raise RuntimeError(f"firehose-load failed ({finished.returncode}): {finished.stderr[-2000:]}")
    report = json.loads(finished.stdout)
    report["otherLoadCores"] = max(0.0, (busy - server - generator) / wall)
    return report


def run_read(bin_dir, endpoint, pid):
    """kinesis-read over the whole of bench-0; its figures, the server's cores while it read, and the
    reader's own CPU."""
    server = process_cpu_seconds(pid)
    finished = subprocess.run([str(bin_dir / "kinesis-read"), "--endpoint", endpoint, "--stream", "bench-0", "--json"],
                              capture_output=True, text=True, timeout=660)
    if finished.returncode not in (0, 2) or not finished.stdout.strip():
        raise RuntimeError(f"kinesis-read failed ({finished.returncode}): {finished.stderr[-2000:]}")
    report = json.loads(finished.stdout)
    report["serverCores"] = (process_cpu_seconds(pid) - server) / report["seconds"]
    return report


def run_ceiling(bin_dir, threads, duration, seed):
    command = [str(bin_dir / "deflate-ceiling"), "--threads", str(threads), "--duration", str(duration),
               "--seed", str(seed), "--level", "6", "--json"]
    wall, busy, children = time.perf_counter(), machine_busy_seconds(), os.times()
    result = json.loads(subprocess.run(command, capture_output=True, text=True, check=True, timeout=duration + 60).stdout)
    after = os.times()
    own = (after.children_user - children.children_user) + (after.children_system - children.children_system)
    result["otherLoadCores"] = max(0.0, (machine_busy_seconds() - busy - own) / (time.perf_counter() - wall))
    return result


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summarize(runs):
    """Median of each figure over the runs of a scenario."""
    def pick(path):
        out = []
        for run in runs:
            value = run
            for key in path:
                value = value.get(key) if isinstance(value, dict) else None
            out.append(value)
        return median(out)

    return {
        "runs": len(runs),
        "payloadMBPerSecond": pick(["payloadMBPerSecond"]),
        "recordsPerSecond": pick(["recordsPerSecond"]),
        "requestsPerSecond": pick(["requestsPerSecond"]),
        "readMBPerSecond": pick(["read", "payloadMBPerSecond"]),
        "readRecordsPerSecond": pick(["read", "recordsPerSecond"]),
        "p50Ms": pick(["latency", "p50Ms"]),
        "p99Ms": pick(["latency", "p99Ms"]),
        "p999Ms": pick(["latency", "p999Ms"]),
        "errors": sum(run["errors"] + run["connectionErrors"] for run in runs),
        "serverCores": pick(["server", "cores"]),
        "serverPeakRSSMiB": pick(["server", "peakRSSMiB"]),
        "generatorCPUSeconds": pick(["generatorCPUSeconds"]),
        "seconds": pick(["seconds"]),
        "otherLoadCores": pick(["otherLoadCores"]),
        "noisyRuns": sum(1 for run in runs if run.get("noisy")),
    }


def profile(binary, bin_dir, scenario, args):
    """One run of `scenario` with `perf record` sampling the server (CPU clock, 999 Hz) during the
    measured phase; prints the functions with the most samples (self time) and where the server's
    time goes by library."""
    server = Server(binary, scenario.get("work_dir", args.work_dir), scenario["compression"], scenario["durability"],
                    scenario["streams"], gzip_level=args.gzip_level, partitioning=scenario.get("partitioning"),
                    gzip_implementation=scenario.get("gzip_implementation")).start()
    data = server.root / "perf.data"
    try:
        perf = None

        def start_perf():
            nonlocal perf
            perf = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-F", "999", "-g", "-o", str(data),
                                     "-p", str(server.process.pid), "--", "sleep", str(args.duration)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        load = subprocess.Popen(
            [str(bin_dir / "firehose-load"), "--endpoint", server.endpoint, "--connections", "16",
             "--streams", str(scenario["streams"]), "--duration", str(args.duration + 1), "--warmup", str(args.warmup),
             "--seed", str(args.seed), "--server-pid", str(server.process.pid)] + LOADS[scenario["load"]],
            stdout=subprocess.PIPE, text=True)
        time.sleep(args.warmup + 0.5)
        start_perf()
        perf.wait(timeout=args.duration + 60)
        print(load.communicate(timeout=args.duration + 120)[0])
        for sort in ("symbol", "dso"):
            report = subprocess.run(["perf", "report", "-i", str(data), "--no-children", "--sort", sort, "--stdio",
                                     "-g", "none", "--percent-limit", "0.7"], capture_output=True, text=True).stdout
            print(f"## {scenario['name']}: server samples by {sort}")
            print("\n".join(line for line in report.splitlines() if line.strip() and not line.startswith("#")))
        keep = HERE / ".build" / "profiles"
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copy(data, keep / f"{scenario['name']}.perf.data")
        print(f"(perf data kept in {keep / (scenario['name'] + '.perf.data')})")
    finally:
        server.stop()


# --- main ------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", required=True, help="firehose-local release binary")
    parser.add_argument("--bin-dir", required=True, help="folder with firehose-load and deflate-ceiling")
    parser.add_argument("--function-dir", help="folder with lambda-identity (default: --bin-dir)")
    parser.add_argument("--quick", action="store_true", help="1 run of 5 s per scenario (about 2 minutes)")
    parser.add_argument("--runs", type=int, help="runs per scenario (default 3; --quick: 1)")
    parser.add_argument("--duration", type=float, help="measured seconds per run, max 120 (default 15; --quick: 5)")
    parser.add_argument("--warmup", type=float, help="unmeasured seconds first (default 2; --quick: 1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default="", help="comma-separated scenario names (and/or: ceiling, moto, idle, recorder)")
    parser.add_argument("--no-moto", action="store_true", help="skip the moto peer")
    parser.add_argument("--work-dir", default="/var/tmp", help="where data directories go (a real disk: fsync is measured)")
    parser.add_argument("--out", help="write every run's JSON here")
    parser.add_argument("--quiet-cores", type=float, default=0.15,
                        help="a run during which other processes used more cores than this is repeated")
    parser.add_argument("--quiet-budget", type=float, default=240,
                        help="seconds the whole run may spend waiting for the machine to be idle")
    parser.add_argument("--retries", type=int, default=2, help="repeats of a noisy run")
    parser.add_argument("--gzip-level", type=int, default=6,
                        help="GzipLevel of every server in this invocation (the ceiling stays zlib level 6)")
    parser.add_argument("--profile", help="instead of measuring: perf-profile the server under these scenarios")
    parser.add_argument("--baseline", help="another firehose-local release binary (e.g. built from the commit before a "
                        "change): every scenario run is also made against it, interleaved, and the report compares them")
    args = parser.parse_args()
    quick = args.quick
    args.runs = args.runs or (1 if quick else 3)
    args.duration = args.duration or (5.0 if quick else 15.0)
    args.warmup = args.warmup if args.warmup is not None else (1.0 if quick else 2.0)
    args.duration = min(args.duration, 120.0)
    wanted = set(filter(None, args.only.split(",")))

    def selected(name):
        return not wanted or name in wanted

    bin_dir, binary = Path(args.bin_dir), Path(args.server)
    quiet = Quiet(args.quiet_cores, args.quiet_budget, args.retries)
    if args.profile:
        for scenario in SCENARIOS:
            if scenario["name"] in args.profile.split(","):
                quiet.wait()
                profile(binary, bin_dir, scenario, args)
        return
    results = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "machine": {"cores": os.cpu_count(), "kernel": platform.release()},
        "server": str(binary), "runs": args.runs, "durationSeconds": args.duration, "seed": args.seed,
        "gzipLevel": args.gzip_level,
        "scenarios": {}, "ceiling": {}, "moto": {}, "idle": {}, "recorder": {},
    }
    if args.baseline:
        results["baseline"] = {"server": str(Path(args.baseline)), "scenarios": {}}
    began = time.perf_counter()

    # Idle RSS and start-to-accepting time: fresh servers, no load.
    # With a baseline, its servers start alternately with this build's.
    start_times = []
    if selected("idle"):
        idle_builds = [("", binary, start_times, [])] + (
            [("baseline ", Path(args.baseline), [], [])] if args.baseline else [])
        for _ in range(max(args.runs, 5)):
            for _, build, starts, rss in idle_builds:
                quiet.wait()
                server = Server(build, args.work_dir).start()
                try:
                    starts.append(server.start_seconds)
                    time.sleep(1.0)
                    rss.append(proc_status(server.process.pid).get("VmRSS", 0) / MIB)
                finally:
                    server.stop()
        for role, _, starts, rss in idle_builds:
            idle = {"rssMiB": rss, "startSeconds": list(starts),
                    "medianRSSMiB": median(rss), "medianStartMs": median(starts) * 1000}
            if role:
                results["baseline"]["idle"] = idle
            else:
                results["idle"] = idle
            log(f"{role}idle: RSS {median(rss):.1f} MiB, start {median(starts) * 1000:.1f} ms")

    # Round-robin: run 1 of every scenario, then run 2 of every scenario, ... The machine drifts by
    # several percent over minutes (other tenants of the host, clocks); interleaving spreads that
    # drift over all scenarios instead of landing on whichever ran last, so scenarios compare fairly.
    chosen = [scenario for scenario in SCENARIOS if selected(scenario["name"])]
    scenario_runs = {scenario["name"]: [] for scenario in chosen}
    baseline_runs = {scenario["name"]: [] for scenario in chosen}
    ceiling_runs = []
    for run in range(args.runs):
        # The ceiling takes its turn in every round too, so the ratios compare like with like.
        if selected("ceiling"):
            ceiling_runs.append(quiet.measure("ceiling", lambda: run_ceiling(bin_dir, 2, min(args.duration, 5.0), args.seed)))
            log(f"ceiling run {run + 1}: {ceiling_runs[-1]['payloadMBPerSecond']:.1f} MB/s (2 threads), "
                f"other load {ceiling_runs[-1]['otherLoadCores']:.2f} cores")
        for scenario in chosen:
            # With a baseline, each scenario runs on both binaries back to back, the order alternating
            # from round to round, so drift lands on both alike.
            builds = [("", binary)] + ([("baseline ", Path(args.baseline))] if args.baseline else [])
            for role, build in (builds if run % 2 == 0 else builds[::-1]):
                runs = (baseline_runs if role else scenario_runs)[scenario["name"]]

                def one_run(scenario=scenario, build=build):
                    store = Moto(streams=0).start() if scenario.get("store") else None
                    try:
                        server = Server(build, scenario.get("work_dir", args.work_dir), scenario["compression"],
                                        scenario["durability"], scenario["streams"], gzip_level=args.gzip_level,
                                        partitioning=scenario.get("partitioning"),
                                        transformation=scenario.get("transformation"),
                                        bin_dir=Path(args.function_dir or bin_dir),
                                        store_endpoint=store.endpoint if store else None,
                                        kinesis_shards=scenario.get("kinesis_shards"),
                                        gzip_implementation=scenario.get("gzip_implementation")).start()
                    except BaseException:
                        if store:
                            store.stop()
                        raise
                    try:
                        if build == binary:
                            start_times.append(server.start_seconds)
                        report = run_load(bin_dir, server.endpoint, server.process.pid, scenario["load"],
                                          max(scenario["streams"], 1), args.duration, args.warmup, args.seed,
                                          scenario["name"])
                        report["startSeconds"] = server.start_seconds
                        if scenario.get("kinesis_shards"):
                            report["read"] = run_read(bin_dir, server.endpoint, server.process.pid)
                        if scenario.get("transformation") or scenario.get("store") or scenario.get("gzip_implementation"):
                            # Puts are acknowledged once staged, before the function runs (or the
                            # store answers, or libdeflate compresses the object at delivery): what
                            # counts is the rate records come out delivered, so the time to deliver the
                            # backlog the load left (warmup's included) is added, counted from the end of
                            # the measured phase (the server goes on delivering while the generator stops).
                            flush(server.port)
                            drain = max(0.0, time.time() - report["windowEndedAt"])
                            accepted = report["payloadMBPerSecond"]
                            report["acceptedMBPerSecond"] = accepted
                            report["drainSeconds"] = drain
                            report["payloadMBPerSecond"] = accepted * args.duration / (args.duration + drain)
                        return report
                    finally:
                        server.stop()
                        if store:
                            store.stop()

                report = quiet.measure(role + scenario["name"], one_run)
                runs.append(report)
                drained = (f" (accepted {report['acceptedMBPerSecond']:.1f} MB/s, then {report['drainSeconds']:.1f} s to "
                           f"deliver the rest)") if "drainSeconds" in report else ""
                if "read" in report:
                    drained += (f" (GetRecords {report['read']['payloadMBPerSecond']:.1f} MB/s, "
                                f"{report['read']['records']} records)")
                log(f"{role}{scenario['name']} run {run + 1}: {report['payloadMBPerSecond']:.1f} MB/s{drained}, "
                    f"{report['requestsPerSecond']:.0f} req/s, p99 {report['latency']['p99Ms']:.2f} ms, "
                    f"server {report.get('server', {}).get('cores', 0):.2f} cores, "
                    f"peak RSS {report.get('server', {}).get('peakRSSMiB', 0):.0f} MiB, errors {report['errors']}, "
                    f"other load {report['otherLoadCores']:.2f} cores")
    for scenario in chosen:
        runs = scenario_runs[scenario["name"]]
        results["scenarios"][scenario["name"]] = {"what": scenario["what"], "runs": runs, "median": summarize(runs)}
        if args.baseline:
            runs = baseline_runs[scenario["name"]]
            results["baseline"]["scenarios"][scenario["name"]] = {"runs": runs, "median": summarize(runs)}
    if ceiling_runs:
        one = quiet.measure("ceiling", lambda: run_ceiling(bin_dir, 1, min(args.duration, 5.0), args.seed))
        results["ceiling"] = {
            "runs": ceiling_runs, "oneThread": one,
            "payloadMBPerSecond": median([r["payloadMBPerSecond"] for r in ceiling_runs]),
            "compressionRatio": median([r["compressionRatio"] for r in ceiling_runs]),
        }

    # The peer: the same generator and loads against moto's server mode.
    if not args.no_moto and selected("moto"):
        peer_loads = [("gzip-1-stream-fsync", "batch"), ("putrecord-none", "small")]
        if selected("kinesis-putrecords") or not wanted:
            peer_loads.append(("kinesis-putrecords", "kinesis"))
        for name, load in peer_loads:
            runs = []
            for run in range(args.runs):
                def one_run(name=name, load=load):
                    moto = Moto(kinesis_shards=4 if load == "kinesis" else None).start()
                    try:
                        report = run_load(bin_dir, moto.endpoint, moto.process.pid, load, 1,
                                          min(args.duration, 10.0), args.warmup, args.seed, "moto " + name)
                        if load == "kinesis":
                            report["read"] = run_read(bin_dir, moto.endpoint, moto.process.pid)
                        return report
                    finally:
                        moto.stop()

                report = quiet.measure("moto " + name, one_run)
                runs.append(report)
                log(f"moto {name} run {run + 1}: {report['payloadMBPerSecond']:.2f} MB/s, "
                    f"{report['requestsPerSecond']:.0f} req/s, errors {report['errors']}, "
                    f"other load {report['otherLoadCores']:.2f} cores")
            results["moto"][name] = {"runs": runs, "median": summarize(runs)}

    # FirehoseRecorder: saveRecord rate, then submitAllRecords to a fresh server (GZIP, fsync).
    if selected("recorder") and (bin_dir / "recorder-bench").exists():
        runs = []
        for run in range(args.runs):
            def one_run():
                server = Server(binary, args.work_dir).start()
                try:
                    wall, busy, children = time.perf_counter(), machine_busy_seconds(), os.times()
                    server_cpu = process_cpu_seconds(server.process.pid)
                    finished = subprocess.run(
                        [str(bin_dir / "recorder-bench"), "--endpoint", server.endpoint, "--records", "100000",
                         "--save-seconds", str(min(args.duration * 2, 30)), "--seed", str(args.seed),
                         "--work-dir", args.work_dir, "--json"],
                        capture_output=True, text=True, timeout=300)
                    if not finished.stdout.strip():
                        raise RuntimeError(f"recorder-bench failed: {finished.stderr[-2000:]}")
                    report = json.loads(finished.stdout)
                    after = os.times()
                    own = (after.children_user - children.children_user) + (after.children_system - children.children_system)
                    own += process_cpu_seconds(server.process.pid) - server_cpu
                    report["otherLoadCores"] = max(0.0, (machine_busy_seconds() - busy - own) / (time.perf_counter() - wall))
                    return report
                finally:
                    server.stop()

            report = quiet.measure("recorder", one_run)
            runs.append(report)
            log(f"recorder run {run + 1}: saveRecord {report['saveRecordsPerSecond']:.0f} records/s, "
                f"submitAllRecords {report['submitPayloadMBPerSecond']:.1f} MB/s ({report['submitStatus']}), "
                f"other load {report['otherLoadCores']:.2f} cores")
        results["recorder"] = {
            "runs": runs,
            "saveRecordsPerSecond": median([r["saveRecordsPerSecond"] for r in runs]),
            "submitPayloadMBPerSecond": median([r["submitPayloadMBPerSecond"] for r in runs]),
        }

    if start_times:
        results["startMs"] = {"median": median(start_times) * 1000, "max": max(start_times) * 1000,
                              "samples": len(start_times)}
    results["totalSeconds"] = time.perf_counter() - began
    results["waitedForQuietSeconds"] = quiet.waited
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(results, indent=1))
    print(render(results))


# --- report ----------------------------------------------------------------------------------------

def render(results):
    ceiling = results["ceiling"].get("payloadMBPerSecond")
    moto = {name: entry["median"] for name, entry in results["moto"].items()}
    scenarios = {name: entry["median"] for name, entry in results["scenarios"].items()}
    lines = [f"# firehose-local benchmark, {results['date']}",
             f"{results['machine']['cores']} cores, kernel {results['machine']['kernel']}; medians of "
             f"{results['runs']} run(s) of {results['durationSeconds']:g} s; MB = 10^6 bytes of record payload", ""]
    if ceiling:
        one = results["ceiling"]["oneThread"]["payloadMBPerSecond"]
        lines.append(f"zlib level-6 ceiling (2 threads, same records): {ceiling:.1f} MB/s "
                     f"(1 thread: {one:.1f} MB/s; ratio {results['ceiling']['compressionRatio']:.2f}:1)")
    for name, figures in moto.items():
        read = f", GetRecords {figures['readMBPerSecond']:.2f} MB/s" if figures.get("readMBPerSecond") else ""
        lines.append(f"moto, {name} load: {figures['payloadMBPerSecond']:.2f} MB/s, "
                     f"{figures['requestsPerSecond']:.0f} req/s, p99 {figures['p99Ms']:.1f} ms{read}")
    if scenarios:
        lines += ["", "| scenario | MB/s | records/s | req/s | p50 ms | p99 ms | p99.9 ms | × ceiling | × moto | server cores | peak RSS MiB | errors | other load |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, m in scenarios.items():
        peer = moto.get("putrecord-none" if name.startswith("putrecord") else
                        "kinesis-putrecords" if name.startswith("kinesis") else "gzip-1-stream-fsync")
        compressed = not name.startswith("putrecord") and not name.startswith("kinesis")
        ratio_ceiling = f"{m['payloadMBPerSecond'] / ceiling:.2f}" if ceiling and compressed else "–"
        if peer and name.startswith("putrecord") and peer["requestsPerSecond"]:
            ratio_moto = f"{m['requestsPerSecond'] / peer['requestsPerSecond']:.1f}"
        elif peer and peer["payloadMBPerSecond"]:
            ratio_moto = f"{m['payloadMBPerSecond'] / peer['payloadMBPerSecond']:.1f}"
        else:
            ratio_moto = "–"
        lines.append(f"| {name} | {m['payloadMBPerSecond']:.1f} | {m['recordsPerSecond']:.0f} | {m['requestsPerSecond']:.0f} "
                     f"| {m['p50Ms']:.2f} | {m['p99Ms']:.2f} | {m['p999Ms']:.2f} | {ratio_ceiling} | {ratio_moto} "
                     f"| {m['serverCores'] or 0:.2f} | {m['serverPeakRSSMiB'] or 0:.0f} | {m['errors']} "
                     f"| {m['otherLoadCores'] or 0:.2f} |")
    if results.get("baseline"):
        lines += ["", f"Against the baseline {results['baseline']['server']} (runs interleaved in this invocation; "
                  "ratio = this build / baseline; the runs' spread says what is noise):", "",
                  "| scenario | MB/s (runs) | baseline MB/s (runs) | ratio | req/s | baseline req/s | ratio | p99 ms | "
                  "baseline p99 ms | peak RSS MiB | baseline peak RSS MiB |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]

        def each(runs, key):
            return "/".join(f"{run[key]:.1f}" for run in runs)

        for name, m in scenarios.items():
            entry = results["baseline"]["scenarios"].get(name)
            if not entry:
                continue
            b = entry["median"]
            own = results["scenarios"][name]["runs"]
            ratio_mb = f"{m['payloadMBPerSecond'] / b['payloadMBPerSecond']:.2f}" if b["payloadMBPerSecond"] else "–"
            ratio_rq = f"{m['requestsPerSecond'] / b['requestsPerSecond']:.2f}" if b["requestsPerSecond"] else "–"
            lines.append(f"| {name} | {m['payloadMBPerSecond']:.1f} ({each(own, 'payloadMBPerSecond')}) "
                         f"| {b['payloadMBPerSecond']:.1f} ({each(entry['runs'], 'payloadMBPerSecond')}) | {ratio_mb} "
                         f"| {m['requestsPerSecond']:.0f} | {b['requestsPerSecond']:.0f} | {ratio_rq} "
                         f"| {m['p99Ms']:.2f} | {b['p99Ms']:.2f} "
                         f"| {m['serverPeakRSSMiB'] or 0:.0f} | {b['serverPeakRSSMiB'] or 0:.0f} |")
    kinesis = scenarios.get("kinesis-putrecords")
    if kinesis:
        firehose = scenarios.get("gzip-1-stream-fsync")
        beside = (f"; Firehose PutRecordBatch to 1 GZIP stream in this run: {firehose['payloadMBPerSecond']:.1f} MB/s "
                  f"(Kinesis / Firehose {kinesis['payloadMBPerSecond'] / firehose['payloadMBPerSecond']:.2f})"
                  if firehose and firehose["payloadMBPerSecond"] else "")
        peer = moto.get("kinesis-putrecords")
        against = (f"; moto: PutRecords {peer['payloadMBPerSecond']:.2f} MB/s, GetRecords {peer['readMBPerSecond']:.2f} MB/s"
                   if peer and peer.get("readMBPerSecond") else "")
        lines += ["", f"Kinesis Data Streams (4 shards): PutRecords {kinesis['payloadMBPerSecond']:.1f} MB/s, "
                  f"GetRecords {kinesis['readMBPerSecond'] or 0:.1f} MB/s ({kinesis['readRecordsPerSecond'] or 0:.0f} "
                  f"records/s){beside}{against}"]
    idle = results["idle"]
    if idle:
        lines.append("")
        lines.append(f"idle RSS (fresh server, 1 stream, 1 s after start): {idle['medianRSSMiB']:.1f} MiB")
        base = results.get("baseline", {}).get("idle")
        if base:
            lines.append(f"idle against the baseline (servers started alternately): RSS {idle['medianRSSMiB']:.1f} / "
                         f"{base['medianRSSMiB']:.1f} MiB = {idle['medianRSSMiB'] / base['medianRSSMiB']:.2f} x, "
                         f"start {idle['medianStartMs']:.1f} / {base['medianStartMs']:.1f} ms = "
                         f"{idle['medianStartMs'] / base['medianStartMs']:.2f} x")
    if results.get("recorder"):
        r = results["recorder"]
        lines.append(f"FirehoseRecorder (app events, fresh GZIP/fsync server): saveRecord {r['saveRecordsPerSecond']:.0f} records/s, "
                     f"submitAllRecords {r['submitPayloadMBPerSecond']:.1f} MB/s of payload")
    if "startMs" in results:
        lines.append(f"start to accepting (spawn to first 200 from /_local/health): median {results['startMs']['median']:.1f} ms, "
                     f"max {results['startMs']['max']:.1f} ms over {results['startMs']['samples']} starts")

    lines += ["", "| target | measured | met |", "|---|---|---|"]

    def target(text, value, ok):
        lines.append(f"| {text} | {value} | {'yes' if ok else 'no'} |")

    s1 = scenarios.get("gzip-1-stream-fsync")
    if s1 and ceiling:
        target("1 GZIP stream, fsync: ≥ 0.7 × zlib ceiling", f"{s1['payloadMBPerSecond'] / ceiling:.2f} ×",
               s1["payloadMBPerSecond"] >= 0.7 * ceiling)
    if s1 and moto.get("gzip-1-stream-fsync"):
        peer = moto["gzip-1-stream-fsync"]["payloadMBPerSecond"]
        target("1 GZIP stream, fsync: ≥ 8 × moto", f"{s1['payloadMBPerSecond'] / peer:.1f} ×", s1["payloadMBPerSecond"] >= 8 * peer)
    s2 = scenarios.get("gzip-8-streams-fsync")
    if s1 and s2:
        target("8 GZIP streams ≥ 1 stream", f"{s2['payloadMBPerSecond']:.1f} vs {s1['payloadMBPerSecond']:.1f} MB/s",
               s2["payloadMBPerSecond"] >= s1["payloadMBPerSecond"])
    s3 = scenarios.get("uncompressed-none")
    if s3:
        target("UNCOMPRESSED, none: ≥ 250 MB/s", f"{s3['payloadMBPerSecond']:.1f} MB/s", s3["payloadMBPerSecond"] >= 250)
    s4 = scenarios.get("putrecord-none")
    if s4:
        target("PutRecord 100 B, none: ≥ 10,000 req/s", f"{s4['requestsPerSecond']:.0f} req/s", s4["requestsPerSecond"] >= 10_000)
        target("PutRecord 100 B, none: p99 ≤ 5 ms", f"{s4['p99Ms']:.2f} ms", s4["p99Ms"] <= 5)
    s5 = scenarios.get("putrecord-fsync")
    if s5:
        target("PutRecord 100 B, fsync: ≥ 3,000 req/s", f"{s5['requestsPerSecond']:.0f} req/s", s5["requestsPerSecond"] >= 3_000)
    s6 = scenarios.get("gzip-100-streams-rss")
    if s6:
        target("100 GZIP streams: peak RSS ≤ 256 MiB", f"{s6['serverPeakRSSMiB']:.0f} MiB", s6["serverPeakRSSMiB"] <= 256)
    s7 = scenarios.get("gzip-partitioned-fsync")
    if s1 and s7:
        target("GZIP partitioned by 2-key jq (~120 partitions): ≥ 0.5 × unpartitioned",
               f"{s7['payloadMBPerSecond'] / s1['payloadMBPerSecond']:.2f} ×",
               s7["payloadMBPerSecond"] >= 0.5 * s1["payloadMBPerSecond"])
    for name, kind in (("gzip-lambda-command-fsync", "command"), ("gzip-lambda-endpoint-fsync", "Invoke API")):
        transformed = scenarios.get(name)
        if s1 and transformed:
            target(f"through a Lambda processor ({kind} function): ≥ 0.5 × untransformed",
                   f"{transformed['payloadMBPerSecond'] / s1['payloadMBPerSecond']:.2f} ×",
                   transformed["payloadMBPerSecond"] >= 0.5 * s1["payloadMBPerSecond"])
    s8 = scenarios.get("gzip-500-partitions-rss")
    if s8:
        target("500 open partitions: peak RSS ≤ 256 MiB", f"{s8['serverPeakRSSMiB']:.0f} MiB", s8["serverPeakRSSMiB"] <= 256)
    if idle:
        target("idle RSS ≤ 40 MiB", f"{idle['medianRSSMiB']:.1f} MiB", idle["medianRSSMiB"] <= 40)
    recorder = results.get("recorder")
    if recorder:
        target("FirehoseRecorder saveRecord ≥ 20,000 records/s", f"{recorder['saveRecordsPerSecond']:.0f} records/s",
               recorder["saveRecordsPerSecond"] >= 20_000)
        target("FirehoseRecorder submitAllRecords ≥ 30 MB/s", f"{recorder['submitPayloadMBPerSecond']:.1f} MB/s",
               recorder["submitPayloadMBPerSecond"] >= 30)
    if "startMs" in results:
        target("start to accepting ≤ 150 ms", f"{results['startMs']['median']:.1f} ms", results["startMs"]["median"] <= 150)
    lines.append("")
    lines.append(f"total time {results['totalSeconds']:.0f} s, of which {results['waitedForQuietSeconds']:.0f} s "
                 "waiting for other processes to leave the machine idle")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
