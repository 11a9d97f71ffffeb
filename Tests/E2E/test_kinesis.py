"""Kinesis Data Streams on the same port, driven by boto3's kinesis client and the AWS CLI against the
real process: streams made, described and deleted, records put and read back through every iterator
type, AWS's errors, and acknowledged records kept across kill -9.
"""

from __future__ import annotations

import base64
import concurrent.futures
import hashlib
import json
import os
import threading
import time
from unittest.mock import ANY

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

import fhlocal


def kinesis_client(srv):
    return boto3.session.Session().client(
        "kinesis", endpoint_url=srv.endpoint, region_name=srv.region, aws_access_key_id="test",
        aws_secret_access_key="test",
        config=Config(retries={"total_max_attempts": 1, "mode": "standard"}, max_pool_connections=16))


def read_shard(kc, stream: str, shard: str, iterator_type: str = "TRIM_HORIZON", **extra) -> list[dict]:
    """Every record of the shard from the iterator on, following NextShardIterator until a page is empty."""
    iterator = kc.get_shard_iterator(StreamName=stream, ShardId=shard, ShardIteratorType=iterator_type,
                                     **extra)["ShardIterator"]
    records: list[dict] = []
    while True:
        page = kc.get_records(ShardIterator=iterator, Limit=1000)
        records += page["Records"]
        iterator = page["NextShardIterator"]
        if not page["Records"]:
            return records


def expected_shard(key: str, shards: list[dict]) -> str:
    hashed = int(hashlib.md5(key.encode()).hexdigest(), 16)
    for shard in shards:
        r = shard["HashKeyRange"]
        if int(r["StartingHashKey"]) <= hashed <= int(r["EndingHashKey"]):
            return shard["ShardId"]
    raise AssertionError(f"no shard owns {hashed}")


