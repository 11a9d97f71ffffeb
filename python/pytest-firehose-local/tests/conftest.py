"""The plugin's own tests run pytest inside pytest (pytester), each inner run in a subprocess with
this checkout's plugin and the firehose-local found as the plugin finds it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_firehose_local import find_binary

SOURCE = Path(__file__).resolve().parents[1] / "src"
# Found once, from where the run started: pytester moves each test into a directory of its own.
BINARY = find_binary(search_from=[Path(__file__).parent])


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    """Runs pytest on the files made with ``pytester``: this checkout's plugin, loaded explicitly
    (an installed copy is not auto-loaded beside it), and the binary in FIREHOSE_LOCAL_BIN."""
    monkeypatch.setenv("FIREHOSE_LOCAL_BIN", str(BINARY))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(SOURCE), os.environ.get("PYTHONPATH")])))

    def run(*args: str) -> pytest.RunResult:
        return pytester.runpytest_subprocess("-p", "pytest_firehose_local.plugin", "-p", "no:cacheprovider", *args,
                                             timeout=300)

    return run
