"""The firehose_local fixture against the real firehose-local process."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest

STREAMS = '''
CONFIG = {"DeliveryStreams": [
    {"DeliveryStreamName": "lines", "ExtendedS3DestinationConfiguration": {
        "BucketARN": "arn:aws:s3:::test-bucket", "RoleARN": "arn:aws:iam::000000000000:role/firehose",
        "CompressionFormat": "GZIP",
        "ProcessingConfiguration": {"Enabled": True, "Processors": [{"Type": "AppendDelimiterToRecord"}]}}},
    {"DeliveryStreamName": "events", "ExtendedS3DestinationConfiguration": {
        "BucketARN": "arn:aws:s3:::test-bucket", "RoleARN": "arn:aws:iam::000000000000:role/firehose",
        "BufferingHints": {"SizeInMBs": 1, "IntervalInSeconds": 900}}},
]}
'''


def test_delivers_and_reads_back(pytester, inner):
    pytester.makepyfile(STREAMS + '''
import gzip
import pytest

@pytest.mark.firehose_local(config=CONFIG)
def test_round_trip(firehose_local):
    assert firehose_local.endpoint_url.startswith("http://127.0.0.1:")
    firehose_local.firehose.put_record_batch(
        DeliveryStreamName="lines", Records=[{"Data": b"alpha"}, {"Data": b"beta \\xff"}])
    firehose_local.firehose.put_record_batch(
        DeliveryStreamName="events", Records=[{"Data": b'{"n": 1}'}, {"Data": b'{"n": 2}'}])
    written = firehose_local.flush()
    assert sorted((o["stream"], o["records"]) for o in written) == [("events", 2), ("lines", 2)]
    assert firehose_local.wait("lines", objects=1) == 1
    assert firehose_local.records("lines") == [b"alpha", b"beta \\xff"]
    assert firehose_local.records("events") == [b'{"n": 1}', b'{"n": 2}']
    [obj] = firehose_local.objects("lines")
    assert obj["bucket"] == "test-bucket" and obj["records"] == 2 and obj["key"].endswith(".gz")
    body = firehose_local.s3.get_object(Bucket="test-bucket", Key=obj["key"])["Body"].read()
    assert gzip.decompress(body) == b"alpha\\nbeta \\xff\\n"
    assert firehose_local.kinesis.list_streams()["StreamNames"] == []
    with pytest.raises(TimeoutError, match="events did not write 2"):
        firehose_local.wait("events", objects=2, timeout=1)
''')
    result = inner()
    result.assert_outcomes(passed=1)


def test_configuration_by_parametrization_or_none(pytester, inner):
    pytester.makepyfile('''
import pytest

YAML = """
DeliveryStreams:
  - DeliveryStreamName: from-yaml
    ExtendedS3DestinationConfiguration:
      BucketARN: arn:aws:s3:::yaml-bucket
      RoleARN: arn:aws:iam::000000000000:role/firehose
"""

@pytest.mark.parametrize("firehose_local", [YAML], indirect=True)
def test_yaml_text(firehose_local):
    names = firehose_local.firehose.list_delivery_streams()["DeliveryStreamNames"]
    assert names == ["from-yaml"]

def test_no_configuration(firehose_local):
    assert firehose_local.firehose.list_delivery_streams()["DeliveryStreamNames"] == []
    firehose_local.firehose.create_delivery_stream(
        DeliveryStreamName="made", ExtendedS3DestinationConfiguration={
            "BucketARN": "arn:aws:s3:::b", "RoleARN": "arn:aws:iam::000000000000:role/firehose",
            "ProcessingConfiguration": {"Enabled": True, "Processors": [{"Type": "AppendDelimiterToRecord"}]}})
    firehose_local.firehose.put_record(DeliveryStreamName="made", Record={"Data": b"x"})
    firehose_local.flush("made")
    # Streams created through the API are known to the read-back too: one line per record.
    assert firehose_local.records("made") == [b"x"]

def test_two_servers(firehose_local, firehose_local_factory):
    other = firehose_local_factory(args=["--durability", "none"])
    assert other.endpoint_url != firehose_local.endpoint_url
''')
    result = inner()
    result.assert_outcomes(passed=3)


def test_a_configuration_file_named_relative_to_the_run(pytester, inner):
    pytester.makefile(".yaml", streams="""
