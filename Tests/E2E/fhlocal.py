"""Helpers for the firehose-local end-to-end suite.

Everything here talks to the *real* process: it is started with the documented
command line (or environment), the suite waits for the port file and
``GET /_local/health``, and every interaction goes over HTTP or through the
data directory.  Nothing in here can block forever: every wait, subprocess and
socket operation carries a timeout.
"""

from __future__ import annotations

import datetime as _dt
import gzip
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import zoneinfo
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import boto3
import botocore
from botocore import UNSIGNED
from botocore.auth import SIGV4_TIMESTAMP, SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

try:  # PyYAML ships with awscli v1; JSON is valid YAML, so fall back to it.
    import yaml as _yaml
except ImportError:  # pragma: no cover
    _yaml = None

# --------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_BINARY = REPO_ROOT / ".build" / "debug" / "firehose-local"

ACCOUNT_ID = "000000000000"
REGION = "us-east-1"
BUCKET = "demo-bucket"
SECOND_BUCKET = "second-bucket"
ROLE_ARN = "arn:aws:iam::000000000000:role/firehose"
TARGET_PREFIX = "Firehose_20150804."
JSON_CT = "application/x-amz-json-1.1"
STAGING_DIR = ".firehose-local"

MAX_RECORD = 1_024_000
MAX_BATCH_RECORDS = 500
MAX_BATCH_BYTES = 4 * 1024 * 1024  # 4,194,304
MIB = 1024 * 1024

STARTUP_TIMEOUT = 20.0
SHUTDOWN_TIMEOUT = 15.0
HTTP_TIMEOUT = 60.0
BAD_CONFIG_EXIT_TIMEOUT = 10.0

STREAM_NAME_PATTERN = "[a-zA-Z0-9_.-]+"

UUID4_RE = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
FILE_TS_RE = (
    r"(?P<Y>\d{4})-(?P<M>\d{2})-(?P<D>\d{2})-(?P<h>\d{2})-(?P<m>\d{2})-(?P<s>\d{2})"
)
HOUR_PREFIX_RE = r"(?P<pY>\d{4})/(?P<pM>\d{2})/(?P<pD>\d{2})/(?P<ph>\d{2})/"
HIVE_PREFIX = (
    "year=!{timestamp:yyyy}/month=!{timestamp:MM}/day=!{timestamp:dd}/hour=!{timestamp:HH}/"
)
ERROR_PREFIX = "errors/!{firehose:error-output-type}/"


def binary_path() -> Path:
    env = os.environ.get("FIREHOSE_LOCAL_BIN")
    return Path(env) if env else DEFAULT_BINARY


def missing_binary_message(path: Path) -> str:
    return (
        f"firehose-local binary not found at {path}.\n"
        f"Build it first:  cd {REPO_ROOT} && swift build\n"
        "(or point FIREHOSE_LOCAL_BIN at an existing binary). "
        "The end-to-end suite cannot run without the real process."
    )


# --------------------------------------------------------------------------
# Config builders
# --------------------------------------------------------------------------


def destination(bucket: str = BUCKET, **fields: Any) -> dict:
    d: dict[str, Any] = {"BucketARN": f"arn:aws:s3:::{bucket}", "RoleARN": ROLE_ARN}
    d.update(fields)
    return d


def ext_stream(name: str, bucket: str = BUCKET, **fields: Any) -> dict:
    """A stream with ExtendedS3DestinationConfiguration."""
    return {
        "DeliveryStreamName": name,
        "ExtendedS3DestinationConfiguration": destination(bucket, **fields),
    }


def s3_stream(name: str, bucket: str = BUCKET, **fields: Any) -> dict:
    """A stream with the legacy S3DestinationConfiguration."""
    return {"DeliveryStreamName": name, "S3DestinationConfiguration": destination(bucket, **fields)}


def hints(size_mb: int, interval_s: int) -> dict:
    return {"BufferingHints": {"SizeInMBs": size_mb, "IntervalInSeconds": interval_s}}


DELIMITER = {
    "ProcessingConfiguration": {
        "Enabled": True,
        "Processors": [{"Type": "AppendDelimiterToRecord"}],
    }
}

DEFAULT_CREDENTIALS = [
    {"AccessKeyId": "test", "SecretAccessKey": "test"},
    {"AccessKeyId": "ASIATEMP", "SecretAccessKey": "tempsecret", "SessionToken": "tok123"},
]


