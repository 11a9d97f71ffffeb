#!/usr/bin/env python3
"""How long fdatasync of many small dirty files takes on this disk: one after another, with one
syncfs, and over 8 threads. A partitioned stream's group commit syncs each open partition buffer's
data and journal file (~240 files with ~120 partitions).

    python3 Benchmarks/fsync-probe.py [--files 240] [--bytes 2700] [--dir /var/tmp]
"""

import argparse
import ctypes
import os
import shutil
import tempfile
import threading
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=240)
    parser.add_argument("--bytes", type=int, default=2700)
    parser.add_argument("--dir", default="/var/tmp")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    directory = tempfile.mkdtemp(prefix="fsync-probe-", dir=args.dir)
    fds = [os.open(f"{directory}/f{i}", os.O_WRONLY | os.O_CREAT) for i in range(args.files)]
    payload = b"x" * args.bytes

    def timed(sync):
        for fd in fds:
            os.write(fd, payload)
        start = time.perf_counter()
        sync()
        return (time.perf_counter() - start) * 1000

    def threaded():
        threads = [threading.Thread(target=lambda part=fds[i::8]: [os.fdatasync(fd) for fd in part]) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    try:
        for _ in range(args.rounds):
            serial = timed(lambda: [os.fdatasync(fd) for fd in fds])
            whole = timed(lambda: libc.syncfs(fds[0]))
            parallel = timed(threaded)
            print(f"{args.files} files: serial {serial:.1f} ms, syncfs {whole:.1f} ms, 8 threads {parallel:.1f} ms")
    finally:
        for fd in fds:
            os.close(fd)
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
