"""HTTP endpoint destination: a real HTTP receiver in the test checks every header and body field of
AWS's HTTP endpoint delivery specification, and can be told to fail or answer malformed JSON."""
from __future__ import annotations

import base64
import gzip
import http.server
import json
import ssl
import subprocess
import threading
import time
from pathlib import Path

import pytest

import fhlocal
from fhlocal import error_records, expect_client_error, stream_status

S3_BUCKET = "http-failures"


class Receiver:
    """An HTTP endpoint: keeps every request; answers as `mode` says."""

    def __init__(self, tls: "ssl.SSLContext | None" = None):
        self.requests: list[dict] = []
        self.mode = "ok"
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                headers = {k.lower(): v for k, v in self.headers.items()}
                raw = gzip.decompress(body) if headers.get("content-encoding") == "gzip" else body
                request = json.loads(raw)
                receiver.requests.append({"path": self.path, "headers": headers, "body": request})
                if receiver.mode == "slow":
                    # Answers well, but after the server's --endpoint-response-timeout.
                    time.sleep(3)
                if receiver.mode in ("ok", "slow"):
                    status, answer = 200, json.dumps({"requestId": request["requestId"], "timestamp": 1})
                elif receiver.mode == "fail":
                    status, answer = 503, json.dumps({"requestId": request["requestId"], "timestamp": 1,
                                                      "errorMessage": "down for maintenance"})
                else:
                    status, answer = 200, "OK"
                data = answer.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.scheme = "http" if tls is None else "https"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.server.server_address[1]}/ingest?token=abc"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def receiver():
    server = Receiver()
    yield server
    server.close()


@pytest.fixture(autouse=True)
def fresh(receiver):
    receiver.requests.clear()
    receiver.mode = "ok"


@pytest.fixture(scope="module")
def srv(make_module_server):
    return make_module_server({"Credentials": fhlocal.DEFAULT_CREDENTIALS, "DeliveryStreams": []}, name="http")


@pytest.fixture(scope="module")
def fh(srv):
    return srv.client()


def endpoint_destination(url: str, **fields) -> dict:
    destination = {
        "EndpointConfiguration": {"Url": url, "Name": "receiver", "AccessKey": "the-access-key"},
        "RequestConfiguration": {"ContentEncoding": "GZIP", "CommonAttributes": [
            {"AttributeName": "env", "AttributeValue": "ci"}]},
        "BufferingHints": {"SizeInMBs": 1, "IntervalInSeconds": 60},
        "RoleARN": fhlocal.ROLE_ARN,
        "S3Configuration": fhlocal.destination(S3_BUCKET),
    }
    destination.update(fields)
    return destination


def test_records_arrive_as_the_specification_says(srv, fh, receiver):
    fh.create_delivery_stream(DeliveryStreamName="h-ok", HttpEndpointDestinationConfiguration=endpoint_destination(
        receiver.url))
    sent = [b"one", b"\x00\xff binary", b"three"]
    fh.put_record_batch(DeliveryStreamName="h-ok", Records=[{"Data": d} for d in sent])
    srv.flush("h-ok")
    [request] = receiver.requests
    headers, body = request["headers"], request["body"]
    assert request["path"] == "/ingest?token=abc"
    assert headers["x-amz-firehose-protocol-version"] == "1.0"
    assert headers["x-amz-firehose-request-id"] == body["requestId"]
    assert headers["x-amz-firehose-source-arn"] == "arn:aws:firehose:us-east-1:000000000000:deliverystream/h-ok"
    assert headers["x-amz-firehose-access-key"] == "the-access-key"
    assert json.loads(headers["x-amz-firehose-common-attributes"]) == {"commonAttributes": {"env": "ci"}}
    assert headers["content-type"] == "application/json" and headers["content-encoding"] == "gzip"
    assert isinstance(body["timestamp"], int)
    assert [base64.b64decode(r["data"]) for r in body["records"]] == sent
    assert srv.object_paths(S3_BUCKET) == []


