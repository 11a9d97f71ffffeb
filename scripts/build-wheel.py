#!/usr/bin/env python3
"""Packs an unpacked firehose-local release (what scripts/package stages in dist/) as a Python
wheel: the package ``firehose_local`` with the release under ``firehose_local/release/`` and a
``firehose-local`` console command that runs its binary.  Needs nothing beyond Python's standard
library (no setuptools, no wheel package).

    python3 scripts/build-wheel.py --release dist/firehose-local-0.1.0-linux-x86_64 --version 0.1.0 --out dist

The platform tag is ``manylinux_X_Y_ARCH`` with X.Y the glibc the binary was linked against (the
build machine's; the binary needs that or later), the tag pip accepts on such systems."""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import platform
import re
import stat
import sys
import zipfile
from pathlib import Path

PACKAGE = "firehose_local"

INIT = '''"""firehose-local: Amazon Data Firehose (and S3, Kinesis, Cognito Identity, IAM) on your own
machine.  This package carries the server's release build (no Swift needed) and its command line.

    firehose-local serve              # the console command this package installs
    python -m firehose_local serve    # the same

``binary_path()`` is the executable, for tools that start it themselves (the pytest plugin
``pytest-firehose-local`` uses it when this package is installed)."""

import os
import sys
from pathlib import Path

__version__ = "{version}"
__all__ = ["binary_path", "main"]


def binary_path() -> Path:
    """The firehose-local executable inside this package."""
    return Path(__file__).resolve().parent / "release" / "bin" / "firehose-local"


def main() -> None:
    """Runs firehose-local with this process's arguments, in its place (signals and the exit
    status are the binary's own)."""
    binary = str(binary_path())
    os.execv(binary, [binary, *sys.argv[1:]])
'''

MAIN = """from . import main

main()
"""


def glibc_tag(arch: str) -> str:
    libc, libc_version = platform.libc_ver()
    match = re.fullmatch(r"(\d+)\.(\d+)", libc_version or "")
    if libc != "glibc" or not match:
        sys.exit(f"error: the build machine's C library is {libc or 'unknown'} {libc_version}, not glibc")
    return f"manylinux_{match[1]}_{match[2]}_{arch}"


def record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--release", type=Path, required=True, help="the unpacked release (bin/, lib/, share/)")
    parser.add_argument("--version", required=True, help="the release's version, as in BuildInfo.swift")
    parser.add_argument("--out", type=Path, required=True, help="the folder the wheel is written to")
    options = parser.parse_args()

    release: Path = options.release
    binary = release / "bin" / "firehose-local"
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        sys.exit(f"error: {binary} is not an executable file: run scripts/package")
    if not re.fullmatch(r"\d+(\.\d+)*", options.version):
        sys.exit(f"error: {options.version!r} is not a plain release version such as 0.1.0")
    arch = platform.machine()
    tag = f"py3-none-{glibc_tag(arch)}"
    dist_info = f"{PACKAGE}-{options.version}.dist-info"
    wheel_name = f"{PACKAGE}-{options.version}-{tag}.whl"

    # (name in the wheel, bytes, executable)
    entries: list[tuple[str, bytes, bool]] = [
        (f"{PACKAGE}/__init__.py", INIT.format(version=options.version).encode(), False),
        (f"{PACKAGE}/__main__.py", MAIN.encode(), False),
    ]
    for path in sorted(p for p in release.rglob("*") if p.is_file()):
        if path.is_symlink():
            sys.exit(f"error: {path} is a symbolic link, which a wheel cannot carry")
        executable = bool(path.stat().st_mode & stat.S_IXUSR)
        entries.append((f"{PACKAGE}/release/{path.relative_to(release).as_posix()}", path.read_bytes(), executable))
    readme = (release / "README.txt").read_text() if (release / "README.txt").is_file() else ""
    entries += [
        (
            f"{dist_info}/METADATA",
            (
                "Metadata-Version: 2.1\n"
                f"Name: firehose-local\nVersion: {options.version}\n"
                "Summary: Amazon Data Firehose on your own machine: the firehose-local server, no Swift needed\n"
                "Requires-Python: >=3.8\n"
                "Description-Content-Type: text/plain\n\n" + readme
            ).encode(),
            False,
        ),
        (
            f"{dist_info}/WHEEL",
            f"Wheel-Version: 1.0\nGenerator: firehose-local scripts/build-wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n".encode(),
            False,
        ),
        (f"{dist_info}/entry_points.txt", f"[console_scripts]\nfirehose-local = {PACKAGE}:main\n".encode(), False),
        (f"{dist_info}/top_level.txt", f"{PACKAGE}\n".encode(), False),
    ]
    record = "".join(f"{name},{record_hash(data)},{len(data)}\n" for name, data, _ in entries)
    record += f"{dist_info}/RECORD,,\n"
    entries.append((f"{dist_info}/RECORD", record.encode(), False))

    options.out.mkdir(parents=True, exist_ok=True)
    target = options.out / wheel_name
    partial = target.with_name(target.name + ".partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as wheel:
        for name, data, executable in entries:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            # pip restores the executable bit from the entry's Unix mode.
            info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
            wheel.writestr(info, data)
    partial.replace(target)
    print(f"{target} ({target.stat().st_size // (1024 * 1024)} MiB)")


if __name__ == "__main__":
    main()
