"""Dynamic partitioning with the real jq library, from boto3 against the real process.

Streams are created with the request shape AWS documents for dynamic partitioning
(https://docs.aws.amazon.com/firehose/latest/dev/dynamic-partitioning.html): a
MetadataExtraction processor with a JQ-1.6 query, ``!{partitionKeyFromQuery:...}`` in
Prefix, an ErrorOutputPrefix with ``!{firehose:error-output-type}``. Records whose
query fails go to the error output as JSON error records, one per line.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import time

import pytest

import fhlocal
from fhlocal import BUCKET, expect_client_error

UUID_RE = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
QUERY = '{customer_id: .customer_id, year: (.ts | strftime("%Y"))}'


def partitioned(**overrides) -> dict:
    """An ExtendedS3DestinationConfiguration as AWS's documentation writes one."""
    destination = fhlocal.destination(
        Prefix="customer_id=!{partitionKeyFromQuery:customer_id}/year=!{partitionKeyFromQuery:year}/",
        ErrorOutputPrefix="errors/!{firehose:error-output-type}/!{timestamp:yyyy}/",
        CompressionFormat="GZIP",
        BufferingHints={"SizeInMBs": 64, "IntervalInSeconds": 60},
        DynamicPartitioningConfiguration={"Enabled": True, "RetryOptions": {"DurationInSeconds": 300}},
        ProcessingConfiguration={
            "Enabled": True,
            "Processors": [
                {
                    "Type": "MetadataExtraction",
                    "Parameters": [
                        {"ParameterName": "MetadataExtractionQuery", "ParameterValue": QUERY},
                        {"ParameterName": "JsonParsingEngine", "ParameterValue": "JQ-1.6"},
                    ],
                },
                {"Type": "AppendDelimiterToRecord"},
            ],
        },
    )
    destination.update(overrides)
    return destination


def config(*streams: dict) -> dict:
    return {"Authentication": "verify", "Credentials": fhlocal.DEFAULT_CREDENTIALS, "DeliveryStreams": list(streams)}


@pytest.fixture(scope="module")
def srv(make_module_server):
    return make_module_server(
        config({"DeliveryStreamName": "dp-config", "ExtendedS3DestinationConfiguration": partitioned()}), name="dp"
    )


@pytest.fixture(scope="module")
def fh(srv):
    return srv.client()


def record(customer, ts: int = 1_700_000_000, **extra) -> bytes:
    return json.dumps({"customer_id": customer, "ts": ts, **extra}, separators=(",", ":")).encode()


def object_re(prefix: str, stream: str) -> str:
    return re.escape(prefix) + fhlocal.object_name_re(stream, ".gz", 1)


def test_describe_fills_in_the_partitioning_retry_default_as_aws_does(fh):
    """Recorded by AWS: a stream created with {"Enabled": true} alone describes RetryOptions of 300 s."""
    destination = partitioned(DynamicPartitioningConfiguration={"Enabled": True})
    fh.create_delivery_stream(DeliveryStreamName="dp-default-retry", ExtendedS3DestinationConfiguration=destination)
    described = fh.describe_delivery_stream(DeliveryStreamName="dp-default-retry")["DeliveryStreamDescription"]
    ext = described["Destinations"][0]["ExtendedS3DestinationDescription"]
    assert ext["DynamicPartitioningConfiguration"] == {"Enabled": True, "RetryOptions": {"DurationInSeconds": 300}}
    fh.delete_delivery_stream(DeliveryStreamName="dp-default-retry")


