"""The S3 API on the Firehose port: test code reads delivered objects with boto3's S3 client and
the AWS CLI, at the same endpoint URL it sends records to."""
from __future__ import annotations

import datetime as _dt
import gzip
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

import fhlocal
from fhlocal import BUCKET

SEEDED = "seeded-bucket"


@pytest.fixture(scope="module")
def srv(make_module_server):
    return make_module_server({
        "Credentials": fhlocal.DEFAULT_CREDENTIALS,
        "DeliveryStreams": [
            fhlocal.ext_stream("s3-plain", **fhlocal.hints(64, 900)),
            fhlocal.ext_stream("s3-gzip", "gzip-bucket", CompressionFormat="GZIP", **fhlocal.hints(64, 900)),
            fhlocal.ext_stream("s3-unused", "never-written", **fhlocal.hints(64, 900)),
        ],
    }, name="s3api")


@pytest.fixture(scope="module")
def s3(srv):
    return srv.s3()


def seed(srv, bucket: str, key: str, data: bytes) -> None:
    """An object put in place as a delivery would (the S3 API does not write yet)."""
    path = srv.data_dir / bucket / key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def expect_s3_error(fn, code: str, status: int) -> dict:
    return fhlocal.expect_client_error(fn, code, status, s3=True)


def signed_raw(srv, method: str, path: str, host: str | None = None, headers: dict | None = None):
    """A request signed with botocore's S3 signer and sent as is (paths and hosts boto3 would not send)."""
    host = host or f"{srv.host}:{srv.port}"
    request = AWSRequest(method=method, url=f"http://{host}{path}", headers=dict(headers or {}))
    request.headers["x-amz-content-sha256"] = hashlib.sha256(b"").hexdigest()
    S3SigV4Auth(Credentials("test", "test"), "s3", srv.region).add_auth(request)
    sent = {k: v for k, v in request.headers.items()}
    sent["Host"] = host
    return srv.http(method, path, None, sent)


def test_delivered_objects_read_back_byte_for_byte(srv, s3):
    fh = srv.client()
    fh.put_record_batch(DeliveryStreamName="s3-plain", Records=[{"Data": b"plain %d\n" % i} for i in range(50)])
    fh.put_record_batch(DeliveryStreamName="s3-gzip", Records=[{"Data": b"zipped %d\n" % i} for i in range(50)])
    srv.flush()
    for bucket in (BUCKET, "gzip-bucket"):
        on_disk = dict(srv.objects(bucket))
        listed = s3.list_objects_v2(Bucket=bucket)
        assert listed["KeyCount"] == len(on_disk) == len(listed["Contents"]) >= 1
        for entry in listed["Contents"]:
            data = on_disk[entry["Key"]]
            assert entry["Size"] == len(data)
            assert entry["ETag"] == '"%s"' % hashlib.md5(data).hexdigest()
            assert entry["StorageClass"] == "STANDARD"
            got = s3.get_object(Bucket=bucket, Key=entry["Key"])
            assert got["Body"].read() == data
            assert got["ETag"] == entry["ETag"]
            assert got["ContentLength"] == len(data)
            assert got["ContentType"] == "application/octet-stream"
            assert got["AcceptRanges"] == "bytes"
            assert abs((got["LastModified"] - entry["LastModified"]).total_seconds()) < 1
    key, data = srv.objects("gzip-bucket")[0]
    assert key.endswith(".gz")
    assert gzip.decompress(s3.get_object(Bucket="gzip-bucket", Key=key)["Body"].read()) == b"".join(
        b"zipped %d\n" % i for i in range(50))


def test_buckets_of_streams_exist_before_their_first_object(srv, s3):
    names = [b["Name"] for b in s3.list_buckets()["Buckets"]]
    assert "never-written" in names and fhlocal.STAGING_DIR not in names
    assert not (srv.data_dir / "never-written").exists()
    head = s3.head_bucket(Bucket="never-written")
    assert head["ResponseMetadata"]["HTTPHeaders"]["x-amz-bucket-region"] == srv.region
    assert s3.get_bucket_location(Bucket="never-written")["LocationConstraint"] is None
    listed = s3.list_objects_v2(Bucket="never-written")
    assert listed["KeyCount"] == 0 and "Contents" not in listed
    expect_s3_error(lambda: s3.list_objects_v2(Bucket="no-such-bucket"), "NoSuchBucket", 404)
    expect_s3_error(lambda: s3.head_bucket(Bucket="no-such-bucket"), "404", 404)
    expect_s3_error(lambda: s3.get_object(Bucket="no-such-bucket", Key="k"), "NoSuchBucket", 404)


