"""The Lambda processor, from boto3 against the real process, with real local functions.

Two functions implement the same transformation (upper-case every record; records containing
``drop`` are Dropped, those containing ``fail`` ProcessingFailed; each Ok record gets its length as
partition key ``len``):

* a command (``python3 transform.py STATE_DIR``): the event on stdin, the answer on stdout;
* an Invoke API server (a Python stub of ``POST /2015-03-31/functions/NAME/invocations``, as the
  Lambda Runtime Interface Emulator and ``sam local start-lambda`` serve it; neither can be installed
  here, so the stub speaks their protocol).

Both log every event they receive, so the tests check what Firehose sent as well as what it delivered.
"""

from __future__ import annotations

import base64
import http.server
import json
import threading
import time
from pathlib import Path

import pytest

import fhlocal
from fhlocal import BUCKET, error_records, expect_client_error

TRANSFORM = r'''
import base64


def transform(event):
    out = []
    for r in event["records"]:
        data = base64.b64decode(r["data"])
        if b"drop" in data:
            out.append({"recordId": r["recordId"], "result": "Dropped", "data": r["data"]})
        elif b"fail" in data:
            out.append({"recordId": r["recordId"], "result": "ProcessingFailed", "data": r["data"]})
        else:
            out.append({"recordId": r["recordId"], "result": "Ok", "data": base64.b64encode(data.upper()).decode(),
                        "metadata": {"partitionKeys": {"len": str(len(data))}}})
    return {"records": out}
'''

# The command: the transformation above, behind modes a test sets in STATE_DIR/mode.
FUNCTION_SCRIPT = TRANSFORM + r'''
import json, os, sys, time
state = sys.argv[1]
event = json.load(sys.stdin)
with open(os.path.join(state, "invocations.jsonl"), "a") as log:
    log.write(json.dumps(event) + "\n")
mode_file = os.path.join(state, "mode")
mode = open(mode_file).read().strip() if os.path.exists(mode_file) else "transform"
# Hangs until released, or for 120 s at most: a hung function orphaned by a killed server ends.
hung_until = time.monotonic() + 120
while mode == "hang" and not os.path.exists(os.path.join(state, "release")) and time.monotonic() < hung_until:
    time.sleep(0.02)
if mode == "fail":
    sys.stderr.write("transform.py was told to fail\n")
    sys.exit(3)
json.dump(transform(event), sys.stdout)
'''

# The stub's answer: the same transformation, run in this process.
_namespace: dict = {}
exec(TRANSFORM, _namespace)
transform = _namespace["transform"]


class InvokeAPIStub:
    """A Lambda Invoke API server on a free port; ``mode`` picks its answer."""

    def __init__(self):
        self.requests: list[dict] = []
        self.mode = "transform"
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                stub.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                headers = {"Content-Type": "application/json"}
                if stub.mode == "function-error":
                    answer = json.dumps({"errorMessage": "boom", "errorType": "Exception"}).encode()
                    headers["X-Amz-Function-Error"] = "Unhandled"
                elif stub.mode == "malformed":
                    answer = b"this is not JSON"
                else:
                    answer = json.dumps(transform(json.loads(body))).encode()
                self.send_response(200)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def events(self) -> list[dict]:
        return [json.loads(r["body"]) for r in self.requests]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class CommandFunction:
    """transform.py and its state folder (mode, release, invocation log)."""

    def __init__(self, folder: Path):
        self.state = folder
        self.state.mkdir(parents=True, exist_ok=True)
        self.script = self.state / "transform.py"
        self.script.write_text(FUNCTION_SCRIPT)

    @property
    def command(self) -> list[str]:
        return ["python3", str(self.script), str(self.state)]

    def set_mode(self, mode: str):
        (self.state / "mode").write_text(mode)

    def release(self):
        (self.state / "release").write_text("")

    def events(self) -> list[dict]:
        log = self.state / "invocations.jsonl"
        # Complete lines only: the function may be writing the last one (a 1.3 MB event) right now.
        lines = log.read_text().split("\n")[:-1] if log.exists() else []
        return [json.loads(line) for line in lines]

    def reset(self):
        for name in ("invocations.jsonl", "mode", "release"):
            (self.state / name).unlink(missing_ok=True)


ARN = "arn:aws:lambda:us-east-1:000000000000:function:"


def lambda_processor(function: str, **parameters: str) -> dict:
    return {"Type": "Lambda", "Parameters": [
        {"ParameterName": "LambdaArn", "ParameterValue": ARN + function},
        *({"ParameterName": k, "ParameterValue": v} for k, v in parameters.items()),
    ]}


