"""The live view (/_local/ui) in a real browser, headless Chromium driven by Selenium, against the
real process; and the two endpoints under it, /_local/events (Server-Sent Events) and
/_local/object, as scripts use them.

Screenshots of the main states are written to $FIREHOSE_LOCAL_SCREENSHOTS (default:
Tests/E2E/screenshots, not committed); docs/images/live-view.png is one of them.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import time
from pathlib import Path
from urllib.parse import quote

import pytest

import fhlocal
from fhlocal import BUCKET, DELIMITER, ext_stream, hints

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
CHROMEDRIVER = shutil.which("chromedriver")
SHOTS = Path(os.environ.get("FIREHOSE_LOCAL_SCREENSHOTS", Path(__file__).parent / "screenshots"))

QUERY = '{customer: .customer}'


def partitioned(name: str) -> dict:
    """Dynamic partitioning on a JSON member: a record that is not JSON goes to the error output."""
    return ext_stream(
        name,
        Prefix="customer=!{partitionKeyFromQuery:customer}/",
        ErrorOutputPrefix="errors/!{firehose:error-output-type}/",
        **hints(64, 900),
        DynamicPartitioningConfiguration={"Enabled": True},
        ProcessingConfiguration={
            "Enabled": True,
            "Processors": [
                {
                    "Type": "MetadataExtraction",
                    "Parameters": [
                        {"ParameterName": "MetadataExtractionQuery", "ParameterValue": QUERY},
                        {"ParameterName": "JsonParsingEngine", "ParameterValue": "JQ-1.6"},
                    ],
                },
                {"Type": "AppendDelimiterToRecord"},
            ],
        },
    )


VIEW_STREAMS = [
    ext_stream("ui-events", **hints(1, 900), **DELIMITER, CompressionFormat="GZIP"),
    partitioned("ui-partitioned"),
    ext_stream("ui-raw", **hints(1, 900)),
    ext_stream("ui-jumps", **hints(1, 900)),
]


@pytest.fixture(scope="module")
def srv(make_module_server):
    return make_module_server(fhlocal.standard_config(DeliveryStreams=VIEW_STREAMS), name="live-view")


@pytest.fixture(scope="module")
def browser():
    missing = [name for name, found in [("chromium", CHROMIUM), ("chromedriver", CHROMEDRIVER)] if not found]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("selenium (pip)")
    if missing:
        pytest.fail(
            f"the live view is tested in a real browser, and {', '.join(missing)} is missing: "
            "apt-get install chromium chromium-driver; pip install selenium (scripts/prerequisites test does both)",
            pytrace=False,
        )
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,800",
                     "--disable-gpu", "--lang=en-US"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(predicate, timeout: float, what: str = "condition"):
    """fhlocal.wait_for, where an element not there yet (or replaced meanwhile) means not yet."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

    def attempt():
        try:
            return predicate()
        except (NoSuchElementException, StaleElementReferenceException):
            return None

    return fhlocal.wait_for(attempt, timeout, interval=0.1, what=what)


def console_errors(driver) -> list[dict]:
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def open_view(driver, server, size=(1280, 800)):
    driver.set_window_size(*size)
    driver.get(f"{server.endpoint}/_local/ui")
    wait_for(lambda: driver.find_element("id", "connection").text == "live", 15, what="the event stream to open")


def card(driver, stream: str):
    return driver.find_element("css selector", f'.stream[data-stream="{stream}"]')


def text_of(driver, selector: str) -> str:
    return driver.find_element("css selector", selector).text