def test_listing_pages_prefixes_and_delimiters(srv, s3):
    keys = sorted([f"logs/2026/{d:02d}/part-{i}.txt" for d in (1, 2, 3) for i in range(7)] + ["logs/top.txt", "other"])
    for key in keys:
        seed(srv, SEEDED, key, key.encode())
    paginator = s3.get_paginator("list_objects_v2")
    pages = list(paginator.paginate(Bucket=SEEDED, PaginationConfig={"PageSize": 4}))
    assert [o["Key"] for p in pages for o in p.get("Contents", [])] == keys
    assert len(pages) == 6 and all(p["KeyCount"] <= 4 for p in pages)
    assert pages[0]["IsTruncated"] and not pages[-1]["IsTruncated"]

    top = s3.list_objects_v2(Bucket=SEEDED, Delimiter="/")
    assert [p["Prefix"] for p in top["CommonPrefixes"]] == ["logs/"]
    assert [o["Key"] for o in top["Contents"]] == ["other"]
    days = s3.list_objects_v2(Bucket=SEEDED, Prefix="logs/2026/", Delimiter="/")
    assert [p["Prefix"] for p in days["CommonPrefixes"]] == ["logs/2026/01/", "logs/2026/02/", "logs/2026/03/"]
    assert "Contents" not in days

    # A page boundary on a common prefix does not list it twice, and the next page starts after
    # every key it rolls up.
    rolled = list(paginator.paginate(Bucket=SEEDED, Prefix="logs/", Delimiter="/", PaginationConfig={"PageSize": 1}))
    assert [p["Prefix"] for page in rolled for p in page.get("CommonPrefixes", [])] == ["logs/2026/"]
    assert [o["Key"] for page in rolled for o in page.get("Contents", [])] == ["logs/top.txt"]

    after = s3.list_objects_v2(Bucket=SEEDED, StartAfter="logs/2026/03/part-5.txt")
    assert [o["Key"] for o in after["Contents"]] == ["logs/2026/03/part-6.txt", "logs/top.txt", "other"]
    assert after["StartAfter"] == "logs/2026/03/part-5.txt"
    partial = s3.list_objects_v2(Bucket=SEEDED, Prefix="logs/2026/02/part-")
    assert [o["Key"] for o in partial["Contents"]] == [k for k in keys if k.startswith("logs/2026/02/part-")]

    v1 = list(s3.get_paginator("list_objects").paginate(Bucket=SEEDED, PaginationConfig={"PageSize": 5}))
    assert [o["Key"] for p in v1 for o in p["Contents"]] == keys
    assert all(o["Owner"]["ID"] for p in v1 for o in p["Contents"])
    assert s3.list_objects_v2(Bucket=SEEDED, MaxKeys=0)["KeyCount"] == 0
    expect_s3_error(
        lambda: s3.list_objects_v2(Bucket=SEEDED, ContinuationToken="%%%not-a-token"), "InvalidArgument", 400)


def test_keys_with_any_characters_round_trip(srv, s3):
    # botocore asks for encoding-type=url and decodes with unquote_plus: `+`, `%`, spaces and a
    # control character all have to survive.
    keys = ["odd/a b+c%20d.txt", "odd/ünï©ødé/€.txt", "odd/ctl\x01char", "odd/amp&lt;<>.txt", "odd/q?x=1#y"]
    for key in keys:
        seed(srv, "odd-keys", key, key.encode())
    listed = s3.list_objects_v2(Bucket="odd-keys")
    assert sorted(o["Key"] for o in listed["Contents"]) == sorted(keys, key=lambda k: k.encode())
    assert [o["Key"] for o in listed["Contents"]] == sorted(keys, key=lambda k: k.encode())
    for key in keys:
        assert s3.get_object(Bucket="odd-keys", Key=key)["Body"].read() == key.encode()
    assert [p["Prefix"] for p in s3.list_objects_v2(Bucket="odd-keys", Prefix="odd/", Delimiter="/")[
        "CommonPrefixes"]] == ["odd/ünï©ødé/"]


def test_ranges_and_conditional_gets(srv, s3):
    data = os.urandom(3 * 1024 * 1024 + 17)  # past the server's 256 KiB read chunks
    seed(srv, SEEDED, "big/random.bin", data)
    whole = s3.get_object(Bucket=SEEDED, Key="big/random.bin")
    assert whole["Body"].read() == data
    etag = whole["ETag"]
    for header, expected, content_range in [
        ("bytes=0-9", data[:10], f"bytes 0-9/{len(data)}"),
        ("bytes=262140-524300", data[262140:524301], f"bytes 262140-524300/{len(data)}"),
        ("bytes=-5", data[-5:], f"bytes {len(data) - 5}-{len(data) - 1}/{len(data)}"),
        (f"bytes={len(data) - 3}-", data[-3:], f"bytes {len(data) - 3}-{len(data) - 1}/{len(data)}"),
        (f"bytes=10-{len(data) + 100}", data[10:], f"bytes 10-{len(data) - 1}/{len(data)}"),
    ]:
        got = s3.get_object(Bucket=SEEDED, Key="big/random.bin", Range=header)
        assert got["ResponseMetadata"]["HTTPStatusCode"] == 206
        assert got["ContentRange"] == content_range
        assert got["Body"].read() == expected
    resp = expect_s3_error(
        lambda: s3.get_object(Bucket=SEEDED, Key="big/random.bin", Range=f"bytes={len(data)}-"), "InvalidRange", 416)
    assert resp["Error"]["ActualObjectSize"] == str(len(data))
    # Several ranges: S3 serves the whole object.
    assert s3.get_object(Bucket=SEEDED, Key="big/random.bin", Range="bytes=0-1,5-6")["ContentLength"] == len(data)

    expect_s3_error(lambda: s3.get_object(Bucket=SEEDED, Key="big/random.bin", IfNoneMatch=etag), "304", 304)
    expect_s3_error(lambda: s3.head_object(Bucket=SEEDED, Key="big/random.bin", IfNoneMatch=etag), "304", 304)
    assert s3.get_object(Bucket=SEEDED, Key="big/random.bin", IfMatch=etag, Range="bytes=0-0")["Body"].read() == data[:1]
    expect_s3_error(
        lambda: s3.get_object(Bucket=SEEDED, Key="big/random.bin", IfMatch='"0000"'), "PreconditionFailed", 412)
    future = _dt.datetime.now(_dt.timezone.utc) + _dt.timedelta(days=1)
    past = _dt.datetime(2000, 1, 1, tzinfo=_dt.timezone.utc)
    expect_s3_error(lambda: s3.get_object(Bucket=SEEDED, Key="big/random.bin", IfModifiedSince=future), "304", 304)
    assert s3.get_object(Bucket=SEEDED, Key="big/random.bin", IfModifiedSince=past, Range="bytes=0-0")["Body"].read()
    expect_s3_error(
        lambda: s3.get_object(Bucket=SEEDED, Key="big/random.bin", IfUnmodifiedSince=past), "PreconditionFailed", 412)
    head = s3.head_object(Bucket=SEEDED, Key="big/random.bin")
    assert head["ContentLength"] == len(data) and head["ETag"] == etag
    override = s3.get_object(
        Bucket=SEEDED, Key="big/random.bin", Range="bytes=0-0", ResponseContentType="text/plain",
        ResponseContentDisposition="attachment")
    assert override["ContentType"] == "text/plain" and override["ContentDisposition"] == "attachment"


