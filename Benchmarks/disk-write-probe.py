#!/usr/bin/env python3
"""What the disk under the data directory sustains for firehose-local's delivery pattern, second by
second: 5 MiB objects written in 320 KB pwrites, fsynced and renamed, one after the other, as one
UNCOMPRESSED stream delivers them. Bounded in time; removes what it wrote.

    python3 Benchmarks/disk-write-probe.py                 # /var/tmp, 15 s
    python3 Benchmarks/disk-write-probe.py --dir /data --seconds 30

A virtual disk's rate can change from one moment to the next (other tenants, throttling): run this
just before or after a benchmark of UNCOMPRESSED delivery, which writes every payload byte and so can
go no faster than the disk for long.
"""

import argparse
import os
import shutil
import statistics
import tempfile
import time

OBJECT_BYTES = 5 * 1024 * 1024
WRITE_BYTES = 320_000


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", default="/var/tmp", help="folder on the disk to probe (a temporary folder is made in it)")
    parser.add_argument("--seconds", type=float, default=15.0, help="how long to write (1-120)")
    args = parser.parse_args()
    if not 1 <= args.seconds <= 120:
        parser.error("--seconds must be 1-120")
    if not os.path.isdir(args.dir):
        parser.error(f"--dir {args.dir} is not a folder")
    free = shutil.disk_usage(args.dir).free
    if free < 2 * 750_000_000 * args.seconds:
        parser.error(f"--dir {args.dir} has {free / 1e9:.1f} GB free; need room for {args.seconds:.0f} s at up to 1.5 GB/s")

    work = tempfile.mkdtemp(prefix="disk-write-probe-", dir=args.dir)
    payload = os.urandom(OBJECT_BYTES)
    per_second = []
    try:
        start = time.monotonic()
        second_start, second_bytes, index = start, 0, 0
        while time.monotonic() - start < args.seconds:
            partial = os.path.join(work, f"{index}.partial")
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                for offset in range(0, OBJECT_BYTES, WRITE_BYTES):
                    os.pwrite(fd, payload[offset:offset + WRITE_BYTES], offset)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.rename(partial, os.path.join(work, f"{index}.object"))
            index += 1
            second_bytes += OBJECT_BYTES
            now = time.monotonic()
            if now - second_start >= 1.0:
                per_second.append(second_bytes / (now - second_start) / 1e6)
                print(f"second {len(per_second):3d}: {per_second[-1]:6.0f} MB/s", flush=True)
                second_start, second_bytes = now, 0
            # Keep at most ~2 GB on disk: the probe measures writing, not filling the disk.
            if index >= 400:
                os.unlink(os.path.join(work, f"{index - 400}.object"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if per_second:
        total = sum(per_second) / len(per_second)
        print(f"{args.dir}: first 3 s median {statistics.median(per_second[:3]):.0f} MB/s, "
              f"after that median {statistics.median(per_second[3:] or per_second):.0f} MB/s, mean {total:.0f} MB/s")


if __name__ == "__main__":
    main()
