// firehose-local's live view: follows /_local/events (Server-Sent Events) and renders the streams,
// their buffers and rates, the delivered objects and the fault rules; opens an object's records
// through /_local/object and flushes a stream through /_local/flush. No dependencies, no build.
"use strict";

const MAX_OBJECTS = 10000;   // kept in memory (the server keeps as many)
const SHOWN_OBJECTS = 200;   // rendered at once, newest first
const SHOWN_PARTITIONS = 5;  // open partitions drawn per stream
const SAMPLES = 61;          // one a second: the last minute of rates
const PAGE = 50;             // records fetched per page of an object

const state = {
  streams: [],               // the latest `streams` document's streams, sorted by name
  quarantined: [],
  faults: [],
  objects: [],               // deliveries, oldest first
  missed: 0,                 // deliveries the server no longer had when we connected
  samples: new Map(),        // stream -> [{t, records, bytes}], one a second
  cards: new Map(),          // stream -> its card's elements
  objectsVersion: 0,
  renderedObjects: -1,
  renderedObjectFilter: null,
};

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------------------------------------
// Formatting

function bytes(n) {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = n / 1024, unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

function count(n) { return n.toLocaleString("en-US"); }

function rate(n) { return n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2); }

function clock(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleTimeString("en-GB", { hour12: false });
}