def test_boto3_streams_and_records(make_server):
    srv = make_server(fhlocal.standard_config(), name="kinesis")
    kc = kinesis_client(srv)
    kc.create_stream(StreamName="orders", ShardCount=3)
    kc.get_waiter("stream_exists").wait(StreamName="orders", WaiterConfig={"Delay": 1, "MaxAttempts": 3})
    description = kc.describe_stream(StreamName="orders")["StreamDescription"]
    assert description["StreamARN"] == f"arn:aws:kinesis:{srv.region}:{srv.account_id}:stream/orders"
    assert description["StreamStatus"] == "ACTIVE"
    shards = description["Shards"]
    assert [s["ShardId"] for s in shards] == [f"shardId-00000000000{i}" for i in range(3)]
    assert int(shards[-1]["HashKeyRange"]["EndingHashKey"]) == 2**128 - 1
    assert kc.list_shards(StreamName="orders")["Shards"] == shards
    assert kc.list_streams()["StreamNames"] == ["orders"]

    put = kc.put_record(StreamName="orders", PartitionKey="customer-0", Data=b"first")
    assert put["ShardId"] == expected_shard("customer-0", shards)
    assert len(put["SequenceNumber"]) == 56
    sent = [(f"customer-{i % 37}", f"order {i}".encode()) for i in range(1, 1201)]
    answers = []
    for start in range(0, len(sent), 500):
        chunk = sent[start:start + 500]
        got = kc.put_records(StreamName="orders", Records=[{"PartitionKey": k, "Data": d} for k, d in chunk])
        assert got["FailedRecordCount"] == 0
        answers += got["Records"]
    assert [a["ShardId"] for a in answers] == [expected_shard(k, shards) for k, _ in sent]

    # Every record, each on its key's shard, in the order put, with the sequence number its put answered.
    everything = [("customer-0", b"first", put["SequenceNumber"])] + [
        (k, d, a["SequenceNumber"]) for (k, d), a in zip(sent, answers)]
    for shard in shards:
        got = read_shard(kc, "orders", shard["ShardId"])
        want = [e for e in everything if expected_shard(e[0], shards) == shard["ShardId"]]
        assert [(r["PartitionKey"], r["Data"], r["SequenceNumber"]) for r in got] == want
        numbers = [int(r["SequenceNumber"]) for r in got]
        assert numbers == sorted(numbers)

    # AFTER_SEQUENCE_NUMBER, AT_TIMESTAMP and LATEST.
    shard0 = shards[0]["ShardId"]
    first_of_shard0 = read_shard(kc, "orders", shard0)[0]
    after = read_shard(kc, "orders", shard0, "AFTER_SEQUENCE_NUMBER",
                       StartingSequenceNumber=first_of_shard0["SequenceNumber"])
    assert len(after) == len([e for e in everything if expected_shard(e[0], shards) == shard0]) - 1
    latest = kc.get_shard_iterator(StreamName="orders", ShardId=shard0, ShardIteratorType="LATEST")["ShardIterator"]
    assert kc.get_records(ShardIterator=latest)["Records"] == []
    # boto3 sends Timestamp in whole seconds: "late" arrives in a second of its own.
    time.sleep(1.1)
    kc.put_record(StreamName="orders", PartitionKey="late", ExplicitHashKey="0", Data=b"late")
    page = kc.get_records(ShardIterator=latest)
    assert [r["Data"] for r in page["Records"]] == [b"late"] and page["MillisBehindLatest"] == 0
    at_time = read_shard(kc, "orders", shard0, "AT_TIMESTAMP", Timestamp=page["Records"][0]["ApproximateArrivalTimestamp"])
    assert [r["Data"] for r in at_time] == [b"late"]

    kc.add_tags_to_stream(StreamName="orders", Tags={"team": "data", "env": "test"})
    kc.remove_tags_from_stream(StreamName="orders", TagKeys=["env"])
    assert kc.list_tags_for_stream(StreamName="orders") == {
        "Tags": [{"Key": "team", "Value": "data"}], "HasMoreTags": False, "ResponseMetadata": ANY}
    summary = kc.describe_stream_summary(StreamName="orders")["StreamDescriptionSummary"]
    assert summary["OpenShardCount"] == 3 and summary["RetentionPeriodHours"] == 24
    kc.increase_stream_retention_period(StreamName="orders", RetentionPeriodHours=168)
    assert kc.describe_stream(StreamName="orders")["StreamDescription"]["RetentionPeriodHours"] == 168
    with pytest.raises(ClientError) as shorter:
        kc.increase_stream_retention_period(StreamName="orders", RetentionPeriodHours=48)
    assert shorter.value.response["Error"] == {
        "Code": "InvalidArgumentException", "Message": "Requested retention period (48 hours) for stream orders can "
        "not be shorter than existing retention period (168 hours). Use DecreaseRetentionPeriod API."}
    kc.decrease_stream_retention_period(StreamName="orders", RetentionPeriodHours=24)
    assert kc.describe_stream_summary(StreamName="orders")["StreamDescriptionSummary"]["RetentionPeriodHours"] == 24
    kc.delete_stream(StreamName="orders")
    kc.get_waiter("stream_not_exists").wait(StreamName="orders", WaiterConfig={"Delay": 1, "MaxAttempts": 3})
    assert kc.list_streams()["StreamNames"] == []


def test_errors_as_aws_sends_them(make_server):
    srv = make_server(fhlocal.standard_config(), name="kinesis-errors")
    kc = kinesis_client(srv)
    with pytest.raises(ClientError) as missing:
        kc.put_record(StreamName="nope", PartitionKey="k", Data=b"x")
    assert missing.value.response["Error"]["Code"] == "ResourceNotFoundException"
    assert missing.value.response["Error"]["Message"] == f"Stream nope under account {srv.account_id} not found."
    kc.create_stream(StreamName="s", ShardCount=1)
    with pytest.raises(ClientError) as exists:
        kc.create_stream(StreamName="s", ShardCount=1)
    assert exists.value.response["Error"]["Code"] == "ResourceInUseException"
    with pytest.raises(ClientError) as bad:
        kc.get_records(ShardIterator="AAAAAAAAAAEnot-an-iterator")
    assert bad.value.response["Error"]["Code"] == "InvalidArgumentException"
    with pytest.raises(ClientError) as too_big:
        kc.put_record(StreamName="s", PartitionKey="k", Data=b"x" * (1024 * 1024))
    assert too_big.value.response["Error"]["Code"] == "InvalidArgumentException"
    # A stream name from the API's own pattern is checked by the server, as AWS does.
    with pytest.raises(ClientError) as invalid:
        kinesis_client(srv).describe_stream_summary(StreamName="no/slashes")
    assert invalid.value.response["Error"]["Code"] == "ValidationException"
    metrics = srv.http("GET", "/_local/metrics").body.decode()
    assert 'firehose_local_kinesis_requests_total{operation="PutRecord",code="ResourceNotFoundException"} 1' in metrics
    assert 'firehose_local_kinesis_requests_total{operation="CreateStream",code="OK"} 1' in metrics