def metric(srv, line_start: str) -> float:
    lines = srv.http("GET", "/_local/metrics").body.decode().splitlines()
    [line] = [line for line in lines if line.startswith(line_start + " ")]
    return float(line.split()[-1])


def test_an_accepted_request_is_counted_and_ends_a_wait(srv, fh, receiver):
    fh.create_delivery_stream(DeliveryStreamName="h-count", HttpEndpointDestinationConfiguration=endpoint_destination(
        receiver.url, BufferingHints={"SizeInMBs": 1, "IntervalInSeconds": 1}))
    fh.put_record_batch(DeliveryStreamName="h-count", Records=[{"Data": b"a"}, {"Data": b"b"}])
    # No object is written: the wait counts the request the endpoint accepted (1 s interval).
    waited = srv.http("GET", "/_local/wait?stream=h-count&objects=1&timeout=30")
    assert waited.status == 200, waited.body
    assert len(receiver.requests) == 1
    status = stream_status(srv, "h-count")
    assert status["endpoint"] == {"url": receiver.url, "requestsAccepted": 1, "recordsDelivered": 2,
                                  "attemptsFailed": 0, "recordsFailed": 0}
    assert status["objectsWritten"] == 0 and status["errorRecords"] == {} and "backup" not in status
    assert metric(srv, 'firehose_local_endpoint_requests_total{stream="h-count",outcome="accepted"}') == 1
    assert metric(srv, 'firehose_local_endpoint_records_total{stream="h-count",outcome="delivered"}') == 2


def test_records_the_endpoint_never_accepts_go_to_the_s3_error_output(srv, fh, receiver):
    fh.create_delivery_stream(DeliveryStreamName="h-fail", HttpEndpointDestinationConfiguration=endpoint_destination(
        receiver.url, RetryOptions={"DurationInSeconds": 1}))
    receiver.mode = "fail"
    fh.put_record_batch(DeliveryStreamName="h-fail", Records=[{"Data": b"lost?"}, {"Data": b"never"}])
    objects = srv.flush("h-fail")["objects"]
    # Waits of 1 s, then what is left of the RetryOptions second (jitter +-15 %): 2 or 3 attempts.
    assert len(receiver.requests) in (2, 3)
    assert len({r["body"]["requestId"] for r in receiver.requests}) == 1
    [failed] = objects
    assert failed["bucket"] == S3_BUCKET and failed["key"].startswith("http-endpoint-failed/")
    records = error_records(srv.read_object(S3_BUCKET, failed["key"]))
    assert [base64.b64decode(r["rawData"]) for r in records] == [b"lost?", b"never"]
    assert list(records[0]) == ["attemptsMade", "arrivalTimestamp", "errorCode", "errorMessage",
                                "attemptEndingTimestamp", "rawData", "subsequenceNumber", "dataId"]
    assert records[0]["errorCode"] == "HttpEndpoint.DestinationException"
    assert records[0]["attemptsMade"] == len(receiver.requests)
    assert "down for maintenance" in records[0]["errorMessage"]
    status = stream_status(srv, "h-fail")
    assert status["errorRecords"] == {"http-endpoint-failed": 2} and status["objectsWritten"] == 1
    assert status["endpoint"]["attemptsFailed"] == len(receiver.requests)
    assert status["endpoint"]["recordsFailed"] == 2 and status["endpoint"]["requestsAccepted"] == 0
    assert "down for maintenance" in status["delivery"]["lastError"]["message"]
    assert metric(srv, 'firehose_local_error_records_total{stream="h-fail",type="http-endpoint-failed"}') == 2
    assert metric(srv, 'firehose_local_endpoint_records_total{stream="h-fail",outcome="failed"}') == 2


