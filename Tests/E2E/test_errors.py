"""API error cases: through boto3 (client-side validation off, no retries) and
through raw signed HTTP for what boto3 cannot send.

Every error must be HTTP 400 (404 for UnknownOperationException) with body
{"__type": CODE, "message": TEXT} and headers x-amzn-RequestId, x-amzn-ErrorType
and a current Date.  A rejected request must deliver nothing.
"""

from __future__ import annotations

import base64
import json

import pytest

import fhlocal
from fhlocal import (
    ACCOUNT_ID,
    JSON_CT,
    MAX_BATCH_BYTES,
    MAX_RECORD,
    STREAM_NAME_PATTERN,
    TARGET_PREFIX,
    assert_raw_error,
    b64,
    expect_client_error,
)


@pytest.fixture
def nothing_delivered(server):
    """After the test, the 'errs' stream must hold nothing: rejected requests
    are rejected as a whole."""
    yield
    assert server.flush("errs") == {"objects": []}, "a rejected request delivered records"


# --------------------------------------------------------------------------
# ResourceNotFoundException
# --------------------------------------------------------------------------


def test_unknown_stream_put_record(fh):
    resp = expect_client_error(
        lambda: fh.put_record(DeliveryStreamName="nope-stream", Record={"Data": b"x"}),
        "ResourceNotFoundException",
    )
    assert resp["Error"]["Message"] == f"Firehose nope-stream under account {ACCOUNT_ID} not found."


def test_unknown_stream_put_record_batch(fh):
    resp = expect_client_error(
        lambda: fh.put_record_batch(DeliveryStreamName="nope-batch", Records=[{"Data": b"x"}]),
        "ResourceNotFoundException",
    )
    assert resp["Error"]["Message"] == f"Firehose nope-batch under account {ACCOUNT_ID} not found."


# --------------------------------------------------------------------------
# Record size
# --------------------------------------------------------------------------


def test_record_too_large_put_record(fh, nothing_delivered):
    resp = expect_client_error(
        lambda: fh.put_record(DeliveryStreamName="errs", Record={"Data": b"a" * (MAX_RECORD + 1)}),
        "ValidationException",
    )
    msg = resp["Error"]["Message"]
    assert "at 'record.data'" in msg, msg
    assert "Member must have length less than or equal to 1024000" in msg, msg


def test_record_too_large_in_batch_uses_one_based_index(fh, nothing_delivered):
    records = [{"Data": b"ok1"}, {"Data": b"ok2"}, {"Data": b"b" * (MAX_RECORD + 1)}, {"Data": b"ok4"}]
    resp = expect_client_error(
        lambda: fh.put_record_batch(DeliveryStreamName="errs", Records=records),
        "ValidationException",
    )
    msg = resp["Error"]["Message"]
    assert "'records.3.member.data'" in msg, msg
    assert "Member must have length less than or equal to 1024000" in msg, msg


