"""The delivery role checked as AWS's Firehose meets it (`CheckDeliveryRoles: true`): a stream whose role
does not exist, does not trust firehose.amazonaws.com, or lacks s3:PutObject delivers nothing, keeps
its records staged and says why; fixed with IAM's PutRolePolicy, everything is delivered without a
restart. Driven with boto3 against the real process."""

from __future__ import annotations

import json

import boto3
from botocore.config import Config

import fhlocal

ACCOUNT = fhlocal.ACCOUNT_ID
STREAM = "orders"
ROLE = "FirehoseDelivery"
ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/{ROLE}"
TRUST = {"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Principal": {"Service": "firehose.amazonaws.com"}, "Action": "sts:AssumeRole",
    "Condition": {"StringEquals": {"sts:ExternalId": ACCOUNT}}}]}
READ_ONLY = {"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket"],
    "Resource": [f"arn:aws:s3:::{fhlocal.BUCKET}", f"arn:aws:s3:::{fhlocal.BUCKET}/*"]}]}
# What AWS's guide gives a delivery role for an S3 destination (firehose/latest/dev/controlling-access.html).
DELIVERY = {"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow",
    "Action": ["s3:AbortMultipartUpload", "s3:GetBucketLocation", "s3:GetObject", "s3:ListBucket",
               "s3:ListBucketMultipartUploads", "s3:PutObject"],
    "Resource": [f"arn:aws:s3:::{fhlocal.BUCKET}", f"arn:aws:s3:::{fhlocal.BUCKET}/*"]}]}


def config(role_arn: str = ROLE_ARN, trust=TRUST, policies=(READ_ONLY,), check: bool = True) -> dict:
    stream = fhlocal.ext_stream(STREAM, **fhlocal.hints(1, 60))
    stream["ExtendedS3DestinationConfiguration"]["RoleARN"] = role_arn
    return fhlocal.standard_config(
        DeliveryStreams=[stream], CheckDeliveryRoles=check,
        Roles=[{"RoleName": ROLE, "AssumeRolePolicyDocument": trust, "Policies": list(policies)}])


def iam(srv):
    return boto3.session.Session().client(
        "iam", endpoint_url=srv.endpoint, region_name=srv.region, aws_access_key_id="test",
        aws_secret_access_key="test", config=Config(retries={"total_max_attempts": 1, "mode": "standard"}))


def failing_flush(srv) -> str:
    r = srv.http("POST", f"/_local/flush?stream={STREAM}", body=b"")
    assert r.status == 503, r
    status = fhlocal.stream_status(srv, STREAM)
    assert status["delivery"]["failing"] is True, status
    return status["delivery"]["lastError"]["message"]


def test_a_role_without_put_object_delivers_nothing_until_its_policy_is_fixed(make_server):
    srv = make_server(config(), name="role-read-only")
    fh = srv.client()
    fh.put_record_batch(DeliveryStreamName=STREAM, Records=[{"Data": b"one\n"}, {"Data": b"two\n"}])
    message = failing_flush(srv)
    assert message.startswith(f"S3.AccessDenied s3://{fhlocal.BUCKET}/"), message
    assert ("Access was denied. Ensure that the trust policy for the provided IAM role allows Kinesis Data "
            "Firehose to assume the role, and the access policy allows access to the S3 bucket.") in message
    assert f"no policy of the role {ROLE_ARN} allows s3:PutObject on arn:aws:s3:::{fhlocal.BUCKET}/" in message
    assert srv.stream_keys(STREAM) == []
    # The API still answers 200, as AWS's does: the records are staged, not lost.
    fh.put_record(DeliveryStreamName=STREAM, Record={"Data": b"three\n"})
    assert "S3.AccessDenied" in srv.stderr_text()

    iam(srv).put_role_policy(RoleName=ROLE, PolicyName="delivery", PolicyDocument=json.dumps(DELIVERY))
    srv.flush(STREAM)
    assert srv.delivered(STREAM).decode() == "one\ntwo\nthree\n"
    assert fhlocal.stream_status(srv, STREAM)["delivery"]["failing"] is False


