#!/usr/bin/env python3
"""Capture real boto3/botocore Firehose requests, byte for byte, as golden files for the SigV4 tests.

botocore builds, signs and sends each request to a one-shot recorder on 127.0.0.1:4573, which keeps
the exact bytes it received (request line, headers, body) and answers like Firehose would. The clock,
the invocation ids and the machine-dependent parts of the User-Agent are frozen, so running this
again with the same botocore rewrites the same files.

    python3 scripts/capture-boto3-requests.py [--out sample-data/captured]

Writes one `boto3-*.http` file per request and `boto3-manifest.json` (timestamp, region, service,
credentials and what each file holds). Only botocore is needed (`pip install botocore`).
"""

import argparse
import base64
import datetime
import json
import os
import pathlib
import socket
import sys
import threading
import uuid

PORT = 4573
REGION = "us-east-1"
SERVICE = "firehose"
TIMESTAMP = datetime.datetime(2026, 1, 15, 9, 30, 0)  # naive UTC, as botocore's clock returns it
ACCESS_KEY = "test"
SECRET_KEY = "test"
SESSION_TOKEN = "FwoGZXIvYXdzEXAMPLE//////////wEaDFirehoseLocalSessionTokenForTests+/="

# Records with every byte value, an empty record and a JSON line, so the batch exercises base64 fully.
BINARY_RECORDS = [bytes(range(256)), b"", b'{"event":"tap","n":1}\n', b"\x00\xff\x80\x7f"]


def isolate_from_local_aws_config():
    """Keep the developer's own AWS settings (profiles, regions, retry modes) out of the capture."""
    for name in list(os.environ):
        if name.startswith("AWS_") or name.startswith("BOTO_"):
            del os.environ[name]
    os.environ["AWS_CONFIG_FILE"] = os.devnull
    os.environ["AWS_SHARED_CREDENTIALS_FILE"] = os.devnull
    os.environ["AWS_EC2_METADATA_DISABLED"] = "true"


def freeze_botocore():
    import botocore.auth
    import botocore.endpoint
    import botocore.useragent

    # SigV4Auth reads the clock through this name.
    botocore.auth.get_current_datetime = lambda remove_tzinfo=True: TIMESTAMP

    # amz-sdk-invocation-id comes from uuid4 in botocore.endpoint: number them instead.
    counter = iter(range(1, 1_000_000))
    fixed_uuid = lambda: uuid.UUID(int=next(counter))  # noqa: E731
    botocore.endpoint.uuid.uuid4 = fixed_uuid

    # Same User-Agent format as botocore sends, without this machine's kernel, CPU and Python build.
    original = botocore.useragent.UserAgentString.from_environment.__func__

    def stable_environment(cls):
        agent = original(cls)
        agent._platform_name = "Linux"
        agent._platform_version = "generic"
        agent._platform_machine = "x86_64"
        agent._python_version = "3"
        agent._python_implementation = "CPython"
        agent._execution_env = None
        agent._crt_version = None
        return agent

    botocore.useragent.UserAgentString.from_environment = classmethod(stable_environment)


class Recorder:
    """Accepts one HTTP/1.1 request per connection, keeps its bytes and answers with a canned body."""

    def __init__(self):
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", PORT))
        self.server.listen(1)
        self.captured = []
        self.next_response = b"{}"
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            with connection:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = connection.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                head, _, body = data.partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                while len(body) < length:
                    chunk = connection.recv(65536)
                    if not chunk:
                        break
                    body += chunk
                self.captured.append(head + b"\r\n\r\n" + body)
                response = self.next_response
                connection.sendall(
                    b"HTTP/1.1 200 OK\r\n"
                    b"x-amzn-RequestId: 00000000-0000-0000-0000-000000000000\r\n"
                    b"Content-Type: application/x-amz-json-1.1\r\n"
                    + b"Content-Length: %d\r\n" % len(response)
                    + b"Connection: close\r\n\r\n"
                    + response
                )

    def close(self):
        self.server.close()


def make_client(session_token=None):
    import botocore.session

    session = botocore.session.get_session()
    return session.create_client(
        SERVICE,
        region_name=REGION,
        endpoint_url=f"http://localhost:{PORT}",
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
        aws_session_token=session_token,
    )


def main():
    # The User-Agent lists botocore's feature ids from a set, whose order follows string hashing.
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_out = pathlib.Path(__file__).resolve().parent.parent / "sample-data" / "captured"
    parser.add_argument("--out", type=pathlib.Path, default=default_out)
    args = parser.parse_args()

    isolate_from_local_aws_config()
    freeze_botocore()
    import botocore

    recorder = Recorder()
    put_record_response = json.dumps({"RecordId": "capture-record-1", "Encrypted": False}).encode()
    captures = [
        {
            "file": "boto3-put-record.http",
            "operation": "PutRecord",
            "session_token": False,
            "call": lambda c: c.put_record(
                DeliveryStreamName="captured-stream", Record={"Data": b"hello from boto3\n"}
            ),
            "response": put_record_response,
        },
        {
            "file": "boto3-put-record-batch.http",
            "operation": "PutRecordBatch",
            "session_token": False,
            "call": lambda c: c.put_record_batch(
                DeliveryStreamName="captured-stream",
                Records=[{"Data": data} for data in BINARY_RECORDS],
            ),
            "response": json.dumps(
                {
                    "FailedPutCount": 0,
                    "Encrypted": False,
                    "RequestResponses": [{"RecordId": f"capture-record-{i}"} for i in range(len(BINARY_RECORDS))],
                }
            ).encode(),
        },
        {
            "file": "boto3-put-record-session-token.http",
            "operation": "PutRecord",
            "session_token": True,
            "call": lambda c: c.put_record(
                DeliveryStreamName="captured-stream", Record={"Data": b"signed with temporary credentials\n"}
            ),
            "response": put_record_response,
        },
    ]

    args.out.mkdir(parents=True, exist_ok=True)
    try:
        for capture in captures:
            recorder.next_response = capture["response"]
            client = make_client(SESSION_TOKEN if capture["session_token"] else None)
            capture["call"](client)
            raw = recorder.captured[-1]
            (args.out / capture["file"]).write_bytes(raw)
    finally:
        recorder.close()

    manifest = {
        "generator": "scripts/capture-boto3-requests.py",
        "botocore_version": botocore.__version__,
        "timestamp": TIMESTAMP.strftime("%Y%m%dT%H%M%SZ"),
        "region": REGION,
        "service": SERVICE,
        "credentials": {
            "access_key_id": ACCESS_KEY,
            "secret_access_key": SECRET_KEY,
            "session_token": SESSION_TOKEN,
        },
        "notes": (
            "Each .http file holds the exact bytes botocore sent (CRLF line ends, body after the blank "
            "line). User-Agent and amz-sdk-invocation-id are made stable by the script; neither is signed."
        ),
        "requests": [
            {
                "file": capture["file"],
                "operation": capture["operation"],
                "uses_session_token": capture["session_token"],
                "records_base64": (
                    [base64.b64encode(data).decode() for data in BINARY_RECORDS]
                    if capture["operation"] == "PutRecordBatch"
                    else None
                ),
            }
            for capture in captures
        ],
    }
    (args.out / "boto3-manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    for capture in captures:
        print(f"wrote {args.out / capture['file']}")
    print(f"wrote {args.out / 'boto3-manifest.json'}")


if __name__ == "__main__":
    main()
