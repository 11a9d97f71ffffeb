"""Source-record backup (S3BackupMode Enabled): every record as received, in the backup's bucket,
under its prefix, buffered and compressed as the backup says, beside what the stream delivers."""
from __future__ import annotations

import base64
import gzip
import json

import pytest

import fhlocal
from fhlocal import BUCKET, expect_client_error
from test_transformation import CommandFunction, lambda_processor

BACKUP_BUCKET = "backup-bucket"


def backup_configuration(**fields) -> dict:
    configuration = fhlocal.destination(BACKUP_BUCKET, **fields)
    return configuration


def backed_up_stream(*processors: dict, **backup_fields) -> dict:
    destination = fhlocal.destination(
        ErrorOutputPrefix="errors/!{firehose:error-output-type}/",
        BufferingHints={"SizeInMBs": 64, "IntervalInSeconds": 900},
        S3BackupMode="Enabled",
        S3BackupConfiguration=backup_configuration(**backup_fields),
    )
    if processors:
        destination["ProcessingConfiguration"] = {"Enabled": True, "Processors": list(processors)}
    return destination


@pytest.fixture(scope="module")
def function(tmp_path_factory) -> CommandFunction:
    return CommandFunction(tmp_path_factory.mktemp("function"))


@pytest.fixture(scope="module")
def srv(make_module_server, function):
    return make_module_server({
        "Credentials": fhlocal.DEFAULT_CREDENTIALS,
        "LambdaFunctions": [{"FunctionName": "upper", "Command": function.command}],
        "DeliveryStreams": [],
    }, name="backup")


@pytest.fixture(scope="module")
def fh(srv):
    return srv.client()


@pytest.fixture(autouse=True)
def fresh_function(function):
    function.reset()


def test_transformed_streams_back_up_source_records_as_received(srv, fh):
    fh.create_delivery_stream(
        DeliveryStreamName="b-lambda",
        ExtendedS3DestinationConfiguration=backed_up_stream(
            lambda_processor("upper"), {"Type": "AppendDelimiterToRecord"},
            Prefix="source/", CompressionFormat="GZIP", BufferingHints={"SizeInMBs": 64, "IntervalInSeconds": 900}))
    sent = [b"one", b"two", b"fail me", b"drop me"]
    fh.put_record_batch(DeliveryStreamName="b-lambda", Records=[{"Data": d} for d in sent])
    objects = srv.flush("b-lambda")["objects"]

    [backup] = [o for o in objects if o.get("backup")]
    assert backup["bucket"] == BACKUP_BUCKET and backup["records"] == 4
    # A prefix without expressions is followed by the hour folders, as on the main destination.
    fhlocal.match_key(backup["key"], "b-lambda", prefix_re="source/" + fhlocal.HOUR_PREFIX_RE, ext=".gz")
    # As received: no delimiter, not transformed; failed and dropped records too.
    assert gzip.decompress(srv.read_object(BACKUP_BUCKET, backup["key"], decompress=False)) == b"".join(sent)

    delivered = {o["key"]: srv.read_object(BUCKET, o["key"]) for o in objects if not o.get("backup")}
    [failed] = [k for k in delivered if k.startswith("errors/processing-failed/")]
    assert base64.b64decode(json.loads(delivered.pop(failed))["rawData"]) == b"fail me"
    assert list(delivered.values()) == [b"ONE\nTWO\n"]

    status = fhlocal.stream_status(srv, "b-lambda")
    assert status["backup"] == {"bucket": BACKUP_BUCKET, "objectsWritten": 1, "recordsDelivered": 4}
    assert status["objectsWritten"] == 2
    metrics = srv.http("GET", "/_local/metrics").body.decode()
    assert 'firehose_local_backup_records_total{stream="b-lambda"} 4' in metrics


def test_a_stream_without_processors_backs_up_too(srv, fh):
    fh.create_delivery_stream(DeliveryStreamName="b-plain", ExtendedS3DestinationConfiguration=backed_up_stream())
    fh.put_record(DeliveryStreamName="b-plain", Record={"Data": b"raw"})
    objects = srv.flush("b-plain")["objects"]
    assert sorted((o["bucket"], o.get("backup", False)) for o in objects) == [
        (BACKUP_BUCKET, True), (BUCKET, False)]
    [backup] = [o for o in objects if o.get("backup")]
    # The backup's own default prefix (YYYY/MM/DD/HH/) and extension (none, UNCOMPRESSED).
    fhlocal.match_key(backup["key"], "b-plain")
    assert srv.read_object(BACKUP_BUCKET, backup["key"]) == b"raw"


def test_the_backup_holds_records_before_decompression(srv, fh):
    fh.create_delivery_stream(
        DeliveryStreamName="b-gzip",
        ExtendedS3DestinationConfiguration=backed_up_stream(
            {"Type": "Decompression", "Parameters": [{"ParameterName": "CompressionFormat", "ParameterValue": "GZIP"}]},
            {"Type": "AppendDelimiterToRecord"}))
    sent = [gzip.compress(b"first"), gzip.compress(b"second")]
    fh.put_record_batch(DeliveryStreamName="b-gzip", Records=[{"Data": d} for d in sent])
    objects = srv.flush("b-gzip")["objects"]
    [backup] = [o for o in objects if o.get("backup")]
    [delivered] = [o for o in objects if not o.get("backup")]
    assert srv.read_object(BACKUP_BUCKET, backup["key"], decompress=False) == b"".join(sent)
    assert srv.read_object(BUCKET, delivered["key"]) == b"first\nsecond\n"


