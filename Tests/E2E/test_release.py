"""firehose-local as users get it without Swift.

The server binary links no FoundationNetworking (no libcurl) and says its version. `scripts/package`
builds the release tarball and the wheels; they are checked here, then proven where no Swift exists:
a minimal Debian 12 root made with ``debootstrap --variant=minbase`` (no Swift toolchain, no ``-dev``
package, checked below), entered with ``chroot`` in a private mount namespace. In it the tarball's
binary serves boto3 (from outside the root: the network is shared) and, in a fresh virtual
environment, ``pip install`` of the two wheels runs a pytest file with the ``firehose_local``
fixture. The root is kept in ``.build/bare-debian-12`` between runs; tests skip, saying why, where
it cannot be made (not root, no debootstrap, no Debian mirror)."""

from __future__ import annotations

import base64
import faulthandler
import gzip
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tarfile
import time
import urllib.request
import uuid
import zipfile
from dataclasses import dataclass
from pathlib import Path

import boto3
import pytest

from conftest import SESSION_HARD_LIMIT
from fhlocal import (
    REPO_ROOT, FirehoseLocal, _set_pdeathsig, aws_cli_command, binary_path, clean_env, ext_stream, run,
    standard_config,
)

VERSION = re.search(
    r'public static let version = "([^"]+)"', (REPO_ROOT / "Sources/FirehoseLocalCLI/BuildInfo.swift").read_text()
)[1]
NETWORKING = ("libFoundationNetworking", "libcurl")
# What a glibc system always has: scripts/package bundles every other library the binary loads.
C_RUNTIME = re.compile(
    r"(linux-vdso|ld-linux.*|libc|libm|libpthread|libdl|librt|libutil|libresolv|libgcc_s|libstdc\+\+)\.so(\.[0-9.]+)?"
)
BARE_ROOT = REPO_ROOT / ".build" / "bare-debian-12"
BARE_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"


def linked_libraries(ldd_output: str) -> dict[str, str]:
    """``ldd``'s answer as {soname: resolved path, or 'not found'}."""
    libraries = {}
    for line in ldd_output.splitlines():
        parts = line.split()
        if "=>" in parts:
            libraries[parts[0]] = " ".join(parts[2:]).split(" (")[0]
        elif parts:
            libraries[Path(parts[0]).name] = parts[0]
    return libraries


def outside_c_runtime_and(lib: str, libraries: dict[str, str]) -> dict[str, str]:
    """The libraries ldd resolved neither from the C runtime nor from the folder ``lib``."""
    return {name: path for name, path in libraries.items()
            if not C_RUNTIME.fullmatch(name) and not os.path.normpath(path).startswith(os.path.normpath(lib) + "/")}


def expected_commit() -> str:
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True)
    if head.returncode != 0:
        return "unknown"
    status = subprocess.run(["git", "status", "--porcelain"], cwd=REPO_ROOT, capture_output=True, text=True)
    dirty = status.stdout.strip() != ""
    return head.stdout.strip() + ("-dirty" if dirty else "")


# -- the development build -------------------------------------------------------------------------


def test_server_binary_links_no_foundation_networking():
    # FoundationNetworking brings libcurl and about 25 more libraries; the server's HTTP goes
    # through SwiftNIO and the CLI's through HTTP1Transport, so nothing in it may import it.
    result = run(["ldd", str(binary_path())])
    assert result.returncode == 0, result.stderr
    libraries = linked_libraries(result.stdout.decode())
    assert "libc.so.6" in libraries
    assert [name for name in libraries if name.startswith(NETWORKING)] == []


def test_version_names_the_release_and_the_commit():
    result = run([str(binary_path()), "--version"])
    assert result.returncode == 0, result.stderr
    line = result.stdout.decode().strip()
    # `swift build` records no commit; scripts/package does (checked on the release below).
    assert re.fullmatch(
        rf"firehose-local {re.escape(VERSION)} \((development build: no commit recorded|commit [0-9a-f]{{40}}(-dirty)?)\)",
        line,
    ), line