def transformed_stream(function: str, *, compression: str = "UNCOMPRESSED", prefix: str | None = None,
                       partitioned: bool = False, **parameters: str) -> dict:
    destination = fhlocal.destination(
        CompressionFormat=compression, ErrorOutputPrefix="errors/!{firehose:error-output-type}/",
        BufferingHints={"SizeInMBs": 64, "IntervalInSeconds": 900},
        ProcessingConfiguration={"Enabled": True, "Processors": [
            lambda_processor(function, **parameters), {"Type": "AppendDelimiterToRecord"}]},
    )
    if prefix is not None:
        destination["Prefix"] = prefix
    if partitioned:
        destination["DynamicPartitioningConfiguration"] = {"Enabled": True}
    return destination


@pytest.fixture(scope="module")
def stub():
    server = InvokeAPIStub()
    yield server
    server.close()


@pytest.fixture(scope="module")
def command_function(tmp_path_factory) -> CommandFunction:
    return CommandFunction(tmp_path_factory.mktemp("function"))


@pytest.fixture(scope="module")
def srv(make_module_server, stub, command_function):
    return make_module_server({
        "Credentials": fhlocal.DEFAULT_CREDENTIALS,
        "LambdaFunctions": [
            {"FunctionName": "upper", "Command": command_function.command},
            {"FunctionName": "upper-1s", "Command": command_function.command, "Timeout": 1},
            {"FunctionName": "upper-api", "Endpoint": stub.url},
        ],
        "DeliveryStreams": [],
    }, name="transformation")


@pytest.fixture(scope="module")
def fh(srv):
    return srv.client()


@pytest.fixture(autouse=True)
def fresh_functions(stub, command_function):
    stub.requests.clear()
    stub.mode = "transform"
    command_function.reset()


def test_command_function_transforms_records_on_their_way_to_the_bucket(srv, fh, command_function):
    fh.create_delivery_stream(
        DeliveryStreamName="t-command",
        ExtendedS3DestinationConfiguration=transformed_stream("upper", compression="GZIP"))
    sent = [b"alpha", b"please drop", b"beta", b"will fail", bytes(range(200, 256))]
    before = time.time()
    resp = fh.put_record_batch(DeliveryStreamName="t-command", Records=[{"Data": d} for d in sent])
    assert resp["FailedPutCount"] == 0
    # Acknowledged, staged for the function: it runs at the processor's hints (60 s) or a flush.
    assert command_function.events() == []
    objects = srv.flush("t-command")["objects"]
    [data] = [o for o in objects if "errors/" not in o["key"]]
    [failed] = [o for o in objects if o["key"].startswith("errors/processing-failed/")]
    assert data["key"].endswith(".gz")
    assert srv.read_object(BUCKET, data["key"]) == b"ALPHA\nBETA\n" + bytes(range(200, 256)).upper() + b"\n"
    [record] = error_records(srv.read_object(BUCKET, failed["key"]))
    assert list(record) == ["rawData", "errorCode", "errorMessage", "attemptsMade", "arrivalTimestamp",
                            "attemptEndingTimestamp", "lambdaARN"]
    assert base64.b64decode(record["rawData"]) == b"will fail"
    assert record["errorCode"] == "Lambda.ProcessingFailedStatus"
    assert record["attemptsMade"] == 1
    assert record["lambdaARN"] == ARN + "upper"
    assert before - 1 <= record["arrivalTimestamp"] / 1000 <= time.time()

    # One invocation, with AWS's event.
    [event] = command_function.events()
    assert list(event) == ["invocationId", "deliveryStreamArn", "region", "records"]
    assert event["deliveryStreamArn"] == "arn:aws:firehose:us-east-1:000000000000:deliverystream/t-command"
    assert event["region"] == "us-east-1"
    assert [base64.b64decode(r["data"]) for r in event["records"]] == sent
    assert all(list(r) == ["recordId", "approximateArrivalTimestamp", "data"] for r in event["records"])
    assert len({r["recordId"] for r in event["records"]}) == len(sent)
    status = [s for s in srv.http("GET", "/_local/streams").json()["streams"] if s["name"] == "t-command"][0]
    assert status["recordsDropped"] == 1, status