def test_missing_objects_and_refused_signatures(srv, s3):
    seed(srv, SEEDED, "present.txt", b"here")
    resp = expect_s3_error(lambda: s3.get_object(Bucket=SEEDED, Key="absent.txt"), "NoSuchKey", 404)
    assert resp["Error"]["Key"] == "absent.txt"
    expect_s3_error(lambda: s3.head_object(Bucket=SEEDED, Key="absent.txt"), "404", 404)
    expect_s3_error(lambda: srv.s3(secret_key="wrong").list_buckets(), "SignatureDoesNotMatch", 403)
    expect_s3_error(lambda: srv.s3(access_key="AKIDUNKNOWN").list_buckets(), "InvalidAccessKeyId", 403)
    expect_s3_error(lambda: srv.s3(signed=False).get_object(Bucket=SEEDED, Key="present.txt"), "AccessDenied", 403)
    expect_s3_error(lambda: s3.get_bucket_versioning(Bucket=SEEDED), "NotImplemented", 501)


def test_subresources_not_served_are_not_taken_for_other_operations(srv, s3):
    """S3's newer operations, as boto3 sends them: once answered as an overwrite of the object with the
    request's body, a listing, or a bucket's creation (200)."""
    seed(srv, SEEDED, "kept.txt", b"kept")
    expect_s3_error(lambda: s3.rename_object(Bucket=SEEDED, Key="renamed.txt", RenameSource=f"{SEEDED}/kept.txt"),
                    "NotImplemented", 501)
    expect_s3_error(lambda: s3.rename_object(Bucket=SEEDED, Key="kept.txt", RenameSource=f"{SEEDED}/kept.txt"),
                    "NotImplemented", 501)
    expect_s3_error(lambda: s3.get_bucket_abac(Bucket=SEEDED), "NotImplemented", 501)
    expect_s3_error(lambda: s3.put_bucket_abac(Bucket="abac-made", AbacStatus={"Status": "Enabled"}),
                    "NotImplemented", 501)
    expect_s3_error(lambda: s3.get_bucket_metadata_configuration(Bucket=SEEDED), "NotImplemented", 501)
    resp = signed_raw(srv, "PUT", f"/{SEEDED}/kept.txt?encryption")
    assert resp.status == 501 and b"NotImplemented" in resp.body, resp.body
    assert (srv.data_dir / SEEDED / "kept.txt").read_bytes() == b"kept"
    assert not (srv.data_dir / SEEDED / "renamed.txt").exists() and not (srv.data_dir / "abac-made").exists()


def test_no_request_reads_outside_its_bucket(srv, s3, tmp_path):
    seed(srv, SEEDED, "inside.txt", b"inside")
    (srv.data_dir / "secret.txt").write_bytes(b"TOP-SECRET-CONTENT")
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"OUTSIDE-CONTENT")
    os.symlink(outside, srv.data_dir / SEEDED / "link.txt")
    os.symlink(tmp_path, srv.data_dir / SEEDED / "linked-dir")
    keys = [o["Key"] for p in s3.get_paginator("list_objects_v2").paginate(Bucket=SEEDED) for o in p.get("Contents", [])]
    assert "inside.txt" in keys and "link.txt" not in keys and not any(k.startswith("linked-dir") for k in keys)
    expect_s3_error(lambda: s3.get_object(Bucket=SEEDED, Key="link.txt"), "NoSuchKey", 404)
    expect_s3_error(lambda: s3.get_object(Bucket=SEEDED, Key="linked-dir/outside.txt"), "NoSuchKey", 404)
    for path in (f"/{SEEDED}/../secret.txt", f"/{SEEDED}/%2E%2E/secret.txt", f"/{SEEDED}/x/..%2F..%2Fsecret.txt",
                 f"/{SEEDED}//inside.txt", f"/{SEEDED}/./inside.txt"):
        resp = signed_raw(srv, "GET", path)
        assert resp.status in (400, 404), (path, resp.status, resp.body)
        assert b"TOP-SECRET-CONTENT" not in resp.body and resp.body != b"inside"
    # The private folder is no bucket, and its files are not objects.
    for path in (f"/{fhlocal.STAGING_DIR}/", f"/{fhlocal.STAGING_DIR}/streams/s3-plain.json"):
        resp = signed_raw(srv, "GET", path)
        assert resp.status == 404 and b"NoSuchBucket" in resp.body, resp


def test_virtual_hosted_addressing(srv):
    seed(srv, SEEDED, "vhost.txt", b"virtual")
    host = f"{SEEDED}.localhost:{srv.port}"
    resp = signed_raw(srv, "GET", "/vhost.txt", host=host)
    assert resp.status == 200 and resp.body == b"virtual"
    listing = signed_raw(srv, "GET", "/?list-type=2&prefix=vhost", host=host)
    assert listing.status == 200 and b"<Key>vhost.txt</Key>" in listing.body