def test_the_view_follows_streams_records_and_objects(srv, browser):
    fh = srv.client()
    open_view(browser, srv)
    # Every configured stream has its card; a stream made with boto3 gets one as it is created.
    wait_for(lambda: card(browser, "ui-raw"), 10, what="the configured streams' cards")
    fh.create_delivery_stream(
        DeliveryStreamName="ui-created", ExtendedS3DestinationConfiguration=fhlocal.destination(bucket="ui-created-bucket")
    )
    wait_for(lambda: "bucket ui-created-bucket" in card(browser, "ui-created").text, 10, what="the created stream")

    # Records arriving fill the buffer and the counts.
    records = [json.dumps({"event": "signup", "user": n}).encode() for n in range(5)] + [b"plain text line"]
    fh.put_record_batch(DeliveryStreamName="ui-events", Records=[{"Data": r} for r in records])
    events = lambda: card(browser, "ui-events").text  # noqa: E731
    wait_for(lambda: "6 records" in events() and "6 rec · closes in" in events(), 10, what="the buffer to show")
    fh.put_record_batch(
        DeliveryStreamName="ui-partitioned",
        Records=[{"Data": b'{"customer":"acme"}'}, {"Data": b'{"customer":"zeta"}'}, {"Data": b"not json"}],
    )
    partitioned_card = lambda: card(browser, "ui-partitioned").text  # noqa: E731
    wait_for(lambda: "customer=acme/" in partitioned_card() and "customer=zeta/" in partitioned_card()
             and "error output: metadata-extraction-failed" in partitioned_card(), 10, what="the open partitions")
    time.sleep(1.5)  # a second sample for the rate
    browser.save_screenshot(str(SHOTS / "live-view-buffering.png"))

    # The flush buttons deliver; the objects appear, the error output's marked.
    card(browser, "ui-events").find_element("css selector", ".flush").click()
    wait_for(lambda: "flush: 1 object written" in events(), 15, what="the flush button's answer")
    card(browser, "ui-partitioned").find_element("css selector", ".flush").click()
    wait_for(lambda: len(browser.find_elements("css selector", "#objects .row")) == 4, 15, what="four objects")
    [gz] = srv.stream_keys("ui-events")
    rows = browser.find_elements("css selector", "#objects .row")
    assert sum("metadata-extraction-failed" in row.text for row in rows) == 1
    assert any("errors/metadata-extraction-failed/" in row.text for row in rows)
    # The README's picture: objects delivered and buffers filling again.
    fh.put_record_batch(DeliveryStreamName="ui-partitioned", Records=[{"Data": b'{"customer":"acme"}'}] * 40)
    fh.put_record_batch(DeliveryStreamName="ui-created", Records=[{"Data": b'{"n":1}'}] * 25)
    wait_for(lambda: "40 rec · closes in" in partitioned_card(), 10, what="the buffer filling again")
    time.sleep(1.2)
    browser.save_screenshot(str(SHOTS / "live-view.png"))

    # An object opens with its records: JSON pretty-printed, text as it is.
    row = browser.find_element("css selector", f'#objects .row[aria-label^="{gz} "]')
    row.click()
    wait_for(lambda: "#5" in text_of(browser, "#records"), 10, what="the object's records")
    meta = text_of(browser, "#viewer-meta")
    assert "6 records" in meta and "one record per line" in meta, meta
    shown = text_of(browser, "#records")
    assert '"event": "signup",' in shown and "plain text line" in shown, shown
    browser.save_screenshot(str(SHOTS / "live-view-object.png"))
    from selenium.webdriver.common.keys import Keys

    browser.find_element("id", "viewer").send_keys(Keys.ESCAPE)
    wait_for(lambda: not browser.find_element("id", "viewer").is_displayed(), 5, what="the viewer to close")
    assert browser.switch_to.active_element == row  # focus goes back where it was
    assert console_errors(browser) == []


def test_binary_records_show_as_hex_and_keyboard_reaches_everything(srv, browser):
    fh = srv.client()
    fh.put_record_batch(DeliveryStreamName="ui-raw", Records=[{"Data": bytes(range(0, 40)) + b"\xff\xfe"}])
    srv.flush("ui-raw")
    open_view(browser, srv)
    from selenium.webdriver.common.keys import Keys

    wait_for(lambda: browser.find_elements("css selector", "#objects .row"), 10, what="the objects")
    # Tab from the object filter reaches the list; arrows move; Enter opens.
    browser.find_element("id", "errors-only").click()
    browser.find_element("id", "errors-only").click()
    active = browser.switch_to.active_element
    active.send_keys(Keys.TAB)
    first = browser.switch_to.active_element
    assert first.get_attribute("class").startswith("row"), first.get_attribute("outerHTML")[:200]
    first.send_keys(Keys.ARROW_DOWN)
    second = browser.switch_to.active_element
    assert second != first and second.get_attribute("class").startswith("row")
    second.send_keys(Keys.ARROW_UP)
    assert browser.switch_to.active_element == first
    [raw] = srv.stream_keys("ui-raw")
    assert first.get_attribute("aria-label").startswith(raw + " ")  # newest first
    first.send_keys(Keys.ENTER)
    wait_for(lambda: "binary" in text_of(browser, "#records"), 10, what="the binary record")
    shown = text_of(browser, "#records")
    assert "00000000  00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f" in shown, shown
    assert "00000020  20 21 22 23 24 25 26 27 ff fe" in shown and "!\"#$%&'.." in shown, shown
    browser.find_element("id", "viewer-close").click()
    assert console_errors(browser) == []


