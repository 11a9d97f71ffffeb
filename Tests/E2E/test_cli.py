"""The AWS CLI (v1) against the real process.

awscli v1 treats the value of a blob parameter (Record.Data) as the raw bytes
of the record and base64-encodes it itself before sending.  So
``--record '{"Data":"aGVsbG8K"}'`` stores the 8 bytes ``aGVsbG8K`` - not
``hello\\n``.  (AWS CLI v2 would decode it, because of its default
``cli_binary_format=base64``.)  The assertions below follow v1.
"""

from __future__ import annotations

import json

import pytest

import fhlocal
from fhlocal import BUCKET, run


@pytest.fixture(scope="module")
def cli_env(tmp_path_factory):
    home = tmp_path_factory.mktemp("aws-home")
    return fhlocal.clean_env(
        {
            "AWS_ACCESS_KEY_ID": "test",
            "AWS_SECRET_ACCESS_KEY": "test",
            "AWS_DEFAULT_REGION": "us-east-1",
            # Keep the developer's own ~/.aws out of it.
            "HOME": str(home),
            "AWS_CONFIG_FILE": str(home / "config"),
            "AWS_SHARED_CREDENTIALS_FILE": str(home / "credentials"),
            "AWS_MAX_ATTEMPTS": "1",
            "AWS_RETRY_MODE": "standard",
        }
    )


def aws(server, cli_env, *args: str):
    cmd = fhlocal.aws_cli_command() + ["firehose", *args, "--endpoint-url", server.endpoint, "--output", "json"]
    return run(cmd, env=cli_env, timeout=60)


def test_aws_cli_put_record(server, cli_env):
    proc = aws(server, cli_env, "put-record", "--delivery-stream-name", "app-events",
               "--record", '{"Data":"aGVsbG8K"}')
    assert proc.returncode == 0, proc.stderr.decode()
    out = json.loads(proc.stdout)
    assert out["RecordId"] and out["Encrypted"] is False
    server.flush("app-events")
    # v1 sent base64("aGVsbG8K"), so the record is the text aGVsbG8K itself.
    assert server.delivered("app-events", decompress=False) == b"aGVsbG8K"


def test_aws_cli_put_record_batch(server, cli_env):
    proc = aws(server, cli_env, "put-record-batch", "--delivery-stream-name", "cli-batch",
               "--records", '[{"Data":"one\\n"},{"Data":"two\\n"},{"Data":"aGVsbG8K"}]')
    assert proc.returncode == 0, proc.stderr.decode()
    out = json.loads(proc.stdout)
    assert out["FailedPutCount"] == 0 and out["Encrypted"] is False
    assert len(out["RequestResponses"]) == 3
    server.flush("cli-batch")
    assert server.delivered("cli-batch", decompress=False) == b"one\ntwo\naGVsbG8K"


def test_aws_cli_shorthand_record(server, cli_env):
    proc = aws(server, cli_env, "put-record", "--delivery-stream-name", "cli", "--record", "Data=shorthand")
    assert proc.returncode == 0, proc.stderr.decode()
    server.flush("cli")
    assert server.delivered("cli", decompress=False) == b"shorthand"


def test_aws_cli_unknown_stream_fails(server, cli_env):
    proc = aws(server, cli_env, "put-record", "--delivery-stream-name", "does-not-exist",
               "--record", '{"Data":"eA=="}')
    assert proc.returncode != 0
    err = proc.stderr.decode()
    assert "ResourceNotFoundException" in err, err
    assert "Firehose does-not-exist under account 000000000000 not found." in err, err


def test_aws_cli_bad_credentials_fail(server, cli_env):
    env = dict(cli_env, AWS_SECRET_ACCESS_KEY="wrong")
    proc = run(
        fhlocal.aws_cli_command()
        + ["firehose", "put-record", "--endpoint-url", server.endpoint,
           "--delivery-stream-name", "cli", "--record", '{"Data":"eA=="}'],
        env=env, timeout=60,
    )
    assert proc.returncode != 0
    assert "InvalidSignatureException" in proc.stderr.decode(), proc.stderr.decode()