# -- scripts/package ---------------------------------------------------------------------------------


@dataclass
class Release:
    tarball: Path
    wheel: Path
    plugin_wheel: Path
    commit: str


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Release:
    """What `scripts/package` builds, built once for this module (incrementally: its build folder is
    .build/package, a full release build the first time)."""
    log = tmp_path_factory.mktemp("package") / "package.log"
    # scripts/test packages before the suite starts, so this is a quick second run there; run alone,
    # the first release build may take longer than the session's backstop allows, which waits.
    faulthandler.cancel_dump_traceback_later()
    try:
        with open(log, "wb") as out:
            result = subprocess.run(
                ["scripts/package"], cwd=REPO_ROOT, stdout=out, stderr=subprocess.STDOUT, timeout=3600,
                preexec_fn=_set_pdeathsig,
            )
    finally:
        faulthandler.dump_traceback_later(SESSION_HARD_LIMIT, exit=True)
    if result.returncode != 0:
        pytest.fail(f"scripts/package exited {result.returncode}:\n{log.read_text()[-6000:]}", pytrace=False)
    dist = REPO_ROOT / "dist"
    [wheel] = dist.glob(f"firehose_local-{VERSION}-py3-none-manylinux_*_*_x86_64.whl")
    [plugin_wheel] = dist.glob("pytest_firehose_local-*-py3-none-any.whl")
    return Release(dist / f"firehose-local-{VERSION}-linux-x86_64.tar.gz", wheel, plugin_wheel, expected_commit())


def unpack(tarball: Path, into: Path) -> Path:
    with tarfile.open(tarball) as archive:
        names = archive.getnames()
        top = {name.split("/")[0] for name in names}
        assert top == {tarball.name.removesuffix(".tar.gz")}, top
        archive.extractall(into, filter="tar")
    return into / top.pop()


def test_tarball_holds_the_binary_its_libraries_and_their_notices(release: Release, tmp_path: Path):
    unpacked = unpack(release.tarball, tmp_path)
    binary = unpacked / "bin" / "firehose-local"
    assert os.access(binary, os.X_OK)
    result = run(["ldd", str(binary)])
    assert result.returncode == 0, result.stderr
    libraries = linked_libraries(result.stdout.decode())
    assert outside_c_runtime_and(str(unpacked / "lib"), libraries) == {}
    assert [name for name in libraries if name.startswith(("libswift", "libFoundation", "lib_Foundation", "libdispatch"))] == []
    assert [name for name in libraries if name.startswith(NETWORKING)] == []
    # jq and oniguruma have no static archives in Debian: they travel with the binary.
    assert {"libjq.so.1", "libonig.so.5"} <= {path.name for path in (unpacked / "lib").iterdir()}
    assert (unpacked / "share" / "doc" / "libjq1" / "copyright").is_file()
    version = run([str(binary), "--version"])
    assert version.stdout.decode().strip() == f"firehose-local {VERSION} (commit {release.commit})"


def test_wheel_carries_the_release_with_a_console_command(release: Release):
    with zipfile.ZipFile(release.wheel) as wheel:
        names = wheel.namelist()
        info = f"firehose_local-{VERSION}.dist-info"
        assert "firehose_local/release/bin/firehose-local" in names
        assert wheel.getinfo("firehose_local/release/bin/firehose-local").external_attr >> 16 & 0o111
        assert "firehose_local/release/lib/libjq.so.1" in names
        tag = wheel.read(f"{info}/WHEEL").decode()
        assert f"Tag: {release.wheel.name.removesuffix('.whl').split('-', 2)[2]}\n" in tag
        assert "firehose-local = firehose_local:main" in wheel.read(f"{info}/entry_points.txt").decode()
        # Every file is in RECORD with its hash and size, as pip checks them.
        record = {}
        for line in wheel.read(f"{info}/RECORD").decode().splitlines():
            name, digest, size = line.rsplit(",", 2)
            record[name] = (digest, size)
        assert set(record) == set(names)
        for name in names:
            if name == f"{info}/RECORD":
                continue
            data = wheel.read(name)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert record[name] == (f"sha256={digest}", str(len(data))), name