def test_an_endpoint_pointed_at_the_servers_own_flush_does_not_stall_flushes(srv, fh):
    """The delivery's request asks /_local/flush for a flush that would wait for that very delivery:
    it waited out the endpoint timeout (180 s), and every global flush with it. /_local answers a
    delivery 508 (Loop Detected), which is not retried: the records go to the error output at once,
    with the default RetryOptions (300 s) still in force."""
    fh.create_delivery_stream(DeliveryStreamName="h-loop", HttpEndpointDestinationConfiguration=endpoint_destination(
        f"{srv.endpoint}/_local/flush"))
    fh.put_record_batch(DeliveryStreamName="h-loop", Records=[{"Data": b"looped"}])
    objects = [o for o in srv.flush()["objects"] if o["stream"] == "h-loop"]  # within fhlocal's HTTP timeout
    [failed] = objects
    assert failed["key"].startswith("http-endpoint-failed/"), failed
    [record] = error_records(srv.read_object(S3_BUCKET, failed["key"]))
    assert record["errorCode"] == "HttpEndpoint.DestinationException" and record["attemptsMade"] == 1
    assert "508" in record["errorMessage"] and "LoopDetected" in record["errorMessage"], record
    assert base64.b64decode(record["rawData"]) == b"looped"
    fh.delete_delivery_stream(DeliveryStreamName="h-loop")


def test_a_malformed_answer_is_an_invalid_response(srv, fh, receiver):
    fh.create_delivery_stream(DeliveryStreamName="h-bad", HttpEndpointDestinationConfiguration=endpoint_destination(
        receiver.url, RetryOptions={"DurationInSeconds": 0},
        ProcessingConfiguration={"Enabled": True, "Processors": [{"Type": "AppendDelimiterToRecord"}]}))
    receiver.mode = "malformed"
    fh.put_record(DeliveryStreamName="h-bad", Record={"Data": b"x"})
    [failed] = srv.flush("h-bad")["objects"]
    [record] = error_records(srv.read_object(S3_BUCKET, failed["key"]))
    assert record["errorCode"] == "HttpEndpoint.InvalidResponseFromDestination"
    # rawData is the record as it was sent: the delimiter the processor added included.
    assert base64.b64decode(record["rawData"]) == b"x\n"
    assert base64.b64decode(receiver.requests[0]["body"]["records"][0]["data"]) == b"x\n"


def test_a_receiver_that_answers_too_late_times_the_attempt_out(make_server, receiver):
    config = {"Credentials": fhlocal.DEFAULT_CREDENTIALS, "DeliveryStreams": []}
    srv = make_server(config, name="slow", extra_args=["--endpoint-response-timeout", "1"])
    fh = srv.client()
    fh.create_delivery_stream(DeliveryStreamName="h-slow", HttpEndpointDestinationConfiguration=endpoint_destination(
        receiver.url, RetryOptions={"DurationInSeconds": 0}))
    receiver.mode = "slow"
    fh.put_record(DeliveryStreamName="h-slow", Record={"Data": b"late"})
    [failed] = srv.flush("h-slow")["objects"]
    [record] = error_records(srv.read_object(S3_BUCKET, failed["key"]))
    assert record["errorCode"] == "HttpEndpoint.RequestTimeout", record
    assert base64.b64decode(record["rawData"]) == b"late"
    assert len(receiver.requests) == 1