def test_describe_gives_the_lambda_processor_with_aws_defaults_in_aws_order(fh):
    fh.create_delivery_stream(
        DeliveryStreamName="t-describe",
        ExtendedS3DestinationConfiguration=transformed_stream("upper", BufferSizeInMBs="0.5"))
    description = fh.describe_delivery_stream(DeliveryStreamName="t-describe")["DeliveryStreamDescription"]
    [destination] = description["Destinations"]
    [processor, _] = destination["ExtendedS3DestinationDescription"]["ProcessingConfiguration"]["Processors"]
    role = destination["ExtendedS3DestinationDescription"]["RoleARN"]
    assert processor == {"Type": "Lambda", "Parameters": [
        {"ParameterName": "LambdaArn", "ParameterValue": ARN + "upper"},
        {"ParameterName": "NumberOfRetries", "ParameterValue": "3"},
        {"ParameterName": "RoleArn", "ParameterValue": role},
        {"ParameterName": "BufferSizeInMBs", "ParameterValue": "0.5"},
        {"ParameterName": "BufferIntervalInSeconds", "ParameterValue": "60"},
    ]}


def test_invoke_api_function_gets_the_event_as_lambda_does(srv, fh, stub):
    fh.create_delivery_stream(
        DeliveryStreamName="t-api", ExtendedS3DestinationConfiguration=transformed_stream("upper-api"))
    fh.put_record_batch(DeliveryStreamName="t-api", Records=[{"Data": b"one"}, {"Data": b"two"}])
    [data] = srv.flush("t-api")["objects"]
    assert srv.read_object(BUCKET, data["key"]) == b"ONE\nTWO\n"
    [request] = stub.requests
    assert request["path"] == "/2015-03-31/functions/upper-api/invocations"
    assert request["headers"]["X-Amz-Invocation-Type"] == "RequestResponse"
    event = json.loads(request["body"])
    assert [base64.b64decode(r["data"]) for r in event["records"]] == [b"one", b"two"]


def test_the_processors_interval_runs_the_function_without_a_flush(srv, fh, stub):
    """The source buffer's interval (1 s here) invokes the function by itself: from the buffer's timer,
    whose task is cancelled as it retires the buffer, which must not cancel the invocation."""
    fh.create_delivery_stream(
        DeliveryStreamName="t-api-interval",
        ExtendedS3DestinationConfiguration=transformed_stream("upper-api", BufferIntervalInSeconds="1"))
    fh.put_record(DeliveryStreamName="t-api-interval", Record={"Data": b"on time"})
    fhlocal.wait_for(lambda: len(stub.requests) >= 1, timeout=15, what="the interval's invocation")
    fhlocal.wait_for(lambda: srv.http("GET", "/_local/streams").json()["streams"] and all(
        s["buffer"]["records"] == 1 for s in srv.http("GET", "/_local/streams").json()["streams"]
        if s["name"] == "t-api-interval"), timeout=15, what="the transformed record staged for delivery")
    [data] = srv.flush("t-api-interval")["objects"]
    assert srv.read_object(BUCKET, data["key"]) == b"ON TIME\n"
    assert len(stub.requests) == 1


@pytest.mark.parametrize("mode,code,detail", [
    ("function-error", "Lambda.FunctionError", "boom"),
    ("malformed", "Lambda.JsonProcessingException", "not a JSON object"),
])
def test_failed_invocations_are_retried_then_written_to_the_error_output(srv, fh, stub, mode, code, detail):
    name = f"t-api-{mode}"
    fh.create_delivery_stream(
        DeliveryStreamName=name, ExtendedS3DestinationConfiguration=transformed_stream("upper-api", NumberOfRetries="2"))
    stub.mode = mode
    fh.put_record_batch(DeliveryStreamName=name, Records=[{"Data": b"one"}, {"Data": b"two"}])
    [failed] = srv.flush(name)["objects"]
    assert failed["key"].startswith("errors/processing-failed/")
    records = error_records(srv.read_object(BUCKET, failed["key"]))
    assert [base64.b64decode(r["rawData"]) for r in records] == [b"one", b"two"]
    assert all(r["errorCode"] == code and r["attemptsMade"] == 3 for r in records), records
    assert detail in records[0]["errorMessage"]
    assert len(stub.requests) == 3


def test_the_functions_timeout_from_the_config_file_ends_a_hung_invocation(srv, fh, command_function):
    fh.create_delivery_stream(
        DeliveryStreamName="t-timeout",
        ExtendedS3DestinationConfiguration=transformed_stream("upper-1s", NumberOfRetries="1"))
    command_function.set_mode("hang")
    fh.put_record(DeliveryStreamName="t-timeout", Record={"Data": b"stuck"})
    started = time.monotonic()
    [failed] = srv.flush("t-timeout")["objects"]
    assert time.monotonic() - started < 20
    [record] = error_records(srv.read_object(BUCKET, failed["key"]))
    assert (record["errorCode"], record["attemptsMade"]) == ("Lambda.FunctionTimedOut", 2)
    assert base64.b64decode(record["rawData"]) == b"stuck"
    assert len(command_function.events()) == 2


