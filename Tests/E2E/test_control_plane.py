"""The control plane against the real process: CreateDeliveryStream,
DescribeDeliveryStream, ListDeliveryStreams, DeleteDeliveryStream,
UpdateDestination, the tag operations and Start/StopDeliveryStreamEncryption.

boto3 drives every call (client-side validation off, no retries, so what is
checked is what the *server* answers).  Every successful output is walked
against the botocore service model (``conform``): required members present,
types right, enums within their values, string lengths and patterns as the
model gives them.  The raw JSON is checked too, through signed raw requests,
so timestamps are seen as the epoch numbers AWS JSON 1.1 sends and members the
model does not know (which boto3 would silently drop) are reported.

Also: CREATING -> ACTIVE with ``--activation-delay``, persistence of API
streams across a restart, the configuration file winning a name clash, and a
CI-style flow with the AWS CLI (v1).
"""

from __future__ import annotations

import concurrent.futures
import datetime as _dt
import gzip
import json
import re
import time
import urllib.request

import botocore.session
import pytest
from botocore.exceptions import ClientError

import fhlocal
from fhlocal import (
    ACCOUNT_ID,
    BUCKET,
    DELIMITER,
    REGION,
    ROLE_ARN,
    expect_client_error,
    ext_stream,
    hints,
    run,
    wait_for,
)

try:  # Java-style \p{L} classes in the model's tag patterns need the `regex` module.
    import regex as _pattern_re
except ImportError:  # pragma: no cover - fall back to `re`; patterns it cannot compile are skipped
    _pattern_re = re

DESTINATION_ID = "destinationId-000000000001"
CONFIG_STREAM = "cfg-events"
CONFIG_BUCKET = "cfg-bucket"
EXT = "ExtendedS3DestinationConfiguration"
S3 = "S3DestinationConfiguration"
NO_ENCRYPTION = {"NoEncryptionConfig": "NoEncryption"}
VALIDATION_FORM = re.compile(
    r"^(1 validation error detected|\d+ validation errors detected): "
    r"Value .* at '[A-Za-z0-9.]+' failed to satisfy constraint: .+$",
    re.S,
)

MODEL = botocore.session.get_session().get_service_model("firehose")


# --------------------------------------------------------------------------
# Model conformance
# --------------------------------------------------------------------------


def _pattern_ok(pattern: str, value: str) -> bool | None:
    """Java `matches()` semantics (whole string); None when the pattern cannot be compiled here."""
    try:
        return _pattern_re.fullmatch(pattern, value, flags=_pattern_re.S) is not None
    except Exception:  # pragma: no cover - only without the `regex` module
        return None


