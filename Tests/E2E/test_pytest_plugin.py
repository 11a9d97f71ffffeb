"""The repository's pytest plugin (python/pytest-firehose-local): its own tests, run against this
checkout's binary, and the package installed with pip into a fresh virtual environment, where
pytest finds the fixture through the plugin's entry point alone."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap

import pytest

import fhlocal

PACKAGE = fhlocal.REPO_ROOT / "python" / "pytest-firehose-local"


@pytest.mark.timeout_s(600)
def test_the_plugins_own_tests(firehose_bin):
    env = fhlocal.clean_env({
        "FIREHOSE_LOCAL_BIN": str(firehose_bin),
        "PYTHONPATH": str(PACKAGE / "src"),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    })
    p = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "pytester", "-p", "no:cacheprovider", "tests"],
        cwd=PACKAGE, env=env, capture_output=True, timeout=540,
    )
    out = p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace")
    assert p.returncode == 0, out
    assert " passed" in out and "failed" not in out and "error" not in out, out


def test_the_fixture_in_this_suite(firehose_local):
    """The fixture serves this suite too: a server of its own with no streams."""
    firehose_local.firehose.create_delivery_stream(
        DeliveryStreamName="plugin-made",
        ExtendedS3DestinationConfiguration=fhlocal.destination(**fhlocal.DELIMITER),
    )
    firehose_local.firehose.put_record_batch(
        DeliveryStreamName="plugin-made", Records=[{"Data": b'{"a":1}'}, {"Data": b"plain"}]
    )
    [written] = firehose_local.flush("plugin-made")
    assert written["records"] == 2
    assert firehose_local.records("plugin-made") == [b'{"a":1}', b"plain"]
    assert [o["records"] for o in firehose_local.objects("plugin-made")] == [2]


@pytest.mark.timeout_s(600)
def test_pip_installs_the_package_and_pytest_finds_the_fixture(firehose_bin, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    # A copy: building writes build/ and *.egg-info beside the sources.
    source = tmp_path / "pytest-firehose-local"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    p = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(source)],
        capture_output=True, timeout=400,
    )
    if p.returncode != 0 and b"satisfies the requirement setuptools" in p.stderr:
        pytest.skip("pip cannot fetch setuptools to build the package (no package index reachable)")
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_app.py").write_text(textwrap.dedent('''
        import pytest

        CONFIG = {"DeliveryStreams": [{"DeliveryStreamName": "app-events",
            "ExtendedS3DestinationConfiguration": {"BucketARN": "arn:aws:s3:::app-bucket",
                "RoleARN": "arn:aws:iam::000000000000:role/firehose", "CompressionFormat": "GZIP"}}]}

        @pytest.mark.firehose_local(config=CONFIG)
        def test_events(firehose_local):
            firehose_local.firehose.put_record(DeliveryStreamName="app-events", Record={"Data": b'{"e":1}'})
            firehose_local.flush()
            assert firehose_local.records("app-events") == [b'{"e":1}']
    '''))
    env = fhlocal.clean_env({"FIREHOSE_LOCAL_BIN": str(firehose_bin)})
    env.pop("PYTHONPATH", None)
    p = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_app.py"],
        cwd=project, env=env, capture_output=True, timeout=120,
    )
    out = p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace")
    assert p.returncode == 0 and "1 passed" in out, out
    p = subprocess.run([str(python), "-c", "import pytest_firehose_local as p; print(p.__file__)"],
                       capture_output=True, timeout=60, env=env, cwd=project)
    assert str(venv) in p.stdout.decode(), p