def standard_streams() -> list[dict]:
    """Every stream the shared (module-scoped) servers know.  Each test uses
    its own stream(s) so tests sharing one server cannot interfere."""
    gz = {"CompressionFormat": "GZIP"}
    return [
        # The spec's own example shape, with explicit empty prefixes.
        ext_stream("app-events", Prefix="", ErrorOutputPrefix="", CompressionFormat="UNCOMPRESSED"),
        # delivery / read-back
        ext_stream("roundtrip"),
        ext_stream("bin-plain"),
        ext_stream("bin-gz", **gz),
        ext_stream("empty-recs"),
        ext_stream("gz-events", **gz),
        ext_stream("gz-ext", FileExtension=".json.gz", **gz),
        ext_stream("plain-ext", FileExtension=".jsonl"),
        ext_stream("delim", **DELIMITER),
        ext_stream("delim-gz", **DELIMITER, **gz),
        ext_stream("nodelim"),
        ext_stream("order"),
        ext_stream("no-early"),
        ext_stream("two-flushes"),
        ext_stream("flush-a"),
        ext_stream("flush-b"),
        ext_stream("flush-c"),
        ext_stream("flush-empty"),
        ext_stream("elsewhere", bucket=SECOND_BUCKET),
        s3_stream("legacy-s3", Prefix="legacy/", **gz),
        ext_stream("shape"),
        # key layout
        ext_stream("key-plain"),
        ext_stream("key-gz", **gz),
        ext_stream("key-first"),
        ext_stream("pfx-slash", Prefix="logs/"),
        ext_stream("pfx-noslash", Prefix="logs"),
        ext_stream("pfx-hive", Prefix=HIVE_PREFIX, ErrorOutputPrefix=ERROR_PREFIX),
        ext_stream(
            "pfx-compound",
            Prefix="dt=!{timestamp:yyyy-MM-dd}/h=!{timestamp:HH}/",
            ErrorOutputPrefix=ERROR_PREFIX,
        ),
        ext_stream(
            "pfx-random",
            Prefix="rnd/!{firehose:random-string}/x-!{firehose:random-string}/",
            ErrorOutputPrefix="errors/",
        ),
        ext_stream("tz-ny", CustomTimeZone="America/New_York"),
        ext_stream("tz-kolkata", Prefix="ist/", CustomTimeZone="Asia/Kolkata"),
        # buffering
        ext_stream("instant", **hints(1, 0)),
        ext_stream("instant-gz", **hints(1, 0), **gz),
        ext_stream("interval2", **hints(1, 2)),
        ext_stream("size1", **hints(1, 900)),
        ext_stream("size1-gz", **hints(1, 900), **gz),
        ext_stream("watch-plain", **hints(1, 900)),
        ext_stream("watch-gz", **hints(1, 900), **gz),
        # errors / auth / raw / cli / concurrency
        ext_stream("errs"),
        ext_stream("limits"),
        ext_stream("raw"),
        ext_stream("dup-members"),
        ext_stream("auth"),
        ext_stream("gzbody"),
        ext_stream("cli"),
        ext_stream("cli-batch"),
        ext_stream("conc"),
        ext_stream("conc-gz", **DELIMITER, **gz),
        ext_stream("conns"),
        ext_stream("big-batch"),
    ]


def standard_config(**top: Any) -> dict:
    cfg: dict[str, Any] = {
        "Authentication": "verify",
        "Credentials": DEFAULT_CREDENTIALS,
        "GzipLevel": 6,
        "DeliveryStreams": standard_streams(),
    }
    cfg.update(top)
    return cfg


def dump_config(config: dict, as_json: bool = False) -> str:
    if as_json or _yaml is None:
        return json.dumps(config, indent=2)
    return _yaml.safe_dump(config, sort_keys=False, default_flow_style=False)


# --------------------------------------------------------------------------
# Raw HTTP
# --------------------------------------------------------------------------


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]  # lower-cased names
    body: bytes

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError as exc:  # pragma: no cover - message only
            raise AssertionError(
                f"response body is not JSON (HTTP {self.status}): {self.body[:500]!r}"
            ) from exc

    def __repr__(self) -> str:
        return f"RawResponse(status={self.status}, headers={self.headers}, body={self.body[:400]!r})"


def http_request(
    host: str,
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = HTTP_TIMEOUT,
) -> RawResponse:
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        data = resp.read()
        return RawResponse(resp.status, {k.lower(): v for k, v in resp.getheaders()}, data)
    finally:
        conn.close()