def test_describe_gives_the_backup_with_aws_defaults(fh):
    fh.create_delivery_stream(
        DeliveryStreamName="b-describe",
        ExtendedS3DestinationConfiguration=backed_up_stream(Prefix="source/"))
    described = fh.describe_delivery_stream(DeliveryStreamName="b-describe")["DeliveryStreamDescription"]
    extended = described["Destinations"][0]["ExtendedS3DestinationDescription"]
    assert extended["S3BackupMode"] == "Enabled"
    assert "S3BackupConfiguration" not in extended
    assert extended["S3BackupDescription"] == {
        "RoleARN": fhlocal.ROLE_ARN, "BucketARN": f"arn:aws:s3:::{BACKUP_BUCKET}", "Prefix": "source/",
        "BufferingHints": {"SizeInMBs": 5, "IntervalInSeconds": 300}, "CompressionFormat": "UNCOMPRESSED",
        "EncryptionConfiguration": {"NoEncryptionConfig": "NoEncryption"},
        "CloudWatchLoggingOptions": {"Enabled": False},
    }


@pytest.mark.parametrize("change,code,message", [
    (lambda d: d.pop("S3BackupConfiguration"), "InvalidArgumentException",
     "S3BackupMode Enabled requires S3BackupConfiguration"),
    (lambda d: d["S3BackupConfiguration"].update(BufferingHints={"SizeInMBs": 1, "IntervalInSeconds": 0}),
     "InvalidArgumentException", "Zero buffering is not available for the Amazon S3 backup destination"),
    (lambda d: d["S3BackupConfiguration"].update(BucketARN="arn:aws:s3:::Not_A_Bucket!"), "ValidationException",
     "Not_A_Bucket!"),
    (lambda d: d["S3BackupConfiguration"].update(
        Prefix="k=!{partitionKeyFromQuery:k}/", ErrorOutputPrefix="e/"), "InvalidArgumentException",
     "Dynamic Partitioning Namespaces can only be part of a prefix expression when Dynamic Partitioning is enabled"),
])
def test_bad_backups_are_refused(fh, change, code, message):
    destination = backed_up_stream()
    change(destination)
    resp = expect_client_error(
        lambda: fh.create_delivery_stream(DeliveryStreamName="b-bad", ExtendedS3DestinationConfiguration=destination),
        code)
    assert message in resp["Error"]["Message"], resp["Error"]["Message"]


def test_update_enables_and_changes_the_backup_but_never_disables_it(srv, fh):
    fh.create_delivery_stream(
        DeliveryStreamName="b-update", ExtendedS3DestinationConfiguration=fhlocal.destination())
    fh.put_record(DeliveryStreamName="b-update", Record={"Data": b"before"})

    def version():
        return fh.describe_delivery_stream(DeliveryStreamName="b-update")["DeliveryStreamDescription"]["VersionId"]

    fh.update_destination(
        DeliveryStreamName="b-update", CurrentDeliveryStreamVersionId=version(), DestinationId="destinationId-000000000001",
        ExtendedS3DestinationUpdate={"S3BackupMode": "Enabled", "S3BackupUpdate": backup_configuration(Prefix="v2/")})
    fh.put_record(DeliveryStreamName="b-update", Record={"Data": b"after"})
    fh.update_destination(
        DeliveryStreamName="b-update", CurrentDeliveryStreamVersionId=version(), DestinationId="destinationId-000000000001",
        ExtendedS3DestinationUpdate={"S3BackupUpdate": {"Prefix": "v3/"}})
    fh.put_record(DeliveryStreamName="b-update", Record={"Data": b"later"})
    srv.flush("b-update")
    backups = {k.split("/")[0]: srv.read_object(BACKUP_BUCKET, k) for k in srv.stream_keys("b-update", BACKUP_BUCKET)}
    assert backups == {"v2": b"after", "v3": b"later"}
    described = fh.describe_delivery_stream(DeliveryStreamName="b-update")["DeliveryStreamDescription"]
    backup = described["Destinations"][0]["ExtendedS3DestinationDescription"]["S3BackupDescription"]
    assert (backup["BucketARN"], backup["Prefix"]) == (f"arn:aws:s3:::{BACKUP_BUCKET}", "v3/")

    resp = expect_client_error(
        lambda: fh.update_destination(
            DeliveryStreamName="b-update", CurrentDeliveryStreamVersionId=version(),
            DestinationId="destinationId-000000000001", ExtendedS3DestinationUpdate={"S3BackupMode": "Disabled"}),
        "InvalidArgumentException")
    assert resp["Error"]["Message"] == "Disabling S3 backup is not currently supported."


@pytest.mark.timeout_s(90)
def test_sigkill_loses_no_backed_up_record(make_server):
    config = {
        "Credentials": fhlocal.DEFAULT_CREDENTIALS,
        "DeliveryStreams": [{
            "DeliveryStreamName": "b-crash",
            "ExtendedS3DestinationConfiguration": backed_up_stream(
                CompressionFormat="GZIP", BufferingHints={"SizeInMBs": 64, "IntervalInSeconds": 900}),
        }],
    }
    srv = make_server(config, name="backup-crash")
    sent = [b"rec-%03d" % i for i in range(50)]
    srv.client().put_record_batch(DeliveryStreamName="b-crash", Records=[{"Data": d} for d in sent])
    srv.kill()
    assert srv.object_paths(BACKUP_BUCKET) == []

    restarted = make_server.create(config, name="backup-crash-restart")
    restarted.data_dir = srv.data_dir
    restarted.start()
    [key] = restarted.stream_keys("b-crash", BACKUP_BUCKET)
    fhlocal.match_key(key, "b-crash", ext=".gz")
    assert restarted.read_object(BACKUP_BUCKET, key) == b"".join(sent)
    assert restarted.delivered("b-crash") == b"".join(sent)
