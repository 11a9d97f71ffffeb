"""The pytest plugin: the ``firehose_local`` fixture and the ``firehose_local`` marker.

    @pytest.mark.firehose_local(config={"DeliveryStreams": [...]})
    def test_events(firehose_local):
        firehose_local.firehose.put_record(DeliveryStreamName="events", Record={"Data": b"{}"})
        firehose_local.flush()
        assert firehose_local.records("events") == [b"{}"]
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from .server import Config, FirehoseLocal, FirehoseLocalError, find_binary

_SERVERS = pytest.StashKey[list]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("firehose-local")
    group.addoption(
        "--firehose-local-bin", dest="firehose_local_bin", default=None, metavar="PATH",
        help="firehose-local executable for the firehose_local fixture (default: $FIREHOSE_LOCAL_BIN, "
        "then PATH, then .build/release or .build/debug of the checkout).",
    )
    parser.addini("firehose_local_bin", "firehose-local executable for the firehose_local fixture.", default=None)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "firehose_local(config=None, args=(), region='us-east-1'): how the firehose_local fixture starts "
        "firehose-local: its configuration (a dict, YAML text or a pathlib.Path) and more serve options.",
    )


def _binary(config: pytest.Config) -> Path:
    explicit = config.getoption("firehose_local_bin") or config.getini("firehose_local_bin") or None
    try:
        start = config.invocation_params.dir
        return find_binary(explicit, search_from=[config.rootpath, start], base=start)
    except FirehoseLocalError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture
def firehose_local_factory(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Callable:
    """Starts firehose-local servers for one test: ``factory(config=None, *, args=(), region=...)``
    returns a started ``FirehoseLocal``; each is stopped after the test, which fails when one does
    not exit 0 (records it could not deliver)."""
    binary = _binary(request.config)
    servers: list[FirehoseLocal] = request.node.stash.setdefault(_SERVERS, [])
    started: list[FirehoseLocal] = []

    def start(config: Config = None, **options) -> FirehoseLocal:
        server = FirehoseLocal(binary, tmp_path_factory.mktemp("firehose-local"), config, **options)
        servers.append(server)
        try:
            server.start()
        except FirehoseLocalError as error:
            pytest.fail(str(error), pytrace=False)
        started.append(server)
        return server

    yield start
    failures = []
    for server in started:
        was_running = server.running
        try:
            code = server.stop()
        except FirehoseLocalError as error:
            failures.append(str(error))
            continue
        if not was_running:
            failures.append(f"firehose-local at {server.address} ended during the test with code {code}.")
        elif code != 0:
            failures.append(f"firehose-local at {server.address} exited with code {code} when stopped.")
    if failures:
        pytest.fail("\n".join(failures) + " Its log is in the report.", pytrace=False)


@pytest.fixture
def firehose_local(request: pytest.FixtureRequest, firehose_local_factory: Callable) -> FirehoseLocal:
    """A firehose-local server started for this test on a free port with an empty data directory.

    Its configuration comes from ``@pytest.mark.firehose_local(config=..., args=...)`` or from
    indirect parametrization (``@pytest.mark.parametrize("firehose_local", [config], indirect=True)``);
    without either it has no streams."""
    marker = request.node.get_closest_marker("firehose_local")
    options = dict(marker.kwargs) if marker else {}
    if marker and marker.args:
        options.setdefault("config", marker.args[0])
    if hasattr(request, "param"):
        options["config"] = request.param
    config = options.pop("config", None)
    return firehose_local_factory(config, **options)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        for server in item.stash.get(_SERVERS, []):
            report.sections.append((f"firehose-local log ({server.address})", server.log_tail()))