def test_lambda_partition_keys_name_the_partitions(srv, fh):
    fh.create_delivery_stream(
        DeliveryStreamName="t-keys",
        ExtendedS3DestinationConfiguration=transformed_stream(
            "upper", prefix="len=!{partitionKeyFromLambda:len}/", partitioned=True))
    fh.put_record_batch(DeliveryStreamName="t-keys", Records=[{"Data": d} for d in (b"a", b"bb", b"cc")])
    objects = srv.flush("t-keys")["objects"]
    contents = {o["key"].split("/")[0]: srv.read_object(BUCKET, o["key"]) for o in objects}
    assert contents == {"len=1": b"A\n", "len=2": b"BB\nCC\n"}


def test_partition_key_from_lambda_needs_the_lambda_processor(fh):
    destination = fhlocal.destination(
        Prefix="len=!{partitionKeyFromLambda:len}/", ErrorOutputPrefix="errors/!{firehose:error-output-type}/",
        BufferingHints={"SizeInMBs": 64, "IntervalInSeconds": 60}, DynamicPartitioningConfiguration={"Enabled": True})
    resp = expect_client_error(
        lambda: fh.create_delivery_stream(DeliveryStreamName="t-no-lambda", ExtendedS3DestinationConfiguration=destination),
        "InvalidArgumentException")
    assert "Lambda should be present when S3 Prefix contains keys from partitionKeyFromLambda namespace" in (
        resp["Error"]["Message"])


@pytest.mark.timeout_s(90)
def test_sigkill_while_the_function_runs_loses_no_acknowledged_record(make_server, tmp_path):
    """kill -9 while an invocation is in flight: the source records stay staged; the next start stages
    them for the function again, which transforms them once the server runs."""
    function = CommandFunction(tmp_path / "function")
    config = {
        "Credentials": fhlocal.DEFAULT_CREDENTIALS,
        "LambdaFunctions": [{"FunctionName": "upper", "Command": function.command}],
        "DeliveryStreams": [{
            "DeliveryStreamName": "t-crash",
            # Every batch fills the 0.2 MB source buffer: its transformation starts at once.
            "ExtendedS3DestinationConfiguration": transformed_stream("upper", BufferSizeInMBs="0.2"),
        }],
    }
    srv = make_server(config, name="crash")
    function.set_mode("hang")
    fh = srv.client()
    sent = [b"rec-%03d-" % i + b"x" * 4000 for i in range(120)]
    for start in range(0, len(sent), 60):
        fh.put_record_batch(DeliveryStreamName="t-crash", Records=[{"Data": d} for d in sent[start:start + 60]])
    fhlocal.wait_for(lambda: len(function.events()) >= 1, timeout=20, what="the function invoked")
    srv.kill()
    assert srv.object_paths() == []

    function.set_mode("transform")
    # The hung invocation outlived the killed server: let it end.
    function.release()
    restarted = make_server.create(config, name="crash-restart")
    restarted.data_dir = srv.data_dir
    restarted.start()
    assert "Recovered staged buffers from a previous run" in restarted.stderr_text()
    restarted.flush()
    delivered = b"".join(restarted.read_object(BUCKET, k) for k in restarted.stream_keys("t-crash"))
    assert sorted(delivered.split(b"\n")[:-1]) == sorted(d.upper() for d in sent)
    staging = restarted.data_dir / fhlocal.STAGING_DIR / "staging"
    assert not any(staging.iterdir()), list(staging.iterdir())