def test_record_of_exactly_max_size_accepted(server, fh):
    big = bytes(range(256)) * (MAX_RECORD // 256)
    assert len(big) == MAX_RECORD
    fh.put_record(DeliveryStreamName="limits", Record={"Data": big})
    resp = fh.put_record_batch(DeliveryStreamName="limits", Records=[{"Data": big[::-1]}])
    assert resp["FailedPutCount"] == 0
    server.flush("limits")
    assert server.delivered("limits", decompress=False) == big + big[::-1]


# --------------------------------------------------------------------------
# Batch limits
# --------------------------------------------------------------------------


def test_batch_more_than_500_records(fh, nothing_delivered):
    resp = expect_client_error(
        lambda: fh.put_record_batch(DeliveryStreamName="errs", Records=[{"Data": b"x"}] * 501),
        "ValidationException",
    )
    msg = resp["Error"]["Message"]
    assert "at 'records'" in msg, msg
    assert "Member must have length less than or equal to 500" in msg, msg


def test_batch_with_no_records(fh, nothing_delivered):
    resp = expect_client_error(
        lambda: fh.put_record_batch(DeliveryStreamName="errs", Records=[]),
        "ValidationException",
    )
    assert "records" in resp["Error"]["Message"].lower()


def test_batch_over_4_mib(fh, nothing_delivered):
    records = [{"Data": b"c" * 900_000} for _ in range(5)]  # 4.5 MB
    resp = expect_client_error(
        lambda: fh.put_record_batch(DeliveryStreamName="errs", Records=records),
        "InvalidArgumentException",
    )
    assert "Records size exceeds 4 MB limit" in resp["Error"]["Message"]


def test_batch_one_byte_over_4_mib(fh, nothing_delivered):
    sizes = [1_000_000] * 4 + [MAX_BATCH_BYTES - 4_000_000 + 1]
    assert sum(sizes) == MAX_BATCH_BYTES + 1
    resp = expect_client_error(
        lambda: fh.put_record_batch(DeliveryStreamName="errs", Records=[{"Data": b"d" * n} for n in sizes]),
        "InvalidArgumentException",
    )
    assert "Records size exceeds 4 MB limit" in resp["Error"]["Message"]


# --------------------------------------------------------------------------
# Stream name
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["../x", "a/b", "with space", "ünïcode", "semi;colon"])
@pytest.mark.parametrize("op", ["put_record", "put_record_batch"])
def test_invalid_stream_name_pattern(fh, name, op):
    if op == "put_record":
        call = lambda: fh.put_record(DeliveryStreamName=name, Record={"Data": b"x"})  # noqa: E731
    else:
        call = lambda: fh.put_record_batch(DeliveryStreamName=name, Records=[{"Data": b"x"}])  # noqa: E731
    resp = expect_client_error(call, "ValidationException")
    msg = resp["Error"]["Message"]
    assert STREAM_NAME_PATTERN in msg, msg
    assert "deliveryStreamName" in msg, msg


@pytest.mark.parametrize("name", ["", "a" * 65])
def test_invalid_stream_name_length(fh, name):
    resp = expect_client_error(
        lambda: fh.put_record(DeliveryStreamName=name, Record={"Data": b"x"}),
        "ValidationException",
    )
    assert "deliveryStreamName" in resp["Error"]["Message"]


def test_stream_name_of_64_chars_is_only_not_found(fh):
    name = "n" * 64
    resp = expect_client_error(
        lambda: fh.put_record(DeliveryStreamName=name, Record={"Data": b"x"}),
        "ResourceNotFoundException",
    )
    assert resp["Error"]["Message"] == f"Firehose {name} under account {ACCOUNT_ID} not found."


@pytest.mark.parametrize("op", ["put_record", "put_record_batch"])
def test_missing_stream_name(fh, op):
    if op == "put_record":
        call = lambda: fh.put_record(Record={"Data": b"x"})  # noqa: E731
    else:
        call = lambda: fh.put_record_batch(Records=[{"Data": b"x"}])  # noqa: E731
    resp = expect_client_error(call, "ValidationException")
    assert (
        "Value null at 'deliveryStreamName' failed to satisfy constraint: Member must not be null"
        in resp["Error"]["Message"]
    )


def test_missing_record(fh, nothing_delivered):
    # Not spelled out in the brief: AWS answers ValidationException "Value null at 'record'".
    expect_client_error(lambda: fh.put_record(DeliveryStreamName="errs"), "ValidationException")


# --------------------------------------------------------------------------
# Raw requests: SerializationException / UnknownOperationException
# --------------------------------------------------------------------------


def test_compact_json_is_accepted(server):
    body = b'{"DeliveryStreamName":"raw","Record":{"Data":"' + b64(b"compact").encode() + b'"}}'
    r = server.raw(body)
    assert r.status == 200, r
    assert set(r.json()) == {"RecordId", "Encrypted"}
    server.flush("raw")


def test_repeated_members_last_wins(server):
    """AWS reads JSON with Jackson, where a repeated member's last value wins:
    the stream, the records and each record's Data are the last ones given."""
    first, last = b64(b"first;"), b64(b"last;")
    batch = (
        '{"DeliveryStreamName":"nope-stream","Records":[{"Data":"%s"}],"DeliveryStreamName":"dup-members",'
        '"Records":[{"Data":"%s"},{"Data":"%s","Data":"%s"}]}' % (first, last, first, last)
    )
    r = server.raw(batch.encode(), op="PutRecordBatch")
    assert r.status == 200, r
    assert r.json()["FailedPutCount"] == 0 and len(r.json()["RequestResponses"]) == 2, r.json()
    single = (
        '{"Record":{"Data":"%s"},"DeliveryStreamName":"nope-stream","Record":{"Data":"%s"},'
        '"DeliveryStreamName":"dup-members"}' % (first, last)
    )
    r = server.raw(single.encode(), op="PutRecord")
    assert r.status == 200, r
    server.flush("dup-members")
    assert server.delivered("dup-members") == b"last;last;last;"