# -- a bare Debian 12 root ---------------------------------------------------------------------------


def debian_mirror() -> str:
    for path in [Path("/etc/apt/sources.list.d/debian.sources"), Path("/etc/apt/sources.list")]:
        if path.is_file():
            match = re.search(r"(?m)^(?:URIs:\s*|deb\s+(?:\[[^]]*\]\s+)?)(https?://\S+/debian)\s", path.read_text())
            if match:
                return match[1]
    return "http://deb.debian.org/debian"


@pytest.fixture(scope="module")
def bare_root() -> Path:
    """A minimal Debian 12 root (debootstrap minbase, with python3 and its venv module), made once
    and kept; each test works in its own folder under its /tmp."""
    if os.geteuid() != 0:
        pytest.skip("the bare Debian root needs root (debootstrap, chroot, a mount namespace); docs/releases.md says how to run it")
    for tool in ("debootstrap", "unshare", "chroot"):
        if shutil.which(tool) is None:
            pytest.skip(f"no {tool}: apt-get install debootstrap (scripts/prerequisites test does)")
    probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"no mount namespace here (a container without the privilege?): {probe.stderr.strip()}")
    root, ready = BARE_ROOT / "root", BARE_ROOT / "ready"
    if not ready.is_file():
        shutil.rmtree(BARE_ROOT, ignore_errors=True)
        BARE_ROOT.mkdir(parents=True)
        mirror = debian_mirror()
        # In a mount namespace of its own: the /proc and /sys it mounts inside go with it, even
        # when it is stopped before it unmounts them.
        result = subprocess.run(
            ["unshare", "--mount", "--propagation", "private",
             "debootstrap", "--variant=minbase", "--include=python3,python3-venv,ca-certificates",
             "bookworm", str(root), mirror],
            capture_output=True, text=True, timeout=1800,
        )
        if result.returncode != 0:
            pytest.skip(f"debootstrap from {mirror} failed, so the bare root cannot be made here:\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
        ready.write_text(mirror + "\n")
    # Bare: no Swift toolchain and none of the -dev packages the build needs.
    assert not (root / "opt" / "swift").exists() and shutil.which("swift", path=str(root / "usr/bin")) is None
    for header in ("jq.h", "zlib.h", "sqlite3.h", "snappy-c.h", "libdeflate.h"):
        assert not (root / "usr" / "include" / header).exists(), header
    assert not list((root / "usr" / "lib").glob("**/libswift*"))
    # Name resolution and the host's certificate authorities, for pip inside.
    shutil.copyfile("/etc/resolv.conf", root / "etc" / "resolv.conf")
    return root


def in_root(root: Path, *argv: str) -> list[str]:
    """The command that runs argv inside root, with /proc mounted in a mount namespace of its own
    (gone with the process)."""
    script = 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"'
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, str(root), *argv]


def root_env() -> dict[str, str]:
    env = {"PATH": BARE_PATH, "HOME": "/root", "LANG": "C.UTF-8"}
    for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "NO_PROXY", "no_proxy"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


@pytest.fixture
def workspace(bare_root: Path):
    """A folder under the root's /tmp: (its path outside, its path inside)."""
    inside = f"/tmp/release-test-{uuid.uuid4().hex[:8]}"
    outside = bare_root / inside.lstrip("/")
    outside.mkdir(parents=True)
    yield outside, inside
    shutil.rmtree(outside, ignore_errors=True)


class RootedFirehoseLocal(FirehoseLocal):
    """The server started inside the bare root; its files are reached from outside through the
    root's folder, its port through the shared network."""

    def __init__(self, root: Path, binary_inside: str, outside: Path, inside: str, config: dict):
        super().__init__(Path(binary_inside), outside, config)
        self.root, self.inside = root, inside

    def command(self) -> list[str]:
        return in_root(
            self.root, str(self.binary), "serve", "--host", "127.0.0.1", "--port", "0",
            "--port-file", f"{self.inside}/port", "--data-dir", f"{self.inside}/data",
            "--config", f"{self.inside}/{self.config_path.name}",
        )