def test_boto3_stream_partitions_by_jq_query_and_writes_error_records(srv, fh):
    name = "dp-api"
    resp = fh.create_delivery_stream(DeliveryStreamName=name, ExtendedS3DestinationConfiguration=partitioned())
    assert resp["DeliveryStreamARN"].endswith(f":deliverystream/{name}")
    described = fh.describe_delivery_stream(DeliveryStreamName=name)["DeliveryStreamDescription"]
    ext = described["Destinations"][0]["ExtendedS3DestinationDescription"]
    assert ext["DynamicPartitioningConfiguration"] == {"Enabled": True, "RetryOptions": {"DurationInSeconds": 300}}
    assert ext["ProcessingConfiguration"] == partitioned()["ProcessingConfiguration"]

    good = [record("a", n=1), record(7, n=2), record("a", ts=1_800_000_000, n=3), record("a", n=4)]
    bad = [b"not json", record(None), b'{"customer_id":"x"}']
    before = time.time()
    resp = fh.put_record_batch(
        DeliveryStreamName=name, Records=[{"Data": r} for r in [good[0], bad[0], good[1], bad[1], good[2], good[3], bad[2]]]
    )
    after = time.time()
    # Partitioning failures are not put failures: AWS acknowledges them and writes error records.
    assert resp["FailedPutCount"] == 0

    flushed = srv.flush(name)
    objects = {o["key"]: o for o in flushed["objects"]}
    assert len(objects) == 4, flushed

    def one(prefix: str) -> str:
        [key] = [k for k in objects if re.fullmatch(object_re(prefix, name), k)]
        return key

    a2023 = one("customer_id=a/year=2023/")
    assert gzip.decompress(srv.read_object(BUCKET, a2023, decompress=False)) == good[0] + b"\n" + good[3] + b"\n"
    assert objects[a2023]["records"] == 2 and "errorOutputType" not in objects[a2023]
    # A number is its JSON text.
    assert gzip.decompress(srv.read_object(BUCKET, one("customer_id=7/year=2023/"), decompress=False)) == good[1] + b"\n"
    assert gzip.decompress(srv.read_object(BUCKET, one("customer_id=a/year=2027/"), decompress=False)) == good[2] + b"\n"

    year = time.strftime("%Y", time.gmtime(before))
    error_key = one(f"errors/metadata-extraction-failed/{year}/")
    assert objects[error_key]["errorOutputType"] == "metadata-extraction-failed"
    assert objects[error_key]["records"] == 3
    lines = gzip.decompress(srv.read_object(BUCKET, error_key, decompress=False)).split(b"\n")
    assert lines[-1] == b"", "every error record ends with a newline"
    entries = [json.loads(line) for line in lines[:-1]]
    assert [list(e) for e in entries] == [
        ["attemptsMade", "arrivalTimestamp", "errorCode", "errorMessage", "attemptEndingTimestamp", "rawData"]
    ] * 3
    assert [base64.b64decode(e["rawData"]) for e in entries] == bad
    assert {e["errorCode"] for e in entries} == {"DynamicPartitioning.MetadataExtractionFailed"}
    assert [e["errorMessage"] for e in entries] == [
        "Non JSON record provided",
        "partitionKeys values must not be null or empty (the query's value for 'customer_id' is null)",
        # `.ts | strftime` of a missing ts is a jq error.
        "Metadata extraction failed: the query failed on the record: strftime/1 requires parsed datetime inputs.",
    ]
    for e in entries:
        assert e["attemptsMade"] == 1
        assert int(before * 1000) - 1000 <= e["arrivalTimestamp"] <= e["attemptEndingTimestamp"] <= int(after * 1000) + 1000

    # What went where is observable without reading the objects.
    [status] = [s for s in srv.http("GET", "/_local/streams").json()["streams"] if s["name"] == name]
    assert status["errorRecords"] == {"metadata-extraction-failed": 3}
    assert status["recordsReceived"] == 7 and status["objectsWritten"] == 4
    assert status["buffer"]["openPartitions"] == 0
    metrics = srv.http("GET", "/_local/metrics").body.decode()
    assert f'firehose_local_error_records_total{{stream="{name}",type="metadata-extraction-failed"}} 3' in metrics


def test_records_beyond_500_active_partitions_go_to_the_error_output(srv, fh):
    name = "dp-limit"
    fh.create_delivery_stream(DeliveryStreamName=name, ExtendedS3DestinationConfiguration=partitioned())
    first = [record(f"c{i:03d}") for i in range(500)]
    assert fh.put_record_batch(DeliveryStreamName=name, Records=[{"Data": r} for r in first])["FailedPutCount"] == 0
    [status] = [s for s in srv.http("GET", "/_local/streams").json()["streams"] if s["name"] == name]
    assert status["buffer"]["openPartitions"] == 500
    # An active partition still takes records; a 501st does not, until partitions are delivered.
    over = [record("c000", n=1), record("new-one"), record("new-two")]
    assert fh.put_record_batch(DeliveryStreamName=name, Records=[{"Data": r} for r in over])["FailedPutCount"] == 0
    objects = srv.flush(name)["objects"]
    assert len(objects) == 501
    [overflow] = [o for o in objects if o.get("errorOutputType") == "activePartitionExceeded"]
    assert overflow["key"].startswith("errors/activePartitionExceeded/") and overflow["records"] == 2
    entries = [json.loads(line) for line in srv.read_object(BUCKET, overflow["key"]).splitlines()]
    assert [base64.b64decode(e["rawData"]) for e in entries] == over[1:]
    assert {e["errorCode"] for e in entries} == {"DynamicPartitioning.ActivePartitionExceeded"}
    [c000] = [o for o in objects if o["key"].startswith("customer_id=c000/")]
    assert c000["records"] == 2
    # Delivered partitions are no longer active.
    fh.put_record(DeliveryStreamName=name, Record={"Data": record("new-one")})
    [after] = srv.flush(name)["objects"]
    assert after["key"].startswith("customer_id=new-one/year=2023/")


