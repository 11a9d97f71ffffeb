"""Object key layout (https://docs.aws.amazon.com/firehose/latest/dev/s3-object-name.html):

    <evaluated prefix><stream>-<VersionId>-<yyyy>-<MM>-<dd>-<HH>-<mm>-<ss>-<uuid><ext>

The time is the arrival of the first record in the object, in UTC unless the
stream has a CustomTimeZone.  Instead of comparing with "the current hour" (which
breaks across an hour boundary) every test brackets the put with wall-clock
readings and requires the key's time to fall inside that bracket; the prefix's
hour is then required to be the hour of that same instant.
"""

from __future__ import annotations

import datetime as dt
import re
import time
import zoneinfo

import pytest

import fhlocal
from fhlocal import BUCKET, HOUR_PREFIX_RE, match_key, key_time, assert_time_in_window


def put_and_flush(server, fh, stream: str, data: bytes = b"x") -> tuple[str, float, float]:
    existing = set(server.stream_keys(stream))
    before = time.time()
    fh.put_record(DeliveryStreamName=stream, Record={"Data": data})
    after = time.time()
    result = server.flush(stream)
    assert len(result["objects"]) == 1, result
    key = result["objects"][0]["key"]
    assert set(server.stream_keys(stream)) - existing == {key}
    return key, before, after


def test_default_layout_uncompressed(server, fh):
    key, before, after = put_and_flush(server, fh, "key-plain", b"payload")
    m = match_key(key, "key-plain", prefix_re=HOUR_PREFIX_RE, ext="")
    assert_time_in_window(key_time(m, "UTC"), before, after)
    fhlocal.assert_hour_prefix_matches(m)
    # The yyyy/MM/dd/HH/ prefix is the UTC hour of the request (either side of a boundary).
    hours = {
        dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%Y/%m/%d/%H/") for t in (before, after)
    }
    assert key[: len("yyyy/MM/dd/HH/")] in hours
    assert m["uuid"] == m["uuid"].lower()
    assert "/key-plain-1-" in key, "VersionId of a config stream must be 1"
    assert not key.endswith(".gz")


def test_default_layout_gzip(server, fh):
    key, before, after = put_and_flush(server, fh, "key-gz", b"payload")
    m = match_key(key, "key-gz", prefix_re=HOUR_PREFIX_RE, ext=".gz")
    assert_time_in_window(key_time(m, "UTC"), before, after)
    fhlocal.assert_hour_prefix_matches(m)


def test_key_time_is_first_record_arrival(server, fh):
    b1 = time.time()
    fh.put_record(DeliveryStreamName="key-first", Record={"Data": b"1"})
    a1 = time.time()
    time.sleep(2.2)
    fh.put_record(DeliveryStreamName="key-first", Record={"Data": b"2"})
    key = server.flush("key-first")["objects"][0]["key"]
    m = match_key(key, "key-first")
    t = key_time(m).timestamp()
    assert int(b1) - 0.5 <= t <= a1, (
        f"key time {key_time(m).isoformat()} is not the first record's arrival ({b1:.3f}..{a1:.3f})"
    )
    assert server.delivered("key-first") == b"12"


def test_prefix_with_trailing_slash(server, fh):
    key, before, after = put_and_flush(server, fh, "pfx-slash")
    assert key.startswith("logs/")
    m = match_key(key, "pfx-slash", prefix_re="logs/" + HOUR_PREFIX_RE)
    fhlocal.assert_hour_prefix_matches(m)
    assert_time_in_window(key_time(m), before, after)


def test_prefix_without_trailing_slash_gets_no_slash_inserted(server, fh):
    key, before, after = put_and_flush(server, fh, "pfx-noslash")
    # AWS: "logs" -> "logs2026/11/21/13/..." (no "/" inserted between).
    assert not key.startswith("logs/"), f"a '/' was inserted after the prefix: {key}"
    m = match_key(key, "pfx-noslash", prefix_re="logs" + HOUR_PREFIX_RE)
    fhlocal.assert_hour_prefix_matches(m)
    assert_time_in_window(key_time(m), before, after)


def test_hive_style_timestamp_prefix(server, fh):
    key, before, after = put_and_flush(server, fh, "pfx-hive")
    prefix_re = (
        r"year=(?P<pY>\d{4})/month=(?P<pM>\d{2})/day=(?P<pD>\d{2})/hour=(?P<ph>\d{2})/"
    )
    # A prefix with expressions gets nothing appended (no extra yyyy/MM/dd/HH/).
    m = match_key(key, "pfx-hive", prefix_re=prefix_re)
    fhlocal.assert_hour_prefix_matches(m)
    assert_time_in_window(key_time(m), before, after)
    assert "!{" not in key


def test_compound_timestamp_pattern(server, fh):
    key, before, after = put_and_flush(server, fh, "pfx-compound")
    prefix_re = r"dt=(?P<pY>\d{4})-(?P<pM>\d{2})-(?P<pD>\d{2})/h=(?P<ph>\d{2})/"
    m = match_key(key, "pfx-compound", prefix_re=prefix_re)
    fhlocal.assert_hour_prefix_matches(m)
    assert_time_in_window(key_time(m), before, after)


def test_random_string_prefix(server, fh):
    seen = []
    for i in range(2):
        key, before, after = put_and_flush(server, fh, "pfx-random", f"r{i}".encode())
        prefix_re = r"rnd/(?P<r1>[A-Za-z0-9]{11})/x-(?P<r2>[A-Za-z0-9]{11})/"
        m = match_key(key, "pfx-random", prefix_re=prefix_re)
        assert_time_in_window(key_time(m), before, after)
        # Fresh per occurrence.
        assert m["r1"] != m["r2"], key
        seen += [m["r1"], m["r2"]]
        assert server.read_object(BUCKET, key) == f"r{i}".encode()
    assert len(set(seen)) == 4, f"random strings repeat across objects: {seen}"


@pytest.mark.parametrize(
    "stream,tz,prefix",
    [("tz-ny", "America/New_York", ""), ("tz-kolkata", "Asia/Kolkata", "ist/")],
)
def test_custom_time_zone(server, fh, stream, tz, prefix):
    key, before, after = put_and_flush(server, fh, stream)
    m = match_key(key, stream, prefix_re=re.escape(prefix) + HOUR_PREFIX_RE)
    # Both the yyyy/MM/dd/HH/ prefix and the name's timestamp are in the custom zone.
    fhlocal.assert_hour_prefix_matches(m)
    assert_time_in_window(key_time(m, tz), before, after)
    zone = zoneinfo.ZoneInfo(tz)
    local_hours = {dt.datetime.fromtimestamp(t, zone).strftime("%H") for t in (before, after)}
    utc_hours = {dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%H") for t in (before, after)}
    assert m["ph"] in local_hours
    assert not (local_hours & utc_hours), "test assumption: zone hour differs from UTC hour"
    assert m["ph"] not in utc_hours, f"{key}: hour is UTC, not {tz}"


def test_uuids_are_fresh_lowercase_v4(server, fh):
    uuids = set()
    for i in range(3):
        key, _, _ = put_and_flush(server, fh, "key-plain", f"u{i}".encode())
        m = match_key(key, "key-plain")
        uuids.add(m["uuid"])
    assert len(uuids) == 3
