"""One firehose-local process: started on a free port with its own data directory, talked to over
HTTP (``/_local``) and read back through the binary's own ``objects`` and ``tail`` commands."""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Union

Config = Union[Mapping[str, Any], str, os.PathLike, None]

ACCESS_KEY = "test"
SECRET_KEY = "test"
BINARY_NAME = "firehose-local"


class FirehoseLocalError(Exception):
    """firehose-local could not be found, started or asked something; the message says why."""


def find_binary(
    explicit: Optional[str] = None, search_from: Iterable[Path] = (), base: Optional[Path] = None
) -> Path:
    """The firehose-local executable: ``explicit`` (an option or ini value), else
    ``$FIREHOSE_LOCAL_BIN``, else the one in the ``firehose-local`` wheel when it is installed
    (``firehose_local.binary_path()``), else ``firehose-local`` on ``PATH``, else the newest of
    ``.build/release`` and ``.build/debug`` in the first of ``search_from`` (and their parents)
    that has one — a checkout of the Swift package. Relative paths are taken from ``base`` (where
    the run started; the current directory by default)."""
    for source, value in (("the option", explicit), ("FIREHOSE_LOCAL_BIN", os.environ.get("FIREHOSE_LOCAL_BIN"))):
        if value:
            path = Path(base or Path.cwd()) / Path(value).expanduser()
            if not (path.is_file() and os.access(path, os.X_OK)):
                raise FirehoseLocalError(f"{path} (from {source}) is not an executable file.")
            return path.resolve()
    packaged = _packaged_binary()
    if packaged is not None:
        return packaged
    on_path = shutil.which(BINARY_NAME)
    if on_path:
        return Path(on_path).resolve()
    looked: list[str] = []
    for start in search_from:
        for folder in [Path(start).resolve(), *Path(start).resolve().parents]:
            built = [folder / ".build" / kind / BINARY_NAME for kind in ("release", "debug")]
            found = [path for path in built if path.is_file() and os.access(path, os.X_OK)]
            if found:
                return max(found, key=lambda path: path.stat().st_mtime)
            looked.append(str(folder / ".build"))
    raise FirehoseLocalError(
        "firehose-local was not found: give --firehose-local-bin PATH, set FIREHOSE_LOCAL_BIN, put "
        "firehose-local on PATH, or build it (swift build -c release) in the checkout"
        + (f" (looked in {', '.join(looked[:4])}{' …' if len(looked) > 4 else ''})." if looked else ".")
    )


def _packaged_binary() -> Optional[Path]:
    """The binary of the installed ``firehose-local`` wheel (the package ``firehose_local``), or
    None when it is not installed. A wheel whose binary is missing is an error, not a fallback."""
    try:
        import firehose_local  # type: ignore[import-not-found]
    except ImportError:
        return None
    # Another module or folder that happens to be named firehose_local is not the wheel.
    binary_path = getattr(firehose_local, "binary_path", None)
    if not callable(binary_path):
        return None
    path = Path(binary_path())
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise FirehoseLocalError(
            f"the installed firehose-local wheel has no executable at {path}: reinstall it "
            "(pip install --force-reinstall firehose_local-*.whl)"
        )
    return path


# Between fork and exec: a crashed test run leaves no server behind. Linux ties this to the thread that
# started the server, so start servers from the main thread (as pytest runs fixtures), not from a
# thread that ends before them.
def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except Exception:
            pass