def test_cards_keep_their_size_while_data_streams_in(srv, browser):
    """No layout jumps: a card is as tall, and the objects panel where it was, before records arrive,
    while they buffer and after a flush note."""
    open_view(browser, srv)
    wait_for(lambda: card(browser, "ui-jumps"), 10, what="the card")

    def geometry():
        rect = browser.execute_script(
            "const c = document.querySelector('.stream[data-stream=\"ui-jumps\"]').getBoundingClientRect();"
            "const o = document.getElementById('objects-title').getBoundingClientRect();"
            "return [c.height, c.width, o.top, o.left];"
        )
        return [round(v, 1) for v in rect]

    # The first events drawn (the objects of the tests before) settle the page's own layout.
    wait_for(lambda: browser.find_element("id", "objects-table").is_displayed(), 10, what="the objects")
    time.sleep(0.5)
    before = geometry()
    fh = srv.client()
    for n in range(20):
        fh.put_record_batch(DeliveryStreamName="ui-jumps", Records=[{"Data": b"x" * 500}] * 50)
        assert geometry() == before
    wait_for(lambda: "1,000 rec · closes in" in card(browser, "ui-jumps").text, 10, what="the buffer")
    time.sleep(2)  # rates sampled with records in them
    assert geometry() == before
    card(browser, "ui-jumps").find_element("css selector", ".flush").click()
    wait_for(lambda: "flush: 1 object written" in card(browser, "ui-jumps").get_attribute("innerHTML"), 10,
             what="the flush note")
    assert geometry()[:2] == before[:2]
    assert console_errors(browser) == []


def test_a_large_object_shows_page_after_page(srv, browser):
    fh = srv.client()
    fh.put_record_batch(DeliveryStreamName="ui-raw", Records=[{"Data": json.dumps({"n": n}).encode()} for n in range(120)])
    [written] = srv.flush("ui-raw")["objects"]
    open_view(browser, srv)
    row = wait_for(lambda: browser.find_element("css selector", f'#objects .row[aria-label^="{written["key"]} "]'), 10,
                   what="the object")
    row.click()
    items = lambda: browser.find_elements("css selector", "#records li")  # noqa: E731
    wait_for(lambda: len(items()) == 50, 10, what="the first page")
    assert "one record per JSON value" in text_of(browser, "#viewer-meta")
    assert text_of(browser, "#viewer-status") == "50 of 120 records shown."
    browser.find_element("id", "records-more").click()
    wait_for(lambda: len(items()) == 100, 10, what="the second page")
    browser.find_element("id", "records-more").click()
    wait_for(lambda: len(items()) == 120, 10, what="the last page")
    assert not browser.find_element("id", "records-more").is_displayed()
    assert '"n": 119' in items()[-1].text
    browser.find_element("id", "viewer-close").click()
    assert console_errors(browser) == []


def test_a_phone_sized_window_needs_no_sideways_scrolling(srv, browser):
    open_view(browser, srv, size=(390, 844))
    wait_for(lambda: browser.find_elements("css selector", ".stream"), 10, what="the cards")
    width, inner = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, (width, inner)
    browser.save_screenshot(str(SHOTS / "live-view-phone.png"))
    assert console_errors(browser) == []


# --------------------------------------------------------------------------
# The endpoints, as scripts use them
# --------------------------------------------------------------------------


class EventReader:
    """Reads Server-Sent Events from /_local/events over a raw connection."""

    def __init__(self, server, last_event_id: str | None = None):
        self.connection = http.client.HTTPConnection(server.host, server.port, timeout=20)
        headers = {"Last-Event-ID": last_event_id} if last_event_id else {}
        self.connection.request("GET", "/_local/events", headers=headers)
        self.response = self.connection.getresponse()
        assert self.response.status == 200, self.response.read()
        assert self.response.getheader("Content-Type") == "text/event-stream"
        self.last_id = None

    def next(self, name: str) -> dict:
        """The data of the next event called `name` (others are skipped)."""
        event, data = None, None
        while True:
            line = self.response.fp.readline()
            assert line, "the event stream ended"
            line = line.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
            elif line.startswith("id: "):
                self.last_id = line[4:]
            elif line == "" and event is not None:
                if event == name:
                    return json.loads(data)
                event, data = None, None

    def close(self):
        self.connection.close()