DeliveryStreams:
  - DeliveryStreamName: from-file
    ExtendedS3DestinationConfiguration: {BucketARN: "arn:aws:s3:::file-bucket"}
""")
    pytester.makepyfile("""
from pathlib import Path
import pytest

@pytest.mark.firehose_local(config=Path("streams.yaml"))
def test_file(firehose_local):
    assert firehose_local.firehose.list_delivery_streams()["DeliveryStreamNames"] == ["from-file"]
""")
    inner().assert_outcomes(passed=1)


def test_a_failing_test_reports_the_server_log(pytester, inner):
    pytester.makepyfile('''
def test_fails(firehose_local):
    firehose_local.firehose.list_delivery_streams()
    assert False, "on purpose"
''')
    result = inner()
    result.assert_outcomes(failed=1)
    result.stdout.re_match_lines([r".*firehose-local log \(127\.0\.0\.1:\d+\).*"])
    result.stdout.fnmatch_lines(["*firehose-local listening*"])


def test_the_server_stops_after_the_test_and_delivers(pytester, inner, tmp_path):
    note = tmp_path / "server.json"
    pytester.makepyfile(STREAMS + f'''
import json
import pytest

@pytest.mark.firehose_local(config=CONFIG)
def test_leaves_a_buffer(firehose_local):
    firehose_local.firehose.put_record(DeliveryStreamName="events", Record={{"Data": b"kept"}})
    with open({str(note)!r}, "w") as f:
        json.dump({{"port": firehose_local.port, "data": str(firehose_local.data_dir)}}, f)
''')
    result = inner()
    result.assert_outcomes(passed=1)
    server = json.loads(note.read_text())
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", server["port"]), timeout=5).close()
    # SIGTERM delivered the buffer on the way out.
    objects = [p for p in Path(server["data"], "test-bucket").rglob("*") if p.is_file()]
    assert [p.read_bytes() for p in objects] == [b"kept"]


def test_a_server_that_dies_fails_the_test(pytester, inner):
    pytester.makepyfile('''
import os, signal, time

def test_kills_it(firehose_local):
    os.kill(firehose_local.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while firehose_local.running and time.monotonic() < deadline:
        time.sleep(0.01)
''')
    result = inner()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*ended during the test with code -9*"])


def test_a_missing_binary_is_a_clear_failure(pytester, inner, monkeypatch, tmp_path):
    monkeypatch.setenv("FIREHOSE_LOCAL_BIN", str(tmp_path / "nowhere"))
    pytester.makepyfile('''
def test_needs_it(firehose_local):
    pass
''')
    result = inner()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*nowhere (from FIREHOSE_LOCAL_BIN) is not an executable file.*"])
    result = inner("--firehose-local-bin", str(tmp_path / "elsewhere"))
    result.stdout.fnmatch_lines(["*elsewhere (from the option) is not an executable file.*"])


def test_a_bad_configuration_is_reported_with_the_servers_words(pytester, inner):
    pytester.makepyfile('''
import pytest

@pytest.mark.firehose_local(config={"DeliveryStreams": [{"DeliveryStreamName": "x"}]})
def test_bad(firehose_local):
    pass
''')
    result = inner()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*firehose-local exited with code * as it started*"])


def test_the_installed_wheel_is_used_unless_a_binary_is_named(monkeypatch, tmp_path):
    # A stand-in for the firehose-local wheel: the package `firehose_local` with binary_path().
    from pytest_firehose_local import FirehoseLocalError, find_binary

    real = find_binary(search_from=[Path(__file__).parent])
    package = tmp_path / "site" / "firehose_local"
    package.mkdir(parents=True)
    packaged = tmp_path / "release" / "bin" / "firehose-local"
    (package / "__init__.py").write_text(
        f"from pathlib import Path\n\ndef binary_path():\n    return Path({str(packaged)!r})\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.delitem(sys.modules, "firehose_local", raising=False)
    monkeypatch.delenv("FIREHOSE_LOCAL_BIN", raising=False)
    # Installed but without its binary: an error that says so, not a silent fallback.
    with pytest.raises(FirehoseLocalError, match="installed firehose-local wheel has no executable"):
        find_binary()
    packaged.parent.mkdir(parents=True)
    packaged.symlink_to(real)
    assert find_binary() == packaged
    # A binary named by the option or the environment still wins.
    assert find_binary(str(real)) == real
    monkeypatch.setenv("FIREHOSE_LOCAL_BIN", str(real))
    assert find_binary() == real