def test_config_file_accepts_the_same_definition(srv, fh):
    fh.put_record(DeliveryStreamName="dp-config", Record={"Data": record("cfg")})
    [obj] = srv.flush("dp-config")["objects"]
    assert re.fullmatch(object_re("customer_id=cfg/year=2023/", "dp-config"), obj["key"]), obj
    assert srv.delivered("dp-config") == record("cfg") + b"\n"


@pytest.mark.parametrize(
    "overrides, message",
    [
        (
            {"DynamicPartitioningConfiguration": {"Enabled": False}, "ProcessingConfiguration": {"Enabled": False}},
            "Dynamic Partitioning Namespaces can only be part of a prefix expression when Dynamic Partitioning is enabled.",
        ),
        (
            {"BufferingHints": {"SizeInMBs": 64, "IntervalInSeconds": 0}},
            "Zero buffering feature is not available for dynamic partitioning (IntervalInSeconds is 0).",
        ),
        (
            {"ProcessingConfiguration": {"Enabled": True, "Processors": [{"Type": "AppendDelimiterToRecord"}]}},
            "MetadataExtraction processor should be present when S3 Prefix has partitionKeyFromQuery namespace ('!{partitionKeyFromQuery:customer_id}').",
        ),
        (
            {"ErrorOutputPrefix": "errors/!{partitionKeyFromQuery:customer_id}/!{firehose:error-output-type}/"},
            "Ths supplied prefix(es) do not satisfy the following constraint: ErrorOutputPrefix cannot contain dynamic partitioning namespaces (partitionKeyFromQuery, partitionKeyFromLambda), but has '!{partitionKeyFromQuery:customer_id}'",
        ),
    ],
)
def test_definitions_aws_refuses_are_refused(fh, overrides, message):
    resp = expect_client_error(
        lambda: fh.create_delivery_stream(DeliveryStreamName="dp-bad", ExtendedS3DestinationConfiguration=partitioned(**overrides)),
        "InvalidArgumentException",
    )
    assert resp["Error"]["Message"] == message


def test_a_query_jq_cannot_compile_is_refused_with_jqs_words(fh):
    processors = partitioned()["ProcessingConfiguration"]
    processors["Processors"][0]["Parameters"][0]["ParameterValue"] = "{customer_id: .customer_id | nosuchfn}"
    resp = expect_client_error(
        lambda: fh.create_delivery_stream(
            DeliveryStreamName="dp-bad-jq", ExtendedS3DestinationConfiguration=partitioned(ProcessingConfiguration=processors)
        ),
        "InvalidArgumentException",
    )
    assert resp["Error"]["Message"].startswith("MetadataExtractionQuery is not a valid JQ-1.6 query: ")
    assert "nosuchfn/0 is not defined" in resp["Error"]["Message"]