def test_a_stream_of_10_mib_records_takes_them(make_server):
    """MaxRecordSizeInKiB 10240 (the most AWS allows): a record of 10 MiB with its key goes in by
    PutRecord and PutRecords and comes back whole; PutRecord sends it as about 14 MB of JSON, past the
    8 MiB that bounds Firehose's requests. One byte more is refused by the stream's limit."""
    srv = make_server(fhlocal.standard_config(), name="kinesis-10mib")
    kc = kinesis_client(srv)
    kc.create_stream(StreamName="big", ShardCount=1, MaxRecordSizeInKiB=10240)
    assert kc.describe_stream_summary(StreamName="big")["StreamDescriptionSummary"]["MaxRecordSizeInKiB"] == 10240
    data = os.urandom(10 * 1024 * 1024 - 1)
    kc.put_record(StreamName="big", PartitionKey="k", Data=data)
    kc.put_records(StreamName="big", Records=[{"PartitionKey": "k", "Data": data[::-1]}])
    with pytest.raises(ClientError) as too_big:
        kc.put_record(StreamName="big", PartitionKey="k", Data=data + b"x")
    assert too_big.value.response["Error"]["Code"] == "InvalidArgumentException", too_big.value.response
    [shard] = kc.list_shards(StreamName="big")["Shards"]
    iterator = kc.get_shard_iterator(StreamName="big", ShardId=shard["ShardId"],
                                     ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    got = []
    while len(got) < 2:
        page = kc.get_records(ShardIterator=iterator)
        got += [r["Data"] for r in page["Records"]]
        iterator = page["NextShardIterator"]
    assert got == [data, data[::-1]]
    # Firehose's own requests keep AWS's bound.
    body = json.dumps({"DeliveryStreamName": "x", "Record": {"Data": "A" * (9 * 1024 * 1024)}}).encode()
    assert srv.http("POST", "/", body, {"X-Amz-Target": "Firehose_20150804.PutRecord",
                                        "Content-Type": "application/x-amz-json-1.1"}).status == 413


def test_acknowledged_records_survive_kill_9(make_server):
    """kill -9 while four threads are putting: every put that was answered is there after the restart."""
    config = fhlocal.standard_config()
    srv = make_server(config, name="kinesis-kill")
    kinesis_client(srv).create_stream(StreamName="durable", ShardCount=2)
    acknowledged: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def put(worker: int) -> None:
        client = kinesis_client(srv)
        batch = 0
        while not stop.is_set():
            records = [{"PartitionKey": f"w{worker}-{i}", "Data": f"{worker}:{batch}:{i}".encode()} for i in range(50)]
            try:
                answer = client.put_records(StreamName="durable", Records=records)
            except Exception:  # the server was killed under this request: not acknowledged
                return
            assert answer["FailedRecordCount"] == 0
            with lock:
                acknowledged.extend(r["Data"].decode() for r in records)
            batch += 1

    threads = [threading.Thread(target=put, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 30
    while len(acknowledged) < 3000 and time.monotonic() < deadline:
        time.sleep(0.01)
    srv.kill()
    stop.set()
    for t in threads:
        t.join(30)
    assert len(acknowledged) >= 3000
    again = make_server.create(config, name="kinesis-kill-restart")
    again.data_dir = srv.data_dir
    again.start()
    kc = kinesis_client(again)
    read = [r["Data"].decode() for s in ("shardId-000000000000", "shardId-000000000001")
            for r in read_shard(kc, "durable", s)]
    assert len(read) == len(set(read))
    missing = set(acknowledged) - set(read)
    assert not missing, f"{len(missing)} acknowledged records lost, e.g. {sorted(missing)[:3]}"
    # What is there beyond them was put by requests the kill cut off: at most one batch per thread.
    assert len(read) - len(acknowledged) <= 4 * 50


def test_a_delivery_stream_reads_its_data_stream_across_kill_9(make_server):
    """A KinesisStreamAsSource stream from the configuration file delivers every record put to its data
    stream (made later, through the API), across kill -9, at least once; puts to it are refused as AWS does."""
    source = {"KinesisStreamARN": f"arn:aws:kinesis:{fhlocal.REGION}:{fhlocal.ACCOUNT_ID}:stream/orders",
              "RoleARN": fhlocal.ROLE_ARN}
    stream = {"DeliveryStreamName": "from-orders", "DeliveryStreamType": "KinesisStreamAsSource",
              "KinesisStreamSourceConfiguration": source,
              "ExtendedS3DestinationConfiguration": {
                  "BucketARN": "arn:aws:s3:::from-kinesis", "RoleARN": fhlocal.ROLE_ARN,
                  "BufferingHints": {"SizeInMBs": 128, "IntervalInSeconds": 900}}}
    config = fhlocal.standard_config(DeliveryStreams=[stream])
    srv = make_server(config, name="kinesis-source")
    fh = srv.client()
    described = fh.describe_delivery_stream(DeliveryStreamName="from-orders")["DeliveryStreamDescription"]
    assert described["DeliveryStreamType"] == "KinesisStreamAsSource"
    assert described["Source"]["KinesisStreamSourceDescription"]["KinesisStreamARN"] == source["KinesisStreamARN"]
    err = fhlocal.expect_client_error(
        lambda: fh.put_record(DeliveryStreamName="from-orders", Record={"Data": b"x"}), "InvalidArgumentException")
    assert err["Error"]["Message"] == "This operation is not permitted on KinesisStreamAsSource delivery stream type."

    kc = kinesis_client(srv)
    kc.create_stream(StreamName="orders", ShardCount=2)
    sent = [f"order {i}" for i in range(1000)]
    for start in range(0, 500, 250):
        kc.put_records(StreamName="orders", Records=[
            {"PartitionKey": s, "Data": (s + "\n").encode()} for s in sent[start:start + 250]])
    # The server reads its data streams once a second: wait until the first half is buffered.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        metrics = srv.http("GET", "/_local/metrics").body.decode()
        if 'firehose_local_records_received_total{stream="from-orders"} 500' in metrics:
            break
        time.sleep(0.2)
    else:
        raise AssertionError("the delivery stream did not read the data stream within 20 s")
    srv.kill()
    again = make_server.create(config, name="kinesis-source-restart")
    again.data_dir = srv.data_dir
    again.start()
    kc = kinesis_client(again)
    for start in range(500, 1000, 250):
        kc.put_records(StreamName="orders", Records=[
            {"PartitionKey": s, "Data": (s + "\n").encode()} for s in sent[start:start + 250]])
    again.flush("from-orders")
    lines = [line for line in again.delivered("from-orders", bucket="from-kinesis").decode().split("\n") if line]
    assert sorted(set(lines)) == sorted(sent)
    # At least once: a record is read twice only when the kill fell between buffering and checkpointing.
    assert len(lines) <= 1000 + 500


def test_the_aws_cli(make_server):
    srv = make_server(fhlocal.standard_config(), name="kinesis-cli")
    env = fhlocal.clean_env({"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                             "AWS_DEFAULT_REGION": srv.region})
    cli = fhlocal.aws_cli_command() + ["--endpoint-url", srv.endpoint, "--output", "json"]
    got = fhlocal.run(cli + ["kinesis", "create-stream", "--stream-name", "cli", "--shard-count", "1"], env=env)
    assert got.returncode == 0, got.stderr
    # The CLI v1 sends a blob argument's text as the bytes (v2 would need --cli-binary-format raw-in-base64-out).
    got = fhlocal.run(cli + ["kinesis", "put-record", "--stream-name", "cli", "--partition-key", "k",
                             "--data", "from the cli"], env=env)
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["ShardId"] == "shardId-000000000000"
    got = fhlocal.run(cli + ["kinesis", "get-shard-iterator", "--stream-name", "cli", "--shard-id",
                             "shardId-000000000000", "--shard-iterator-type", "TRIM_HORIZON"], env=env)
    assert got.returncode == 0, got.stderr
    iterator = json.loads(got.stdout)["ShardIterator"]
    got = fhlocal.run(cli + ["kinesis", "get-records", "--shard-iterator", iterator], env=env)
    assert got.returncode == 0, got.stderr
    assert [base64.b64decode(r["Data"]) for r in json.loads(got.stdout)["Records"]] == [b"from the cli"]


def test_the_go_sdk(make_server, tmp_path_factory):
    program = fhlocal.build_go_program("kinesisrw", tmp_path_factory)
    srv = make_server(fhlocal.standard_config(), name="kinesis-go")
    got = fhlocal.run([program, "-endpoint", srv.endpoint, "-stream", "go-orders", "-records", "1200"], timeout=120)
    assert got.returncode == 0, got.stderr
    report = json.loads(got.stdout)
    assert "error" not in report, report
    assert report["put"] == 1200
    # Each shard holds its keys' records, in the order they were put.
    for shard, read in report["read"].items():
        assert read == [f"go {i}" for i in range(1200) if report["shardOfKey"][f"key-{i}"] == shard]
    assert sum(len(r) for r in report["read"].values()) == 1200
    assert report["badIterator"] == "InvalidArgumentException: Invalid ShardIterator."


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def kpl_aggregate(records: list[tuple[str, bytes]]) -> bytes:
    """What the KPL puts for `records`: magic, AggregatedRecord (protobuf), MD5 (aggregation-format.md)."""
    keys = sorted({k for k, _ in records})
    message = b"".join(_field(1, k.encode()) for k in keys)
    for key, data in records:
        message += _field(3, _varint(1 << 3) + _varint(keys.index(key)) + _field(3, data))
    return b"\xf3\x89\x9a\xc2" + message + hashlib.md5(message).digest()


def test_kpl_aggregates_are_delivered_as_their_user_records(make_server):
    srv = make_server(fhlocal.standard_config(), name="kinesis-kpl")
    kc = kinesis_client(srv)
    kc.create_stream(StreamName="kpl", ShardCount=1)
    srv.client().create_delivery_stream(
        DeliveryStreamName="from-kpl", DeliveryStreamType="KinesisStreamAsSource",
        KinesisStreamSourceConfiguration={
            "KinesisStreamARN": f"arn:aws:kinesis:{fhlocal.REGION}:{fhlocal.ACCOUNT_ID}:stream/kpl",
            "RoleARN": fhlocal.ROLE_ARN},
        ExtendedS3DestinationConfiguration={"BucketARN": "arn:aws:s3:::kpl-bucket", "RoleARN": fhlocal.ROLE_ARN})
    kc.put_record(StreamName="kpl", PartitionKey="agg", Data=kpl_aggregate(
        [("user-1", b"one\n"), ("user-2", b"two\n"), ("user-1", b"three\n")]))
    kc.put_record(StreamName="kpl", PartitionKey="plain", Data=b"plain\n")
    # An aggregate whose MD5 does not match is an ordinary record, as the KCL treats it.
    broken = bytearray(kpl_aggregate([("k", b"hidden\n")]))
    broken[-1] ^= 1
    kc.put_record(StreamName="kpl", PartitionKey="broken", Data=bytes(broken))
    srv.flush("from-kpl")
    assert srv.delivered("from-kpl", bucket="kpl-bucket") == b"one\ntwo\nthree\nplain\n" + bytes(broken)


def test_data_streams_of_the_configuration_file(make_server):
    """KinesisStreams in the configuration file exist from the start; a restart with other settings keeps
    the stream as it is, with its records, and says so."""
    config = fhlocal.standard_config(KinesisStreams=[
        {"StreamName": "configured", "ShardCount": 2}, {"StreamName": "on-demand", "StreamModeDetails": {"StreamMode": "ON_DEMAND"}}])
    srv = make_server(config, name="kinesis-configured")
    kc = kinesis_client(srv)
    assert kc.list_streams()["StreamNames"] == ["configured", "on-demand"]
    assert len(kc.describe_stream(StreamName="configured")["StreamDescription"]["Shards"]) == 2
    summary = kc.describe_stream_summary(StreamName="on-demand")["StreamDescriptionSummary"]
    assert summary["StreamModeDetails"]["StreamMode"] == "ON_DEMAND" and summary["OpenShardCount"] == 4
    kc.put_record(StreamName="configured", PartitionKey="k", Data=b"kept")
    srv.stop()
    changed = fhlocal.standard_config(KinesisStreams=[{"StreamName": "configured", "ShardCount": 3}])
    again = make_server.create(changed, name="kinesis-configured-again")
    again.data_dir = srv.data_dir
    again.start()
    kc = kinesis_client(again)
    shards = kc.describe_stream(StreamName="configured")["StreamDescription"]["Shards"]
    assert len(shards) == 2
    assert [r["Data"] for s in shards for r in read_shard(kc, "configured", s["ShardId"])] == [b"kept"]
    assert "A Kinesis stream of the configuration file exists with other settings" in again.stderr_text()


def test_shard_quota_with_quotas_on(make_server):
    """With Quotas on, a shard takes 1 MiB a second: 10 MiB put at once to one shard come back partly as
    ProvisionedThroughputExceededException records, each failed record in its place, the rest stored.
    Each request carries about 2 MiB (records of 4,096 bytes with their key), more than the shard's
    quota holds at once, so records fail however slowly the requests arrive."""
    srv = make_server(fhlocal.standard_config(Quotas="aws"), name="kinesis-quota")
    kc = kinesis_client(srv)
    kc.create_stream(StreamName="quota", ShardCount=1)
    failed = stored = 0
    for batch in range(5):
        answer = kc.put_records(StreamName="quota", Records=[
            {"PartitionKey": "k", "Data": bytes([batch]) * 4095} for _ in range(500)])
        for entry in answer["Records"]:
            if "ErrorCode" in entry:
                assert entry["ErrorCode"] == "ProvisionedThroughputExceededException"
                assert entry["ErrorMessage"] == (
                    f"Rate exceeded for shard shardId-000000000000 in stream quota under account {srv.account_id}.")
                failed += 1
            else:
                stored += 1
        assert answer["FailedRecordCount"] == sum("ErrorCode" in e for e in answer["Records"])
    assert failed > 0 and stored >= 256
    assert len(read_shard(kc, "quota", "shardId-000000000000")) == stored


def test_fault_rules_on_kinesis_operations(make_server):
    """Fault rules name Kinesis operations as IAM does: a PutRecords rule fails records as a hot shard
    does (not stored), a PutRecord rule refuses the next put whole; boto3 sees AWS's shapes."""
    config = fhlocal.standard_config(Faults=[
        {"Name": "hot-shard", "Operations": ["kinesis:PutRecords"], "FailRecords": {"Every": 2}},
        {"Name": "outage", "Operations": ["kinesis:PutRecord"], "Streams": ["f"],
         "Error": {"Code": "InternalFailure", "Status": 500}, "Count": 1}])
    srv = make_server(config, name="kinesis-faults")
    kc = kinesis_client(srv)
    kc.create_stream(StreamName="f", ShardCount=1)
    answer = kc.put_records(StreamName="f", Records=[{"PartitionKey": "k", "Data": f"r{i}".encode()} for i in range(6)])
    assert answer["FailedRecordCount"] == 3
    assert [r.get("ErrorCode") for r in answer["Records"]] == [None, "ProvisionedThroughputExceededException"] * 3
    assert answer["Records"][1]["ErrorMessage"].startswith("Rate exceeded for shard shardId-000000000000 in stream f")
    fhlocal.expect_client_error(
        lambda: kc.put_record(StreamName="f", PartitionKey="k", Data=b"x"), "InternalFailure", status=500)
    kc.put_record(StreamName="f", PartitionKey="k", Data=b"after")
    assert [r["Data"] for r in read_shard(kc, "f", "shardId-000000000000")] == [b"r0", b"r2", b"r4", b"after"]
    listed = json.loads(srv.http("GET", "/_local/faults").body)
    assert {rule["Name"]: rule["Fired"] for rule in listed["faults"]} == {"hot-shard": 1, "outage": 1}