class FixedTimeSigV4Auth(SigV4Auth):
    """botocore's SigV4 signer with an injectable signing time (for skew tests)."""

    def __init__(self, credentials, service_name, region_name, when: _dt.datetime | None):
        super().__init__(credentials, service_name, region_name)
        self._when = when

    def add_auth(self, request):
        when = self._when or _dt.datetime.now(_dt.timezone.utc)
        when = when.astimezone(_dt.timezone.utc)
        request.context["timestamp"] = when.strftime(SIGV4_TIMESTAMP)
        self._modify_request_before_signing(request)
        if "Date" in request.headers:
            # botocore writes "... -0000"; send the usual IMF-fixdate ("... GMT").
            from email.utils import format_datetime

            del request.headers["Date"]
            request.headers["Date"] = format_datetime(when.replace(microsecond=0), usegmt=True)
        canonical_request = self.canonical_request(request)
        string_to_sign = self.string_to_sign(request, canonical_request)
        signature = self.signature(string_to_sign, request)
        self._inject_signature_to_request(request, signature)


def sigv4_headers(
    *,
    url: str,
    headers: dict[str, str],
    body: bytes,
    access_key: str = "test",
    secret_key: str = "test",
    token: str | None = None,
    region: str = REGION,
    service: str = "firehose",
    when: _dt.datetime | None = None,
) -> dict[str, str]:
    """Return ``headers`` plus X-Amz-Date/Authorization (and token) as botocore signs them."""
    req = AWSRequest(method="POST", url=url, data=body, headers=dict(headers))
    FixedTimeSigV4Auth(Credentials(access_key, secret_key, token), service, region, when).add_auth(req)
    return dict(req.headers.items())


def put_in_batches(fh, stream: str, recs: list[bytes], per_request: int) -> None:
    """PutRecordBatch of ``recs``, ``per_request`` at a time, each answered with no failed record."""
    for start in range(0, len(recs), per_request):
        batch = [{"Data": r} for r in recs[start:start + per_request]]
        resp = fh.put_record_batch(DeliveryStreamName=stream, Records=batch)
        assert resp["FailedPutCount"] == 0


def b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode("ascii")


# --------------------------------------------------------------------------
# Keys
# --------------------------------------------------------------------------


def object_name_re(stream: str, ext: str = "", version: int = 1) -> str:
    return (
        re.escape(stream)
        + f"-{version}-"
        + FILE_TS_RE
        + r"-(?P<uuid>"
        + UUID4_RE
        + ")"
        + re.escape(ext)
    )


def match_key(key: str, stream: str, *, prefix_re: str = HOUR_PREFIX_RE, ext: str = "") -> re.Match:
    pattern = "^" + prefix_re + object_name_re(stream, ext) + "$"
    m = re.match(pattern, key)
    assert m, f"object key {key!r} does not match the expected layout {pattern!r}"
    return m


def key_time(m: re.Match, tz: str = "UTC") -> _dt.datetime:
    """The timestamp in the object *name* as an aware datetime."""
    local = _dt.datetime(
        int(m["Y"]), int(m["M"]), int(m["D"]), int(m["h"]), int(m["m"]), int(m["s"])
    )
    return local.replace(tzinfo=zoneinfo.ZoneInfo(tz))


def assert_time_in_window(when: _dt.datetime, before: float, after: float, slack: float = 1.0) -> None:
    """``when`` (second precision) must lie in [before, after] (epoch seconds)."""
    ts = when.timestamp()
    assert int(before) - slack <= ts <= after + slack, (
        f"key time {when.isoformat()} is not the arrival time of the first record: expected "
        f"between {_dt.datetime.fromtimestamp(before, _dt.timezone.utc).isoformat()} and "
        f"{_dt.datetime.fromtimestamp(after, _dt.timezone.utc).isoformat()}"
    )


def assert_hour_prefix_matches(m: re.Match) -> None:
    """The yyyy/MM/dd/HH/ prefix and the name's timestamp come from the same instant."""
    got = (m["pY"], m["pM"], m["pD"], m["ph"])
    want = (m["Y"], m["M"], m["D"], m["h"])
    assert got == want, f"prefix date {got} differs from the object name's date {want}"


# --------------------------------------------------------------------------
# Server process
# --------------------------------------------------------------------------