def test_update_can_neither_enable_nor_disable_dynamic_partitioning(srv, fh):
    fh.create_delivery_stream(DeliveryStreamName="dp-update", ExtendedS3DestinationConfiguration=partitioned())
    fh.create_delivery_stream(DeliveryStreamName="dp-plain", ExtendedS3DestinationConfiguration=fhlocal.destination())

    def update(name: str, **fields):
        return fh.update_destination(
            DeliveryStreamName=name, CurrentDeliveryStreamVersionId="1", DestinationId="destinationId-000000000001",
            ExtendedS3DestinationUpdate=fields,
        )

    resp = expect_client_error(
        lambda: update(
            "dp-update", DynamicPartitioningConfiguration={"Enabled": False}, Prefix="plain/",
            ProcessingConfiguration={"Enabled": False},
        ),
        "InvalidArgumentException",
    )
    assert resp["Error"]["Message"] == "Dynamic partitioning cannot be disabled on a Firehose stream that has it enabled."
    resp = expect_client_error(
        lambda: update("dp-plain", **{k: v for k, v in partitioned().items() if k not in ("BucketARN", "RoleARN")}),
        "InvalidArgumentException",
    )
    assert resp["Error"]["Message"] == (
        "Dynamic partitioning can only be enabled when the Firehose stream is created; dp-plain was created without it."
    )
    # RetryOptions alone (no Enabled) leaves partitioning as it is.
    fh.update_destination(
        DeliveryStreamName="dp-update", CurrentDeliveryStreamVersionId="1", DestinationId="destinationId-000000000001",
        ExtendedS3DestinationUpdate={"DynamicPartitioningConfiguration": {"RetryOptions": {"DurationInSeconds": 60}}},
    )
    # Changing the partitioning itself is an update like any other.
    fh.update_destination(
        DeliveryStreamName="dp-update", CurrentDeliveryStreamVersionId="2", DestinationId="destinationId-000000000001",
        ExtendedS3DestinationUpdate={"Prefix": "c=!{partitionKeyFromQuery:customer_id}/"},
    )
    fh.put_record(DeliveryStreamName="dp-update", Record={"Data": record("u")})
    [obj] = srv.flush("dp-update")["objects"]
    assert re.fullmatch(re.escape("c=u/") + fhlocal.object_name_re("dp-update", ".gz", 3), obj["key"]), obj


def test_every_partition_survives_kill_9(make_server):
    stream = {"DeliveryStreamName": "dp-crash", "ExtendedS3DestinationConfiguration": partitioned()}
    first = make_server(config(stream), name="dp-crash")
    fh = first.client()
    sent = {f"c{i % 5}": [] for i in range(5)}
    for batch in range(4):
        records = [record(f"c{i % 5}", n=batch * 100 + i) for i in range(50)]
        assert fh.put_record_batch(DeliveryStreamName="dp-crash", Records=[{"Data": r} for r in records])["FailedPutCount"] == 0
        for i, r in enumerate(records):
            sent[f"c{i % 5}"].append(r + b"\n")
    fh.put_record(DeliveryStreamName="dp-crash", Record={"Data": b"broken"})
    first.kill()
    assert first.returncode == -9

    second = make_server.create(config(stream), name="dp-crash-restarted")
    second.data_dir = first.data_dir
    second.start()
    keys = second.stream_keys("dp-crash")
    assert len(keys) == 6, keys
    for customer, records in sent.items():
        [key] = [k for k in keys if k.startswith(f"customer_id={customer}/year=2023/")]
        assert gzip.decompress(second.read_object(BUCKET, key, decompress=False)) == b"".join(records)
    [error_key] = [k for k in keys if k.startswith("errors/metadata-extraction-failed/")]
    [entry] = [json.loads(line) for line in gzip.decompress(second.read_object(BUCKET, error_key, decompress=False)).splitlines()]
    assert base64.b64decode(entry["rawData"]) == b"broken"


def test_readme_example_runs_as_written(make_server):
    """The README's dynamic-partitioning example, started as written, delivers where the README says."""
    readme = (fhlocal.REPO_ROOT / "README.md").read_text()
    section = readme[readme.index("### Dynamic partitioning"):]
    example = section[section.index("```yaml\n") + len("```yaml\n"): section.index("```\n", section.index("```yaml\n") + 8)]
    srv = make_server(example, name="readme-dp")
    fh = srv.client()
    fh.put_record_batch(
        DeliveryStreamName="clicks",
        Records=[{"Data": b'{"customer_id":"42","ts":1700000000}'}, {"Data": b"not json"}],
    )
    keys = sorted(o["key"] for o in srv.flush("clicks")["objects"])
    assert len(keys) == 2, keys
    assert re.fullmatch(re.escape("customer_id=42/year=2023/") + fhlocal.object_name_re("clicks", ".gz", 1), keys[0])
    assert keys[1].startswith(f"errors/metadata-extraction-failed/{time.strftime('%Y', time.gmtime())}/clicks-1-")
    assert srv.read_object(BUCKET, keys[0]) == b'{"customer_id":"42","ts":1700000000}\n'