def test_a_function_not_mapped_here_is_accepted_fails_as_aws_fails_it_then_runs_once_mapped(make_server, tmp_path):
    """A pasted definition whose function does not run here: AWS creates such a stream (a recorded
    CloudFormation stack does); its invocations fail with Lambda.ResourceNotFound, the records go to
    the processing-failed error output, and the stream says why. Mapped at the next start, it runs."""
    base = {"Credentials": fhlocal.DEFAULT_CREDENTIALS, "DeliveryStreams": []}
    srv = make_server(base, name="unmapped")
    fh = srv.client()
    fh.create_delivery_stream(
        DeliveryStreamName="t-unmapped", ExtendedS3DestinationConfiguration=transformed_stream("enrich", NumberOfRetries="0"))
    assert "function:enrich" in srv.stderr_text() and "Lambda.ResourceNotFound" in srv.stderr_text()
    [warning] = fhlocal.stream_status(srv, "t-unmapped")["warnings"]
    assert "--lambda-endpoint" in warning and "enrich" in warning, warning
    fh.put_record_batch(DeliveryStreamName="t-unmapped", Records=[{"Data": b"one"}, {"Data": b"two"}])
    [failed] = srv.flush("t-unmapped")["objects"]
    assert failed["key"].startswith("errors/processing-failed/"), failed
    records = error_records(srv.read_object(BUCKET, failed["key"]))
    assert [base64.b64decode(r["rawData"]) for r in records] == [b"one", b"two"]
    assert {r["errorCode"] for r in records} == {"Lambda.ResourceNotFound"}
    assert records[0]["errorMessage"] == (
        "The specified Lambda function does not exist. Use a different function that does exist.")
    assert records[0]["lambdaARN"] == ARN + "enrich"
    assert srv.stop() == 0

    function = CommandFunction(tmp_path / "function")
    mapped = make_server.create(
        {**base, "LambdaFunctions": [{"FunctionName": "enrich", "Command": function.command}]}, name="mapped")
    mapped.data_dir = srv.data_dir
    mapped.start()
    assert fhlocal.stream_status(mapped, "t-unmapped")["warnings"] == []
    mapped.client().put_record(DeliveryStreamName="t-unmapped", Record={"Data": b"three"})
    [delivered] = [o for o in mapped.flush("t-unmapped")["objects"] if "errorOutputType" not in o]
    assert mapped.read_object(BUCKET, delivered["key"]) == b"THREE\n"


@pytest.mark.timeout_s(90)
def test_sigterm_with_a_hung_function_gives_up_after_the_shutdown_timeout(make_server, tmp_path):
    """SIGTERM while the function hangs (its Timeout is 300 s): once --shutdown-timeout has passed, the
    invocation is abandoned (the command killed), the records stay staged, serve exits 1 naming the
    stream, and the next start transforms them."""
    function = CommandFunction(tmp_path / "function")
    config = {
        "Credentials": fhlocal.DEFAULT_CREDENTIALS,
        "LambdaFunctions": [{"FunctionName": "upper", "Command": function.command}],
        "DeliveryStreams": [{"DeliveryStreamName": "t-term",
                             "ExtendedS3DestinationConfiguration": transformed_stream("upper")}],
    }
    srv = make_server(config, name="term", extra_args=["--shutdown-timeout", "2"])
    function.set_mode("hang")
    srv.client().put_record(DeliveryStreamName="t-term", Record={"Data": b"kept"})
    started = time.monotonic()
    assert srv.stop(timeout=60) == 1
    # 2 s of shutdown time, then the abandonment: far from the function's 300 s.
    assert time.monotonic() - started < 30
    log = srv.stderr_text()
    assert "Shutdown time is up" in log and "t-term" in log
    assert srv.object_paths() == []
    assert len(function.events()) == 1

    function.set_mode("transform")
    restarted = make_server.create(config, name="term-restart")
    restarted.data_dir = srv.data_dir
    restarted.start()
    restarted.flush("t-term")
    assert [restarted.read_object(BUCKET, k) for k in restarted.stream_keys("t-term")] == [b"KEPT\n"]


def test_records_decompression_fails_on_go_to_the_error_output_and_the_stream_goes_on(srv, fh):
    """A record the Decompression processor (before the function) cannot gunzip is staged as an error
    record in the source stage; it goes on to the error output, and what follows is transformed."""
    import gzip
    destination = transformed_stream("upper")
    destination["ProcessingConfiguration"]["Processors"].insert(0, {
        "Type": "Decompression", "Parameters": [{"ParameterName": "CompressionFormat", "ParameterValue": "GZIP"}]})
    fh.create_delivery_stream(DeliveryStreamName="t-gunzip", ExtendedS3DestinationConfiguration=destination)
    fh.put_record_batch(DeliveryStreamName="t-gunzip", Records=[{"Data": gzip.compress(b"good")}, {"Data": b"raw"}])
    objects = srv.flush("t-gunzip")["objects"]
    [failed] = [o for o in objects if o.get("errorOutputType")]
    assert failed["errorOutputType"] == "decompression-failed"
    [record] = error_records(srv.read_object(BUCKET, failed["key"]))
    assert base64.b64decode(record["rawData"]) == b"raw"
    [delivered] = [o for o in objects if not o.get("errorOutputType")]
    assert srv.read_object(BUCKET, delivered["key"]) == b"GOOD\n"
    fh.put_record(DeliveryStreamName="t-gunzip", Record={"Data": gzip.compress(b"next")})
    [after] = srv.flush("t-gunzip")["objects"]
    assert srv.read_object(BUCKET, after["key"]) == b"NEXT\n"