def test_events_for_scripts_resume_and_end_with_the_server(make_server):
    srv = make_server(fhlocal.standard_config(DeliveryStreams=[ext_stream("ev", **hints(1, 900))]), name="events")
    fh = srv.client()
    reader = EventReader(srv)
    streams = reader.next("streams")
    assert [s["name"] for s in streams["streams"]] == ["ev"] and streams["quarantined"] == []
    assert reader.next("faults") == {"faults": []}
    fh.put_record(DeliveryStreamName="ev", Record={"Data": b"one"})
    srv.flush("ev")
    first = reader.next("objects")
    [key1] = srv.stream_keys("ev")
    assert [(o["stream"], o["bucket"], o["key"], o["records"], o["reason"]) for o in first["objects"]] == [
        ("ev", BUCKET, key1, 1, "flush")
    ] and first["missed"] == 0
    boot = first["boot"]
    assert reader.last_id == f"{boot}-1"
    reader.close()

    # A browser reconnecting with the last id it saw gets only what came after.
    fh.put_record(DeliveryStreamName="ev", Record={"Data": b"two"})
    srv.flush("ev")
    resumed = EventReader(srv, last_event_id=f"{boot}-1")
    later = resumed.next("objects")
    assert [o["sequence"] for o in later["objects"]] == [2] and resumed.last_id == f"{boot}-2"

    # SIGTERM ends the stream; the server does not wait for the viewer to leave.
    started = time.monotonic()
    srv.proc.send_signal(signal.SIGTERM)
    assert srv.stop() == 0
    assert time.monotonic() - started < 10
    resumed.close()


def test_object_records_page_by_page(srv):
    fh = srv.client()
    fh.put_record_batch(DeliveryStreamName="ui-events", Records=[{"Data": f"line {n}".encode()} for n in range(120)])
    [written] = srv.flush("ui-events")["objects"]
    key = written["key"]

    def page(query: str):
        r = srv.http("GET", f"/_local/object?bucket={BUCKET}&key={quote(key, safe='')}{query}")
        return r.status, r.json()

    status, first = page("")
    assert status == 200 and first["total"] == 120 and first["split"] == "lines" and first["stream"] == "ui-events"
    assert [r["text"] for r in first["records"]] == [f"line {n}" for n in range(50)] and first["next"] == 50
    assert first["contentBytes"] == sum(len(f"line {n}\n") for n in range(120))
    assert first["storedBytes"] == written["storedBytes"]
    status, last = page("&start=100&count=200")
    assert status == 200 and [r["index"] for r in last["records"]] == list(range(100, 120)) and last["next"] is None
    status, refused = page("&count=500")
    assert status == 400 and refused["__type"] == "InvalidArgumentException"
    r = srv.http("GET", f"/_local/object?bucket={BUCKET}&key=no/such/key")
    assert r.status == 404 and r.json()["__type"] == "NoSuchKey"


@pytest.mark.timeout_s(600)
def test_a_hundred_streams_and_ten_thousand_objects(make_server, browser):
    streams = [ext_stream(f"many-{n:03d}", **hints(1, 900)) for n in range(100)]
    srv = make_server(
        fhlocal.standard_config(DeliveryStreams=streams), name="many", extra_args=["--durability", "none"]
    )
    open_view(browser, srv)
    wait_for(lambda: len(browser.find_elements("css selector", ".stream")) == 100, 20, what="100 cards")
    fh = srv.client()
    for round_ in range(100):
        for n in range(100):
            fh.put_record(DeliveryStreamName=f"many-{n:03d}", Record={"Data": f"r{round_}".encode()})
        assert len(srv.flush()["objects"]) == 100
    summary = lambda: text_of(browser, "#summary")  # noqa: E731
    wait_for(lambda: "10,000 objects delivered" in summary(), 60, what=f"10,000 objects (summary: {summary()})")
    assert len(browser.find_elements("css selector", "#objects .row")) == 200
    assert "9,800 older matching objects not shown" in text_of(browser, "#objects-more")
    # Still answering: a filter narrows the list, an object opens.
    box = browser.find_element("id", "object-filter")
    box.send_keys("many-042")
    wait_for(lambda: len(browser.find_elements("css selector", "#objects .row")) == 100, 10, what="the filter")
    browser.find_element("css selector", "#objects .row").click()
    wait_for(lambda: "#0" in text_of(browser, "#records"), 10, what="an object's records")
    assert text_of(browser, "#records").endswith("r99")
    browser.save_screenshot(str(SHOTS / "live-view-many.png"))
    assert console_errors(browser) == []


