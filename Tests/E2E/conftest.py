"""Fixtures for the firehose-local end-to-end suite.

* ``firehose_bin``      – path of the built binary; the suite FAILS (not skips)
                          when it is missing.
* ``server``            – module-scoped server with the standard config
                          (fhlocal.standard_streams); each test module gets
                          its own process, tests inside a module use distinct
                          streams.
* ``make_server``       – function-scoped factory for dedicated servers.
* ``make_module_server``– module-scoped factory (dedicated config shared by a
                          module).
* ``firehose_local``    – the repository's pytest plugin's fixture
                          (python/pytest-firehose-local), for tests it makes shorter.

Every server is stopped with SIGTERM on teardown; the teardown asserts exit code
0 within 15 s.  When a test fails, the stderr of every server that was alive
during the test is attached to the report.
"""

from __future__ import annotations

import faulthandler
import importlib.metadata
import signal
import sys
import threading
from pathlib import Path

import pytest

import fhlocal
from fhlocal import FirehoseLocal

# The repository's pytest plugin (python/pytest-firehose-local): its firehose_local fixture serves the
# tests it makes shorter. Loaded from the checkout unless an installed copy is auto-loaded already.
if not any(ep.value.startswith("pytest_firehose_local") for ep in importlib.metadata.entry_points(group="pytest11")):
    sys.path.insert(0, str(fhlocal.REPO_ROOT / "python" / "pytest-firehose-local" / "src"))
    pytest_plugins = ["pytest_firehose_local.plugin"]

# Hard backstop: if the whole session ever exceeds this, dump stacks and exit
# (child servers die with us through PR_SET_PDEATHSIG).
SESSION_HARD_LIMIT = 1800
DEFAULT_TEST_TIMEOUT = 120


def pytest_configure(config):
    config.addinivalue_line("markers", "timeout_s(seconds): per-test time limit (SIGALRM based)")
    # The plugin's fixture runs the binary the rest of the suite runs.
    if not config.getoption("firehose_local_bin", None):
        config.option.firehose_local_bin = str(fhlocal.binary_path())
    faulthandler.dump_traceback_later(SESSION_HARD_LIMIT, exit=True)


def pytest_unconfigure(config):
    faulthandler.cancel_dump_traceback_later()


def pytest_sessionfinish(session, exitstatus):
    # Whatever happened, leave no process behind.
    for srv in list(fhlocal.ALL_SERVERS):
        if srv.running:
            srv.kill()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    path = fhlocal.binary_path()
    if not path.is_file():
        terminalreporter.section("firehose-local binary missing", red=True, bold=True)
        terminalreporter.line(fhlocal.missing_binary_message(path), red=True)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    fhlocal.CURRENT_TEST[0] = item.nodeid
    try:
        return (yield)
    finally:
        fhlocal.CURRENT_TEST[0] = ""


class SuiteTimeout(Exception):
    pass


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Per-test wall-clock limit so no single test can hang the suite."""
    marker = item.get_closest_marker("timeout_s")
    limit = int(marker.args[0]) if marker else DEFAULT_TEST_TIMEOUT
    if threading.current_thread() is not threading.main_thread():  # pragma: no cover
        return (yield)

    def on_alarm(signum, frame):
        raise SuiteTimeout(f"test exceeded its {limit} s limit")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(limit)
    try:
        return (yield)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed:
        for srv in fhlocal.ALL_SERVERS:
            if srv.running or item.nodeid in (srv.started_in, srv.stopped_in):
                report.sections.append(
                    (f"firehose-local stderr [{srv.name} @ {srv.workdir}]", srv.stderr_tail())
                )
    return report


# --------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------


@pytest.fixture(scope="session")
def firehose_bin() -> Path:
    path = fhlocal.binary_path()
    if not (path.is_file() and path.stat().st_mode & 0o111):
        pytest.fail(fhlocal.missing_binary_message(path), pytrace=False)
    return path


class ServerFactory:
    """Starts servers in fresh directories and stops them all on teardown."""

    def __init__(self, binary: Path, base: Path):
        self.binary = binary
        self.base = base
        self.servers: list[FirehoseLocal] = []
        self.count = 0

    def create(self, config=None, *, name: str = "server", **kw) -> FirehoseLocal:
        """A configured, not yet started, server."""
        self.count += 1
        if config is None:
            config = fhlocal.standard_config()
        srv = FirehoseLocal(self.binary, self.base / f"{self.count:02d}-{name}", config, name=name, **kw)
        self.servers.append(srv)
        return srv

    def __call__(self, config=None, *, name: str = "server", **kw) -> FirehoseLocal:
        """Create and start; returns once the port file exists and health answers."""
        return self.create(config, name=name, **kw).start()

    def close(self) -> None:
        problems = []
        for srv in self.servers:
            if srv.proc is None or srv.returncode is not None and not srv.running:
                continue
            try:
                rc = srv.stop()
            except AssertionError as exc:
                problems.append(str(exc))
                continue
            if rc != 0:
                problems.append(
                    f"{srv.name}: exit code after SIGTERM was {rc}, expected 0.\n"
                    f"stderr:\n{srv.stderr_tail()}"
                )
        if problems:
            pytest.fail("\n\n".join(problems), pytrace=False)


@pytest.fixture
def make_server(firehose_bin, tmp_path):
    factory = ServerFactory(firehose_bin, tmp_path)
    yield factory
    factory.close()


@pytest.fixture(scope="module")
def make_module_server(firehose_bin, tmp_path_factory, request):
    factory = ServerFactory(firehose_bin, tmp_path_factory.mktemp(request.module.__name__))
    yield factory
    factory.close()


@pytest.fixture(scope="module")
def server(make_module_server) -> FirehoseLocal:
    """The standard-config server shared by one test module."""
    return make_module_server(fhlocal.standard_config(), name="standard")


@pytest.fixture(scope="module")
def fh(server):
    """boto3 firehose client (test/test, us-east-1, no retries, no client-side validation)."""
    return server.client()
