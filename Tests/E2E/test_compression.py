"""ZIP, Snappy and HADOOP_SNAPPY objects, read by readers that share no code with the server.

Formats (docs/compatibility.md): ZIP is one archive per object with one deflated entry named by a
UUID; Snappy is snappy-java's stream format (``0x82 SNAPPY 0x00`` header, then per block a
big-endian compressed length and a raw Snappy block), as real Firehose objects were found to be;
HADOOP_SNAPPY is Hadoop's block framing (per block the uncompressed and the compressed length,
big-endian, then the raw block). Readers: Python's ``zipfile``, ``cramjam`` (raw Snappy blocks) and
python-snappy's ``HadoopStreamDecompressor``.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import struct
import zipfile

import cramjam
import pytest
import snappy

import fhlocal
from fhlocal import BUCKET

FORMATS = {"ZIP": ".zip", "Snappy": ".snappy", "HADOOP_SNAPPY": ".snappy"}
SNAPPY_JAVA_HEADER = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)


def read_zip(data: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        [info] = archive.infolist()
        assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", info.filename), info
        assert info.compress_type == zipfile.ZIP_DEFLATED
        assert archive.testzip() is None, "CRC mismatch"
        return archive.read(info)


def read_snappy_java(data: bytes) -> bytes:
    assert data[:16] == SNAPPY_JAVA_HEADER, data[:16]
    out, offset = [], 16
    while offset < len(data):
        (length,) = struct.unpack_from(">i", data, offset)
        block = bytes(cramjam.snappy.decompress_raw(data[offset + 4 : offset + 4 + length]))
        assert len(block) <= 32 * 1024
        out.append(block)
        offset += 4 + length
    assert offset == len(data)
    return b"".join(out)


def read_hadoop_snappy(data: bytes) -> bytes:
    return snappy.HadoopStreamDecompressor().decompress(data)


READERS = {"ZIP": read_zip, "Snappy": read_snappy_java, "HADOOP_SNAPPY": read_hadoop_snappy}


def stream_name(fmt: str) -> str:
    return "fmt-" + fmt.lower().replace("_", "-")


def config() -> dict:
    return {
        "Authentication": "verify",
        "Credentials": fhlocal.DEFAULT_CREDENTIALS,
        "DeliveryStreams": [
            fhlocal.ext_stream(stream_name(fmt), CompressionFormat=fmt, **fhlocal.hints(64, 900), **fhlocal.DELIMITER)
            for fmt in FORMATS
        ],
    }


def records() -> list[bytes]:
    """Small records, then a batch large enough to be compressed off the stream's actor."""
    small = [f'{{"event":"tap","n":{i}}}'.encode() for i in range(50)]
    large = [(f"{i:06d}-" * 2000).encode() for i in range(40)]
    return small + large


def send(fh, stream: str, recs: list[bytes]) -> None:
    fhlocal.put_in_batches(fh, stream, recs, 25)


@pytest.fixture(scope="module")
def srv(make_module_server):
    return make_module_server(config(), name="formats")


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_objects_read_with_independent_readers(srv, firehose_bin, fmt):
    fh = srv.client()
    recs = records()
    send(fh, stream_name(fmt), recs)
    [obj] = srv.flush(stream_name(fmt))["objects"]
    assert obj["key"].endswith(FORMATS[fmt]), obj
    assert re.search(fhlocal.object_name_re(stream_name(fmt), FORMATS[fmt]) + "$", obj["key"]), obj
    data = srv.read_object(BUCKET, obj["key"], decompress=False)
    expected = b"".join(r + b"\n" for r in recs)
    assert READERS[fmt](data) == expected
    assert obj["records"] == len(recs) and obj["bytes"] == len(expected)
    assert obj["storedBytes"] == len(data) < len(expected) / 3
    # `firehose-local cat` decompresses every format.
    cat = fhlocal.run([str(firehose_bin), "cat", "--data-dir", str(srv.data_dir), obj["key"]])
    assert cat.returncode == 0, cat.stderr
    assert cat.stdout == expected


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_created_by_boto3_with_a_file_extension(srv, fmt):
    fh = srv.client()
    name = stream_name(fmt) + "-api"
    fh.create_delivery_stream(
        DeliveryStreamName=name,
        ExtendedS3DestinationConfiguration=fhlocal.destination(CompressionFormat=fmt, FileExtension=".events"),
    )
    ext = fh.describe_delivery_stream(DeliveryStreamName=name)["DeliveryStreamDescription"]["Destinations"][0][
        "ExtendedS3DestinationDescription"
    ]
    assert ext["CompressionFormat"] == fmt
    fh.put_record(DeliveryStreamName=name, Record={"Data": b"one"})
    fh.put_record(DeliveryStreamName=name, Record={"Data": b"two"})
    [obj] = srv.flush(name)["objects"]
    assert obj["key"].endswith(".events")
    assert READERS[fmt](srv.read_object(BUCKET, obj["key"], decompress=False)) == b"onetwo"