def test_update_destination_moves_the_stream_to_another_url_and_keeps_the_access_key(srv, fh, receiver):
    fh.create_delivery_stream(DeliveryStreamName="h-update", HttpEndpointDestinationConfiguration=endpoint_destination(
        receiver.url))
    fh.put_record(DeliveryStreamName="h-update", Record={"Data": b"before"})
    new_url = receiver.url.replace("/ingest?token=abc", "/v2/ingest")
    fh.update_destination(
        DeliveryStreamName="h-update", CurrentDeliveryStreamVersionId="1",
        DestinationId="destinationId-000000000001",
        HttpEndpointDestinationUpdate={
            "EndpointConfiguration": {"Url": new_url},
            "RequestConfiguration": {"ContentEncoding": "NONE",
                                     "CommonAttributes": [{"AttributeName": "env", "AttributeValue": "staging"}]}})
    fh.put_record(DeliveryStreamName="h-update", Record={"Data": b"after"})
    srv.flush("h-update")
    # What waited for the endpoint when the update came goes out under the new settings too.
    assert {r["path"] for r in receiver.requests} == {"/v2/ingest"}
    sent = [base64.b64decode(x["data"]) for r in receiver.requests for x in r["body"]["records"]]
    assert sent == [b"before", b"after"]
    after = receiver.requests[-1]["headers"]
    assert after["x-amz-firehose-access-key"] == "the-access-key" and "content-encoding" not in after
    assert json.loads(after["x-amz-firehose-common-attributes"]) == {"commonAttributes": {"env": "staging"}}
    described = fh.describe_delivery_stream(DeliveryStreamName="h-update")["DeliveryStreamDescription"]
    assert described["VersionId"] == "2"
    http = described["Destinations"][0]["HttpEndpointDestinationDescription"]
    assert http["EndpointConfiguration"] == {"Url": new_url, "Name": "receiver"}
    resp = expect_client_error(
        lambda: fh.update_destination(
            DeliveryStreamName="h-update", CurrentDeliveryStreamVersionId="2",
            DestinationId="destinationId-000000000001", ExtendedS3DestinationUpdate={"Prefix": "x/"}),
        "InvalidArgumentException")
    assert "give HttpEndpointDestinationUpdate" in resp["Error"]["Message"]


@pytest.mark.timeout_s(90)
def test_an_update_that_fixes_a_failing_url_reaches_what_waits_for_a_retry(make_server, receiver):
    """The update is what fixes a failing endpoint: it answers at once (not after the old buffer's
    retries), and the buffer waiting for its next attempt goes to the new Url."""
    srv = make_server({"Credentials": fhlocal.DEFAULT_CREDENTIALS, "DeliveryStreams": []}, name="update-failing")
    fh = srv.client()
    fh.create_delivery_stream(DeliveryStreamName="h-fix", HttpEndpointDestinationConfiguration=endpoint_destination(
        receiver.url, RetryOptions={"DurationInSeconds": 3600}, BufferingHints={"SizeInMBs": 1, "IntervalInSeconds": 1}))
    receiver.mode = "fail"
    fh.put_record(DeliveryStreamName="h-fix", Record={"Data": b"waits"})
    fhlocal.wait_for(lambda: len(receiver.requests) >= 1, timeout=20, what="a first attempt at the failing Url")
    fixed = Receiver()
    try:
        started = time.monotonic()
        fh.update_destination(
            DeliveryStreamName="h-fix", CurrentDeliveryStreamVersionId="1", DestinationId="destinationId-000000000001",
            HttpEndpointDestinationUpdate={"EndpointConfiguration": {"Url": fixed.url}})
        assert time.monotonic() - started < 10
        fhlocal.wait_for(lambda: len(fixed.requests) == 1, timeout=30, what="the retry at the new Url")
        [request] = fixed.requests
        assert [base64.b64decode(r["data"]) for r in request["body"]["records"]] == [b"waits"]
        assert request["headers"]["x-amz-firehose-request-id"] in {r["body"]["requestId"] for r in receiver.requests}
        assert srv.stop() == 0
    finally:
        fixed.close()