function left(seconds) {
  if (seconds <= 0) return "due";
  const whole = Math.ceil(seconds);
  const m = Math.floor(whole / 60), s = whole % 60;
  return m >= 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${m}:${String(s).padStart(2, "0")}`;
}

// ---------------------------------------------------------------------------------------------
// Events

function connect() {
  const source = new EventSource("/_local/events");
  const connection = $("connection");
  source.onopen = () => { connection.dataset.state = "open"; connection.textContent = "live"; };
  source.onerror = () => {
    const closed = source.readyState === EventSource.CLOSED;
    connection.dataset.state = closed ? "closed" : "connecting";
    connection.textContent = closed ? "disconnected" : "reconnecting…";
  };
  source.addEventListener("streams", (event) => {
    const document = JSON.parse(event.data);
    state.streams = document.streams;
    state.quarantined = document.quarantined || [];
    scheduleRender();
  });
  source.addEventListener("faults", (event) => {
    state.faults = JSON.parse(event.data).faults;
    scheduleRender();
  });
  source.addEventListener("objects", (event) => {
    const document = JSON.parse(event.data);
    state.missed += document.missed;
    // Numbers start again with each server process: the process's boot id keeps rows apart.
    for (const object of document.objects) {
      object.id = `${document.boot}-${object.sequence}`;
      state.objects.push(object);
    }
    if (state.objects.length > MAX_OBJECTS) {
      state.missed += state.objects.length - MAX_OBJECTS;
      state.objects.splice(0, state.objects.length - MAX_OBJECTS);
    }
    state.objectsVersion += 1;
    scheduleRender();
  });
}

// One sample a second of what each stream has received, for its rates and chart; also moves the
// buffers' countdowns on.
function sample() {
  const now = Date.now();
  const names = new Set();
  for (const stream of state.streams) {
    names.add(stream.name);
    let samples = state.samples.get(stream.name);
    if (!samples) { samples = []; state.samples.set(stream.name, samples); }
    samples.push({ t: now, records: stream.recordsReceived, bytes: stream.bytesReceived });
    if (samples.length > SAMPLES) samples.shift();
  }
  for (const name of state.samples.keys()) if (!names.has(name)) state.samples.delete(name);
  scheduleRender();
}

// ---------------------------------------------------------------------------------------------
// Rendering, at most once a frame

let renderPending = false;
function scheduleRender() {
  if (renderPending) return;
  renderPending = true;
  requestAnimationFrame(() => { renderPending = false; render(); });
}

function render() {
  renderSummary();
  renderStreams();
  renderObjects();
  renderFaults();
}

function renderSummary() {
  const received = state.streams.reduce((sum, s) => sum + s.bytesReceived, 0);
  const records = state.streams.reduce((sum, s) => sum + s.recordsReceived, 0);
  const delivered = state.objects.length + state.missed;
  const parts = [
    `${count(state.streams.length)} stream${state.streams.length === 1 ? "" : "s"}`,
    `${count(records)} records (${bytes(received)}) received`,
    `${count(delivered)} object${delivered === 1 ? "" : "s"} delivered`,
  ];
  const quarantined = state.quarantined.reduce((sum, q) => sum + q.records, 0);
  if (quarantined > 0) parts.push(`${count(quarantined)} records quarantined`);
  $("summary").textContent = parts.join(" · ");
}

function newCard(name) {
  const node = $("stream-template").content.firstElementChild.cloneNode(true);
  node.dataset.stream = name;
  const card = {
    node,
    name: node.querySelector(".name"),
    status: node.querySelector(".status"),
    flush: node.querySelector(".flush"),
    config: node.querySelector(".config"),
    failing: node.querySelector(".failing"),
    warning: node.querySelector(".warning"),
    partitions: node.querySelector(".partitions"),
    chart: node.querySelector(".chart"),
    line: node.querySelector(".line"),
    rate: node.querySelector(".rate"),
    counts: node.querySelector(".counts"),
    note: "",
  };
  card.name.textContent = name;
  card.name.title = name;
  card.flush.setAttribute("aria-label", `Flush ${name}`);
  card.flush.addEventListener("click", () => flush(name, card));
  card.chart.setAttribute("aria-label", `Records a second received by ${name} over the last minute`);
  return card;
}

function renderStreams() {
  const filter = $("stream-filter").value.trim().toLowerCase();
  const list = $("streams");
  const shown = state.streams.filter((s) => !filter || s.name.toLowerCase().includes(filter));
  $("streams-empty").hidden = state.streams.length > 0;
  const names = new Set(state.streams.map((s) => s.name));
  for (const [name, card] of state.cards) {
    if (!names.has(name)) { card.node.remove(); state.cards.delete(name); }
  }
  let previous = null;
  for (const stream of shown) {
    let card = state.cards.get(stream.name);
    if (!card) { card = newCard(stream.name); state.cards.set(stream.name, card); }
    updateCard(card, stream);
    // Keep the document's (alphabetical) order, moving nodes only when they are out of place.
    const expected = previous ? previous.nextSibling : list.firstChild;
    if (expected !== card.node) list.insertBefore(card.node, expected);
    card.node.hidden = false;
    previous = card.node;
  }
  for (const [name, card] of state.cards) {
    if (!shown.some((s) => s.name === name)) card.node.hidden = true;
  }
  const hiddenCount = state.streams.length - shown.length;
  $("streams-more").hidden = hiddenCount === 0;
  $("streams-more").textContent = `${count(hiddenCount)} more not matching the filter.`;
}

function updateCard(card, stream) {
  const buffer = stream.buffer;
  card.status.textContent = stream.status;
  card.status.dataset.status = stream.status;
  const config = [
    stream.endpoint ? `endpoint ${stream.endpoint.url}` : `bucket ${stream.bucket}`,
    stream.compression,
    `${bytes(buffer.sizeLimitBytes)} / ${buffer.intervalSeconds} s`,
  ];
  if (stream.backup) config.push(`backup to ${stream.backup.bucket}`);
  setText(card.config, config.join(" · "));

  const failing = stream.delivery && stream.delivery.failing;
  card.failing.hidden = !failing;
  if (failing) {
    const error = stream.delivery.lastError;
    setText(card.failing, `Delivery failing (${stream.delivery.failures} attempts): ${error ? error.message : "unknown error"}`);
  }

  const warnings = stream.warnings || [];
  card.warning.hidden = warnings.length === 0;
  if (warnings.length > 0) setText(card.warning, warnings.join(" "));

  renderPartitions(card, stream);

  const samples = state.samples.get(stream.name) || [];
  const perSecond = [];
  for (let i = 1; i < samples.length; i++) {
    const dt = (samples[i].t - samples[i - 1].t) / 1000 || 1;
    perSecond.push(Math.max(0, samples[i].records - samples[i - 1].records) / dt);
  }
  const top = Math.max(1, ...perSecond);
  const points = perSecond.map((value, i) =>
    `${((i + SAMPLES - 1 - perSecond.length) * 120 / (SAMPLES - 2)).toFixed(1)},${(31 - value / top * 29).toFixed(1)}`);
  card.line.setAttribute("points", points.join(" "));
  let recordsRate = 0, bytesRate = 0, minute = 0;
  if (samples.length >= 2) {
    const first = samples[0], last = samples[samples.length - 1];
    const recent = samples[Math.max(0, samples.length - 6)];
    const seconds = (last.t - recent.t) / 1000;
    if (seconds > 0) {
      recordsRate = (last.records - recent.records) / seconds;
      bytesRate = (last.bytes - recent.bytes) / seconds;
    }
    minute = last.records - first.records;
  }
  setText(card.rate, `${rate(recordsRate)} records/s · ${bytes(Math.round(bytesRate))}/s · ${count(minute)} in the last minute`);

  const counts = [
    `${count(stream.recordsReceived)} records (${bytes(stream.bytesReceived)}) received`,
    `${count(stream.objectsWritten)} object${stream.objectsWritten === 1 ? "" : "s"} written`,
  ];
  const errors = Object.values(stream.errorRecords || {}).reduce((a, b) => a + b, 0);
  if (errors > 0) counts.push(`${count(errors)} to the error output`);
  if (stream.recordsDropped > 0) counts.push(`${count(stream.recordsDropped)} dropped`);
  if (stream.throttledRecords > 0) counts.push(`${count(stream.throttledRecords)} throttled`);
  const fired = Object.values(stream.faults || {}).reduce((a, b) => a + b, 0);
  if (fired > 0) counts.push(`faults fired ${count(fired)}×`);
  if (card.note) counts.push(card.note);
  setText(card.counts, counts.join(" · "));
}

function renderPartitions(card, stream) {
  const buffer = stream.buffer;
  const partitions = buffer.partitions || [];
  const wanted = Math.max(1, Math.min(partitions.length, SHOWN_PARTITIONS)) + (partitions.length > SHOWN_PARTITIONS ? 1 : 0);
  while (card.partitions.children.length < wanted) {
    const row = document.createElement("div");
    row.className = "partition";
    row.innerHTML = '<span class="label"></span><span class="numbers"></span><span class="bar"><span></span></span>';
    card.partitions.appendChild(row);
  }
  while (card.partitions.children.length > wanted) card.partitions.lastChild.remove();
  const rows = card.partitions.children;
  if (partitions.length === 0) {
    fillPartition(rows[0], "buffer empty", "", 0, false);
    return;
  }
  const now = Date.now();
  partitions.slice(0, SHOWN_PARTITIONS).forEach((partition, i) => {
    const label = partition.errorOutputType ? `error output: ${partition.errorOutputType}` : (partition.prefix || "(no prefix)");
    const closes = (new Date(partition.closesAt).getTime() - now) / 1000;
    const numbers = `${bytes(partition.bytes)} of ${bytes(buffer.sizeLimitBytes)} · ${count(partition.records)} rec · closes in ${left(closes)}`;
    fillPartition(rows[i], label, numbers, partition.bytes / buffer.sizeLimitBytes, Boolean(partition.errorOutputType));
  });
  if (partitions.length > SHOWN_PARTITIONS) {
    const others = buffer.openPartitions - SHOWN_PARTITIONS;
    fillPartition(rows[rows.length - 1], `and ${count(others)} more open partition${others === 1 ? "" : "s"}`, "", 0, false);
  }
}

function fillPartition(row, label, numbers, fraction, isError) {
  row.classList.toggle("error", isError);
  setText(row.children[0], label);
  row.children[0].title = label;
  setText(row.children[1], numbers);
  row.children[2].firstChild.style.width = `${Math.min(100, Math.max(0, fraction * 100)).toFixed(1)}%`;
}

// Lines cut to one line by the style keep their whole text as a tooltip.
function setText(element, text) {
  if (element.textContent !== text) {
    element.textContent = text;
    if (element.classList.contains("rate") || element.classList.contains("counts") || element.classList.contains("config")) {
      element.title = text;
    }
  }
}

function renderObjects() {
  const filter = $("object-filter").value.trim().toLowerCase();
  const errorsOnly = $("errors-only").checked;
  const key = `${filter}\u0000${errorsOnly}`;
  if (state.renderedObjects === state.objectsVersion && state.renderedObjectFilter === key) return;
  state.renderedObjects = state.objectsVersion;
  state.renderedObjectFilter = key;

  const body = $("objects");
  const focused = document.activeElement && body.contains(document.activeElement)
    ? document.activeElement.dataset.id : null;
  const shown = [];
  let matching = 0;
  for (let i = state.objects.length - 1; i >= 0; i--) {
    const object = state.objects[i];
    if (errorsOnly && !object.errorOutputType) continue;
    if (filter && !object.stream.toLowerCase().includes(filter) && !object.key.toLowerCase().includes(filter)) continue;
    matching += 1;
    if (shown.length < SHOWN_OBJECTS) shown.push(object);
  }
  const fragment = document.createDocumentFragment();
  shown.forEach((object, index) => fragment.appendChild(objectRow(object, index === 0)));
  body.replaceChildren(fragment);
  if (focused) {
    const row = Array.from(body.children).find((r) => r.dataset.id === focused) || body.firstChild;
    if (row) focusRow(row);
  }
  $("objects-empty").hidden = state.objects.length > 0;
  $("objects-table").hidden = state.objects.length === 0;
  const more = $("objects-more");
  const notShown = matching - shown.length;
  const notes = [];
  if (notShown > 0) notes.push(`${count(notShown)} older matching objects not shown (filter to find them).`);
  if (state.missed > 0) notes.push(`${count(state.missed)} earlier objects are no longer listed.`);
  more.hidden = notes.length === 0;
  more.textContent = notes.join(" ");
}

function objectRow(object, first) {
  const row = document.createElement("div");
  row.className = "row" + (object.errorOutputType ? " error" : "");
  row.setAttribute("role", "row");
  row.tabIndex = first ? 0 : -1;
  row.dataset.id = object.id;
  const ratio = object.storedBytes > 0 && object.bytes > 0 ? (object.bytes / object.storedBytes) : 0;
  const cells = [
    [clock(object.time), ""],
    [object.stream, "stream-name"],
    [object.key, "key"],
    [count(object.records), "num"],
    [bytes(object.bytes), "num"],
    [bytes(object.storedBytes), "num"],
    [ratio ? `${ratio.toFixed(1)}×` : "–", "num"],
  ];
  for (const [text, className] of cells) {
    const cell = document.createElement("span");
    cell.setAttribute("role", "cell");
    if (className) cell.className = className;
    cell.textContent = text;
    row.appendChild(cell);
  }
  row.children[2].title = `${object.bucket}/${object.key}`;
  if (object.errorOutputType || object.backup) {
    const badge = document.createElement("span");
    badge.className = object.errorOutputType ? "badge error" : "badge backup";
    badge.textContent = object.errorOutputType || "backup";
    row.children[2].prepend(badge, " ");
  }
  row.setAttribute("aria-label", `${object.key} in ${object.bucket}: ${object.records} records, ${bytes(object.bytes)}`);
  row.addEventListener("click", () => openObject(object, row));
  return row;
}

// A roving tabindex: one row is in the tab order; the arrow keys move between rows.
function focusRow(row) {
  for (const other of $("objects").children) other.tabIndex = -1;
  row.tabIndex = 0;
  row.focus();
}

function onObjectsKey(event) {
  const row = event.target.closest(".row");
  if (!row) return;
  let next = null;
  if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    row.click();
    return;
  }
  if (event.key === "ArrowDown") next = row.nextElementSibling;
  else if (event.key === "ArrowUp") next = row.previousElementSibling;
  else if (event.key === "Home") next = row.parentElement.firstElementChild;
  else if (event.key === "End") next = row.parentElement.lastElementChild;
  if (next) { event.preventDefault(); focusRow(next); }
}

function renderFaults() {
  const list = $("faults");
  $("faults-empty").hidden = state.faults.length > 0;
  const text = state.faults.map((rule) => {
    const bookkeeping = ["Name", "Operations", "Streams", "AccessKeyId", "Fired", "FiredByStream", "Seed", "Remaining", "Spent", "Created"];
    const what = Object.keys(rule).filter((k) => !bookkeeping.includes(k)).join(", ");
    const fired = rule.Fired || 0;
    const streams = rule.Streams ? ` on ${rule.Streams.join(", ")}` : "";
    const spent = rule.Spent ? " · spent" : "";
    return `${rule.Name}: ${what || "rule"} for ${rule.Operations.join(", ")}${streams} · fired ${count(fired)}×${spent}`;
  });
  if (list.children.length !== text.length) {
    list.replaceChildren(...text.map(() => document.createElement("li")));
  }
  text.forEach((line, i) => setText(list.children[i], line));
}

// ---------------------------------------------------------------------------------------------
// Actions

async function flush(name, card) {
  card.flush.disabled = true;
  setText(card.flush, "Flushing…");
  try {
    const response = await fetch(`/_local/flush?stream=${encodeURIComponent(name)}`, { method: "POST" });
    const body = await response.json();
    if (response.ok) {
      const n = body.objects.length;
      card.note = n === 0 ? "flush: nothing buffered" : `flush: ${n} object${n === 1 ? "" : "s"} written`;
    } else {
      card.note = `flush failed: ${body.message || response.status}`;
    }
  } catch (error) {
    card.note = `flush failed: ${error.message}`;
  } finally {
    card.flush.disabled = false;
    setText(card.flush, "Flush");
    scheduleRender();
  }
}

// `opened` counts the objects opened, so a page that arrives after its object was closed (or opened
// again) is dropped.
const viewer = { object: null, next: 0, opener: null, opened: 0 };

function openObject(object, opener) {
  viewer.object = object;
  viewer.next = 0;
  viewer.opener = opener;
  viewer.opened += 1;
  $("viewer-title").textContent = object.key;
  $("viewer-meta").textContent = `${object.bucket} · ${object.stream}`;
  $("records").replaceChildren();
  $("records-more").hidden = true;
  const dialog = $("viewer");
  if (!dialog.open) dialog.showModal();
  loadRecords();
}

async function loadRecords() {
  const object = viewer.object;
  const opened = viewer.opened;
  const status = $("viewer-status");
  status.textContent = "Loading…";
  $("records-more").hidden = true;
  try {
    const query = `bucket=${encodeURIComponent(object.bucket)}&key=${encodeURIComponent(object.key)}&start=${viewer.next}&count=${PAGE}`;
    const response = await fetch(`/_local/object?${query}`);
    const page = await response.json();
    if (viewer.opened !== opened || !$("viewer").open) return;
    if (!response.ok) { status.textContent = page.message || `HTTP ${response.status}`; return; }
    const how = { lines: "one record per line", json: "one record per JSON value", object: "record boundaries unknown: the object whole" }[page.split];
    $("viewer-meta").textContent =
      `${object.bucket} · ${page.stream || "not a Firehose object name"} · ${page.complete ? "" : "at least "}${count(page.total)} record${page.total === 1 ? "" : "s"} · ` +
      `${bytes(page.contentBytes)} (${bytes(page.storedBytes)} stored) · ${how}`;
    const list = $("records");
    for (const record of page.records) list.appendChild(recordItem(record));
    viewer.next = page.next === null ? page.total : page.next;
    $("records-more").hidden = page.next === null;
    status.textContent = page.next === null ? "" : `${count(page.next)} of ${count(page.total)} records shown.`;
  } catch (error) {
    status.textContent = `Could not load the records: ${error.message}`;
  }
}

function recordItem(record) {
  const item = document.createElement("li");
  const where = document.createElement("p");
  where.className = "where";
  let kind = "text";
  let shown;
  if (record.text !== undefined) {
    shown = record.text;
    const trimmed = shown.trim();
    if (!record.truncated && (trimmed.startsWith("{") || trimmed.startsWith("["))) {
      try { shown = JSON.stringify(JSON.parse(trimmed), null, 2); kind = "JSON"; } catch (_) { /* text it is */ }
    }
  } else {
    shown = hexDump(Uint8Array.from(atob(record.base64), (c) => c.charCodeAt(0)), record.offset);
    kind = "binary";
  }
  where.textContent = `#${record.index} · offset ${count(record.offset)} · ${bytes(record.length)} · ${kind}` +
    (record.truncated ? ` · first ${bytes(16 * 1024)} shown` : "");
  const pre = document.createElement("pre");
  pre.textContent = shown;
  item.append(where, pre);
  return item;
}

function hexDump(data, base) {
  const lines = [];
  for (let i = 0; i < data.length; i += 16) {
    const chunk = data.subarray(i, i + 16);
    const hex = Array.from(chunk, (b) => b.toString(16).padStart(2, "0")).join(" ");
    const ascii = Array.from(chunk, (b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : ".")).join("");
    lines.push(`${(base + i).toString(16).padStart(8, "0")}  ${hex.padEnd(47)}  ${ascii}`);
  }
  return lines.join("\n");
}

function closeViewer() {
  const dialog = $("viewer");
  if (dialog.open) dialog.close();
}

// ---------------------------------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  $("stream-filter").addEventListener("input", scheduleRender);
  $("object-filter").addEventListener("input", scheduleRender);
  $("errors-only").addEventListener("change", scheduleRender);
  $("objects").addEventListener("keydown", onObjectsKey);
  $("viewer-close").addEventListener("click", closeViewer);
  $("records-more").addEventListener("click", loadRecords);
  $("viewer").addEventListener("close", () => {
    viewer.object = null;
    viewer.opened += 1;
    if (viewer.opener && viewer.opener.isConnected) viewer.opener.focus();
  });
  connect();
  setInterval(sample, 1000);
  render();
});