def test_a_missing_role_or_one_that_does_not_trust_firehose_is_named(make_server):
    srv = make_server(config(role_arn=f"arn:aws:iam::{ACCOUNT}:role/Nobody", policies=(DELIVERY,)), name="role-missing")
    srv.client().put_record(DeliveryStreamName=STREAM, Record={"Data": b"x\n"})
    assert f"the role arn:aws:iam::{ACCOUNT}:role/Nobody does not exist here" in failing_flush(srv)
    # Stopped, it says the records stay staged for the next start (exit 1), as for any delivery failure.
    assert srv.stop() == 1
    assert "orders: 1 records (S3.AccessDenied" in srv.stderr_text()

    untrusting = {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    srv = make_server(config(trust=untrusting, policies=(DELIVERY,)), name="role-untrusting")
    srv.client().put_record(DeliveryStreamName=STREAM, Record={"Data": b"x\n"})
    assert f"the trust policy of {ROLE_ARN} does not let firehose.amazonaws.com assume it" in failing_flush(srv)
    assert srv.stop() == 1


def test_unchecked_by_default(make_server):
    srv = make_server(config(role_arn=f"arn:aws:iam::{ACCOUNT}:role/Nobody", check=False), name="role-unchecked")
    srv.client().put_record(DeliveryStreamName=STREAM, Record={"Data": b"delivered anyway\n"})
    srv.flush(STREAM)
    assert srv.delivered(STREAM).decode() == "delivered anyway\n"


def test_a_role_that_may_not_invoke_the_processor_sends_records_to_processing_failed(make_server, tmp_path):
    """The Lambda processor is invoked with the stream's role: without lambda:InvokeFunction every attempt
    fails as AWS logs it (Lambda.InvokeAccessDenied) and the records go to the processing-failed error
    output; with the permission added at run time, the function runs."""
    from test_transformation import ARN, CommandFunction, transformed_stream

    function = CommandFunction(tmp_path / "function")
    function.set_mode("transform")
    destination = transformed_stream("upper", NumberOfRetries="1")
    destination["RoleARN"] = ROLE_ARN
    srv = make_server(fhlocal.standard_config(
        DeliveryStreams=[{"DeliveryStreamName": STREAM, "ExtendedS3DestinationConfiguration": destination}],
        LambdaFunctions=[{"FunctionName": "upper", "Command": function.command}], CheckDeliveryRoles=True,
        Roles=[{"RoleName": ROLE, "AssumeRolePolicyDocument": TRUST, "Policies": [DELIVERY]}]), name="role-lambda")
    fh = srv.client()
    fh.put_record_batch(DeliveryStreamName=STREAM, Records=[{"Data": b"one"}, {"Data": b"two"}])
    srv.flush(STREAM)
    [key] = srv.stream_keys(STREAM)
    assert key.startswith("errors/processing-failed/"), key
    records = fhlocal.error_records(srv.read_object(fhlocal.BUCKET, key))
    assert [r["errorCode"] for r in records] == ["Lambda.InvokeAccessDenied"] * 2
    assert records[0]["errorMessage"] == (
        "Access was denied. Ensure that the access policy allows access to the Lambda function. (no policy of the "
        f"role {ROLE_ARN} allows lambda:InvokeFunction on {ARN}upper)")
    assert records[0]["attemptsMade"] == 2
    assert function.events() == []

    invoke = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "lambda:InvokeFunction", "Resource": f"{ARN}upper"}]}
    iam(srv).put_role_policy(RoleName=ROLE, PolicyName="invoke", PolicyDocument=json.dumps(invoke))
    fh.put_record_batch(DeliveryStreamName=STREAM, Records=[{"Data": b"three"}])
    srv.flush(STREAM)
    transformed = [k for k in srv.stream_keys(STREAM) if not k.startswith("errors/")]
    assert b"".join(srv.read_object(fhlocal.BUCKET, k) for k in transformed) == b"THREE\n"


def test_a_source_role_that_may_not_read_its_data_stream_leaves_the_records_there(make_server):
    """A KinesisStreamAsSource stream reads with its source's role: without Kinesis's read actions the
    records stay in the data stream (Kinesis.AccessDenied, retried at every pass, as AWS retries a
    Kinesis source indefinitely); allowed with PutRolePolicy, every record is delivered."""
    stream_arn = f"arn:aws:kinesis:{fhlocal.REGION}:{ACCOUNT}:stream/orders"
    stream = {"DeliveryStreamName": STREAM, "DeliveryStreamType": "KinesisStreamAsSource",
              "KinesisStreamSourceConfiguration": {"KinesisStreamARN": stream_arn, "RoleARN": ROLE_ARN},
              "ExtendedS3DestinationConfiguration": {
                  "BucketARN": f"arn:aws:s3:::{fhlocal.BUCKET}", "RoleARN": ROLE_ARN,
                  "BufferingHints": {"SizeInMBs": 128, "IntervalInSeconds": 900}}}
    srv = make_server(fhlocal.standard_config(
        DeliveryStreams=[stream], KinesisStreams=[{"StreamName": "orders", "ShardCount": 1}], CheckDeliveryRoles=True,
        Roles=[{"RoleName": ROLE, "AssumeRolePolicyDocument": TRUST, "Policies": [DELIVERY]}]), name="role-kinesis")
    kinesis = boto3.session.Session().client(
        "kinesis", endpoint_url=srv.endpoint, region_name=srv.region, aws_access_key_id="test",
        aws_secret_access_key="test", config=Config(retries={"total_max_attempts": 1, "mode": "standard"}))
    kinesis.put_records(StreamName="orders", Records=[
        {"PartitionKey": str(i), "Data": f"order {i}\n".encode()} for i in range(3)])
    r = srv.http("POST", f"/_local/flush?stream={STREAM}", body=b"")
    assert r.status == 503, r
    assert srv.stream_keys(STREAM) == []
    log = srv.stderr_text()
    assert ("Kinesis.AccessDenied: Access was denied when calling Kinesis. Ensure the access policy on the IAM role "
            "used allows access to the appropriate Kinesis APIs.") in log
    assert f"no policy of the role {ROLE_ARN} allows kinesis:DescribeStream on {stream_arn}" in log

    reads = {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Resource": stream_arn,
        "Action": ["kinesis:DescribeStream", "kinesis:GetShardIterator", "kinesis:GetRecords", "kinesis:ListShards"]}]}
    iam(srv).put_role_policy(RoleName=ROLE, PolicyName="reads", PolicyDocument=json.dumps(reads))
    srv.flush(STREAM)
    assert sorted(srv.delivered(STREAM).decode().splitlines()) == ["order 0", "order 1", "order 2"]