def test_describe_hides_the_access_key(fh, receiver):
    fh.create_delivery_stream(DeliveryStreamName="h-describe", HttpEndpointDestinationConfiguration=endpoint_destination(
        receiver.url))
    described = fh.describe_delivery_stream(DeliveryStreamName="h-describe")["DeliveryStreamDescription"]
    http = described["Destinations"][0]["HttpEndpointDestinationDescription"]
    assert http["EndpointConfiguration"] == {"Url": receiver.url, "Name": "receiver"}
    assert http["RetryOptions"] == {"DurationInSeconds": 300} and http["S3BackupMode"] == "FailedDataOnly"
    assert http["S3DestinationDescription"]["BucketARN"] == f"arn:aws:s3:::{S3_BUCKET}"
    assert "the-access-key" not in json.dumps(described, default=str)


@pytest.fixture(scope="module")
def certificates(tmp_path_factory) -> Path:
    """A CA and a certificate it signed for 127.0.0.1, made with the openssl command."""
    folder = tmp_path_factory.mktemp("tls")
    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=firehose-local test CA")
    openssl("req", *ec, "-keyout", "receiver.key", "-out", "receiver.csr", "-subj", "/CN=127.0.0.1")
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "receiver.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "receiver.pem", "-days", "2", "-extfile", "san.ext")
    return folder


@pytest.fixture(scope="module")
def tls_receiver(certificates):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificates / "receiver.pem", certificates / "receiver.key")
    server = Receiver(tls=context)
    yield server
    server.close()


def test_https_delivers_to_a_receiver_the_ca_file_trusts(make_server, tls_receiver, certificates):
    config = {"Credentials": fhlocal.DEFAULT_CREDENTIALS, "DeliveryStreams": []}
    srv = make_server(config, name="https", extra_args=["--endpoint-ca-file", str(certificates / "ca.pem")])
    fh = srv.client()
    fh.create_delivery_stream(DeliveryStreamName="h-tls", HttpEndpointDestinationConfiguration=endpoint_destination(
        tls_receiver.url))
    fh.put_record(DeliveryStreamName="h-tls", Record={"Data": b"over tls"})
    srv.flush("h-tls")
    [request] = tls_receiver.requests
    assert [base64.b64decode(r["data"]) for r in request["body"]["records"]] == [b"over tls"]
    assert request["headers"]["x-amz-firehose-access-key"] == "the-access-key"


def test_https_to_a_receiver_nothing_trusts_fails_the_attempts(srv, fh, tls_receiver):
    """Without --endpoint-ca-file the test CA is unknown: the certificate is refused, as it must be."""
    tls_receiver.requests.clear()
    fh.create_delivery_stream(DeliveryStreamName="h-untrusted", HttpEndpointDestinationConfiguration=endpoint_destination(
        tls_receiver.url, RetryOptions={"DurationInSeconds": 0}))
    fh.put_record(DeliveryStreamName="h-untrusted", Record={"Data": b"refused"})
    [failed] = srv.flush("h-untrusted")["objects"]
    [record] = error_records(srv.read_object(S3_BUCKET, failed["key"]))
    assert record["errorCode"] == "HttpEndpoint.ConnectionFailed"
    assert "the endpoint's certificate is not trusted" in record["errorMessage"], record
    assert tls_receiver.requests == []


def test_all_data_backs_every_record_up_as_received(srv, fh, receiver):
    fh.create_delivery_stream(DeliveryStreamName="h-all", HttpEndpointDestinationConfiguration=endpoint_destination(
        receiver.url, S3BackupMode="AllData"))
    fh.put_record(DeliveryStreamName="h-all", Record={"Data": b"kept twice"})
    [backup] = srv.flush("h-all")["objects"]
    assert backup["backup"] is True and "errorOutputType" not in backup
    assert srv.read_object(S3_BUCKET, backup["key"]) == b"kept twice"
    assert len(receiver.requests) == 1
    status = stream_status(srv, "h-all")
    assert status["backup"]["objectsWritten"] == 1 and status["objectsWritten"] == 0