_UNSET = object()
_REGISTRY_LOCK = threading.Lock()
ALL_SERVERS: list["FirehoseLocal"] = []
CURRENT_TEST: list[str] = [""]


def _set_pdeathsig() -> None:  # runs in the child between fork and exec
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG: die with the test runner
    except Exception:
        pass


def clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The parent's environment minus anything that could configure the server
    or the AWS SDKs behind our back."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not (k.startswith("FIREHOSE_LOCAL_") or k.startswith("AWS_"))
    }
    env.update(extra or {})
    return env


class FirehoseLocal:
    """One firehose-local process."""

    def __init__(
        self,
        binary: Path,
        workdir: Path,
        config: dict | str | None,
        *,
        name: str = "server",
        config_name: str = "firehose.yaml",
        extra_args: Iterable[str] = (),
        extra_env: dict[str, str] | None = None,
        use_flags: bool = True,
        region: str = REGION,
        account_id: str = ACCOUNT_ID,
    ):
        self.binary = Path(binary)
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.data_dir = self.workdir / "data"
        self.data_dir.mkdir(exist_ok=True)
        self.port_file = self.workdir / "port"
        self.config_path = self.workdir / config_name
        self.stderr_path = self.workdir / "stderr.log"
        self.stdout_path = self.workdir / "stdout.log"
        self.extra_args = list(extra_args)
        self.extra_env = dict(extra_env or {})
        self.use_flags = use_flags
        self.region = region
        self.account_id = account_id
        self.host = "127.0.0.1"
        self.port: int | None = None
        self.proc: subprocess.Popen | None = None
        self.returncode: int | None = None
        self.started_in = ""
        self.stopped_in = ""
        self._clients: dict[tuple, Any] = {}
        if config is not None:
            text = config if isinstance(config, str) else dump_config(config, config_name.endswith(".json"))
            self.config_path.write_text(text)

    # -- lifecycle ---------------------------------------------------------

    def command(self) -> list[str]:
        cmd = [str(self.binary), "serve"]
        if self.use_flags:
            cmd += [
                "--host", self.host,
                "--port", "0",
                "--port-file", str(self.port_file),
                "--data-dir", str(self.data_dir),
                "--config", str(self.config_path),
            ]
        return cmd + self.extra_args

    def spawn(self) -> subprocess.Popen:
        assert not self.port_file.exists(), "stale port file"
        self._stderr_fh = open(self.stderr_path, "wb")
        self._stdout_fh = open(self.stdout_path, "wb")
        self.proc = subprocess.Popen(
            self.command(),
            cwd=self.workdir,
            env=clean_env(self.extra_env),
            stdin=subprocess.DEVNULL,
            stdout=self._stdout_fh,
            stderr=self._stderr_fh,
            preexec_fn=_set_pdeathsig,
        )
        self.started_in = CURRENT_TEST[0]
        with _REGISTRY_LOCK:
            ALL_SERVERS.append(self)
        return self.proc

    def start(self, timeout: float = STARTUP_TIMEOUT) -> "FirehoseLocal":
        self.spawn()
        self.wait_ready(timeout)
        return self

    def wait_ready(self, timeout: float = STARTUP_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        last_error = "port file never appeared"
        while time.monotonic() < deadline:
            rc = self.proc.poll()
            if rc is not None:
                self.returncode = rc
                self.stopped_in = CURRENT_TEST[0]
                raise AssertionError(
                    f"firehose-local exited with code {rc} during startup.\n"
                    f"command: {self.command()}\nstderr:\n{self.stderr_tail()}"
                )
            if self.port is None:
                try:
                    text = self.port_file.read_text()
                except FileNotFoundError:
                    text = ""
                if re.fullmatch(r"\d+\n", text) and int(text) > 0:
                    self.port = int(text)
                elif text:
                    last_error = f"port file holds {text!r}"
            if self.port is not None:
                try:
                    r = self.http("GET", "/_local/health", timeout=2)
                    if r.status == 200 and r.json() == {"status": "ok"}:
                        return
                    last_error = f"health answered {r!r}"
                except (OSError, http.client.HTTPException) as exc:
                    last_error = f"health check failed: {exc!r}"
            time.sleep(0.05)
        self.kill()
        raise AssertionError(
            f"firehose-local was not ready within {timeout:.0f} s ({last_error}).\n"
            f"command: {self.command()}\nstderr:\n{self.stderr_tail()}"
        )

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = SHUTDOWN_TIMEOUT) -> int:
        """Send ``sig`` and wait (bounded) for the exit code."""
        if self.proc is None:
            return 0
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                raise AssertionError(
                    f"firehose-local did not exit within {timeout:.0f} s of signal {sig}.\n"
                    f"stderr:\n{self.stderr_tail()}"
                )
        self.returncode = self.proc.returncode
        self.stopped_in = CURRENT_TEST[0]
        self._close_logs()
        return self.returncode

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass
        if self.proc is not None:
            self.returncode = self.proc.returncode
            self.stopped_in = self.stopped_in or CURRENT_TEST[0]
        self._close_logs()

    def _close_logs(self) -> None:
        for fh in (getattr(self, "_stderr_fh", None), getattr(self, "_stdout_fh", None)):
            if fh is not None and not fh.closed:
                fh.close()

    def stderr_text(self) -> str:
        try:
            return self.stderr_path.read_bytes().decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def stderr_tail(self, limit: int = 20_000) -> str:
        text = self.stderr_text()
        return text if len(text) <= limit else "...(truncated)...\n" + text[-limit:]

    # -- HTTP ----------------------------------------------------------------

    @property
    def endpoint(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def host_header(self) -> str:
        return f"{self.host}:{self.port}"

    def http(self, method: str, path: str, body: bytes | None = None,
             headers: dict[str, str] | None = None, timeout: float = HTTP_TIMEOUT) -> RawResponse:
        return http_request(self.host, self.port, method, path, body, headers, timeout)

    def flush(self, stream: str | None = None) -> dict:
        from urllib.parse import quote

        path = "/_local/flush" + (f"?stream={quote(stream, safe='')}" if stream is not None else "")
        r = self.http("POST", path, body=b"")
        assert r.status == 200, f"flush({stream!r}) failed: {r!r}"
        body = r.json()
        assert isinstance(body, dict) and isinstance(body.get("objects"), list), body
        return body

    def health(self) -> RawResponse:
        return self.http("GET", "/_local/health")

    def request_parts(
        self,
        body: bytes | str | dict | None,
        *,
        op: str = "PutRecord",
        target: Any = _UNSET,
        content_type: str | None = JSON_CT,
        sign: bool = True,
        access_key: str = "test",
        secret_key: str = "test",
        token: str | None = None,
        region: str | None = None,
        service: str = "firehose",
        when: _dt.datetime | None = None,
        gzip_body: bool = False,
        sign_body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[dict[str, str], bytes]:
        """Build (headers, body) of a Firehose API call, signed with botocore's SigV4Auth.
        ``op`` names the operation; ``target`` overrides the whole X-Amz-Target
        header (``None`` leaves it out)."""
        if isinstance(body, (dict, list)):
            payload = json.dumps(body).encode()
        elif isinstance(body, str):
            payload = body.encode()
        else:
            payload = body or b""
        if gzip_body:
            payload = gzip.compress(payload)
        hdrs: dict[str, str] = {"Host": self.host_header}
        if content_type is not None:
            hdrs["Content-Type"] = content_type
        if target is _UNSET:
            target = TARGET_PREFIX + op
        if target is not None:
            hdrs["X-Amz-Target"] = target
        if gzip_body:
            hdrs["Content-Encoding"] = "gzip"
        hdrs.update(headers or {})
        if sign:
            signed = sigv4_headers(
                url=self.endpoint + "/",
                headers=hdrs,
                body=payload if sign_body is None else sign_body,
                access_key=access_key,
                secret_key=secret_key,
                token=token,
                region=region or self.region,
                service=service,
                when=when,
            )
        else:
            signed = hdrs
        return signed, payload

    def raw(self, body: bytes | str | dict | None, *, mutate: Callable[[dict], None] | None = None,
            **kw: Any) -> RawResponse:
        """Send a (by default signed) Firehose API call; ``mutate`` may edit the
        final headers after signing."""
        hdrs, payload = self.request_parts(body, **kw)
        if mutate is not None:
            mutate(hdrs)
        return self.http("POST", "/", payload, hdrs)

    # -- boto3 ---------------------------------------------------------------

    def client(
        self,
        access_key: str = "test",
        secret_key: str = "test",
        token: str | None = None,
        region: str | None = None,
        *,
        validate: bool = False,
        signed: bool = True,
        pool: int = 10,
        session: boto3.session.Session | None = None,
        cache: bool = True,
    ):
        """A boto3 firehose client pointed at this server.  Parameter validation
        is off by default so the *server's* validation is what gets tested, and
        there are no retries so every error is seen exactly as sent."""
        region = region or self.region
        ckey = (access_key, secret_key, token, region, validate, signed, pool)
        if cache and session is None and ckey in self._clients:
            return self._clients[ckey]
        cfg = Config(
            region_name=region,
            retries={"total_max_attempts": 1, "mode": "standard"},
            parameter_validation=validate,
            connect_timeout=10,
            read_timeout=HTTP_TIMEOUT,
            max_pool_connections=pool,
        )
        if not signed:
            cfg = cfg.merge(Config(signature_version=UNSIGNED))
        session = session or boto3.session.Session()
        client = session.client(
            "firehose",
            endpoint_url=self.endpoint,
            region_name=region,
            aws_access_key_id=access_key,
            aws_secret_access_key=secret_key,
            aws_session_token=token,
            config=cfg,
        )
        if cache and ckey not in self._clients:
            self._clients[ckey] = client
        return client

    def s3(self, access_key: str = "test", secret_key: str = "test", *, signature_version: str | None = None,
           addressing_style: str = "path", signed: bool = True):
        """A boto3 S3 client pointed at this server (the same endpoint URL as Firehose), no retries."""
        cfg = Config(
            region_name=self.region,
            retries={"total_max_attempts": 1, "mode": "standard"},
            s3={"addressing_style": addressing_style},
            connect_timeout=10,
            read_timeout=HTTP_TIMEOUT,
        )
        if signature_version:
            cfg = cfg.merge(Config(signature_version=signature_version))
        if not signed:
            cfg = cfg.merge(Config(signature_version=UNSIGNED))
        return boto3.session.Session().client(
            "s3", endpoint_url=self.endpoint, region_name=self.region, aws_access_key_id=access_key,
            aws_secret_access_key=secret_key, config=cfg)

    # -- data directory --------------------------------------------------------

    def bucket_dir(self, bucket: str = BUCKET) -> Path:
        return self.data_dir / bucket

    def object_paths(self, bucket: str = BUCKET) -> list[tuple[str, Path]]:
        root = self.bucket_dir(bucket)
        out = []
        if not root.is_dir():
            return out
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d != STAGING_DIR]
            for f in filenames:
                p = Path(dirpath) / f
                out.append((p.relative_to(root).as_posix(), p))
        return sorted(out)

    def objects(self, bucket: str = BUCKET) -> list[tuple[str, bytes]]:
        """Sorted (key, raw bytes) of every object in ``bucket``."""
        return [(k, p.read_bytes()) for k, p in self.object_paths(bucket)]

    def buckets(self) -> list[str]:
        return sorted(p.name for p in self.data_dir.iterdir() if p.is_dir() and p.name != STAGING_DIR)

    def read_object(self, bucket: str, key: str, decompress: bool | None = None) -> bytes:
        data = (self.bucket_dir(bucket) / key).read_bytes()
        if decompress is None:
            decompress = key.endswith(".gz") or data[:2] == b"\x1f\x8b"
        return gzip.decompress(data) if decompress else data

    def stream_objects(self, stream: str, bucket: str = BUCKET) -> list[tuple[str, Path]]:
        """Objects whose file name belongs to ``stream``, in delivery order
        (modification time, then key)."""
        rx = re.compile("^" + re.escape(stream) + r"-\d+-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}-")
        found = [(k, p) for k, p in self.object_paths(bucket) if rx.match(k.rsplit("/", 1)[-1])]
        return sorted(found, key=lambda kp: (kp[1].stat().st_mtime_ns, kp[0]))

    def stream_keys(self, stream: str, bucket: str = BUCKET) -> list[str]:
        return [k for k, _ in self.stream_objects(stream, bucket)]

    def delivered(self, stream: str, bucket: str = BUCKET, decompress: bool | None = None) -> bytes:
        """Concatenated (decompressed) content of every object of ``stream``."""
        return b"".join(self.read_object(bucket, k, decompress) for k, _ in self.stream_objects(stream, bucket))


# --------------------------------------------------------------------------
# Misc helpers
# --------------------------------------------------------------------------


def stream_status(server: "FirehoseLocal", name: str) -> dict:
    """One stream's entry in /_local/streams."""
    [status] = [s for s in server.http("GET", "/_local/streams").json()["streams"] if s["name"] == name]
    return status


def error_records(content: bytes) -> list[dict]:
    """The records of an error-output object: one JSON document a line."""
    return [json.loads(line) for line in content.decode().splitlines()]


def expect_client_error(fn: Callable[[], Any], code: str, status: int = 400, *, s3: bool = False,
                        query: bool = False) -> dict:
    """Call ``fn`` expecting a botocore ClientError with ``code`` and HTTP ``status``;
    returns ``e.response``.  Also checks the error headers every error must carry (S3's
    ``x-amz-request-id`` for an S3 client; only ``x-amzn-RequestId`` for a Query-protocol one, IAM,
    whose errors name their code in the body)."""
    try:
        result = fn()
    except ClientError as e:
        resp = e.response
    else:
        raise AssertionError(f"expected {code}, but the call succeeded: {result!r}")
    got = resp["Error"].get("Code")
    meta = resp["ResponseMetadata"]
    assert got == code, f"expected error code {code}, got {got}: {resp['Error']}"
    assert meta["HTTPStatusCode"] == status, f"expected HTTP {status}, got {meta['HTTPStatusCode']}"
    if s3:
        assert meta["HTTPHeaders"].get("x-amz-request-id"), f"missing x-amz-request-id: {meta['HTTPHeaders']}"
    elif query:
        assert meta["HTTPHeaders"].get("x-amzn-requestid"), f"missing x-amzn-RequestId: {meta['HTTPHeaders']}"
    else:
        assert_error_headers(meta["HTTPHeaders"], code)
    return resp


def assert_error_headers(headers: dict[str, str], code: str) -> None:
    from email.utils import parsedate_to_datetime

    h = {k.lower(): v for k, v in headers.items()}
    assert h.get("x-amzn-requestid"), f"missing x-amzn-RequestId header: {h}"
    assert h.get("x-amzn-errortype", "").split(":")[0] == code, f"x-amzn-ErrorType: {h.get('x-amzn-errortype')!r}"
    assert "date" in h, f"missing Date header: {h}"
    served = parsedate_to_datetime(h["date"])
    assert served.tzinfo is not None, h["date"]
    skew = abs(served.timestamp() - time.time())
    assert skew < 120, f"Date header {h['date']!r} is {skew:.0f} s off"


def assert_raw_error(r: RawResponse, code: str, status: int = 400) -> dict:
    assert r.status == status, f"expected HTTP {status} {code}, got {r!r}"
    body = r.json()
    assert body.get("__type", "").split("#")[-1] == code, f"expected __type {code}: {body}"
    assert isinstance(body.get("message"), str), f"error body without a message string: {body}"
    assert_error_headers(r.headers, code)
    return body


def wait_for(predicate: Callable[[], Any], timeout: float, interval: float = 0.05, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:.1f} s waiting for {what}")
        time.sleep(interval)


def run(cmd: list[str], *, timeout: float = 60, env: dict[str, str] | None = None,
        cwd: Path | None = None, input: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        cmd, capture_output=True, timeout=timeout, env=env, cwd=cwd,
        input=input, stdin=None if input is not None else subprocess.DEVNULL,
    )


# Debian's golang-github-aws-aws-sdk-go-dev installs the SDK's sources here, for GOPATH builds.
GO_PATH = "/usr/share/gocode"


def build_go_program(name: str, tmp_path_factory) -> str:
    """Builds Tests/E2E/go/<name> against Debian's AWS SDK for Go (scripts/prerequisites test installs both); skips the
    test when they are missing. Returns the binary's path."""
    import pytest

    if shutil.which("go") is None or not os.path.isdir(f"{GO_PATH}/src/github.com/aws/aws-sdk-go"):
        pytest.skip("needs golang-go and golang-github-aws-aws-sdk-go-dev (apt); scripts/prerequisites test installs them")
    out = tmp_path_factory.mktemp("go") / name
    env = clean_env({"GO111MODULE": "off", "GOPATH": GO_PATH,
                     "GOCACHE": str(tmp_path_factory.getbasetemp() / "gocache")})
    subprocess.run(["go", "build", "-o", str(out), "."], cwd=REPO_ROOT / "Tests" / "E2E" / "go" / name, env=env,
                   check=True, timeout=600, capture_output=True)
    return str(out)


def aws_cli_command() -> list[str]:
    exe = shutil.which("aws")
    return [exe] if exe else [sys.executable, "-m", "awscli"]