@pytest.mark.timeout_s(300)
def test_tarball_serves_boto3_in_a_bare_debian_root(release: Release, bare_root: Path, workspace):
    outside, inside = workspace
    unpacked = unpack(release.tarball, outside)
    binary_inside = f"{inside}/{unpacked.name}/bin/firehose-local"
    linked = subprocess.run(in_root(bare_root, "ldd", binary_inside), env=root_env(), capture_output=True, text=True)
    assert linked.returncode == 0, linked.stderr
    libraries = linked_libraries(linked.stdout)
    assert "not found" not in libraries.values()
    assert outside_c_runtime_and(f"{inside}/{unpacked.name}/lib", libraries) == {}

    server = RootedFirehoseLocal(bare_root, binary_inside, outside, inside,
                                 standard_config(DeliveryStreams=[ext_stream("bare-events")]))
    server.spawn()
    try:
        server.wait_ready()
        records = [f'{{"n":{n}}}\n'.encode() for n in range(50)]
        answer = server.client().put_record_batch(
            DeliveryStreamName="bare-events", Records=[{"Data": r} for r in records])
        assert answer["FailedPutCount"] == 0
        server.flush()
        s3 = server.s3()
        keys = [o["Key"] for o in s3.list_objects_v2(Bucket="demo-bucket")["Contents"]]
        delivered = b"".join(s3.get_object(Bucket="demo-bucket", Key=key)["Body"].read() for key in sorted(keys))
        assert delivered == b"".join(records)
        assert server.stop() == 0, server.stderr_tail()
    finally:
        server.kill()


PYTEST_FILE = '''
import firehose_local as packaged
import pytest

CONFIG = {"DeliveryStreams": [{
    "DeliveryStreamName": "app-events",
    "ExtendedS3DestinationConfiguration": {
        "BucketARN": "arn:aws:s3:::app-bucket",
        "RoleARN": "arn:aws:iam::000000000000:role/firehose",
        "CompressionFormat": "GZIP",
        "ProcessingConfiguration": {"Enabled": True, "Processors": [{"Type": "AppendDelimiterToRecord"}]},
    },
}]}


@pytest.mark.firehose_local(config=CONFIG)
def test_delivered_by_the_wheel_binary(firehose_local):
    # The plugin runs the wheel's binary, not one on PATH or in a checkout.
    assert firehose_local.binary == packaged.binary_path().resolve()
    firehose_local.firehose.put_record_batch(
        DeliveryStreamName="app-events", Records=[{"Data": b'{"n":1}'}, {"Data": b'{"n":2}'}])
    [written] = firehose_local.flush()
    assert written["records"] == 2
    assert firehose_local.records("app-events") == [b'{"n":1}', b'{"n":2}']
'''


@pytest.mark.timeout_s(900)
def test_wheels_run_a_pytest_suite_in_a_bare_debian_root(release: Release, bare_root: Path, workspace):
    outside, inside = workspace
    for wheel in (release.wheel, release.plugin_wheel):
        shutil.copyfile(wheel, outside / wheel.name)
    (outside / "test_bare.py").write_text(PYTEST_FILE)
    env = root_env()
    if Path("/etc/ssl/certs/ca-certificates.crt").is_file():
        # The host's authorities (a proxy's among them) for pip inside the root.
        shutil.copyfile("/etc/ssl/certs/ca-certificates.crt", outside / "ca.crt")
        env["PIP_CERT"] = f"{inside}/ca.crt"
    steps = [
        ["python3", "-m", "venv", f"{inside}/venv"],
        [f"{inside}/venv/bin/pip", "install", "--no-cache-dir", "--disable-pip-version-check", "-q",
         f"{inside}/{release.wheel.name}", f"{inside}/{release.plugin_wheel.name}"],
        [f"{inside}/venv/bin/firehose-local", "--version"],
        ["sh", "-c", f"cd {inside} && exec {inside}/venv/bin/python -m pytest -q -p no:cacheprovider test_bare.py"],
    ]
    outputs = []
    for step in steps:
        result = subprocess.run(in_root(bare_root, *step), env=env, capture_output=True, text=True, timeout=600)
        outputs.append(result.stdout + result.stderr)
        assert result.returncode == 0, f"{' '.join(step)} exited {result.returncode}:\n{outputs[-1][-6000:]}"
    assert outputs[2].strip() == f"firehose-local {VERSION} (commit {release.commit})"
    assert re.search(r"\b1 passed\b", outputs[3]), outputs[3]


