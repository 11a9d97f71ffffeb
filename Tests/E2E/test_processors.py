"""Decompression, CloudWatchLogProcessing and RecordDeAggregation, from boto3 against the real process.

CloudWatch Logs subscription records are built as CloudWatch Logs sends them to Firehose: the JSON
message (messageType, owner, logGroup, logStream, subscriptionFilters, logEvents), gzipped.
"""

from __future__ import annotations

import base64
import gzip
import json

import pytest

import fhlocal
from fhlocal import BUCKET, expect_client_error


def cwl_record(messages: list[str], message_type: str = "DATA_MESSAGE") -> bytes:
    return gzip.compress(json.dumps({
        "messageType": message_type, "owner": "111111111111", "logGroup": "/app/api", "logStream": "i-0abc",
        "subscriptionFilters": ["to-firehose"],
        "logEvents": [{"id": str(i), "timestamp": 1_700_000_000_000 + i, "message": m} for i, m in enumerate(messages)],
    }).encode())


def processors(*entries: tuple[str, dict[str, str]]) -> dict:
    return {
        "ProcessingConfiguration": {
            "Enabled": True,
            "Processors": [
                {"Type": t, "Parameters": [{"ParameterName": k, "ParameterValue": v} for k, v in p.items()]}
                for t, p in entries
            ],
        }
    }


CWL = processors(
    ("Decompression", {"CompressionFormat": "GZIP"}),
    ("CloudWatchLogProcessing", {"DataMessageExtraction": "true"}),
    ("AppendDelimiterToRecord", {}),
)


@pytest.fixture(scope="module")
def srv(make_module_server):
    return make_module_server(
        {"Credentials": fhlocal.DEFAULT_CREDENTIALS, "DeliveryStreams": []}, name="processors"
    )


@pytest.fixture(scope="module")
def fh(srv):
    return srv.client()


def error_entries(srv, key: str) -> list[dict]:
    return [json.loads(line) for line in srv.read_object(BUCKET, key).splitlines()]


def test_cloudwatch_logs_records_become_their_messages(srv, fh):
    name = "cwl"
    fh.create_delivery_stream(
        DeliveryStreamName=name,
        ExtendedS3DestinationConfiguration=fhlocal.destination(
            CompressionFormat="GZIP", ErrorOutputPrefix="errors/!{firehose:error-output-type}/!{timestamp:yyyy}/",
            **CWL,
        ),
    )
    bad = b"not gzip at all"
    resp = fh.put_record_batch(DeliveryStreamName=name, Records=[
        {"Data": cwl_record(["GET /a 200", "GET /b 404"])},
        {"Data": cwl_record(["CWL CONTROL MESSAGE: Checking health of destination Firehose."], "CONTROL_MESSAGE")},
        {"Data": bad},
        {"Data": cwl_record(['{"level":"warn","msg":"slow"}'])},
    ])
    assert resp["FailedPutCount"] == 0
    objects = srv.flush(name)["objects"]
    [data] = [o for o in objects if "errorOutputType" not in o]
    assert srv.read_object(BUCKET, data["key"]) == b'GET /a 200\nGET /b 404\n{"level":"warn","msg":"slow"}\n'
    assert data["records"] == 3
    [failed] = [o for o in objects if o.get("errorOutputType") == "decompression-failed"]
    assert failed["key"].startswith("errors/decompression-failed/")
    [entry] = error_entries(srv, failed["key"])
    assert base64.b64decode(entry["rawData"]) == bad
    assert entry["errorCode"] == "Decompression.Failed"
    assert entry["errorMessage"] == "Decompression failed: the record is not valid GZIP data."
    s = fhlocal.stream_status(srv, name)
    assert s["recordsDropped"] == 1 and s["errorRecords"] == {"decompression-failed": 1}


def test_json_deaggregation_feeds_dynamic_partitioning(srv, fh):
    name = "deagg-json"
    fh.create_delivery_stream(
        DeliveryStreamName=name,
        ExtendedS3DestinationConfiguration=fhlocal.destination(
            Prefix="type=!{partitionKeyFromQuery:type}/", ErrorOutputPrefix="errors/!{firehose:error-output-type}/",
            BufferingHints={"SizeInMBs": 64, "IntervalInSeconds": 60},
            DynamicPartitioningConfiguration={"Enabled": True},
            **processors(
                ("RecordDeAggregation", {"SubRecordType": "JSON"}),
                ("MetadataExtraction", {"MetadataExtractionQuery": "{type: .type}", "JsonParsingEngine": "JQ-1.6"}),
                ("AppendDelimiterToRecord", {}),
            ),
        ),
    )
    fh.put_record_batch(DeliveryStreamName=name, Records=[
        {"Data": b'{"type":"click","n":1}{"type":"view","n":2}\n{"type":"click","n":3}'},
        {"Data": b'[{"type":"click"}]'},
    ])
    objects = srv.flush(name)["objects"]
    by_prefix = {o["key"].split("/")[0]: o for o in objects}
    assert srv.read_object(BUCKET, by_prefix["type=click"]["key"]) == b'{"type":"click","n":1}\n{"type":"click","n":3}\n'
    assert srv.read_object(BUCKET, by_prefix["type=view"]["key"]) == b'{"type":"view","n":2}\n'
    [failed] = [o for o in objects if o.get("errorOutputType")]
    assert failed["errorOutputType"] == "processing-failed"
    [entry] = error_entries(srv, failed["key"])
    assert base64.b64decode(entry["rawData"]) == b'[{"type":"click"}]'
    assert entry["errorCode"] == "RecordDeAggregation.Failed"


def test_delimited_deaggregation(srv, fh):
    name = "deagg-delimited"
    fh.create_delivery_stream(
        DeliveryStreamName=name,
        ExtendedS3DestinationConfiguration=fhlocal.destination(
            **processors(("RecordDeAggregation", {"SubRecordType": "DELIMITED", "Delimiter": "IyMjIw=="}),
                         ("AppendDelimiterToRecord", {})),
        ),
    )
    fh.put_record(DeliveryStreamName=name, Record={"Data": b"a####b####c"})
    [obj] = srv.flush(name)["objects"]
    assert srv.read_object(BUCKET, obj["key"]) == b"a\nb\nc\n" and obj["records"] == 3


def test_processor_combinations_aws_refuses(fh):
    resp = expect_client_error(
        lambda: fh.create_delivery_stream(
            DeliveryStreamName="bad-cwl",
            ExtendedS3DestinationConfiguration=fhlocal.destination(
                **processors(("CloudWatchLogProcessing", {"DataMessageExtraction": "true"}))
            ),
        ),
        "InvalidArgumentException",
    )
    assert resp["Error"]["Message"].startswith(
        "CloudWatchLogProcessingProcessor can only be enabled with DecompressionProcessor"
    )