def test_presigned_urls(srv):
    seed(srv, SEEDED, "shared.txt", b"presigned")
    s3v4 = srv.s3(signature_version="s3v4")
    url = s3v4.generate_presigned_url("get_object", Params={"Bucket": SEEDED, "Key": "shared.txt"}, ExpiresIn=60)
    assert "X-Amz-Signature=" in url
    assert urllib.request.urlopen(url).read() == b"presigned"
    short = s3v4.generate_presigned_url("get_object", Params={"Bucket": SEEDED, "Key": "shared.txt"}, ExpiresIn=1)
    time.sleep(2.1)
    with pytest.raises(urllib.error.HTTPError) as expired:
        urllib.request.urlopen(short)
    assert expired.value.code == 403 and b"Request has expired" in expired.value.read()
    tampered = url.replace("shared.txt", "other.txt")
    with pytest.raises(urllib.error.HTTPError) as mismatch:
        urllib.request.urlopen(tampered)
    assert mismatch.value.code == 403 and b"SignatureDoesNotMatch" in mismatch.value.read()


def test_presigned_urls_as_boto3_and_the_cli_make_them_by_default(srv):
    # Signature Version 2 query strings: what generate_presigned_url and `aws s3 presign` still make.
    seed(srv, SEEDED, "shared v2+.txt", b"presigned v2")
    url = srv.s3().generate_presigned_url(
        "get_object", Params={"Bucket": SEEDED, "Key": "shared v2+.txt", "ResponseContentType": "text/plain"},
        ExpiresIn=60)
    assert "AWSAccessKeyId=" in url and "X-Amz-Signature" not in url
    with urllib.request.urlopen(url) as response:
        assert response.read() == b"presigned v2" and response.headers["Content-Type"] == "text/plain"
    cli_url = aws_cli(srv, "s3", "presign", f"s3://{SEEDED}/shared v2+.txt", "--expires-in", "60").stdout.strip()
    assert urllib.request.urlopen(cli_url).read() == b"presigned v2"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(url.replace("text%2Fplain", "text%2Fhtml"))
    assert refused.value.code == 403 and b"SignatureDoesNotMatch" in refused.value.read()