@pytest.mark.timeout_s(300)
def test_ci_example_runs_with_the_wheel_installed(release: Release, tmp_path: Path):
    # docs/ci-example.sh's recipe without Swift: pip install the wheel, and `firehose-local` is on PATH.
    venv = tmp_path / "venv"
    assert run(["python3", "-m", "venv", str(venv)]).returncode == 0
    install = run([str(venv / "bin" / "pip"), "install", "-q", "--no-index", "--no-deps", str(release.wheel)], timeout=300)
    assert install.returncode == 0, install.stderr.decode()
    home = tmp_path / "home"
    home.mkdir()
    env = clean_env({
        "PATH": f"{venv / 'bin'}:{os.environ['PATH']}",
        "AWS_CLI": " ".join(aws_cli_command()),
        "HOME": str(home),
        "TMPDIR": str(tmp_path),
    })
    assert shutil.which("firehose-local", path=env["PATH"]) == str(venv / "bin" / "firehose-local")
    result = subprocess.run(["bash", str(REPO_ROOT / "docs" / "ci-example.sh")], capture_output=True, timeout=200,
                            env=env, cwd=tmp_path, stdin=subprocess.DEVNULL)
    out = result.stdout.decode()
    assert result.returncode == 0, f"exit {result.returncode}\nstdout:\n{out}\nstderr:\n{result.stderr.decode()}"
    assert "== passed" in out


@pytest.mark.timeout_s(600)
def test_scripts_serve_builds_and_serves_the_sample_configuration(release: Release, tmp_path: Path):
    # README's first command, with a free port and a data directory of the test's own: it builds
    # (after scripts/package, only what changed) and serves sample-data/firehose-local.yaml.
    port_file, data = tmp_path / "port", tmp_path / "data"
    log = open(tmp_path / "serve.log", "wb")
    proc = subprocess.Popen(
        ["scripts/serve", "--port", "0", "--port-file", str(port_file), "--data-dir", str(data)],
        cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT, env=clean_env(), preexec_fn=_set_pdeathsig,
    )
    try:
        for _ in range(3000):  # the build's relink and the start, well under 5 minutes
            if port_file.is_file() and port_file.read_text().endswith("\n") or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert proc.poll() is None, (tmp_path / "serve.log").read_text()[-4000:]
        endpoint = f"http://127.0.0.1:{int(port_file.read_text())}"
        firehose = boto3.client("firehose", endpoint_url=endpoint, region_name="us-east-1",
                                aws_access_key_id="test", aws_secret_access_key="test")
        assert firehose.put_record(DeliveryStreamName="app-events", Record={"Data": b"hello"})["RecordId"]
        request = urllib.request.Request(f"{endpoint}/_local/flush", method="POST")
        with urllib.request.urlopen(request, timeout=60) as answer:
            [written] = json.load(answer)["objects"]
        assert written["stream"] == "app-events" and written["records"] == 1
        [delivered] = (data / "demo-bucket").rglob("app-events-*.gz")
        assert gzip.decompress(delivered.read_bytes()) == b"hello\n"  # the sample's AppendDelimiterToRecord
        proc.send_signal(signal.SIGTERM)  # the script exec'd the server: the signal reaches it
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        log.close()
    assert b"== serving sample-data/firehose-local.yaml" in (tmp_path / "serve.log").read_bytes()