def model_problems(shape, value, path: str, raw: bool) -> list[str]:
    """Everything about ``value`` that the botocore ``shape`` does not allow.

    ``raw``: ``value`` is the JSON the server sent (timestamps are epoch numbers,
    blobs base64 text, and members unknown to the model are reported), otherwise
    what boto3 parsed (timestamps are datetimes)."""
    problems: list[str] = []
    md = shape.metadata
    t = shape.type_name
    if value is None:
        return [f"{path}: null ({shape.name})"]
    if t == "structure":
        if not isinstance(value, dict):
            return [f"{path}: expected an object ({shape.name}), got {type(value).__name__} {value!r}"]
        for req in shape.required_members:
            if value.get(req) is None:
                problems.append(f"{path}.{req}: required member of {shape.name} missing")
        for name, member in value.items():
            if name not in shape.members:
                if raw:
                    problems.append(f"{path}.{name}: not a member of {shape.name} (SDKs drop it)")
                continue
            problems += model_problems(shape.members[name], member, f"{path}.{name}", raw)
    elif t == "list":
        if not isinstance(value, list):
            return [f"{path}: expected a list ({shape.name}), got {value!r}"]
        if "min" in md and len(value) < md["min"]:
            problems.append(f"{path}: {len(value)} items < min {md['min']} ({shape.name})")
        if "max" in md and len(value) > md["max"]:
            problems.append(f"{path}: {len(value)} items > max {md['max']} ({shape.name})")
        for i, item in enumerate(value):
            problems += model_problems(shape.member, item, f"{path}[{i}]", raw)
    elif t == "map":
        if not isinstance(value, dict):
            return [f"{path}: expected a map ({shape.name}), got {value!r}"]
        for k, v in value.items():
            problems += model_problems(shape.key, k, f"{path}{{key}}", raw)
            problems += model_problems(shape.value, v, f"{path}[{k!r}]", raw)
    elif t == "string":
        if not isinstance(value, str):
            return [f"{path}: expected a string ({shape.name}), got {value!r}"]
        if shape.enum and value not in shape.enum:
            problems.append(f"{path}: {value!r} not in enum {shape.name} {shape.enum}")
        if "min" in md and len(value) < md["min"]:
            problems.append(f"{path}: length {len(value)} < min {md['min']} ({shape.name}): {value!r}")
        if "max" in md and len(value) > md["max"]:
            problems.append(f"{path}: length {len(value)} > max {md['max']} ({shape.name})")
        if "pattern" in md and _pattern_ok(md["pattern"], value) is False:
            problems.append(f"{path}: {value!r} does not match {shape.name} pattern {md['pattern']!r}")
    elif t in ("integer", "long"):
        if isinstance(value, bool) or not isinstance(value, int):
            return [f"{path}: expected an integer ({shape.name}), got {value!r}"]
        if "min" in md and value < md["min"]:
            problems.append(f"{path}: {value} < min {md['min']} ({shape.name})")
        if "max" in md and value > md["max"]:
            problems.append(f"{path}: {value} > max {md['max']} ({shape.name})")
    elif t in ("double", "float"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            problems.append(f"{path}: expected a number ({shape.name}), got {value!r}")
    elif t == "boolean":
        if not isinstance(value, bool):
            problems.append(f"{path}: expected a boolean ({shape.name}), got {value!r}")
    elif t == "timestamp":
        if raw:
            # AWS JSON 1.1: epoch seconds as a JSON number.
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                problems.append(f"{path}: expected epoch seconds (a JSON number), got {value!r}")
            elif not (1_400_000_000 <= value <= time.time() + 86_400):
                problems.append(f"{path}: {value} is not a plausible epoch-seconds time")
        elif not (isinstance(value, _dt.datetime) and value.tzinfo is not None):
            problems.append(f"{path}: expected an aware datetime, got {value!r}")
    elif t == "blob":
        if raw and not isinstance(value, str):
            problems.append(f"{path}: expected base64 text, got {value!r}")
        if not raw and not isinstance(value, (bytes, bytearray)):
            problems.append(f"{path}: expected bytes, got {value!r}")
    else:  # pragma: no cover - documents etc. are not in these outputs
        problems.append(f"{path}: unexpected shape type {t}")
    return problems


def conform(operation: str, response, raw: bool = False):
    """Assert ``response`` (boto3 result, or raw JSON when ``raw``) fits the output
    shape of ``operation``; returns it."""
    out = dict(response)
    out.pop("ResponseMetadata", None)
    shape = MODEL.operation_model(operation).output_shape
    problems = model_problems(shape, out, operation, raw)
    assert not problems, f"{operation} output does not conform to the model:\n  " + "\n  ".join(problems)
    return response


def raw_call(srv, operation: str, body: dict) -> dict:
    """A signed raw request; returns the JSON body of a 200 answer after checking
    it against the model as sent on the wire."""
    r = srv.raw(body, op=operation)
    assert r.status == 200, f"{operation} {body} -> {r!r}"
    assert r.headers.get("content-type", "").startswith(fhlocal.JSON_CT), r.headers
    assert r.headers.get("x-amzn-requestid"), r.headers
    payload = r.json()
    conform(operation, payload, raw=True)
    return payload


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def arn(name: str, region: str = REGION, account: str = ACCOUNT_ID) -> str:
    return f"arn:aws:firehose:{region}:{account}:deliverystream/{name}"


def not_found_message(name: str) -> str:
    return f"Firehose {name} under account {ACCOUNT_ID} not found."


def create(fh, name: str, *, s3: bool = False, bucket: str = BUCKET, tags=None, **fields) -> dict:
    params = {"DeliveryStreamName": name, (S3 if s3 else EXT): fhlocal.destination(bucket, **fields)}
    if tags is not None:
        params["Tags"] = tags
    resp = conform("CreateDeliveryStream", fh.create_delivery_stream(**params))
    assert resp["DeliveryStreamARN"] == arn(name), resp
    assert resp["ResponseMetadata"]["HTTPStatusCode"] == 200
    return resp


def describe(fh, name: str, **kw) -> dict:
    resp = conform("DescribeDeliveryStream", fh.describe_delivery_stream(DeliveryStreamName=name, **kw))
    return resp["DeliveryStreamDescription"]


def destination_of(desc: dict) -> dict:
    assert desc["Destinations"] and len(desc["Destinations"]) == 1, desc
    return desc["Destinations"][0]


def version_of(fh, name: str) -> str:
    return describe(fh, name)["VersionId"]


def update(fh, name: str, version: str, *, s3: bool = False, **fields) -> dict:
    member = "S3DestinationUpdate" if s3 else "ExtendedS3DestinationUpdate"
    resp = fh.update_destination(
        DeliveryStreamName=name, CurrentDeliveryStreamVersionId=version, DestinationId=DESTINATION_ID,
        **{member: fields},
    )
    return conform("UpdateDestination", resp)


def list_tags(fh, name: str, **kw) -> dict:
    return conform("ListTagsForDeliveryStream", fh.list_tags_for_delivery_stream(DeliveryStreamName=name, **kw))


def assert_gone(fh, name: str) -> None:
    resp = expect_client_error(lambda: fh.describe_delivery_stream(DeliveryStreamName=name), "ResourceNotFoundException")
    assert resp["Error"]["Message"] == not_found_message(name), resp["Error"]


def assert_validation(resp: dict, path: str, constraint: str, value: str | None = None, count: int = 1) -> str:
    """A ValidationException message in AWS's form naming ``path`` and ``constraint``."""
    msg = resp["Error"]["Message"]
    assert VALIDATION_FORM.match(msg), f"not AWS's validation message form: {msg!r}"
    lead = "1 validation error detected: " if count == 1 else f"{count} validation errors detected: "
    assert msg.startswith(lead), msg
    rendered = "null" if value is None else f"'{value}'"
    want = f"Value {rendered} at '{path}' failed to satisfy constraint: {constraint}"
    if want not in msg:
        raise AssertionError(f"expected {_short(want)!r}\n     in {_short(msg)!r}")
    return msg


def _short(text: str, keep: int = 60) -> str:
    """Long runs of one character (the over-long test values) shortened for failure messages."""
    return re.sub(r"(.)\1{%d,}" % keep, lambda m: f"{m[1] * 5}...({len(m[0])} x {m[1]!r})", text)


def objects_of(srv, stream: str, bucket: str = BUCKET) -> list[str]:
    return srv.stream_keys(stream, bucket)


def cp_config(*streams: dict) -> dict:
    return {
        "Authentication": "verify",
        "Credentials": fhlocal.DEFAULT_CREDENTIALS,
        "DeliveryStreams": list(streams),
    }


# --------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cp(make_module_server):
    """One server for the module; its only configured stream is CONFIG_STREAM.
    Tests create their own, distinctly named streams."""
    config = cp_config(
        ext_stream(CONFIG_STREAM, bucket=CONFIG_BUCKET, CompressionFormat="GZIP", **DELIMITER),
    )
    return make_module_server(config, name="cp")


@pytest.fixture(scope="module")
def fh(cp):
    return cp.client(pool=20)


# --------------------------------------------------------------------------
# CreateDeliveryStream / DescribeDeliveryStream
# --------------------------------------------------------------------------


def test_prefix_whose_paths_exceed_path_max_is_refused_and_one_that_fits_delivers(make_server):
    """Every object path <data-dir>/<bucket>/<key> must fit PATH_MAX (4,095
    bytes) with every expression at its longest, or its records could never be
    delivered. Under a 1,250-byte data directory, a prefix that reaches the
    limit exactly is accepted and delivers; three bytes more are refused."""
    srv = make_server.create(cp_config(), name="pathmax")
    long_dir = srv.workdir.joinpath(*(["d" * 250] * 5))
    long_dir.mkdir(parents=True)
    srv.data_dir = long_dir
    srv.start()
    fh = srv.client()
    stream = "p"
    # <stream>-<10-digit version>-<yyyy-MM-dd-HH-mm-ss>-<uuid>; no extension (uncompressed).
    name_bytes = len(stream) + 1 + 10 + 1 + 19 + 1 + 36
    # Without ErrorOutputPrefix, error objects go to <prefix><error type, up to 32 bytes>/yyyy/MM/dd/HH/.
    budget = 4095 - len(str(long_dir).encode()) - 1 - len(BUCKET) - 1 - (32 + 1 + 14) - name_bytes

    def prefix_of(size: int) -> str:
        segment = "€" * 84 + "/"  # 253 bytes
        whole, rest = divmod(size, len(segment.encode()))
        text = segment * whole
        if rest:
            text += "a" * (rest - 1) + "/"
        assert len(text.encode()) == size and len(text.encode("utf-16-le")) // 2 <= 1024
        return text

    fitting = prefix_of(budget)
    resp = expect_client_error(
        lambda: create(fh, stream, Prefix=prefix_of(budget + 3)), "InvalidArgumentException")
    message = resp["Error"]["Message"]
    assert "path limit of the local file system" in message and f"reach {4095 + 3} bytes" in message, message
    assert str(long_dir) not in message, "the message reveals the local path"

    create(fh, stream, Prefix=fitting)
    fh.put_record(DeliveryStreamName=stream, Record={"Data": b"at the limit\n"})
    assert srv.flush(stream)["objects"], "nothing was delivered"
    [(key, path)] = srv.stream_objects(stream)
    assert key.startswith(fitting) and path.read_bytes() == b"at the limit\n"
    assert len(str(path).encode()) <= 4095


def test_repeated_member_last_wins(cp, fh):
    """AWS reads JSON with Jackson, where a repeated member's last value wins
    (JSONDecoder alone would keep the first)."""
    dest = json.dumps(fhlocal.destination(BUCKET))
    body = (
        '{"DeliveryStreamName":"c-dup-first","ExtendedS3DestinationConfiguration":%s,'
        '"DeliveryStreamName":"c-dup-last"}' % dest
    ).encode()
    r = cp.raw(body, op="CreateDeliveryStream")
    assert r.status == 200, r
    assert r.json()["DeliveryStreamARN"] == arn("c-dup-last")
    assert fh.describe_delivery_stream(DeliveryStreamName="c-dup-last")["DeliveryStreamDescription"]
    expect_client_error(
        lambda: fh.describe_delivery_stream(DeliveryStreamName="c-dup-first"), "ResourceNotFoundException"
    )


def test_create_extended_s3_and_describe_fills_every_default(cp, fh):
    before = time.time()
    create(fh, "c-defaults")
    after = time.time()
    desc = describe(fh, "c-defaults")
    assert desc["DeliveryStreamName"] == "c-defaults"
    assert desc["DeliveryStreamARN"] == arn("c-defaults")
    assert desc["DeliveryStreamStatus"] == "ACTIVE"
    assert desc["DeliveryStreamType"] == "DirectPut"
    assert desc["VersionId"] == "1"
    assert desc["HasMoreDestinations"] is False
    assert desc.get("DeliveryStreamEncryptionConfiguration", {"Status": "DISABLED"})["Status"] == "DISABLED"
    created = desc["CreateTimestamp"].timestamp()
    assert before - 1 <= created <= after + 1, (before, created, after)
    dest = destination_of(desc)
    assert dest["DestinationId"] == DESTINATION_ID
    ext = dest["ExtendedS3DestinationDescription"]
    plain = dest["S3DestinationDescription"]
    for d in (ext, plain):
        assert d["RoleARN"] == ROLE_ARN
        assert d["BucketARN"] == f"arn:aws:s3:::{BUCKET}"
        assert d["BufferingHints"] == {"SizeInMBs": 5, "IntervalInSeconds": 300}
        assert d["CompressionFormat"] == "UNCOMPRESSED"
        assert d["EncryptionConfiguration"] == NO_ENCRYPTION
        assert d["Prefix"] == ""
        assert d["CloudWatchLoggingOptions"] == {"Enabled": False}
        assert "ErrorOutputPrefix" not in d or d["ErrorOutputPrefix"] == ""
    assert ext["S3BackupMode"] == "Disabled"
    if "ProcessingConfiguration" in ext:
        assert ext["ProcessingConfiguration"]["Enabled"] is False, ext
    # The ARN, wire status and type as sent.
    raw = raw_call(cp, "DescribeDeliveryStream", {"DeliveryStreamName": "c-defaults"})
    rdesc = raw["DeliveryStreamDescription"]
    assert isinstance(rdesc["CreateTimestamp"], (int, float)) and not isinstance(rdesc["CreateTimestamp"], bool)
    assert abs(rdesc["CreateTimestamp"] - created) < 0.01
    rext = rdesc["Destinations"][0]["ExtendedS3DestinationDescription"]
    assert rext["BufferingHints"] == {"SizeInMBs": 5, "IntervalInSeconds": 300}
    assert all(type(v) is int for v in rext["BufferingHints"].values()), rext["BufferingHints"]


def test_create_s3_destination_is_described_both_ways(cp, fh):
    create(fh, "c-legacy", s3=True, Prefix="legacy/", CompressionFormat="GZIP", **hints(2, 60))
    dest = destination_of(describe(fh, "c-legacy"))
    for d in (dest["ExtendedS3DestinationDescription"], dest["S3DestinationDescription"]):
        assert d["Prefix"] == "legacy/"
        assert d["CompressionFormat"] == "GZIP"
        assert d["BufferingHints"] == {"SizeInMBs": 2, "IntervalInSeconds": 60}
        assert d["RoleARN"] == ROLE_ARN and d["BucketARN"] == f"arn:aws:s3:::{BUCKET}"
        assert d["EncryptionConfiguration"] == NO_ENCRYPTION
    raw = raw_call(cp, "DescribeDeliveryStream", {"DeliveryStreamName": "c-legacy"})
    rplain = raw["DeliveryStreamDescription"]["Destinations"][0]["S3DestinationDescription"]
    extended_only = set(MODEL.shape_for("ExtendedS3DestinationDescription").members) - set(
        MODEL.shape_for("S3DestinationDescription").members
    )
    assert not extended_only & set(rplain), f"S3DestinationDescription carries extended-only members: {rplain}"
    # And it delivers as configured.
    fh.put_record(DeliveryStreamName="c-legacy", Record={"Data": b"legacy-record"})
    cp.flush("c-legacy")
    keys = objects_of(cp, "c-legacy")
    assert len(keys) == 1 and keys[0].startswith("legacy/") and keys[0].endswith(".gz"), keys
    assert cp.delivered("c-legacy") == b"legacy-record"


def test_describe_echoes_every_extended_member(cp, fh):
    fields = dict(
        Prefix="data/!{timestamp:yyyy}/!{firehose:random-string}/",
        ErrorOutputPrefix="errors/!{firehose:error-output-type}/",
        CompressionFormat="GZIP",
        FileExtension=".json.gz",
        CustomTimeZone="Asia/Tokyo",
        EncryptionConfiguration={
            "KMSEncryptionConfig": {"AWSKMSKeyARN": "arn:aws:kms:us-east-1:000000000000:key/abcd-1234"}
        },
        CloudWatchLoggingOptions={"Enabled": True, "LogGroupName": "/aws/firehose/x", "LogStreamName": "S3Delivery"},
        S3BackupMode="Disabled",
        DynamicPartitioningConfiguration={"Enabled": False},
        DataFormatConversionConfiguration={"Enabled": False},
        **hints(3, 120),
        **DELIMITER,
    )
    create(fh, "c-full", **fields)
    desc = describe(fh, "c-full")
    ext = destination_of(desc)["ExtendedS3DestinationDescription"]
    for key, value in fields.items():
        assert ext.get(key) == value, f"{key}: described {ext.get(key)!r}, created with {value!r}"
    plain = destination_of(desc)["S3DestinationDescription"]
    assert plain["Prefix"] == fields["Prefix"] and plain["ErrorOutputPrefix"] == fields["ErrorOutputPrefix"]
    assert plain["EncryptionConfiguration"] == fields["EncryptionConfiguration"]
    raw_call(cp, "DescribeDeliveryStream", {"DeliveryStreamName": "c-full"})


def test_describe_processor_with_parameters(cp, fh):
    processing = {
        "Enabled": True,
        "Processors": [
            {"Type": "AppendDelimiterToRecord", "Parameters": [{"ParameterName": "Delimiter", "ParameterValue": "\\n"}]}
        ],
    }
    create(fh, "c-proc", ProcessingConfiguration=processing)
    ext = destination_of(describe(fh, "c-proc"))["ExtendedS3DestinationDescription"]
    assert ext["ProcessingConfiguration"] == processing
    raw_call(cp, "DescribeDeliveryStream", {"DeliveryStreamName": "c-proc"})


def test_describe_limit_and_exclusive_start_destination(cp, fh):
    create(fh, "c-dest-page")
    assert len(describe(fh, "c-dest-page", Limit=1)["Destinations"]) == 1
    desc = describe(fh, "c-dest-page", ExclusiveStartDestinationId=DESTINATION_ID)
    assert desc["Destinations"] == [] and desc["HasMoreDestinations"] is False
    resp = expect_client_error(
        lambda: fh.describe_delivery_stream(DeliveryStreamName="c-dest-page", Limit=0), "ValidationException"
    )
    assert_validation(resp, "limit", "Member must have value greater than or equal to 1", "0")


def test_describe_config_file_stream(cp, fh):
    desc = describe(fh, CONFIG_STREAM)
    assert desc["DeliveryStreamStatus"] == "ACTIVE" and desc["VersionId"] == "1"
    ext = destination_of(desc)["ExtendedS3DestinationDescription"]
    assert ext["BucketARN"] == f"arn:aws:s3:::{CONFIG_BUCKET}"
    assert ext["CompressionFormat"] == "GZIP"
    assert ext["ProcessingConfiguration"] == DELIMITER["ProcessingConfiguration"]
    raw_call(cp, "DescribeDeliveryStream", {"DeliveryStreamName": CONFIG_STREAM})


def test_create_then_put_delivers_with_its_settings(cp, fh):
    create(fh, "c-put", Prefix="put/", CompressionFormat="GZIP", FileExtension=".jsonl.gz", **DELIMITER)
    fh.put_record_batch(DeliveryStreamName="c-put", Records=[{"Data": b"one"}, {"Data": b"two"}])
    flushed = cp.flush("c-put")["objects"]
    assert len(flushed) == 1 and flushed[0]["records"] == 2, flushed
    [key] = objects_of(cp, "c-put")
    assert re.fullmatch(r"put/\d{4}/\d{2}/\d{2}/\d{2}/" + fhlocal.object_name_re("c-put", ".jsonl.gz"), key), key
    assert cp.delivered("c-put") == b"one\ntwo\n"


def test_create_duplicate_is_resource_in_use(fh):
    create(fh, "c-dup")
    resp = expect_client_error(
        lambda: fh.create_delivery_stream(DeliveryStreamName="c-dup", ExtendedS3DestinationConfiguration=fhlocal.destination()),
        "ResourceInUseException",
    )
    assert resp["Error"]["Message"] == f"Firehose c-dup under accountId {ACCOUNT_ID} already exists"
    # Also against a configuration-file stream.
    resp = expect_client_error(
        lambda: fh.create_delivery_stream(DeliveryStreamName=CONFIG_STREAM, ExtendedS3DestinationConfiguration=fhlocal.destination()),
        "ResourceInUseException",
    )
    assert CONFIG_STREAM in resp["Error"]["Message"]
    # The original is untouched.
    assert version_of(fh, CONFIG_STREAM) == "1"


@pytest.mark.timeout_s(60)
def test_concurrent_creates_of_one_name_succeed_once(cp, fh):
    def attempt(i):
        try:
            fh.create_delivery_stream(
                DeliveryStreamName="c-race", ExtendedS3DestinationConfiguration=fhlocal.destination(Prefix=f"p{i}/")
            )
            return "ok"
        except ClientError as e:
            return e.response["Error"]["Code"]

    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        outcomes = list(pool.map(attempt, range(12), timeout=60))
    assert outcomes.count("ok") == 1, outcomes
    assert set(outcomes) == {"ok", "ResourceInUseException"}, outcomes
    assert describe(fh, "c-race")["VersionId"] == "1"


def _long(n: int) -> str:
    return "x" * n


def _dest(**fields):
    return fhlocal.destination(**fields)


# (id, CreateDeliveryStream params, code, checks): checks is either a tuple
# (path, constraint, value) for a ValidationException, or a list of fragments
# the message must contain.
CREATE_ERRORS = [
    ("missing-role", {EXT: {"BucketARN": f"arn:aws:s3:::{BUCKET}"}}, "ValidationException",
     ("extendedS3DestinationConfiguration.roleARN", "Member must not be null", None)),
    ("missing-bucket", {EXT: {"RoleARN": ROLE_ARN}}, "ValidationException",
     ("extendedS3DestinationConfiguration.bucketARN", "Member must not be null", None)),
    ("s3-missing-role", {S3: {"BucketARN": f"arn:aws:s3:::{BUCKET}"}}, "ValidationException",
     ("s3DestinationConfiguration.roleARN", "Member must not be null", None)),
    ("bad-bucket-arn", {EXT: _dest() | {"BucketARN": "demo-bucket"}}, "ValidationException",
     ("extendedS3DestinationConfiguration.bucketARN",
      r"Member must satisfy regular expression pattern: arn:.*:s3:::[\w\.\-]{1,255}", "demo-bucket")),
    ("bad-role-arn", {EXT: _dest() | {"RoleARN": "arn:aws:iam::12:role/x"}}, "ValidationException",
     ("extendedS3DestinationConfiguration.roleARN",
      r"Member must satisfy regular expression pattern: arn:.*:iam::\d{12}:role/[a-zA-Z_0-9+=,.@\-_/]+",
      "arn:aws:iam::12:role/x")),
    ("size-too-big", {EXT: _dest(**hints(129, 60))}, "ValidationException",
     ("extendedS3DestinationConfiguration.bufferingHints.sizeInMBs",
      "Member must have value less than or equal to 128", "129")),
    ("size-zero", {EXT: _dest(**hints(0, 60))}, "ValidationException",
     ("extendedS3DestinationConfiguration.bufferingHints.sizeInMBs",
      "Member must have value greater than or equal to 1", "0")),
    ("interval-too-big", {EXT: _dest(**hints(5, 901))}, "ValidationException",
     ("extendedS3DestinationConfiguration.bufferingHints.intervalInSeconds",
      "Member must have value less than or equal to 900", "901")),
    ("interval-negative", {S3: _dest(**hints(5, -1))}, "ValidationException",
     ("s3DestinationConfiguration.bufferingHints.intervalInSeconds",
      "Member must have value greater than or equal to 0", "-1")),
    ("hints-only-size", {EXT: _dest(BufferingHints={"SizeInMBs": 2})}, "InvalidArgumentException",
     ["SizeInMBs", "IntervalInSeconds"]),
    ("hints-only-interval", {EXT: _dest(BufferingHints={"IntervalInSeconds": 60})}, "InvalidArgumentException",
     ["SizeInMBs", "IntervalInSeconds"]),
    ("compression-enum", {EXT: _dest(CompressionFormat="LZ4")}, "ValidationException",
     ("extendedS3DestinationConfiguration.compressionFormat", "Member must satisfy enum value set: [", "LZ4")),
    ("processor-enum", {EXT: _dest(ProcessingConfiguration={"Enabled": True, "Processors": [{"Type": "Bogus"}]})},
     "ValidationException",
     ("extendedS3DestinationConfiguration.processingConfiguration.processors.1.member.type",
      "Member must satisfy enum value set: [", "Bogus")),
    ("dynamic-partitioning-without-keys", {EXT: _dest(DynamicPartitioningConfiguration={"Enabled": True})},
     "InvalidArgumentException", ["S3 Prefix should contain Dynamic Partitioning namespaces"]),
    ("format-conversion", {EXT: _dest(DataFormatConversionConfiguration={"Enabled": True})},
     "InvalidArgumentException", ["not supported yet"]),
    ("s3-backup-without-configuration", {EXT: _dest(S3BackupMode="Enabled")}, "InvalidArgumentException",
     ["S3BackupMode Enabled requires S3BackupConfiguration"]),
    ("s3-backup-enum", {EXT: _dest(S3BackupMode="Sometimes")}, "ValidationException",
     ("extendedS3DestinationConfiguration.s3BackupMode", "Member must satisfy enum value set: [Disabled, Enabled]",
      "Sometimes")),
    ("prefix-expr-without-error-prefix", {EXT: _dest(Prefix="y=!{timestamp:yyyy}/")}, "InvalidArgumentException",
     ["ErrorOutputPrefix cannot be null or empty when Prefix contains expressions"]),
    ("prefix-error-output-type", {EXT: _dest(Prefix="!{firehose:error-output-type}/", ErrorOutputPrefix="e/")},
     "InvalidArgumentException", ["Prefix cannot contain !{firehose:error-output-type}"]),
    # A combining mark after "/" makes one grapheme of "/\u0301", which once hid the ".." before it.
    ("prefix-combining-mark", {EXT: _dest(Prefix="a/../\u0301x/")}, "InvalidArgumentException",
     ["Prefix 'a/../\u0301x/' cannot be stored locally: path segment '..' is not allowed"]),
    # Lengths are UTF-16 code units, as in AWS's Java validator: 1,024 emoji are 2,048.
    ("prefix-1024-emoji", {EXT: _dest(Prefix="\U0001F600" * 1024)}, "ValidationException",
     ["extendedS3DestinationConfiguration.prefix", "Member must have length less than or equal to 1024"]),
    ("prefix-too-long", {EXT: _dest(Prefix=_long(1025))}, "ValidationException",
     ("extendedS3DestinationConfiguration.prefix", "Member must have length less than or equal to 1024", _long(1025))),
    ("file-extension-pattern", {EXT: _dest(FileExtension="json")}, "ValidationException",
     ("extendedS3DestinationConfiguration.fileExtension",
      r"Member must satisfy regular expression pattern: ^$|\.[0-9a-z!\-_.*'()]+", "json")),
    ("time-zone-pattern", {EXT: _dest(CustomTimeZone="UTC+1")}, "ValidationException",
     ("extendedS3DestinationConfiguration.customTimeZone",
      "Member must satisfy regular expression pattern: ^$|[a-zA-Z/_]+", "UTC+1")),
    ("time-zone-unknown", {EXT: _dest(CustomTimeZone="Mars/Olympus_Mons")}, "InvalidArgumentException",
     ["Mars/Olympus_Mons"]),
    ("no-destination", {}, "InvalidArgumentException", ["ExtendedS3DestinationConfiguration"]),
    ("two-destinations", {EXT: _dest(), S3: _dest()}, "InvalidArgumentException",
     ["ExtendedS3DestinationConfiguration", "S3DestinationConfiguration"]),
    ("other-destination",
     {"SplunkDestinationConfiguration": {
         "HECEndpoint": "https://splunk.example.com:8088", "HECEndpointType": "Raw", "HECToken": "t",
         "S3Configuration": _dest()}},
     "InvalidArgumentException", ["SplunkDestinationConfiguration", "not supported yet"]),
    ("http-endpoint-ftp",
     {"HttpEndpointDestinationConfiguration": {
         "EndpointConfiguration": {"Url": "ftp://example.com"},
         "S3Configuration": _dest()}},
     "InvalidArgumentException", ["is not an http:// or https:// URL"]),
    ("kinesis-source-missing",
     {"DeliveryStreamType": "KinesisStreamAsSource", EXT: _dest()},
     "InvalidArgumentException", ["KinesisStreamSourceConfiguration", "required"]),
    ("kinesis-source-other-account",
     {"DeliveryStreamType": "KinesisStreamAsSource",
      "KinesisStreamSourceConfiguration": {
          "KinesisStreamARN": "arn:aws:kinesis:us-east-1:123456789012:stream/s", "RoleARN": ROLE_ARN},
      EXT: _dest()},
     "InvalidArgumentException", ["is not a data stream of this server"]),
    ("msk-source", {"DeliveryStreamType": "MSKAsSource", EXT: _dest()},
     "InvalidArgumentException", ["MSKAsSource", "not supported yet"]),
    ("stream-type-enum", {"DeliveryStreamType": "Sideways", EXT: _dest()}, "ValidationException",
     ("deliveryStreamType", "Member must satisfy enum value set: [", "Sideways")),
    ("tags-empty", {EXT: _dest(), "Tags": []}, "ValidationException",
     ("tags", "Member must have length greater than or equal to 1", None)),
    ("tags-51", {EXT: _dest(), "Tags": [{"Key": f"k{i}", "Value": "v"} for i in range(51)]}, "ValidationException",
     ("tags", "Member must have length less than or equal to 50", None)),
    ("tag-aws-prefix", {EXT: _dest(), "Tags": [{"Key": "ok"}, {"Key": "aws:owner", "Value": "me"}]},
     "ValidationException",
     ("tags.2.member.key",
      r"Member must satisfy regular expression pattern: ^(?!aws:)[\p{L}\p{Z}\p{N}_.:\/=+\-@%]*$", "aws:owner")),
    ("tag-key-too-long", {EXT: _dest(), "Tags": [{"Key": _long(129)}]}, "ValidationException",
     ("tags.1.member.key", "Member must have length less than or equal to 128", _long(129))),
    ("tag-value-too-long", {EXT: _dest(), "Tags": [{"Key": "k", "Value": _long(257)}]}, "ValidationException",
     ("tags.1.member.value", "Member must have length less than or equal to 256", _long(257))),
    ("tag-key-pattern", {EXT: _dest(), "Tags": [{"Key": "a*b"}]}, "ValidationException",
     ("tags.1.member.key",
      r"Member must satisfy regular expression pattern: ^(?!aws:)[\p{L}\p{Z}\p{N}_.:\/=+\-@%]*$", "a*b")),
]


@pytest.mark.parametrize("case", CREATE_ERRORS, ids=[c[0] for c in CREATE_ERRORS])
def test_create_refused(fh, case):
    ident, params, code, checks = case
    name = f"bad-{ident}"
    resp = expect_client_error(lambda: fh.create_delivery_stream(DeliveryStreamName=name, **params), code)
    msg = resp["Error"]["Message"]
    if isinstance(checks, tuple):
        path, constraint, value = checks
        if value is None and path == "tags":
            # A list value is rendered by AWS as the list; only the path and constraint are pinned.
            assert VALIDATION_FORM.match(msg), msg
            assert f"at '{path}' failed to satisfy constraint: {constraint}" in msg, msg
        else:
            assert_validation(resp, path, constraint, value)
    else:
        for fragment in checks:
            assert fragment in msg, f"expected {fragment!r} in {msg!r}"
    assert_gone(fh, name)


# Members firehose-local accepts and ignores must still satisfy the model, or
# DescribeDeliveryStream would later echo values no SDK model allows.
# (id, destination fields, code, path, constraint fragment, rendered value)
IGNORED_MEMBER_ERRORS = [
    ("processor-parameter-name",
     {"ProcessingConfiguration": {"Enabled": True, "Processors": [{"Type": "AppendDelimiterToRecord", "Parameters": [
         {"ParameterName": "Bogus", "ParameterValue": "x"}]}]}},
     "ValidationException",
     "extendedS3DestinationConfiguration.processingConfiguration.processors.1.member.parameters.1.member.parameterName",
     "Member must satisfy enum value set: [", "Bogus"),
    ("no-encryption-enum", {"EncryptionConfiguration": {"NoEncryptionConfig": "Bogus"}}, "ValidationException",
     "extendedS3DestinationConfiguration.encryptionConfiguration.noEncryptionConfig",
     "Member must satisfy enum value set: [NoEncryption]", "Bogus"),
    ("kms-key-arn-pattern", {"EncryptionConfiguration": {"KMSEncryptionConfig": {"AWSKMSKeyARN": "nope"}}},
     "ValidationException", "extendedS3DestinationConfiguration.encryptionConfiguration.kmsencryptionconfig.awskmskeyarn",
     "Member must satisfy regular expression pattern: arn:.*:kms:", "nope"),
    ("log-group-pattern", {"CloudWatchLoggingOptions": {"Enabled": True, "LogGroupName": "bad group!"}},
     "ValidationException", "extendedS3DestinationConfiguration.cloudWatchLoggingOptions.logGroupName",
     r"Member must satisfy regular expression pattern: [\.\-_/#A-Za-z0-9]*", "bad group!"),
    ("retry-duration-range",
     {"DynamicPartitioningConfiguration": {"Enabled": False, "RetryOptions": {"DurationInSeconds": 99999}}},
     "ValidationException",
     "extendedS3DestinationConfiguration.dynamicPartitioningConfiguration.retryOptions.durationInSeconds",
     "Member must have value less than or equal to 7200", "99999"),
    # Beyond Int: it crashed the server when the message turned the double into an Int.
    ("retry-duration-huge",
     {"DynamicPartitioningConfiguration": {"Enabled": False, "RetryOptions": {"DurationInSeconds": 1e300}}},
     "ValidationException",
     "extendedS3DestinationConfiguration.dynamicPartitioningConfiguration.retryOptions.durationInSeconds",
     "Member must have value less than or equal to 7200", "1e+300"),
    ("cloudwatch-enabled-type", {"CloudWatchLoggingOptions": {"Enabled": "yes"}}, "SerializationException",
     None, None, None),
]


@pytest.mark.parametrize("case", IGNORED_MEMBER_ERRORS, ids=[c[0] for c in IGNORED_MEMBER_ERRORS])
def test_create_validates_accepted_but_ignored_members(cp, fh, case):
    ident, fields, code, path, constraint, value = case
    name = f"bad-{ident}"
    try:
        fh.create_delivery_stream(DeliveryStreamName=name, ExtendedS3DestinationConfiguration=_dest(**fields))
    except ClientError as e:
        resp = e.response
    else:
        raw = cp.raw({"DeliveryStreamName": name}, op="DescribeDeliveryStream").json()
        ext = raw["DeliveryStreamDescription"]["Destinations"][0]["ExtendedS3DestinationDescription"]
        problems = model_problems(MODEL.shape_for("ExtendedS3DestinationDescription"), ext, "ExtendedS3DestinationDescription", True)
        raise AssertionError(
            f"CreateDeliveryStream accepted {fields} (expected {code}); DescribeDeliveryStream now echoes it "
            f"against the model: {problems or 'no model problem in the description'}"
        )
    assert resp["Error"]["Code"] == code, resp["Error"]
    assert resp["ResponseMetadata"]["HTTPStatusCode"] == 400
    if code == "ValidationException":
        msg = resp["Error"]["Message"]
        assert VALIDATION_FORM.match(msg), msg
        assert f"Value '{value}' at '" in msg and constraint in msg, msg
        assert f"at '{path.lower()}'" in msg.lower(), f"expected the member path {path!r} in {msg!r}"
    assert_gone(fh, name)


def test_create_duplicate_tag_keys_do_not_make_two_tags(fh):
    """Tag keys are unique per stream: a request giving one key twice is either
    refused or leaves one tag with that key, never two."""
    tags = [{"Key": "dup", "Value": "1"}, {"Key": "dup", "Value": "2"}]
    try:
        create(fh, "t-dupkeys", tags=tags)
    except ClientError as e:
        assert e.response["Error"]["Code"] in ("ValidationException", "InvalidArgumentException"), e.response["Error"]
        assert_gone(fh, "t-dupkeys")
        return
    listed = list_tags(fh, "t-dupkeys")["Tags"]
    keys = [t["Key"] for t in listed]
    assert len(keys) == len(set(keys)), f"CreateDeliveryStream with Tags={tags} -> ListTagsForDeliveryStream {listed}"


@pytest.mark.parametrize(
    "name, constraint",
    [
        ("has space", "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"),
        ("x" * 65, "Member must have length less than or equal to 64"),
        ("", "Member must have length greater than or equal to 1"),
    ],
    ids=["pattern", "too-long", "empty"],
)
def test_create_bad_stream_name(fh, name, constraint):
    resp = expect_client_error(
        lambda: fh.create_delivery_stream(DeliveryStreamName=name, ExtendedS3DestinationConfiguration=_dest()),
        "ValidationException",
    )
    assert_validation(resp, "deliveryStreamName", constraint, name)


def test_create_two_violations_are_counted(fh):
    resp = expect_client_error(
        lambda: fh.create_delivery_stream(DeliveryStreamName="bad-two", ExtendedS3DestinationConfiguration=_dest(**hints(0, 1000))),
        "ValidationException",
    )
    msg = assert_validation(
        resp, "extendedS3DestinationConfiguration.bufferingHints.sizeInMBs",
        "Member must have value greater than or equal to 1", "0", count=2,
    )
    assert (
        "Value '1000' at 'extendedS3DestinationConfiguration.bufferingHints.intervalInSeconds' failed to satisfy "
        "constraint: Member must have value less than or equal to 900" in msg
    ), msg


def test_create_missing_name(fh):
    resp = expect_client_error(
        lambda: fh.create_delivery_stream(ExtendedS3DestinationConfiguration=_dest()), "ValidationException"
    )
    assert_validation(resp, "deliveryStreamName", "Member must not be null")


# --------------------------------------------------------------------------
# ListDeliveryStreams
# --------------------------------------------------------------------------


def test_list_delivery_streams_paging_and_filters(make_server):
    srv = make_server(cp_config(ext_stream("m-config"), ext_stream("b-config")), name="list")
    fh = srv.client()
    api_names = ["a-api", "c-api", "d-api", "e-api", "f-api", "g-api", "h-api", "i-api", "j-api", "k-api", "z-api"]
    for name in api_names:
        create(fh, name)
    everything = sorted(api_names + ["m-config", "b-config"])  # 13 streams

    first = conform("ListDeliveryStreams", fh.list_delivery_streams())
    assert first["DeliveryStreamNames"] == everything[:10], first
    assert first["HasMoreDeliveryStreams"] is True
    rest = conform("ListDeliveryStreams", fh.list_delivery_streams(ExclusiveStartDeliveryStreamName=everything[9]))
    assert rest["DeliveryStreamNames"] == everything[10:] and rest["HasMoreDeliveryStreams"] is False, rest

    # Paging with Limit collects every name exactly once, in order.
    seen, start = [], None
    for _ in range(20):
        kw = {"Limit": 3} | ({"ExclusiveStartDeliveryStreamName": start} if start else {})
        page = conform("ListDeliveryStreams", fh.list_delivery_streams(**kw))
        assert len(page["DeliveryStreamNames"]) <= 3
        seen += page["DeliveryStreamNames"]
        if not page["HasMoreDeliveryStreams"]:
            break
        start = page["DeliveryStreamNames"][-1]
    assert seen == everything

    exact = fh.list_delivery_streams(Limit=13)
    assert exact["DeliveryStreamNames"] == everything and exact["HasMoreDeliveryStreams"] is False
    # A start name that is not a stream: the names after it.
    between = fh.list_delivery_streams(ExclusiveStartDeliveryStreamName="e-apj")
    assert between["DeliveryStreamNames"] == [n for n in everything if n > "e-apj"][:10]

    direct = conform("ListDeliveryStreams", fh.list_delivery_streams(DeliveryStreamType="DirectPut", Limit=100))
    assert direct["DeliveryStreamNames"] == everything
    kinesis = conform("ListDeliveryStreams", fh.list_delivery_streams(DeliveryStreamType="KinesisStreamAsSource"))
    assert kinesis["DeliveryStreamNames"] == [] and kinesis["HasMoreDeliveryStreams"] is False, kinesis

    raw = raw_call(srv, "ListDeliveryStreams", {"Limit": 2})
    assert raw == {"DeliveryStreamNames": everything[:2], "HasMoreDeliveryStreams": True}

    for kw, path, constraint, value in [
        ({"Limit": 0}, "limit", "Member must have value greater than or equal to 1", "0"),
        ({"Limit": 10001}, "limit", "Member must have value less than or equal to 10000", "10001"),
        ({"DeliveryStreamType": "Sideways"}, "deliveryStreamType", "Member must satisfy enum value set: [", "Sideways"),
        ({"ExclusiveStartDeliveryStreamName": "no spaces"}, "exclusiveStartDeliveryStreamName",
         "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+", "no spaces"),
    ]:
        resp = expect_client_error(lambda: fh.list_delivery_streams(**kw), "ValidationException")
        assert_validation(resp, path, constraint, value)


def test_list_includes_created_and_config_streams(fh):
    create(fh, "l-shared")
    names = fh.list_delivery_streams(Limit=10000)["DeliveryStreamNames"]
    assert "l-shared" in names and CONFIG_STREAM in names
    assert names == sorted(names)


# --------------------------------------------------------------------------
# DeleteDeliveryStream
# --------------------------------------------------------------------------


def test_delete_discards_buffer_and_removes_stream(cp, fh):
    create(fh, "d-buf", **hints(1, 900))
    fh.put_record_batch(DeliveryStreamName="d-buf", Records=[{"Data": b"lost-%d" % i} for i in range(5)])
    resp = conform("DeleteDeliveryStream", fh.delete_delivery_stream(DeliveryStreamName="d-buf"))
    assert resp["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert_gone(fh, "d-buf")
    assert "d-buf" not in fh.list_delivery_streams(Limit=10000)["DeliveryStreamNames"]
    put = expect_client_error(
        lambda: fh.put_record(DeliveryStreamName="d-buf", Record={"Data": b"x"}), "ResourceNotFoundException"
    )
    assert put["Error"]["Message"] == not_found_message("d-buf")
    r = cp.http("POST", "/_local/flush?stream=d-buf", body=b"")
    assert r.status == 404, r
    flushed = cp.flush()["objects"]
    assert not [o for o in flushed if o["stream"] == "d-buf"], flushed
    assert objects_of(cp, "d-buf") == []
    again = expect_client_error(lambda: fh.delete_delivery_stream(DeliveryStreamName="d-buf"), "ResourceNotFoundException")
    assert again["Error"]["Message"] == not_found_message("d-buf")

    # The name can be used again, and the discarded buffer does not come back.
    create(fh, "d-buf", **hints(1, 900))
    assert describe(fh, "d-buf")["VersionId"] == "1"
    fh.put_record(DeliveryStreamName="d-buf", Record={"Data": b"fresh"})
    cp.flush("d-buf")
    assert cp.delivered("d-buf") == b"fresh"


def test_delete_errors(fh):
    resp = expect_client_error(lambda: fh.delete_delivery_stream(DeliveryStreamName="d-never"), "ResourceNotFoundException")
    assert resp["Error"]["Message"] == not_found_message("d-never")
    resp = expect_client_error(lambda: fh.delete_delivery_stream(DeliveryStreamName="bad name"), "ValidationException")
    assert_validation(resp, "deliveryStreamName", "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+", "bad name")
    resp = expect_client_error(lambda: fh.delete_delivery_stream(), "ValidationException")
    assert_validation(resp, "deliveryStreamName", "Member must not be null")


def test_describe_errors(fh):
    resp = expect_client_error(lambda: fh.describe_delivery_stream(DeliveryStreamName="x-never"), "ResourceNotFoundException")
    assert resp["Error"]["Message"] == not_found_message("x-never")
    resp = expect_client_error(lambda: fh.describe_delivery_stream(DeliveryStreamName="x" * 65), "ValidationException")
    assert_validation(resp, "deliveryStreamName", "Member must have length less than or equal to 64", "x" * 65)
    resp = expect_client_error(lambda: fh.describe_delivery_stream(), "ValidationException")
    assert_validation(resp, "deliveryStreamName", "Member must not be null")


# --------------------------------------------------------------------------
# UpdateDestination
# --------------------------------------------------------------------------


def test_update_merges_increments_version_and_delivers_old_buffer_first(cp, fh):
    name = "u-merge"
    create(fh, name, Prefix="old/", ErrorOutputPrefix="err/", **hints(1, 900))
    created = describe(fh, name)["CreateTimestamp"]
    fh.put_record_batch(DeliveryStreamName=name, Records=[{"Data": b"before-1\n"}, {"Data": b"before-2\n"}])
    assert objects_of(cp, name) == []

    update(fh, name, "1", Prefix="new/", CompressionFormat="GZIP")

    # What was buffered went out at update time, with the old settings and version.
    old = objects_of(cp, name)
    assert len(old) == 1, old
    assert re.fullmatch(r"old/\d{4}/\d{2}/\d{2}/\d{2}/" + fhlocal.object_name_re(name, "", 1), old[0]), old
    assert cp.read_object(BUCKET, old[0]) == b"before-1\nbefore-2\n"

    desc = describe(fh, name)
    assert desc["VersionId"] == "2"
    assert desc["CreateTimestamp"] == created
    assert desc["LastUpdateTimestamp"] >= created
    ext = destination_of(desc)["ExtendedS3DestinationDescription"]
    assert ext["Prefix"] == "new/" and ext["CompressionFormat"] == "GZIP"
    # Members the update did not give keep their values.
    assert ext["ErrorOutputPrefix"] == "err/"
    assert ext["BufferingHints"] == {"SizeInMBs": 1, "IntervalInSeconds": 900}
    assert ext["RoleARN"] == ROLE_ARN and ext["BucketARN"] == f"arn:aws:s3:::{BUCKET}"
    raw = raw_call(cp, "DescribeDeliveryStream", {"DeliveryStreamName": name})
    assert isinstance(raw["DeliveryStreamDescription"]["LastUpdateTimestamp"], (int, float))

    fh.put_record(DeliveryStreamName=name, Record={"Data": b"after\n"})
    cp.flush(name)
    keys = objects_of(cp, name)
    assert len(keys) == 2, keys
    new = [k for k in keys if k != old[0]][0]
    assert re.fullmatch(r"new/\d{4}/\d{2}/\d{2}/\d{2}/" + fhlocal.object_name_re(name, ".gz", 2), new), new
    assert gzip.decompress(cp.bucket_dir().joinpath(new).read_bytes()) == b"after\n"

    # Version 2 -> 3 needs "2"; the stale "1" is refused.
    resp = expect_client_error(
        lambda: update(fh, name, "1", Prefix="stale/"), "ConcurrentModificationException"
    )
    assert "1" in resp["Error"]["Message"] and "2" in resp["Error"]["Message"], resp["Error"]
    update(fh, name, "2", **hints(2, 60))
    ext = destination_of(describe(fh, name))["ExtendedS3DestinationDescription"]
    assert describe(fh, name)["VersionId"] == "3"
    assert ext["Prefix"] == "new/" and ext["CompressionFormat"] == "GZIP"
    assert ext["BufferingHints"] == {"SizeInMBs": 2, "IntervalInSeconds": 60}


def test_update_with_s3_destination_update_keeps_extended_members(cp, fh):
    name = "u-s3upd"
    create(fh, name, FileExtension=".log", **DELIMITER)
    update(fh, name, "1", s3=True, Prefix="via-s3-update/")
    desc = describe(fh, name)
    ext = destination_of(desc)["ExtendedS3DestinationDescription"]
    assert desc["VersionId"] == "2"
    assert ext["Prefix"] == "via-s3-update/"
    assert ext["ProcessingConfiguration"] == DELIMITER["ProcessingConfiguration"]
    assert ext["FileExtension"] == ".log"
    fh.put_record_batch(DeliveryStreamName=name, Records=[{"Data": b"a"}, {"Data": b"b"}])
    cp.flush(name)
    [key] = objects_of(cp, name)
    assert key.startswith("via-s3-update/") and re.search(fhlocal.object_name_re(name, ".log", 2) + "$", key), key
    assert cp.delivered(name) == b"a\nb\n"


def test_update_version_and_destination_checks(cp, fh):
    name = "u-checks"
    create(fh, name)
    # Wrong version.
    resp = expect_client_error(lambda: update(fh, name, "7", Prefix="p/"), "ConcurrentModificationException")
    msg = resp["Error"]["Message"]
    assert name in msg and "7" in msg, msg
    # Missing version (required by the model).
    resp = expect_client_error(
        lambda: fh.update_destination(
            DeliveryStreamName=name, DestinationId=DESTINATION_ID, ExtendedS3DestinationUpdate={"Prefix": "p/"}
        ),
        "ValidationException",
    )
    assert_validation(resp, "currentDeliveryStreamVersionId", "Member must not be null")
    # Not a version id.
    resp = expect_client_error(lambda: update(fh, name, "one", Prefix="p/"), "ValidationException")
    assert_validation(resp, "currentDeliveryStreamVersionId", "Member must satisfy regular expression pattern: [0-9]+", "one")
    # Unknown destination.
    resp = expect_client_error(
        lambda: fh.update_destination(
            DeliveryStreamName=name, CurrentDeliveryStreamVersionId="1", DestinationId="destinationId-000000000002",
            ExtendedS3DestinationUpdate={"Prefix": "p/"},
        ),
        "InvalidArgumentException",
    )
    assert "destinationId-000000000002" in resp["Error"]["Message"], resp["Error"]
    # Missing destination id.
    resp = expect_client_error(
        lambda: fh.update_destination(
            DeliveryStreamName=name, CurrentDeliveryStreamVersionId="1", ExtendedS3DestinationUpdate={"Prefix": "p/"}
        ),
        "ValidationException",
    )
    assert_validation(resp, "destinationId", "Member must not be null")
    # Unknown stream.
    resp = expect_client_error(lambda: update(fh, "u-never", "1", Prefix="p/"), "ResourceNotFoundException")
    assert resp["Error"]["Message"] == not_found_message("u-never")
    # Another destination type.
    resp = expect_client_error(
        lambda: fh.update_destination(
            DeliveryStreamName=name, CurrentDeliveryStreamVersionId="1", DestinationId=DESTINATION_ID,
            HttpEndpointDestinationUpdate={"EndpointConfiguration": {"Url": "https://example.com"}},
        ),
        "InvalidArgumentException",
    )
    assert "not supported yet" in resp["Error"]["Message"], resp["Error"]
    # Semantic rules apply to the merged result.
    resp = expect_client_error(
        lambda: update(fh, name, "1", BufferingHints={"SizeInMBs": 2}), "InvalidArgumentException"
    )
    assert "IntervalInSeconds" in resp["Error"]["Message"], resp["Error"]
    resp = expect_client_error(lambda: update(fh, name, "1", CompressionFormat="LZO"), "ValidationException")
    assert "compressionFormat" in resp["Error"]["Message"], resp["Error"]
    resp = expect_client_error(lambda: update(fh, name, "1", Prefix="a/../\u0301x/"), "InvalidArgumentException")
    assert "path segment '..' is not allowed" in resp["Error"]["Message"], resp["Error"]
    # Nothing changed through all of that.
    desc = describe(fh, name)
    assert desc["VersionId"] == "1"
    assert destination_of(desc)["ExtendedS3DestinationDescription"]["Prefix"] == ""


def test_update_validation_names_the_update_member(fh):
    """AWS validates UpdateDestination's own input: the message names
    'extendedS3DestinationUpdate...', not the CreateDeliveryStream member."""
    name = "u-valpath"
    create(fh, name)
    resp = expect_client_error(lambda: update(fh, name, "1", **hints(200, 60)), "ValidationException")
    assert_validation(
        resp, "extendedS3DestinationUpdate.bufferingHints.sizeInMBs",
        "Member must have value less than or equal to 128", "200",
    )
    resp = expect_client_error(lambda: update(fh, name, "1", s3=True, CompressionFormat="LZ4"), "ValidationException")
    assert_validation(resp, "s3DestinationUpdate.compressionFormat", "Member must satisfy enum value set: [", "LZ4")
    assert describe(fh, name)["VersionId"] == "1"


def test_update_raw_output_is_empty_object(cp, fh):
    create(fh, "u-raw")
    raw = raw_call(
        cp, "UpdateDestination",
        {"DeliveryStreamName": "u-raw", "CurrentDeliveryStreamVersionId": "1", "DestinationId": DESTINATION_ID,
         "ExtendedS3DestinationUpdate": {"Prefix": "r/"}},
    )
    assert raw == {}


# --------------------------------------------------------------------------
# Tags
# --------------------------------------------------------------------------


def test_tag_untag_list_roundtrip(cp, fh):
    name = "t-basic"
    create(fh, name, tags=[{"Key": "team", "Value": "data"}, {"Key": "env", "Value": "dev"}])
    got = list_tags(fh, name)
    assert got["Tags"] == [{"Key": "team", "Value": "data"}, {"Key": "env", "Value": "dev"}]
    assert got["HasMoreTags"] is False

    conform("TagDeliveryStream", fh.tag_delivery_stream(
        DeliveryStreamName=name, Tags=[{"Key": "env", "Value": "prod"}, {"Key": "novalue"}, {"Key": "cost:centre", "Value": "42"}]
    ))
    got = {t["Key"]: t.get("Value") for t in list_tags(fh, name)["Tags"]}
    assert got == {"team": "data", "env": "prod", "novalue": None, "cost:centre": "42"}, got

    conform("UntagDeliveryStream", fh.untag_delivery_stream(DeliveryStreamName=name, TagKeys=["team", "not-there"]))
    got = {t["Key"]: t.get("Value") for t in list_tags(fh, name)["Tags"]}
    assert got == {"env": "prod", "novalue": None, "cost:centre": "42"}, got

    assert raw_call(cp, "TagDeliveryStream", {"DeliveryStreamName": name, "Tags": [{"Key": "r", "Value": "1"}]}) == {}
    assert raw_call(cp, "UntagDeliveryStream", {"DeliveryStreamName": name, "TagKeys": ["r"]}) == {}
    raw = raw_call(cp, "ListTagsForDeliveryStream", {"DeliveryStreamName": name})
    assert raw["HasMoreTags"] is False and len(raw["Tags"]) == 3
    # Tagging does not change the stream version.
    assert version_of(fh, name) == "1"


def test_tag_limit_of_fifty_per_stream(fh):
    name = "t-limit"
    create(fh, name, tags=[{"Key": f"k{i:02d}", "Value": str(i)} for i in range(45)])
    fh.tag_delivery_stream(DeliveryStreamName=name, Tags=[{"Key": f"k{i:02d}", "Value": str(i)} for i in range(45, 50)])
    assert len(list_tags(fh, name)["Tags"]) == 50
    resp = expect_client_error(
        lambda: fh.tag_delivery_stream(DeliveryStreamName=name, Tags=[{"Key": "one-too-many", "Value": "x"}]),
        "LimitExceededException",
    )
    assert "50" in resp["Error"]["Message"], resp["Error"]
    # Replacing an existing key's value does not add a tag.
    fh.tag_delivery_stream(DeliveryStreamName=name, Tags=[{"Key": "k00", "Value": "changed"}])
    tags = list_tags(fh, name)["Tags"]
    assert len(tags) == 50 and {"Key": "k00", "Value": "changed"} in tags
    assert not any(t["Key"] == "one-too-many" for t in tags)


def test_list_tags_paging(fh):
    name = "t-page"
    keys = [f"key{i:02d}" for i in range(50)]
    create(fh, name, tags=[{"Key": k, "Value": "v"} for k in keys])
    default = list_tags(fh, name)
    assert len(default["Tags"]) == 50 and default["HasMoreTags"] is False

    seen, start, pages = [], None, 0
    while True:
        kw = {"Limit": 20} | ({"ExclusiveStartTagKey": start} if start else {})
        page = list_tags(fh, name, **kw)
        pages += 1
        assert len(page["Tags"]) <= 20
        seen += [t["Key"] for t in page["Tags"]]
        if not page["HasMoreTags"]:
            break
        start = page["Tags"][-1]["Key"]
        assert pages < 10, "paging does not end"
    assert pages == 3 and sorted(seen) == keys and len(seen) == 50, (pages, seen)

    one = list_tags(fh, name, Limit=1)
    assert len(one["Tags"]) == 1 and one["HasMoreTags"] is True
    fifty = list_tags(fh, name, Limit=50)
    assert len(fifty["Tags"]) == 50 and fifty["HasMoreTags"] is False

    for limit, constraint in [
        (0, "Member must have value greater than or equal to 1"),
        (51, "Member must have value less than or equal to 50"),
    ]:
        resp = expect_client_error(
            lambda: fh.list_tags_for_delivery_stream(DeliveryStreamName=name, Limit=limit), "ValidationException"
        )
        assert_validation(resp, "limit", constraint, str(limit))


def test_tag_errors(fh):
    name = "t-errors"
    create(fh, name)
    for tags, path, constraint, value in [
        ([{"Key": "aws:reserved", "Value": "x"}], "tags.1.member.key",
         r"Member must satisfy regular expression pattern: ^(?!aws:)[\p{L}\p{Z}\p{N}_.:\/=+\-@%]*$", "aws:reserved"),
        ([{"Key": "ok"}, {"Key": _long(129)}], "tags.2.member.key",
         "Member must have length less than or equal to 128", _long(129)),
        ([{"Key": ""}], "tags.1.member.key", "Member must have length greater than or equal to 1", ""),
        ([{"Key": "k", "Value": "a|b"}], "tags.1.member.value",
         r"Member must satisfy regular expression pattern: ^[\p{L}\p{Z}\p{N}_.:\/=+\-@%]*$", "a|b"),
    ]:
        resp = expect_client_error(lambda: fh.tag_delivery_stream(DeliveryStreamName=name, Tags=tags), "ValidationException")
        assert_validation(resp, path, constraint, value)
    for tags, constraint in [
        ([], "Member must have length greater than or equal to 1"),
        ([{"Key": f"k{i}"} for i in range(51)], "Member must have length less than or equal to 50"),
    ]:
        resp = expect_client_error(lambda: fh.tag_delivery_stream(DeliveryStreamName=name, Tags=tags), "ValidationException")
        assert f"at 'tags' failed to satisfy constraint: {constraint}" in resp["Error"]["Message"], resp["Error"]
    resp = expect_client_error(lambda: fh.tag_delivery_stream(DeliveryStreamName=name), "ValidationException")
    assert_validation(resp, "tags", "Member must not be null")

    resp = expect_client_error(lambda: fh.untag_delivery_stream(DeliveryStreamName=name, TagKeys=[]), "ValidationException")
    assert "at 'tagKeys' failed to satisfy constraint: Member must have length greater than or equal to 1" in resp["Error"]["Message"]
    resp = expect_client_error(
        lambda: fh.untag_delivery_stream(DeliveryStreamName=name, TagKeys=["aws:x"]), "ValidationException"
    )
    assert "at 'tagKeys.1.member' failed to satisfy constraint" in resp["Error"]["Message"], resp["Error"]
    resp = expect_client_error(
        lambda: fh.list_tags_for_delivery_stream(DeliveryStreamName=name, ExclusiveStartTagKey="aws:x"),
        "ValidationException",
    )
    assert "at 'exclusiveStartTagKey' failed to satisfy constraint" in resp["Error"]["Message"], resp["Error"]

    for call in (
        lambda: fh.tag_delivery_stream(DeliveryStreamName="t-never", Tags=[{"Key": "k"}]),
        lambda: fh.untag_delivery_stream(DeliveryStreamName="t-never", TagKeys=["k"]),
        lambda: fh.list_tags_for_delivery_stream(DeliveryStreamName="t-never"),
    ):
        resp = expect_client_error(call, "ResourceNotFoundException")
        assert resp["Error"]["Message"] == not_found_message("t-never")
    assert list_tags(fh, name)["Tags"] == []


# --------------------------------------------------------------------------
# Encryption
# --------------------------------------------------------------------------


KEY_ARN = "arn:aws:kms:us-east-1:000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def test_server_side_encryption_is_accepted_described_and_answered_as_aws_does(fh):
    """Infrastructure code that turns encryption on (a common baseline) runs unchanged: the states are
    AWS's, PutRecord's Encrypted follows them; nothing is encrypted at rest here."""
    fh.create_delivery_stream(
        DeliveryStreamName="e-cmk", ExtendedS3DestinationConfiguration=fhlocal.destination(BUCKET),
        DeliveryStreamEncryptionConfigurationInput={"KeyType": "CUSTOMER_MANAGED_CMK", "KeyARN": KEY_ARN})
    assert describe(fh, "e-cmk")["DeliveryStreamEncryptionConfiguration"] == {
        "KeyType": "CUSTOMER_MANAGED_CMK", "KeyARN": KEY_ARN, "Status": "ENABLED"}
    assert fh.put_record(DeliveryStreamName="e-cmk", Record={"Data": b"x"})["Encrypted"] is True
    conform("StopDeliveryStreamEncryption", fh.stop_delivery_stream_encryption(DeliveryStreamName="e-cmk"))
    assert describe(fh, "e-cmk")["DeliveryStreamEncryptionConfiguration"] == {"Status": "DISABLED"}
    assert fh.put_record_batch(DeliveryStreamName="e-cmk", Records=[{"Data": b"y"}])["Encrypted"] is False

    create(fh, "e-owned")
    assert describe(fh, "e-owned")["DeliveryStreamEncryptionConfiguration"] == {"Status": "DISABLED"}
    conform("StartDeliveryStreamEncryption", fh.start_delivery_stream_encryption(DeliveryStreamName="e-owned"))
    assert describe(fh, "e-owned")["DeliveryStreamEncryptionConfiguration"] == {
        "KeyType": "AWS_OWNED_CMK", "Status": "ENABLED"}
    assert fh.put_record_batch(DeliveryStreamName="e-owned", Records=[{"Data": b"z"}])["Encrypted"] is True
    # Start again changes the key, as AWS allows.
    fh.start_delivery_stream_encryption(
        DeliveryStreamName="e-owned",
        DeliveryStreamEncryptionConfigurationInput={"KeyType": "CUSTOMER_MANAGED_CMK", "KeyARN": KEY_ARN})
    assert describe(fh, "e-owned")["DeliveryStreamEncryptionConfiguration"]["KeyARN"] == KEY_ARN

    for call, code, fragment in (
        (lambda: fh.start_delivery_stream_encryption(DeliveryStreamName="e-never"), "ResourceNotFoundException",
         not_found_message("e-never")),
        (lambda: fh.stop_delivery_stream_encryption(DeliveryStreamName="e-never"), "ResourceNotFoundException",
         not_found_message("e-never")),
        (lambda: fh.start_delivery_stream_encryption(
            DeliveryStreamName="e-owned", DeliveryStreamEncryptionConfigurationInput={"KeyType": "CUSTOMER_MANAGED_CMK"}),
         "InvalidArgumentException", "KeyARN is required"),
        (lambda: fh.start_delivery_stream_encryption(
            DeliveryStreamName="e-owned",
            DeliveryStreamEncryptionConfigurationInput={"KeyType": "AWS_OWNED_CMK", "KeyARN": KEY_ARN}),
         "InvalidArgumentException", "only with KeyType CUSTOMER_MANAGED_CMK"),
        (lambda: fh.start_delivery_stream_encryption(
            DeliveryStreamName="e-owned", DeliveryStreamEncryptionConfigurationInput={"KeyType": "MINE"}),
         "ValidationException", "Member must satisfy enum value set: [AWS_OWNED_CMK, CUSTOMER_MANAGED_CMK]"),
        (lambda: fh.create_delivery_stream(
            DeliveryStreamName="e-bad-arn", ExtendedS3DestinationConfiguration=fhlocal.destination(BUCKET),
            DeliveryStreamEncryptionConfigurationInput={"KeyType": "CUSTOMER_MANAGED_CMK", "KeyARN": "not-a-key"}),
         "ValidationException", "deliveryStreamEncryptionConfigurationInput.keyARN"),
    ):
        resp = expect_client_error(call, code)
        assert fragment in resp["Error"]["Message"], resp["Error"]
    assert describe(fh, "e-owned")["DeliveryStreamEncryptionConfiguration"]["KeyType"] == "CUSTOMER_MANAGED_CMK"


def test_direct_put_source_configuration_is_accepted_and_echoed(fh):
    fh.create_delivery_stream(
        DeliveryStreamName="d-hint", ExtendedS3DestinationConfiguration=fhlocal.destination(BUCKET),
        DirectPutSourceConfiguration={"ThroughputHintInMBs": 20})
    assert describe(fh, "d-hint")["Source"] == {"DirectPutSourceDescription": {"ThroughputHintInMBs": 20}}
    resp = expect_client_error(lambda: fh.create_delivery_stream(
        DeliveryStreamName="d-hint-high", ExtendedS3DestinationConfiguration=fhlocal.destination(BUCKET),
        DirectPutSourceConfiguration={"ThroughputHintInMBs": 101}), "ValidationException")
    assert ("directPutSourceConfiguration.throughputHintInMBs" in resp["Error"]["Message"]
            and "less than or equal to 100" in resp["Error"]["Message"]), resp["Error"]


# --------------------------------------------------------------------------
# CREATING -> ACTIVE
# --------------------------------------------------------------------------


@pytest.mark.timeout_s(60)
def test_activation_delay_creating_then_active(make_server):
    delay = 1.5
    srv = make_server(cp_config(ext_stream("a-config")), name="activation",
                      extra_args=["--activation-delay", str(delay)])
    fh = srv.client()
    # Configuration-file streams are ACTIVE at once.
    assert describe(fh, "a-config")["DeliveryStreamStatus"] == "ACTIVE"
    fh.put_record(DeliveryStreamName="a-config", Record={"Data": b"x"})

    t0 = time.monotonic()
    create(fh, "a-new")
    desc = describe(fh, "a-new")
    assert desc["DeliveryStreamStatus"] == "CREATING", desc
    raw_call(srv, "DescribeDeliveryStream", {"DeliveryStreamName": "a-new"})
    for call in (
        lambda: fh.put_record(DeliveryStreamName="a-new", Record={"Data": b"early"}),
        lambda: fh.put_record_batch(DeliveryStreamName="a-new", Records=[{"Data": b"early"}]),
    ):
        resp = expect_client_error(call, "ResourceNotFoundException")
        msg = resp["Error"]["Message"]
        assert "a-new" in msg and "not ACTIVE" in msg, msg
    resp = expect_client_error(lambda: update(fh, "a-new", "1", Prefix="p/"), "ResourceInUseException")
    assert "a-new" in resp["Error"]["Message"]

    wait_for(lambda: describe(fh, "a-new")["DeliveryStreamStatus"] == "ACTIVE", timeout=delay + 10,
             interval=0.1, what="a-new to become ACTIVE")
    assert time.monotonic() - t0 >= delay - 0.2
    fh.put_record(DeliveryStreamName="a-new", Record={"Data": b"on-time"})
    srv.flush("a-new")
    assert srv.delivered("a-new") == b"on-time"


# --------------------------------------------------------------------------
# Persistence and the configuration file
# --------------------------------------------------------------------------


@pytest.mark.timeout_s(90)
def test_a_restart_with_only_api_streams_does_not_say_none_are_defined(make_server):
    srv = make_server(cp_config(), name="only-api-1")
    assert "No delivery streams are defined" in srv.stderr_text()  # true then: nothing is defined
    create(srv.client(), "only-api")
    assert srv.stop() == 0
    again = make_server.create(cp_config(), name="only-api-2")
    again.data_dir = srv.data_dir
    again.start()
    assert again.client().list_delivery_streams()["DeliveryStreamNames"] == ["only-api"]
    assert "No delivery streams are defined" not in again.stderr_text()


@pytest.mark.timeout_s(90)
def test_api_streams_persist_and_config_wins_on_clash(make_server):
    config1 = cp_config(ext_stream("p-config", Prefix="cfg/"))
    srv = make_server(config1, name="persist-1")
    fh = srv.client()
    create(fh, "p-keep", Prefix="keep/", CompressionFormat="GZIP",
           tags=[{"Key": "owner", "Value": "ci"}, {"Key": "flag"}])
    update(fh, "p-keep", "1", **hints(2, 120))
    fh.tag_delivery_stream(DeliveryStreamName="p-keep", Tags=[{"Key": "later", "Value": "yes"}])
    create(fh, "p-clash", Prefix="from-api/", tags=[{"Key": "api", "Value": "1"}])
    create(fh, "p-deleted")
    fh.delete_delivery_stream(DeliveryStreamName="p-deleted")
    keep_before = describe(fh, "p-keep")
    assert srv.stop() == 0

    config2 = cp_config(
        ext_stream("p-config", Prefix="cfg/"),
        ext_stream("p-clash", bucket="clash-bucket", Prefix="from-config/", CompressionFormat="GZIP"),
    )
    srv2 = make_server.create(config2, name="persist-2")
    srv2.data_dir = srv.data_dir
    srv2.start()
    fh2 = srv2.client()

    names = fh2.list_delivery_streams()["DeliveryStreamNames"]
    assert names == ["p-clash", "p-config", "p-keep"], names

    keep = describe(fh2, "p-keep")
    assert keep["VersionId"] == "2"
    assert keep["CreateTimestamp"] == keep_before["CreateTimestamp"]
    assert keep["Destinations"] == keep_before["Destinations"]
    kext = destination_of(keep)["ExtendedS3DestinationDescription"]
    assert kext["Prefix"] == "keep/" and kext["BufferingHints"] == {"SizeInMBs": 2, "IntervalInSeconds": 120}
    tags = list_tags(fh2, "p-keep")["Tags"]
    assert {t["Key"]: t.get("Value") for t in tags} == {"owner": "ci", "flag": None, "later": "yes"}, tags

    clash = describe(fh2, "p-clash")
    cext = destination_of(clash)["ExtendedS3DestinationDescription"]
    assert cext["BucketARN"] == "arn:aws:s3:::clash-bucket" and cext["Prefix"] == "from-config/", cext
    assert cext["CompressionFormat"] == "GZIP"
    assert clash["VersionId"] == "1"
    stderr = srv2.stderr_text()
    clash_lines = [ln for ln in stderr.splitlines() if "p-clash" in ln and "configuration file wins" in ln]
    assert clash_lines, f"no log line about the name clash on stderr:\n{stderr}"
    assert_gone(fh2, "p-deleted")

    # Both deliver as their (surviving) definitions say.
    fh2.put_record(DeliveryStreamName="p-keep", Record={"Data": b"kept"})
    fh2.put_record(DeliveryStreamName="p-clash", Record={"Data": b"config-version"})
    srv2.flush()
    [kkey] = srv2.stream_keys("p-keep")
    assert kkey.startswith("keep/") and re.search(fhlocal.object_name_re("p-keep", ".gz", 2) + "$", kkey), kkey
    assert srv2.delivered("p-keep") == b"kept"
    [ckey] = srv2.stream_keys("p-clash", "clash-bucket")
    assert ckey.startswith("from-config/"), ckey
    assert srv2.delivered("p-clash", "clash-bucket") == b"config-version"
    assert srv2.stream_keys("p-clash") == []


@pytest.mark.timeout_s(180)
@pytest.mark.parametrize("stop", ["SIGTERM", "SIGKILL"])
def test_concurrent_changes_are_each_durable_before_they_answer(make_server, stop):
    """50 concurrent CreateDeliveryStream calls each followed by a tag, then 50 concurrent
    UpdateDestination and tag pairs on those streams: every call answers 200 (no call fails because
    another writes the catalog at the same moment), and after a SIGTERM or SIGKILL restart every
    stream, update and tag that was acknowledged is there (none overwritten by a stale snapshot)."""
    srv = make_server(cp_config(), name=f"catalog-{stop.lower()}")
    fh = srv.client(pool=64)
    count = 50

    def call(operation, **params):
        try:
            getattr(fh, operation)(**params)
            return "ok"
        except ClientError as e:
            return f"{e.response['Error']['Code']}: {e.response['Error']['Message']}"

    def create_and_tag(i):
        name = f"cc-{i:02d}"
        created = call("create_delivery_stream", DeliveryStreamName=name,
                       ExtendedS3DestinationConfiguration=fhlocal.destination(Prefix=f"p{i}/"))
        tagged = call("tag_delivery_stream", DeliveryStreamName=name, Tags=[{"Key": "n", "Value": str(i)}])
        return created, tagged

    def update_or_tag(job):
        i, kind = job
        name = f"cc-{i:02d}"
        if kind == "update":
            return call("update_destination", DeliveryStreamName=name, CurrentDeliveryStreamVersionId="1",
                        DestinationId=DESTINATION_ID, ExtendedS3DestinationUpdate={"Prefix": f"q{i}/"})
        return call("tag_delivery_stream", DeliveryStreamName=name, Tags=[{"Key": "u", "Value": str(i)}])

    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        first = list(pool.map(create_and_tag, range(count), timeout=120))
        second = list(pool.map(update_or_tag, [(i, k) for i in range(count) for k in ("update", "tag")],
                               timeout=120))
    failures = [r for pair in first for r in pair if r != "ok"] + [r for r in second if r != "ok"]
    assert failures == [], f"{len(failures)} of {4 * count} calls failed: {failures[:5]}"

    if stop == "SIGKILL":
        srv.kill()
    else:
        assert srv.stop() == 0
    again = make_server.create(cp_config(), name=f"catalog-{stop.lower()}-again")
    again.data_dir = srv.data_dir
    again.start()
    fh2 = again.client()
    names = fh2.list_delivery_streams(Limit=10_000)["DeliveryStreamNames"]
    assert names == [f"cc-{i:02d}" for i in range(count)], names
    for i in range(count):
        name = f"cc-{i:02d}"
        desc = describe(fh2, name)
        assert desc["VersionId"] == "2", (name, desc["VersionId"])
        assert destination_of(desc)["ExtendedS3DestinationDescription"]["Prefix"] == f"q{i}/", name
        tags = {t["Key"]: t.get("Value") for t in list_tags(fh2, name)["Tags"]}
        assert tags == {"n": str(i), "u": str(i)}, (name, tags)


# --------------------------------------------------------------------------
# Raw wire conformance of every control-plane operation
# --------------------------------------------------------------------------


def test_raw_wire_outputs_conform(cp, fh):
    name = "w-wire"
    t0 = time.time()
    created = raw_call(cp, "CreateDeliveryStream", {
        "DeliveryStreamName": name,
        "ExtendedS3DestinationConfiguration": fhlocal.destination(
            Prefix="w/!{timestamp:yyyy-MM-dd}/", ErrorOutputPrefix="we/!{firehose:error-output-type}/",
            FileExtension=".txt", CustomTimeZone="Europe/Paris", **hints(4, 30), **DELIMITER),
        "Tags": [{"Key": "a", "Value": "1"}],
    })
    assert created == {"DeliveryStreamARN": arn(name)}
    desc = raw_call(cp, "DescribeDeliveryStream", {"DeliveryStreamName": name})["DeliveryStreamDescription"]
    assert t0 - 1 <= desc["CreateTimestamp"] <= time.time() + 1, desc["CreateTimestamp"]
    raw_call(cp, "DescribeDeliveryStream", {"DeliveryStreamName": name, "Limit": 1})
    raw_call(cp, "ListDeliveryStreams", {})
    raw_call(cp, "ListDeliveryStreams", {"Limit": 1, "DeliveryStreamType": "DirectPut"})
    assert raw_call(cp, "TagDeliveryStream", {"DeliveryStreamName": name, "Tags": [{"Key": "b"}]}) == {}
    tags = raw_call(cp, "ListTagsForDeliveryStream", {"DeliveryStreamName": name, "Limit": 1})
    assert tags == {"Tags": [{"Key": "a", "Value": "1"}], "HasMoreTags": True}
    assert raw_call(cp, "UntagDeliveryStream", {"DeliveryStreamName": name, "TagKeys": ["a"]}) == {}
    assert raw_call(cp, "UpdateDestination", {
        "DeliveryStreamName": name, "CurrentDeliveryStreamVersionId": "1", "DestinationId": DESTINATION_ID,
        "S3DestinationUpdate": {"Prefix": "w2/!{timestamp:yyyy}/"},
    }) == {}
    desc = raw_call(cp, "DescribeDeliveryStream", {"DeliveryStreamName": name})["DeliveryStreamDescription"]
    assert desc["VersionId"] == "2" and desc["LastUpdateTimestamp"] >= desc["CreateTimestamp"]
    assert raw_call(cp, "DeleteDeliveryStream", {"DeliveryStreamName": name}) == {}
    assert_gone(fh, name)


# --------------------------------------------------------------------------
# CI-style flow with the AWS CLI (v1)
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cli_env(tmp_path_factory):
    home = tmp_path_factory.mktemp("aws-home-cp")
    return fhlocal.clean_env({
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_DEFAULT_REGION": REGION,
        "HOME": str(home),
        "AWS_CONFIG_FILE": str(home / "config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(home / "credentials"),
        "AWS_MAX_ATTEMPTS": "1",
        "AWS_RETRY_MODE": "standard",
    })


@pytest.mark.timeout_s(90)
def test_aws_cli_ci_flow(make_server, cli_env):
    srv = make_server(cp_config(), name="cli-flow", extra_args=["--activation-delay", "1"])

    def aws(*args: str, ok: bool = True):
        proc = run(fhlocal.aws_cli_command() + ["firehose", *args, "--endpoint-url", srv.endpoint, "--output", "json"],
                   env=cli_env, timeout=60)
        if ok:
            assert proc.returncode == 0, f"aws firehose {args[0]} failed:\n{proc.stderr.decode()}"
        return proc

    dest = json.dumps(fhlocal.destination(Prefix="ci/", CompressionFormat="GZIP", **hints(1, 60), **DELIMITER))
    out = json.loads(aws("create-delivery-stream", "--delivery-stream-name", "ci-stream",
                         "--delivery-stream-type", "DirectPut",
                         "--extended-s3-destination-configuration", dest,
                         "--tags", "Key=pipeline,Value=ci").stdout)
    assert out == {"DeliveryStreamARN": arn("ci-stream")}

    # `aws firehose wait delivery-stream-exists` polls every 20 s; poll describe instead.
    statuses = []

    def active():
        desc = json.loads(aws("describe-delivery-stream", "--delivery-stream-name", "ci-stream").stdout)
        statuses.append(desc["DeliveryStreamDescription"]["DeliveryStreamStatus"])
        return statuses[-1] == "ACTIVE"

    wait_for(active, timeout=30, interval=0.2, what="ci-stream to become ACTIVE")
    assert set(statuses) <= {"CREATING", "ACTIVE"}, statuses

    listed = json.loads(aws("list-delivery-streams").stdout)
    assert listed == {"DeliveryStreamNames": ["ci-stream"], "HasMoreDeliveryStreams": False}
    tags = json.loads(aws("list-tags-for-delivery-stream", "--delivery-stream-name", "ci-stream").stdout)
    assert tags["Tags"] == [{"Key": "pipeline", "Value": "ci"}]

    aws("put-record", "--delivery-stream-name", "ci-stream", "--record", "Data=first-line")
    aws("put-record-batch", "--delivery-stream-name", "ci-stream",
        "--records", '[{"Data":"second-line"},{"Data":"third-line"}]')
    req = urllib.request.Request(srv.endpoint + "/_local/flush?stream=ci-stream", method="POST")
    with urllib.request.urlopen(req, timeout=30) as resp:
        flushed = json.load(resp)["objects"]
    assert len(flushed) == 1 and flushed[0]["records"] == 3, flushed
    key = flushed[0]["key"]
    assert re.fullmatch(r"ci/\d{4}/\d{2}/\d{2}/\d{2}/" + fhlocal.object_name_re("ci-stream", ".gz"), key), key
    assert srv.read_object(BUCKET, key) == b"first-line\nsecond-line\nthird-line\n"

    aws("delete-delivery-stream", "--delivery-stream-name", "ci-stream")
    proc = aws("describe-delivery-stream", "--delivery-stream-name", "ci-stream", ok=False)
    assert proc.returncode != 0 and "ResourceNotFoundException" in proc.stderr.decode(), proc.stderr.decode()