def aws_cli(srv, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = fhlocal.clean_env({
        "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": srv.region,
        "AWS_CONFIG_FILE": os.devnull, "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    })
    return subprocess.run(["aws", "--endpoint-url", srv.endpoint, *args], env=env, capture_output=True, text=True,
                          timeout=120, check=check)


def test_aws_cli_lists_and_downloads(srv, tmp_path):
    fh = srv.client()
    fh.put_record_batch(DeliveryStreamName="s3-gzip", Records=[{"Data": b"cli %d\n" % i} for i in range(20)])
    srv.flush("s3-gzip")
    buckets = aws_cli(srv, "s3", "ls").stdout
    assert "gzip-bucket" in buckets and "never-written" in buckets
    on_disk = dict(srv.objects("gzip-bucket"))
    listing = aws_cli(srv, "s3", "ls", "s3://gzip-bucket", "--recursive").stdout
    assert sorted(line.split()[-1] for line in listing.splitlines()) == sorted(on_disk)
    target = tmp_path / "download"
    aws_cli(srv, "s3", "cp", "s3://gzip-bucket/", str(target), "--recursive")
    downloaded = {p.relative_to(target).as_posix(): p.read_bytes() for p in target.rglob("*") if p.is_file()}
    assert downloaded == on_disk
    key = sorted(on_disk)[0]
    out = tmp_path / "one.gz"
    aws_cli(srv, "s3api", "get-object", "--bucket", "gzip-bucket", "--key", key, str(out))
    assert out.read_bytes() == on_disk[key]
    missing = aws_cli(srv, "s3", "ls", "s3://no-such-bucket", check=False)
    assert missing.returncode != 0 and "NoSuchBucket" in missing.stderr


def test_firehose_and_s3_share_the_port_and_the_metrics(srv, s3):
    s3.list_buckets()
    metrics = srv.http("GET", "/_local/metrics").body.decode()
    assert 'firehose_local_s3_requests_total{operation="ListBuckets",code="OK"}' in metrics
    # A POST / without X-Amz-Target is still a Firehose request that forgot it.
    resp = srv.http("POST", "/", b"{}", {"Content-Type": "application/x-amz-json-1.1"})
    assert resp.headers.get("x-amzn-errortype", "").startswith(("UnknownOperationException", "MissingAuthenticationToken")), resp


@pytest.fixture(scope="module")
def s3read(tmp_path_factory) -> str:
    return fhlocal.build_go_program("s3read", tmp_path_factory)


@pytest.mark.timeout_s(600)
@pytest.mark.parametrize("virtual_hosted", [False, True], ids=["path-style", "virtual-hosted"])
def test_go_sdk_reads_delivered_objects(srv, s3read, virtual_hosted):
    fh = srv.client()
    for i in range(3):
        fh.put_record_batch(DeliveryStreamName="s3-gzip", Records=[{"Data": b"go %d %d\n" % (i, j)} for j in range(9)])
        srv.flush("s3-gzip")
    on_disk = dict(srv.objects("gzip-bucket"))
    endpoint = f"http://localhost:{srv.port}" if virtual_hosted else srv.endpoint
    args = [s3read, "-endpoint", endpoint, "-bucket", "gzip-bucket"] + (["-virtual-hosted"] if virtual_hosted else [])
    run = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert [o["key"] for o in report["objects"]] == sorted(on_disk)
    assert report["pages"] == (len(on_disk) + 1) // 2
    for entry in report["objects"]:
        data = on_disk[entry["key"]]
        assert entry["size"] == len(data) and entry["md5"] == hashlib.md5(data).hexdigest()
        assert entry["etag"] == entry["headETag"] == '"%s"' % entry["md5"]
    assert report["firstBytes"] == on_disk[sorted(on_disk)[0]][:4].hex()
    assert report["missingCode"] == "NoSuchKey"
    assert "gzip-bucket" in report["buckets"] and "never-written" in report["buckets"]


@pytest.mark.timeout_s(600)
def test_go_sdk_uploads_and_downloads_in_parts(srv, s3, s3read, tmp_path):
    data = os.urandom(12 * 1024 * 1024)  # the upload manager's 5 MiB parts: 5, 5 and 2 MiB
    source = tmp_path / "go-large.bin"
    source.write_bytes(data)
    s3.create_bucket(Bucket="go-bucket")
    run = subprocess.run([s3read, "-endpoint", srv.endpoint, "-bucket", "go-bucket", "-upload", str(source),
                          "-key", "from go/large.bin"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    part = 5 * 1024 * 1024
    assert report["etag"] == multipart_etag([data[i:i + part] for i in range(0, len(data), part)])
    assert report["md5"] == hashlib.md5(data).hexdigest()
    assert (srv.data_dir / "go-bucket" / "from go" / "large.bin").read_bytes() == data


def test_tests_seed_and_clean_buckets(srv, s3):
    assert s3.create_bucket(Bucket="seeded-by-s3")["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert "seeded-by-s3" in [b["Name"] for b in s3.list_buckets()["Buckets"]]
    s3.create_bucket(Bucket="seeded-by-s3")  # us-east-1 answers the owner's second CreateBucket with 200
    expect_s3_error(lambda: s3.create_bucket(Bucket="Bad_Name"), "InvalidBucketName", 400)

    put = s3.put_object(Bucket="seeded-by-s3", Key="fixtures/one.json", Body=b'{"n": 1}\n')
    assert put["ETag"] == '"%s"' % hashlib.md5(b'{"n": 1}\n').hexdigest()
    s3.put_object(Bucket="seeded-by-s3", Key="fixtures/two.json", Body=b'{"n": 2}\n', ChecksumAlgorithm="SHA256")
    s3.put_object(Bucket="seeded-by-s3", Key="fixtures/two.json", Body=b'{"n": 2, "again": true}\n')  # overwrites
    assert (srv.data_dir / "seeded-by-s3" / "fixtures" / "one.json").read_bytes() == b'{"n": 1}\n'
    assert s3.get_object(Bucket="seeded-by-s3", Key="fixtures/two.json")["Body"].read() == b'{"n": 2, "again": true}\n'
    assert not list((srv.data_dir / fhlocal.STAGING_DIR / "staging").glob("*.upload"))

    expect_s3_error(lambda: s3.put_object(Bucket="no-such-bucket", Key="k", Body=b"x"), "NoSuchBucket", 404)
    expect_s3_error(lambda: s3.put_object(Bucket="seeded-by-s3", Key="big", Body=b"x" * (8 * 1024 * 1024 + 1)),
                    "EntityTooLarge", 400)
    bad_md5 = "AAAAAAAAAAAAAAAAAAAAAA=="
    expect_s3_error(
        lambda: s3.put_object(Bucket="seeded-by-s3", Key="k", Body=b"x", ContentMD5=bad_md5), "BadDigest", 400)
    expect_s3_error(lambda: s3.put_object(Bucket="seeded-by-s3", Key="fixtures/one.json/inner", Body=b"x"),
                    "InvalidArgument", 400)
    expect_s3_error(lambda: s3.put_object(Bucket="seeded-by-s3", Key="a/../b", Body=b"x"), "InvalidArgument", 400)
    assert not (srv.data_dir / "seeded-by-s3" / "b").exists()

    s3.delete_object(Bucket="seeded-by-s3", Key="fixtures/one.json")
    s3.delete_object(Bucket="seeded-by-s3", Key="fixtures/one.json")  # a missing key deletes fine, as in S3
    expect_s3_error(lambda: s3.get_object(Bucket="seeded-by-s3", Key="fixtures/one.json"), "NoSuchKey", 404)
    for n in range(3):
        s3.put_object(Bucket="seeded-by-s3", Key=f"batch/{n}", Body=b"%d" % n)
    deleted = s3.delete_objects(Bucket="seeded-by-s3", Delete={"Objects": [
        {"Key": "batch/0"}, {"Key": "batch/1"}, {"Key": "batch/2"}, {"Key": "never/there"}]})
    assert sorted(d["Key"] for d in deleted["Deleted"]) == ["batch/0", "batch/1", "batch/2", "never/there"]
    assert "Errors" not in deleted
    quiet = s3.delete_objects(Bucket="seeded-by-s3", Delete={"Objects": [{"Key": "fixtures/two.json"}], "Quiet": True})
    assert "Deleted" not in quiet
    assert s3.list_objects_v2(Bucket="seeded-by-s3")["KeyCount"] == 0


def test_uploads_do_not_wait_for_a_100_continue_that_never_comes(srv):
    """botocore sends `Expect: 100-continue` with every PutObject and waits a second for the interim
    answer before sending the body; the server sends it at once."""
    import socket

    request = AWSRequest(method="PUT", url=f"{srv.endpoint}/{SEEDED}/continue.txt", data=b"continued",
                         headers={"Expect": "100-continue"})
    request.headers["x-amz-content-sha256"] = hashlib.sha256(b"continued").hexdigest()
    S3SigV4Auth(Credentials("test", "test"), "s3", srv.region).add_auth(request)
    (srv.data_dir / SEEDED).mkdir(exist_ok=True)
    with socket.create_connection((srv.host, srv.port), timeout=10) as conn:
        head = f"PUT /{SEEDED}/continue.txt HTTP/1.1\r\nHost: {srv.host}:{srv.port}\r\nContent-Length: 9\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in request.headers.items()) + "\r\n"
        conn.sendall(head.encode())
        interim = conn.recv(100)
        assert interim.startswith(b"HTTP/1.1 100 Continue\r\n"), interim
        conn.sendall(b"continued")
        final = conn.recv(4096)
        assert final.startswith(b"HTTP/1.1 200"), final
    assert (srv.data_dir / SEEDED / "continue.txt").read_bytes() == b"continued"


def test_a_body_over_the_limit_gets_no_100_continue(srv):
    """An S3 (or Firehose) body over 8 MiB is refused before it is sent, though a Kinesis request
    may be 16 MiB: the interim answer is the request's own limit's."""
    import socket

    with socket.create_connection((srv.host, srv.port), timeout=10) as conn:
        conn.sendall(f"PUT /{SEEDED}/big.bin HTTP/1.1\r\nHost: {srv.host}:{srv.port}\r\n"
                     f"Content-Length: {9 * 1024 * 1024}\r\nExpect: 100-continue\r\n\r\n".encode())
        answer = conn.recv(4096)
    # S3's own answer to an entity too large (400), without an interim 100 before it.
    assert answer.startswith(b"HTTP/1.1 400") and b"EntityTooLarge" in answer, answer
    assert not (srv.data_dir / SEEDED / "big.bin").exists()


def test_aws_cli_uploads_syncs_and_removes(srv, tmp_path):
    source = tmp_path / "upload"
    (source / "nested").mkdir(parents=True)
    (source / "a.txt").write_bytes(b"alpha\n")
    (source / "nested" / "b.bin").write_bytes(os.urandom(300_000))
    aws_cli(srv, "s3", "mb", "s3://cli-bucket")
    aws_cli(srv, "s3", "cp", str(source / "a.txt"), "s3://cli-bucket/single/a.txt")
    aws_cli(srv, "s3", "sync", str(source), "s3://cli-bucket/synced")
    assert (srv.data_dir / "cli-bucket" / "single" / "a.txt").read_bytes() == b"alpha\n"
    assert (srv.data_dir / "cli-bucket" / "synced" / "nested" / "b.bin").read_bytes() == (
        source / "nested" / "b.bin").read_bytes()
    again = aws_cli(srv, "s3", "sync", str(source), "s3://cli-bucket/synced").stdout
    assert "upload" not in again  # sizes and times match: nothing to send twice
    aws_cli(srv, "s3", "rm", "s3://cli-bucket/synced", "--recursive")
    listing = aws_cli(srv, "s3", "ls", "s3://cli-bucket", "--recursive").stdout
    assert listing.split()[-1] == "single/a.txt"


def chunked_put(srv, key: str, data: bytes, *, signed: bool, chunk_size: int = 64 * 1024,
                tamper: bool = False, decoded_length: int | None = None) -> fhlocal.RawResponse:
    """An aws-chunked PutObject as the Java and Go v2 SDKs send it, written from sigv4-streaming.html
    (signed: STREAMING-AWS4-HMAC-SHA256-PAYLOAD) and sigv4-streaming-trailers.html (unsigned chunks
    with a trailing CRC32: STREAMING-UNSIGNED-PAYLOAD-TRAILER); botocore sends neither over http."""
    import base64
    import hmac
    import zlib

    def hmac256(key: bytes, text: str) -> bytes:
        return hmac.new(key, text.encode(), hashlib.sha256).digest()

    chunks = [data[i:i + chunk_size] for i in range(0, len(data), chunk_size)] + [b""]
    mode = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" if signed else "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
    crc = base64.b64encode(zlib.crc32(data).to_bytes(4, "big")).decode()

    def framed(signatures: list[str]) -> bytes:
        body = b""
        for chunk, signature in zip(chunks, signatures):
            extension = f";chunk-signature={signature}" if signed else ""
            body += f"{len(chunk):x}{extension}\r\n".encode() + chunk + (b"\r\n" if chunk else b"")
        if not signed:
            body += f"x-amz-checksum-crc32:{crc}\r\n".encode()
        return body + b"\r\n"

    timestamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    scope = f"{timestamp[:8]}/{srv.region}/s3/aws4_request"
    headers = {
        "content-encoding": "aws-chunked",
        # The framing's length is signed, so it is computed before the signatures exist.
        "content-length": str(len(framed(["0" * 64] * len(chunks)))),
        "host": f"{srv.host}:{srv.port}",
        "x-amz-content-sha256": mode,
        "x-amz-date": timestamp,
        "x-amz-decoded-content-length": str(len(data) if decoded_length is None else decoded_length),
    }
    if not signed:
        headers["x-amz-trailer"] = "x-amz-checksum-crc32"
    names = sorted(headers)
    canonical = "\n".join(["PUT", f"/{SEEDED}/{key}", ""] + [f"{n}:{headers[n]}" for n in names]
                          + ["", ";".join(names), mode])
    signing_key = hmac256(hmac256(hmac256(hmac256(b"AWS4test", timestamp[:8]), srv.region), "s3"), "aws4_request")

    def sign(text: str) -> str:
        return hmac.new(signing_key, text.encode(), hashlib.sha256).hexdigest()

    seed = sign("\n".join(["AWS4-HMAC-SHA256", timestamp, scope, hashlib.sha256(canonical.encode()).hexdigest()]))
    signatures, previous = [], seed
    for chunk in chunks:
        previous = sign("\n".join(["AWS4-HMAC-SHA256-PAYLOAD", timestamp, scope, previous,
                                   hashlib.sha256(b"").hexdigest(), hashlib.sha256(chunk).hexdigest()]))
        signatures.append(previous)
    if tamper:
        signatures[0] = signatures[0][:-1] + ("0" if signatures[0][-1] != "0" else "1")
    body = framed(signatures)
    assert len(body) == int(headers["content-length"])
    headers["Authorization"] = (f"AWS4-HMAC-SHA256 Credential=test/{scope}, SignedHeaders={';'.join(names)}, "
                                f"Signature={seed}")
    return srv.http("PUT", f"/{SEEDED}/{key}", body, headers)


@pytest.mark.parametrize("signed", [True, False], ids=["signed-chunks", "unsigned-with-trailer"])
def test_aws_chunked_uploads(srv, signed):
    (srv.data_dir / SEEDED).mkdir(exist_ok=True)
    data = os.urandom(200_000)
    answer = chunked_put(srv, f"chunked-{signed}.bin", data, signed=signed)
    assert answer.status == 200, answer.body
    assert answer.headers["etag"] == '"%s"' % hashlib.md5(data).hexdigest()
    assert (srv.data_dir / SEEDED / f"chunked-{signed}.bin").read_bytes() == data
    if signed:
        refused = chunked_put(srv, "tampered.bin", data, signed=True, tamper=True)
        assert refused.status == 403 and b"SignatureDoesNotMatch" in refused.body
        assert not (srv.data_dir / SEEDED / "tampered.bin").exists()


@pytest.mark.parametrize("signed", [True, False], ids=["signed-chunks", "unsigned-with-trailer"])
def test_aws_chunked_declared_length_past_the_body_is_refused(srv, signed):
    """A declared decoded length of 100 GB over a few bytes once aborted the server (it reserved the
    memory before checking the length): now an IncompleteBody, and the server goes on."""
    (srv.data_dir / SEEDED).mkdir(exist_ok=True)
    refused = chunked_put(srv, "liar.bin", b"hello", signed=signed, decoded_length=100_000_000_000)
    assert refused.status == 400 and b"IncompleteBody" in refused.body, refused.body
    assert not (srv.data_dir / SEEDED / "liar.bin").exists()
    assert chunked_put(srv, "honest.bin", b"hello", signed=signed).status == 200


def multipart_etag(parts: list[bytes]) -> str:
    """S3's ETag of an object uploaded in parts: the MD5 of the parts' MD5s, and their count."""
    digests = b"".join(hashlib.md5(part).digest() for part in parts)
    return f'"{hashlib.md5(digests).hexdigest()}-{len(parts)}"'


def test_aws_cli_copies_large_files_in_parts(srv, s3, tmp_path):
    data = os.urandom(20 * 1024 * 1024 + 12345)  # the CLI's 8 MiB parts: 8, 8 and 4 MiB
    source = tmp_path / "large.bin"
    source.write_bytes(data)
    aws_cli(srv, "s3", "mb", "s3://large-bucket")
    aws_cli(srv, "s3", "cp", str(source), "s3://large-bucket/in parts/large.bin")
    assert (srv.data_dir / "large-bucket" / "in parts" / "large.bin").read_bytes() == data
    chunk = 8 * 1024 * 1024
    etag = multipart_etag([data[i:i + chunk] for i in range(0, len(data), chunk)])
    assert s3.head_object(Bucket="large-bucket", Key="in parts/large.bin")["ETag"] == etag
    (listed,) = s3.list_objects_v2(Bucket="large-bucket")["Contents"]
    assert listed["ETag"] == etag and listed["Size"] == len(data)
    # Downloads of 8 MiB or more are ranged GETs that send the ETag back in If-Match.
    target = tmp_path / "back.bin"
    aws_cli(srv, "s3", "cp", "s3://large-bucket/in parts/large.bin", str(target))
    assert target.read_bytes() == data
    assert not list((srv.data_dir / ".firehose-local" / "uploads").iterdir())


def test_multipart_uploads_refuse_what_s3_refuses(srv, s3):
    s3.create_bucket(Bucket="parts-bucket")
    key = "object.bin"

    def start() -> str:
        return s3.create_multipart_upload(Bucket="parts-bucket", Key=key)["UploadId"]

    def part(upload: str, number: int, body: bytes) -> dict:
        etag = s3.upload_part(Bucket="parts-bucket", Key=key, UploadId=upload, PartNumber=number, Body=body)["ETag"]
        assert etag == f'"{hashlib.md5(body).hexdigest()}"'
        return {"PartNumber": number, "ETag": etag}

    def complete(upload: str, parts: list[dict]):
        return s3.complete_multipart_upload(
            Bucket="parts-bucket", Key=key, UploadId=upload, MultipartUpload={"Parts": parts})

    upload = start()
    small = [part(upload, 1, b"a" * 1024), part(upload, 2, b"b" * 1024)]
    error = expect_s3_error(lambda: complete(upload, small), "EntityTooSmall", 400)
    assert error["Error"]["MinSizeAllowed"] == str(5 * 1024 * 1024)
    expect_s3_error(lambda: complete(upload, small[::-1]), "InvalidPartOrder", 400)
    expect_s3_error(lambda: complete(upload, [{"PartNumber": 1, "ETag": '"0" * 32'}]), "InvalidPart", 400)
    expect_s3_error(lambda: complete(upload, [{"PartNumber": 3, "ETag": small[0]["ETag"]}]), "InvalidPart", 400)
    error = expect_s3_error(
        lambda: s3.upload_part(Bucket="parts-bucket", Key=key, UploadId=upload, PartNumber=10001, Body=b"x"),
        "InvalidArgument", 400)
    assert "between 1 and 10000" in error["Error"]["Message"]
    expect_s3_error(
        lambda: s3.upload_part(Bucket="parts-bucket", Key="other.bin", UploadId=upload, PartNumber=1, Body=b"x"),
        "NoSuchUpload", 404)
    # Refused completions leave the upload as it was: a part replaced, then completed.
    first = os.urandom(5 * 1024 * 1024)
    parts = [part(upload, 1, first), small[1]]
    answer = complete(upload, parts)
    assert answer["ETag"] == multipart_etag([first, b"b" * 1024])
    body = s3.get_object(Bucket="parts-bucket", Key=key)
    assert body["Body"].read() == first + b"b" * 1024 and body["ETag"] == answer["ETag"]
    ranged = s3.get_object(Bucket="parts-bucket", Key=key, Range="bytes=0-9", IfMatch=answer["ETag"])
    assert ranged["Body"].read() == first[:10]
    expect_s3_error(lambda: complete(upload, parts), "NoSuchUpload", 404)
    # Aborted: its parts go, and the upload is no more.
    aborted = start()
    part(aborted, 1, b"never")
    s3.abort_multipart_upload(Bucket="parts-bucket", Key=key, UploadId=aborted)
    expect_s3_error(
        lambda: s3.upload_part(Bucket="parts-bucket", Key=key, UploadId=aborted, PartNumber=2, Body=b"x"),
        "NoSuchUpload", 404)
    expect_s3_error(lambda: s3.abort_multipart_upload(Bucket="parts-bucket", Key=key, UploadId=aborted),
                    "NoSuchUpload", 404)
    assert not (srv.data_dir / ".firehose-local" / "uploads" / aborted).exists()
    expect_s3_error(lambda: s3.create_multipart_upload(Bucket="no-such-bucket", Key=key), "NoSuchBucket", 404)
    assert s3.get_object(Bucket="parts-bucket", Key=key)["Body"].read() == first + b"b" * 1024


def test_uploads_in_progress_end_with_the_server(make_server):
    config = {"Credentials": fhlocal.DEFAULT_CREDENTIALS, "DeliveryStreams": []}
    srv = make_server(config, name="s3-uploads-restart")
    s3 = srv.s3()
    s3.create_bucket(Bucket="restart-bucket")
    upload = s3.create_multipart_upload(Bucket="restart-bucket", Key="k")["UploadId"]
    s3.upload_part(Bucket="restart-bucket", Key="k", UploadId=upload, PartNumber=1, Body=b"part")
    uploads = srv.data_dir / ".firehose-local" / "uploads"
    assert len(list(uploads.rglob("part-*"))) == 1
    # A completed one's ETag is kept with its file (an extended attribute), so it outlives the server.
    done = s3.create_multipart_upload(Bucket="restart-bucket", Key="done")["UploadId"]
    etag = s3.upload_part(Bucket="restart-bucket", Key="done", UploadId=done, PartNumber=1, Body=b"done")["ETag"]
    s3.complete_multipart_upload(Bucket="restart-bucket", Key="done", UploadId=done,
                                 MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etag}]})
    assert os.getxattr(srv.data_dir / "restart-bucket" / "done", "user.firehose-local.etag") == (
        multipart_etag([b"done"]).encode())
    srv.kill()
    restarted = make_server.create(config, name="s3-uploads-restarted")
    restarted.data_dir = srv.data_dir
    restarted.start()
    assert not list(uploads.iterdir())
    assert restarted.s3().head_object(Bucket="restart-bucket", Key="done")["ETag"] == multipart_etag([b"done"])
    expect_s3_error(
        lambda: restarted.s3().upload_part(Bucket="restart-bucket", Key="k", UploadId=upload, PartNumber=2, Body=b"x"),
        "NoSuchUpload", 404)


def test_a_bucket_folder_may_be_a_link_to_another_disk(make_server, tmp_path, request):
    """Whoever runs the server may put a bucket elsewhere with a symbolic link: deliveries go
    through it and the S3 API reads through it (links inside a bucket stay unfollowed)."""
    config = {"Credentials": fhlocal.DEFAULT_CREDENTIALS,
              "DeliveryStreams": [fhlocal.ext_stream("linked", "linked-bucket", **fhlocal.hints(64, 900))]}
    srv = make_server.create(config, name="s3-linked-bucket")
    # Another file system where there is one (/dev/shm, a tmpfs), which no rename can cross.
    shm = pathlib.Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK) and shm.stat().st_dev != srv.data_dir.stat().st_dev:
        elsewhere = pathlib.Path(tempfile.mkdtemp(prefix="firehose-local-bucket-", dir=shm))
        request.addfinalizer(lambda: shutil.rmtree(elsewhere, ignore_errors=True))
    else:
        elsewhere = tmp_path / "other-disk"
        elsewhere.mkdir()
    os.symlink(elsewhere, srv.data_dir / "linked-bucket")
    srv.start()
    srv.client().put_record(DeliveryStreamName="linked", Record={"Data": b"through the link\n"})
    (flushed,) = srv.flush("linked")["objects"]
    assert (elsewhere / flushed["key"]).read_bytes() == b"through the link\n"
    s3 = srv.s3()
    assert "linked-bucket" in [b["Name"] for b in s3.list_buckets()["Buckets"]]
    assert [o["Key"] for o in s3.list_objects_v2(Bucket="linked-bucket")["Contents"]] == [flushed["key"]]
    assert s3.get_object(Bucket="linked-bucket", Key=flushed["key"])["Body"].read() == b"through the link\n"
    s3.put_object(Bucket="linked-bucket", Key="seeded.txt", Body=b"seeded")
    assert (elsewhere / "seeded.txt").read_bytes() == b"seeded"
    upload = s3.create_multipart_upload(Bucket="linked-bucket", Key="in-parts.bin")["UploadId"]
    etag = s3.upload_part(Bucket="linked-bucket", Key="in-parts.bin", UploadId=upload, PartNumber=1,
                          Body=b"one part")["ETag"]
    s3.complete_multipart_upload(Bucket="linked-bucket", Key="in-parts.bin", UploadId=upload,
                                 MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etag}]})
    assert s3.head_object(Bucket="linked-bucket", Key="in-parts.bin")["ETag"] == multipart_etag([b"one part"])
    assert (elsewhere / "in-parts.bin").read_bytes() == b"one part"
    assert not list((srv.data_dir / fhlocal.STAGING_DIR / "staging").glob("*.upload"))
    # A link inside the bucket is not followed, by reads nor by deliveries.
    os.symlink(tmp_path, elsewhere / "inner")
    expect_s3_error(lambda: s3.put_object(Bucket="linked-bucket", Key="inner/x.txt", Body=b"x"), "InvalidArgument", 400)
    assert not (tmp_path / "x.txt").exists()
