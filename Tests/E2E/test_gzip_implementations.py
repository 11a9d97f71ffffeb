"""GZIP objects from either deflate (``GzipImplementation: zlib`` or ``libdeflate``): each object is
one valid gzip member that zcat, Python's gzip module and Java's GZIPInputStream read back to the
records, whether the stream came from the configuration file or from boto3, and acknowledged
records survive kill -9 with either."""

from __future__ import annotations

import gzip
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest

import fhlocal

IMPLEMENTATIONS = ["zlib", "libdeflate"]

JAVA_READER = """
import java.io.*;
import java.util.zip.GZIPInputStream;

public class GunzipObject {
    public static void main(String[] args) throws IOException {
        try (InputStream in = new GZIPInputStream(new FileInputStream(args[0]));
             OutputStream out = new BufferedOutputStream(System.out)) {
            in.transferTo(out);
        }
    }
}
"""


def config(implementation: str) -> dict:
    return {
        "Credentials": fhlocal.DEFAULT_CREDENTIALS,
        "GzipImplementation": implementation,
        "DeliveryStreams": [
            fhlocal.ext_stream("gz", CompressionFormat="GZIP", **fhlocal.hints(64, 900), **fhlocal.DELIMITER),
        ],
    }


def records() -> list[bytes]:
    """Small events in many requests, then records large enough to be compressed in parallel by zlib."""
    small = [f'{{"event":"tap","n":{i},"screen":"s{i % 17}","pad":"{"x" * (i % 90)}"}}'.encode() for i in range(3000)]
    large = [(f"{i:06d}-" * 4000).encode() for i in range(20)]
    return small + large


def send(fh, stream: str, recs: list[bytes]) -> None:
    fhlocal.put_in_batches(fh, stream, recs, 250)


def one_member(data: bytes) -> bytes:
    """The content of `data`, checked to be exactly one gzip member (nothing after its trailer)."""
    inflater = zlib.decompressobj(wbits=31)
    content = inflater.decompress(data) + inflater.flush()
    assert inflater.eof, "the gzip member does not end"
    assert inflater.unused_data == b"", f"{len(inflater.unused_data)} bytes after the first member"
    return content


@pytest.fixture(scope="module")
def java_reader(tmp_path_factory) -> list[str]:
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("no JDK (javac, java): install default-jdk-headless; scripts/prerequisites test does")
    folder = tmp_path_factory.mktemp("java-gunzip")
    (folder / "GunzipObject.java").write_text(JAVA_READER)
    compiled = subprocess.run(["javac", "GunzipObject.java"], cwd=folder, capture_output=True, timeout=120)
    assert compiled.returncode == 0, compiled.stderr.decode()
    return ["java", "-cp", str(folder), "GunzipObject"]


@pytest.fixture(scope="module", params=IMPLEMENTATIONS)
def srv(request, make_module_server):
    return make_module_server(config(request.param), name=f"gzip-{request.param}")


def read_with_every_reader(path: Path, java_reader: list[str]) -> dict[str, bytes]:
    data = path.read_bytes()
    zcat = subprocess.run(["zcat", str(path)], capture_output=True, timeout=60)
    assert zcat.returncode == 0, zcat.stderr
    java = subprocess.run([*java_reader, str(path)], capture_output=True, timeout=120)
    assert java.returncode == 0, java.stderr.decode()
    return {"one member": one_member(data), "python gzip": gzip.decompress(data), "zcat": zcat.stdout,
            "java GZIPInputStream": java.stdout}


def test_the_log_names_the_deflate(srv):
    implementation = srv.name.removeprefix("gzip-")
    assert f"gzip={implementation} level 6" in srv.stderr_text(), srv.stderr_tail()


def test_objects_are_one_member_read_by_zcat_python_and_java(srv, java_reader):
    fh = srv.client()
    recs = records()
    send(fh, "gz", recs)
    [obj] = srv.flush("gz")["objects"]
    expected = b"".join(r + b"\n" for r in recs)
    path = srv.bucket_dir() / obj["key"]
    assert obj["key"].endswith(".gz")
    for reader, content in read_with_every_reader(path, java_reader).items():
        assert content == expected, f"{reader} read {len(content)} bytes, not the {len(expected)} sent"
    assert obj["records"] == len(recs) and obj["bytes"] == len(expected)
    assert obj["storedBytes"] == path.stat().st_size < len(expected) / 3
    # The server's own readers agree.
    assert srv.read_object(fhlocal.BUCKET, obj["key"]) == expected


def test_a_stream_created_by_boto3_uses_the_configured_deflate(srv, java_reader):
    fh = srv.client()
    fh.create_delivery_stream(
        DeliveryStreamName="gz-api",
        ExtendedS3DestinationConfiguration=fhlocal.destination(CompressionFormat="GZIP"),
    )
    implementation = srv.name.removeprefix("gzip-")
    assert "stream=gz-api" in srv.stderr_text()
    assert any("stream=gz-api" in line and f"gzip={implementation} level 6" in line
               for line in srv.stderr_text().splitlines()), srv.stderr_tail()
    for n in range(3):
        fh.put_record(DeliveryStreamName="gz-api", Record={"Data": f"record {n}|".encode()})
    [obj] = srv.flush("gz-api")["objects"]
    contents = read_with_every_reader(srv.bucket_dir() / obj["key"], java_reader)
    assert set(contents.values()) == {b"record 0|record 1|record 2|"}, contents


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_acknowledged_records_survive_kill_9(make_server, implementation):
    first = make_server(config(implementation), name=f"gzip-{implementation}-crash")
    recs = records()
    send(first.client(), "gz", recs)
    first.kill()
    assert first.returncode == -9

    second = make_server.create(config(implementation), name=f"gzip-{implementation}-restarted")
    second.data_dir = first.data_dir
    second.start()
    [key] = second.stream_keys("gz")
    assert one_member(second.read_object(fhlocal.BUCKET, key, decompress=False)) == b"".join(r + b"\n" for r in recs)



def test_without_a_setting_small_hints_get_libdeflate_and_large_ones_zlib(make_server, java_reader):
    """The default: libdeflate (faster, objects as small) for SizeInMBs up to 32, zlib above it, where a
    whole-object deflate would hold the object and its compressed copy in memory per core."""
    srv = make_server({
        "Credentials": fhlocal.DEFAULT_CREDENTIALS,
        "DeliveryStreams": [
            fhlocal.ext_stream("small", CompressionFormat="GZIP", **fhlocal.hints(32, 900)),
            fhlocal.ext_stream("large", CompressionFormat="GZIP", **fhlocal.hints(33, 900)),
        ],
    }, name="gzip-default")
    fh = srv.client()
    fh.create_delivery_stream(
        DeliveryStreamName="api-default",
        ExtendedS3DestinationConfiguration=fhlocal.destination(CompressionFormat="GZIP"),
    )
    lines = srv.stderr_text().splitlines()
    for stream, implementation in [("small", "libdeflate"), ("large", "zlib"), ("api-default", "libdeflate")]:
        assert any(f"stream={stream} " in line + " " and f"gzip={implementation} level 6" in line
                   for line in lines), (stream, srv.stderr_tail())
    for stream in ["small", "large", "api-default"]:
        for n in range(3):
            fh.put_record(DeliveryStreamName=stream, Record={"Data": f"{stream} {n}|".encode()})
        [obj] = srv.flush(stream)["objects"]
        contents = read_with_every_reader(srv.bucket_dir() / obj["key"], java_reader)
        assert set(contents.values()) == {f"{stream} 0|{stream} 1|{stream} 2|".encode()}, contents