class FirehoseLocal:
    """A firehose-local server for one test (or more: it is also a context manager).

    ``config`` is the server's configuration file: a dict (written as JSON, which is YAML), YAML
    text (a str), or a file (a ``pathlib.Path``); None starts with no streams (create them through
    the API).
    ``args`` are more ``serve`` options, e.g. ``["--durability", "none"]``."""

    def __init__(
        self,
        binary: Union[str, os.PathLike],
        workdir: Union[str, os.PathLike],
        config: Config = None,
        *,
        args: Iterable[str] = (),
        region: str = "us-east-1",
        startup_timeout: float = 30.0,
    ):
        # Absolute: the server runs in `workdir`, and relative paths would then point elsewhere.
        self.binary = Path(binary).resolve()
        self.workdir = Path(workdir).resolve()
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.data_dir = self.workdir / "data"
        self.log_path = self.workdir / "firehose-local.log"
        self.region = region
        self.args = list(args)
        self.startup_timeout = startup_timeout
        self.port: Optional[int] = None
        self.returncode: Optional[int] = None
        self._process: Optional[subprocess.Popen] = None
        self._clients: dict[tuple, Any] = {}
        self.config_path: Optional[Path]
        if config is None:
            self.config_path = None
        elif isinstance(config, Mapping):
            self.config_path = self.workdir / "firehose.yaml"
            self.config_path.write_text(json.dumps(config, indent=2))
        elif isinstance(config, str):
            self.config_path = self.workdir / "firehose.yaml"
            self.config_path.write_text(config)
        else:
            self.config_path = Path(config).resolve()
            if not self.config_path.is_file():
                raise FirehoseLocalError(f"configuration file {self.config_path} does not exist.")

    # -- lifecycle ---------------------------------------------------------

    @property
    def command(self) -> list[str]:
        command = [
            str(self.binary), "serve", "--host", "127.0.0.1", "--port", "0",
            "--port-file", str(self.workdir / "port"), "--data-dir", str(self.data_dir),
        ]
        if self.config_path is not None:
            command += ["--config", str(self.config_path)]
        return command + self.args

    def start(self) -> "FirehoseLocal":
        if self._process is not None:
            raise FirehoseLocalError("this firehose-local was already started.")
        port_file = self.workdir / "port"
        port_file.unlink(missing_ok=True)
        with open(self.log_path, "ab") as log:
            self._process = subprocess.Popen(
                self.command, cwd=self.workdir, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent if os.name == "posix" else None,
            )
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            code = self._process.poll()
            if code is not None:
                self.returncode = code
                raise FirehoseLocalError(f"firehose-local exited with code {code} as it started:\n{self.log_tail()}")
            text = port_file.read_text() if port_file.exists() else ""
            if text.endswith("\n") and text.strip().isdigit():
                self.port = int(text)
                try:
                    if self._request("GET", "/_local/health", timeout=2)[0] == 200:
                        return self
                except OSError:
                    pass
            time.sleep(0.05)
        self.kill()
        raise FirehoseLocalError(
            f"firehose-local was not ready within {self.startup_timeout:.0f} s:\n{self.log_tail()}"
        )

    @property
    def pid(self) -> Optional[int]:
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM, which delivers every buffer, then the exit code (0 when all was delivered)."""
        if self._process is None:
            return 0
        if self._process.poll() is None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                raise FirehoseLocalError(f"firehose-local did not stop within {timeout:.0f} s of SIGTERM.")
        self.returncode = self._process.returncode
        return self.returncode

    def kill(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait(10)
        if self._process is not None:
            self.returncode = self._process.returncode

    def __enter__(self) -> "FirehoseLocal":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def log(self) -> str:
        """Everything the server has logged so far."""
        try:
            return self.log_path.read_bytes().decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def log_tail(self, limit: int = 50_000) -> str:
        text = self.log()
        return text if len(text) <= limit else "…(earlier lines left out)…\n" + text[-limit:]

    # -- clients -------------------------------------------------------------

    @property
    def endpoint_url(self) -> str:
        if self.port is None:
            raise FirehoseLocalError("firehose-local is not started.")
        return f"http://127.0.0.1:{self.port}"

    @property
    def address(self) -> str:
        """Where it listens, or its folder before it does."""
        return f"127.0.0.1:{self.port}" if self.port is not None else str(self.workdir)

    def client(self, service: str = "firehose", **kwargs: Any):
        """A boto3 client of ``service`` (firehose, s3, kinesis, cognito-identity, iam, sts) for
        this server, with test credentials; S3 clients use path-style addressing."""
        import boto3
        from botocore.config import Config as BotoConfig

        key = (service, tuple(sorted(kwargs.items())))
        if key not in self._clients:
            options: dict[str, Any] = {
                "endpoint_url": self.endpoint_url, "region_name": self.region,
                "aws_access_key_id": ACCESS_KEY, "aws_secret_access_key": SECRET_KEY,
            }
            if service == "s3":
                options["config"] = BotoConfig(s3={"addressing_style": "path"})
            options.update(kwargs)
            self._clients[key] = boto3.client(service, **options)
        return self._clients[key]

    @property
    def firehose(self):
        return self.client("firehose")

    @property
    def s3(self):
        return self.client("s3")

    @property
    def kinesis(self):
        return self.client("kinesis")

    # -- /_local ---------------------------------------------------------------

    def _request(self, method: str, path: str, timeout: float = 60.0) -> tuple[int, Any]:
        request = urllib.request.Request(self.endpoint_url + path, method=method, data=b"" if method == "POST" else None)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                body = response.read()
                status = response.status
        except urllib.error.HTTPError as error:
            body = error.read()
            status = error.code
        try:
            return status, json.loads(body) if body else None
        except ValueError:
            return status, body.decode("utf-8", "replace")

    def flush(self, stream: Optional[str] = None) -> list[dict]:
        """Delivers what is buffered now (every stream, or one) and returns the objects written:
        ``[{"stream", "bucket", "key", "records", "bytes", "storedBytes"}]``."""
        query = "" if stream is None else "?stream=" + urllib.parse.quote(stream, safe="")
        status, body = self._request("POST", "/_local/flush" + query)
        if status != 200:
            raise FirehoseLocalError(f"flush({stream!r}) answered HTTP {status}: {body}")
        return body["objects"]

    def wait(self, stream: str, objects: int = 1, timeout: float = 30.0) -> int:
        """Returns once ``stream`` has written ``objects`` objects since the server started (the
        count); raises TimeoutError after ``timeout`` seconds (at most 300)."""
        query = urllib.parse.urlencode({"stream": stream, "objects": objects, "timeout": timeout})
        status, body = self._request("GET", "/_local/wait?" + query, timeout=timeout + 30)
        if status == 200:
            return body["objects"]
        if status == 408:
            raise TimeoutError(f"{stream} did not write {objects} object(s) within {timeout} s: {body}")
        raise FirehoseLocalError(f"wait({stream!r}) answered HTTP {status}: {body}")

    # -- reading back ------------------------------------------------------------

    def _command(self, *args: str) -> bytes:
        command = [str(self.binary), *args, "--data-dir", str(self.data_dir)]
        if self.config_path is not None:
            command += ["--config", str(self.config_path)]
        result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
        if result.returncode != 0:
            raise FirehoseLocalError(
                f"{' '.join(command)} exited with {result.returncode}: {result.stderr.decode('utf-8', 'replace')}"
            )
        return result.stdout

    def objects(self, stream: Optional[str] = None, bucket: Optional[str] = None) -> list[dict]:
        """The delivered objects, oldest first, as ``firehose-local objects --json`` lists them:
        ``{"bucket", "key", "path", "stream", "size", "time", "records"}``."""
        args = ["objects", "--json"]
        if stream is not None:
            args += ["--stream", stream]
        if bucket is not None:
            args += ["--bucket", bucket]
        return json.loads(self._command(*args))["objects"]

    def records(self, stream: str, bucket: Optional[str] = None) -> list[bytes]:
        """The records ``stream`` delivered, decompressed, in delivery order, as ``firehose-local
        tail`` splits them: exact when the stream appends a newline to each record or its records
        are JSON objects or arrays; otherwise each object is one item."""
        args = ["tail", "--json", "--stream", stream]
        if bucket is not None:
            args += ["--bucket", bucket]
        records = []
        for line in self._command(*args).splitlines():
            record = json.loads(line)
            records.append(record["text"].encode() if "text" in record else base64.b64decode(record["base64"]))
        return records