@pytest.mark.timeout_s(90)
def test_sigkill_loses_no_record_on_its_way_to_the_endpoint(make_server, receiver):
    config = {
        "Credentials": fhlocal.DEFAULT_CREDENTIALS,
        "DeliveryStreams": [{
            "DeliveryStreamName": "h-crash",
            "HttpEndpointDestinationConfiguration": endpoint_destination(
                receiver.url, BufferingHints={"SizeInMBs": 64, "IntervalInSeconds": 900}),
        }],
    }
    srv = make_server(config, name="http-crash")
    sent = [b"rec-%03d" % i for i in range(40)]
    srv.client().put_record_batch(DeliveryStreamName="h-crash", Records=[{"Data": d} for d in sent])
    srv.kill()
    assert receiver.requests == []

    restarted = make_server.create(config, name="http-crash-restart")
    restarted.data_dir = srv.data_dir
    restarted.start()
    restarted.flush("h-crash")
    received = [base64.b64decode(r["data"]) for request in receiver.requests for r in request["body"]["records"]]
    assert received == sent
    staging = restarted.data_dir / fhlocal.STAGING_DIR / "staging"
    assert not any(staging.iterdir()), list(staging.iterdir())


def test_a_lambda_function_transforms_records_before_the_endpoint(make_server, receiver, tmp_path):
    from test_transformation import CommandFunction, lambda_processor

    function = CommandFunction(tmp_path / "function")
    srv = make_server({
        "Credentials": fhlocal.DEFAULT_CREDENTIALS,
        "LambdaFunctions": [{"FunctionName": "upper", "Command": function.command}],
        "DeliveryStreams": [{
            "DeliveryStreamName": "h-lambda",
            "HttpEndpointDestinationConfiguration": endpoint_destination(
                receiver.url, ProcessingConfiguration={"Enabled": True, "Processors": [
                    lambda_processor("upper"), {"Type": "AppendDelimiterToRecord"}]}),
        }],
    }, name="http-lambda")
    srv.client().put_record_batch(
        DeliveryStreamName="h-lambda", Records=[{"Data": b"abc"}, {"Data": b"please fail"}])
    objects = srv.flush("h-lambda")["objects"]
    [request] = receiver.requests
    assert [base64.b64decode(r["data"]) for r in request["body"]["records"]] == [b"ABC\n"]
    [failed] = objects
    assert failed["key"].startswith("processing-failed/") and failed["bucket"] == S3_BUCKET
    [record] = error_records(srv.read_object(S3_BUCKET, failed["key"]))
    assert base64.b64decode(record["rawData"]) == b"please fail"


@pytest.mark.timeout_s(90)
def test_sigterm_while_the_endpoint_fails_stops_retrying_and_keeps_the_records(make_server, receiver):
    config = {
        "Credentials": fhlocal.DEFAULT_CREDENTIALS,
        "DeliveryStreams": [{
            "DeliveryStreamName": "h-term",
            "HttpEndpointDestinationConfiguration": endpoint_destination(
                receiver.url, BufferingHints={"SizeInMBs": 1, "IntervalInSeconds": 1},
                RetryOptions={"DurationInSeconds": 3600}),
        }],
    }
    srv = make_server(config, name="http-term")
    receiver.mode = "fail"
    srv.client().put_record(DeliveryStreamName="h-term", Record={"Data": b"survives"})
    fhlocal.wait_for(lambda: len(receiver.requests) >= 2, timeout=20, what="a retried request")
    started = time.monotonic()
    # Exit 1: records stay staged, named on the way out.
    assert srv.stop(timeout=30) == 1
    assert time.monotonic() - started < 10
    assert "h-term" in srv.stderr_tail()
    assert srv.object_paths(S3_BUCKET) == []

    receiver.mode = "ok"
    receiver.requests.clear()
    restarted = make_server.create(config, name="http-term-restart")
    restarted.data_dir = srv.data_dir
    restarted.start()
    restarted.flush("h-term")
    received = [base64.b64decode(r["data"]) for request in receiver.requests for r in request["body"]["records"]]
    assert received == [b"survives"]