@pytest.mark.parametrize(
    "body",
    [
        b"{",
        b"not json at all",
        b'{"DeliveryStreamName": "errs", "Record": {"Data": "aGk="}',  # truncated
        b'{"DeliveryStreamName": "errs", "Record": {"Data": "aGk="}}}',  # trailing garbage
        b"\xff\xfe\x00garbage",
    ],
    ids=["open-brace", "text", "truncated", "trailing", "binary"],
)
def test_malformed_json(server, body, nothing_delivered):
    assert_raw_error(server.raw(body), "SerializationException")


@pytest.mark.parametrize("data", ["!!!!", "@@@@####", "aGVsbG8K$$"], ids=["bang", "symbols", "suffix"])
def test_bad_base64(server, data, nothing_delivered):
    assert_raw_error(
        server.raw({"DeliveryStreamName": "errs", "Record": {"Data": data}}), "SerializationException"
    )
    assert_raw_error(
        server.raw(
            {"DeliveryStreamName": "errs", "Records": [{"Data": b64(b"fine")}, {"Data": data}]},
            op="PutRecordBatch",
        ),
        "SerializationException",
    )


@pytest.mark.parametrize(
    "op,body",
    [
        ("PutRecord", {"DeliveryStreamName": 5, "Record": {"Data": "aGk="}}),
        ("PutRecord", {"DeliveryStreamName": "errs", "Record": "aGk="}),
        ("PutRecord", {"DeliveryStreamName": "errs", "Record": {"Data": 12345}}),
        ("PutRecord", {"DeliveryStreamName": "errs", "Record": {"Data": ["aGk="]}}),
        ("PutRecord", ["not", "an", "object"]),
        ("PutRecordBatch", {"DeliveryStreamName": "errs", "Records": {"Data": "aGk="}}),
        ("PutRecordBatch", {"DeliveryStreamName": "errs", "Records": ["aGk="]}),
        ("PutRecordBatch", {"DeliveryStreamName": ["errs"], "Records": [{"Data": "aGk="}]}),
    ],
    ids=["name-int", "record-string", "data-int", "data-list", "top-array",
         "records-object", "records-strings", "name-list"],
)
def test_wrong_json_types(server, op, body, nothing_delivered):
    assert_raw_error(server.raw(body, op=op), "SerializationException")


@pytest.mark.parametrize(
    "target",
    [TARGET_PREFIX + "Bogus", "DynamoDB_20120810.PutItem", "PutRecord", TARGET_PREFIX + "putrecord"],
)
def test_unknown_target(server, target, nothing_delivered):
    r = server.raw({"DeliveryStreamName": "errs", "Record": {"Data": "aGk="}}, target=target)
    assert_raw_error(r, "UnknownOperationException", status=404)


def test_missing_target(server, nothing_delivered):
    r = server.raw({"DeliveryStreamName": "errs", "Record": {"Data": "aGk="}}, target=None)
    assert_raw_error(r, "UnknownOperationException", status=404)


@pytest.mark.parametrize("content_type", ["text/plain", "application/xml", "application/x-www-form-urlencoded", None])
def test_wrong_content_type(server, content_type, nothing_delivered):
    r = server.raw({"DeliveryStreamName": "errs", "Record": {"Data": "aGk="}}, content_type=content_type)
    assert_raw_error(r, "UnknownOperationException", status=404)


def test_error_body_shape(server):
    r = server.raw({"DeliveryStreamName": "missing-one", "Record": {"Data": "aGk="}})
    body = assert_raw_error(r, "ResourceNotFoundException")
    assert body == {
        "__type": "ResourceNotFoundException",
        "message": f"Firehose missing-one under account {ACCOUNT_ID} not found.",
    }
    assert r.headers["x-amzn-errortype"].split(":")[0] == "ResourceNotFoundException"