def test_every_format_survives_kill_9(make_server):
    first = make_server(config(), name="formats-crash")
    fh = first.client()
    recs = records()
    for fmt in FORMATS:
        send(fh, stream_name(fmt), recs)
    first.kill()
    assert first.returncode == -9

    second = make_server.create(config(), name="formats-restarted")
    second.data_dir = first.data_dir
    second.start()
    expected = b"".join(r + b"\n" for r in recs)
    for fmt in FORMATS:
        [key] = second.stream_keys(stream_name(fmt))
        assert key.endswith(FORMATS[fmt])
        assert READERS[fmt](second.read_object(BUCKET, key, decompress=False)) == expected, fmt


# --- Dynamic partitioning: buffers staged as they are, encoded whole at delivery ---------------------

PARTITIONED_FORMATS = {**FORMATS, "GZIP": ".gz"}
READERS_WITH_GZIP = {**READERS, "GZIP": gzip.decompress}


def partitioned_config() -> dict:
    processors = [
        {"Type": "MetadataExtraction", "Parameters": [
            {"ParameterName": "MetadataExtractionQuery", "ParameterValue": "{c: .c}"},
            {"ParameterName": "JsonParsingEngine", "ParameterValue": "JQ-1.6"}]},
        {"Type": "AppendDelimiterToRecord"},
    ]
    return {
        "Authentication": "verify",
        "Credentials": fhlocal.DEFAULT_CREDENTIALS,
        "DeliveryStreams": [
            fhlocal.ext_stream(
                "dp-" + stream_name(fmt), CompressionFormat=fmt, **fhlocal.hints(1, 900),
                Prefix="c=!{partitionKeyFromQuery:c}/", ErrorOutputPrefix="errors/!{firehose:error-output-type}/",
                DynamicPartitioningConfiguration={"Enabled": True},
                ProcessingConfiguration={"Enabled": True, "Processors": processors})
            for fmt in PARTITIONED_FORMATS
        ],
    }


@pytest.fixture(scope="module")
def partitioned_srv(make_module_server):
    return make_module_server(partitioned_config(), name="formats-partitioned")


@pytest.mark.parametrize("fmt", list(PARTITIONED_FORMATS))
def test_partitioned_objects_encoded_at_delivery_read_with_independent_readers(partitioned_srv, fmt):
    """A partitioned stream stages its buffers uncompressed and encodes each whole at delivery, a
    megabyte at a time: objects past the 1 MiB size hint, delivered while records arrive, and the
    small partition's at the flush, all read back by readers that share no code with the server."""
    srv, stream = partitioned_srv, "dp-" + stream_name(fmt)
    fh = srv.client()
    big = [json.dumps({"c": "big", "n": i, "pad": f"alpha bravo {i} " * 600}).encode() for i in range(250)]
    small = [json.dumps({"c": "small", "n": i}).encode() for i in range(5)]
    send(fh, stream, big + small)
    srv.flush(stream)
    keys = srv.stream_keys(stream)
    by_partition: dict[str, list[bytes]] = {"big": [], "small": []}
    big_objects = 0
    for key in keys:
        assert key.endswith(PARTITIONED_FORMATS[fmt]), key
        content = READERS_WITH_GZIP[fmt](srv.read_object(BUCKET, key, decompress=False))
        partition = key.split("/")[0].removeprefix("c=")
        big_objects += partition == "big"
        by_partition[partition] += content.splitlines(keepends=True)
    assert big_objects >= 2, keys  # 2.4 MB over a 1 MiB hint: delivered by size while records arrived
    assert sorted(by_partition["big"]) == sorted(r + b"\n" for r in big)
    assert by_partition["small"] == [r + b"\n" for r in small]