def test_a_page_of_another_site_cannot_drive_local_endpoints(srv, browser):
    """A page the developer's browser shows, from another origin, sends what a browser sends without
    asking (no-cors POSTs with text/plain bodies, a form's target): no fault rule is added and nothing
    is flushed; the view itself, same-origin, still works (the other tests click its flush buttons).
    The page is addressed as localhost, the server as 127.0.0.1: two origins on one machine."""
    import http.server
    import threading

    rule = json.dumps({"Name": "planted", "Error": {"Code": "ServiceUnavailableException"}})
    target = srv.endpoint
    page = f"""<!doctype html><title>loading</title><script>
      const sent = [];
      const done = () => {{ if (sent.length === 3) document.title = "sent"; }};
      for (const [path, body] of [["/_local/faults", {json.dumps(rule)}], ["/_local/flush", ""],
                                  ["/_local/faults?name=planted", null]]) {{
        fetch("{target}" + path, {{method: body === null ? "DELETE" : "POST", mode: "no-cors",
              headers: {{"Content-Type": "text/plain"}}, body: body === null ? undefined : body}})
          .then(() => sent.push(path), () => sent.push(path)).then(done);
      }}
    </script>""".encode()

    class Attacker(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    fh = srv.client()
    fh.put_record(DeliveryStreamName="ui-jumps", Record={"Data": b"stays buffered"})
    try:
        browser.get(f"http://localhost:{site.server_address[1]}/")
        wait_for(lambda: browser.title == "sent", 15, what="the page's requests")
        # The refused requests are the page's console errors, not the view's: drained here.
        browser.get_log("browser")
    finally:
        site.shutdown()
        site.server_close()
    assert srv.http("GET", "/_local/faults").json()["faults"] == []
    streams = {s["name"]: s for s in srv.http("GET", "/_local/streams").json()["streams"]}
    assert streams["ui-jumps"]["buffer"]["records"] >= 1, streams["ui-jumps"]
    srv.flush("ui-jumps")


def test_local_endpoints_refuse_rebound_names_and_cross_origin_changes(srv):
    """What a rebound DNS name (a page's own name pointed at 127.0.0.1) or another origin sends, as
    raw HTTP; SDKs and scripts send no Origin and are not affected."""
    rebound = srv.http("GET", "/_local/streams", headers={"Host": f"attacker.example:{srv.port}"})
    assert rebound.status == 403 and "attacker.example" in rebound.json()["message"], rebound
    for host in (f"localhost:{srv.port}", f"127.0.0.1:{srv.port}", f"[::1]:{srv.port}"):
        assert srv.http("GET", "/_local/streams", headers={"Host": host}).status == 200, host
    cross = srv.http("POST", "/_local/flush", headers={"Origin": "https://attacker.example"})
    assert cross.status == 403 and "another origin" in cross.json()["message"], cross
    same = srv.http("POST", "/_local/flush", headers={"Origin": srv.endpoint})
    assert same.status == 200, same
    plain = srv.http("POST", "/_local/faults", b'{"Name": "p"}', headers={"Content-Type": "text/plain"})
    assert plain.status == 415 and "application/json" in plain.json()["message"], plain
    page = srv.http("GET", "/_local/ui")
    assert page.headers["x-frame-options"] == "DENY" and "frame-ancestors 'none'" in page.headers[
        "content-security-policy"]
    srv.client().put_record(DeliveryStreamName="ui-raw", Record={"Data": b"sniffed?"})
    [object_] = srv.flush("ui-raw")["objects"]
    records = srv.http("GET", f"/_local/object?bucket={quote(object_['bucket'])}&key={quote(object_['key'])}")
    assert records.status == 200 and records.headers["x-content-type-options"] == "nosniff"


def test_a_stream_whose_function_is_not_mapped_shows_why_on_its_card(srv, browser):
    destination = fhlocal.destination(ProcessingConfiguration={"Enabled": True, "Processors": [{
        "Type": "Lambda", "Parameters": [
            {"ParameterName": "LambdaArn", "ParameterValue": "arn:aws:lambda:us-east-1:000000000000:function:nowhere"}]}]})
    srv.client().create_delivery_stream(DeliveryStreamName="ui-unmapped", ExtendedS3DestinationConfiguration=destination)
    try:
        open_view(browser, srv)
        warning = wait_for(lambda: card(browser, "ui-unmapped").find_element("css selector", ".warning"), 15,
                           what="the card of the new stream")
        wait_for(lambda: warning.is_displayed() and "Lambda.ResourceNotFound" in warning.text, 15,
                 what="the card's warning")
        assert "function:nowhere" in warning.text
        assert not card(browser, "ui-raw").find_element("css selector", ".warning").is_displayed()
        assert console_errors(browser) == []
    finally:
        srv.client().delete_delivery_stream(DeliveryStreamName="ui-unmapped")
