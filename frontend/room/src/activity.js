// The activity log (#activity): who called what, with which input, what came back, whether it failed and
// how long it took, newest first, one entry per line with its parts apart. The log lives in Go
// (backend/activity: a bounded ring), so it survives a reload of the room and shows what voice and MCP
// clients did while no room was open: at boot the room reads it, then draws every "activity" event. The
// room's own lines (its launches, closes, apps' errors) are drawn at once and sent to Go, which numbers them
// and sends them back to every room; this room knows its own by its key. Filter, Failed only, Clear (for
// every room) and Export (the whole ring as JSON: a download in `voicebox serve`, a Save dialog in the
// desktop) sit above it (docs/room.md, "Activity log").
import { call, on, roomId, isDesktop } from "./transport.js";
import { firstApp } from "./boot.js";
import { el } from "./dom.js";

const SHOWN = 500; // entries drawn at most (Go keeps as many)
const DRAW_MS = 250; // Go reports every call from outside, hundreds a second under load: drawn together

const mine = new Map(); // this room's key → entry, until Go numbers it
const drawn = new Map(); // seq → entry
let nextKey = 1;
let undrawn = []; // lines from Go waiting for the next draw
let booted = false;

const $ = (id) => document.getElementById(id);

function json(v) { return v === undefined ? undefined : v; }
function show(v) { return typeof v === "string" ? v : JSON.stringify(v); }

export function duration(ms) {
  if (typeof ms !== "number" || !(ms >= 0)) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`;
}

function entry(l) {
  const time = new Date(l.at || Date.now());
  const parts = [
    el("time", { datetime: time.toISOString() }, time.toLocaleTimeString()),
    el("span", { class: "who" }, l.who || "?"),
    el("span", { class: "what" }, l.what || ""),
  ];
  const ms = duration(l.ms);
  if (ms) parts.push(el("span", { class: "ms", title: "How long it took" }, ms));
  const head = el("div", { class: "entry-head" });
  parts.forEach((p, i) => head.append(...(i ? [" ", p] : [p]))); // spaces: the text reads apart too
  const has = (v) => v !== undefined && v !== null;
  const li = el("li", { class: l.failed ? "entry failed" : "entry", dataset: { who: l.who || "" } }, head,
    has(l.input) ? [" ", el("code", { class: "args" }, show(l.input))] : null,
    has(l.outcome) ? [" ", el("div", { class: "outcome" }, el("span", { class: "arrow", "aria-hidden": "true" }, "→ "), show(l.outcome))] : null);
  if (l.seq) li.dataset.seq = String(l.seq);
  return li;
}

function forget(li) {
  if (li.dataset.seq) drawn.delete(Number(li.dataset.seq));
  if (li.dataset.key) mine.delete(li.dataset.key);
}

// place draws a line: at the top (new), or at the bottom (older, read at boot).
function place(l, where) {
  const log = $("activity-log");
  if (!log) return;
  const li = entry(l);
  if (l.seq) drawn.set(l.seq, li);
  if (where === "bottom") log.append(li); else log.prepend(li);
  filterOne(li);
  trim(log);
  count();
  return li;
}

// placeNew draws lines from Go at the top, newest first, in one insertion: under load a draw carries
// hundreds, and a line at a time would restyle and recount the whole log for each (docs/performance.md).
function placeNew(lines) {
  const log = $("activity-log");
  if (!log) return;
  const batch = document.createDocumentFragment();
  for (const l of lines.slice(-SHOWN).reverse()) {
    const li = entry(l);
    drawn.set(l.seq, li);
    filterOne(li);
    batch.append(li);
  }
  log.prepend(batch);
  trim(log);
  count();
}

function trim(log) {
  while (log.children.length > SHOWN) { forget(log.lastChild); log.lastChild.remove(); }
}

// addLine draws one of the room's own lines now and sends it to Go's log.
export function addLine({ who, what, input, outcome, failed, ms }) {
  const key = String(nextKey++);
  const line = { who: String(who ?? ""), what: String(what ?? ""), input: json(input), outcome: json(outcome), failed: Boolean(failed),
    ms: typeof ms === "number" ? Math.max(0, Math.round(ms)) : undefined };
  const li = place({ ...line, at: Date.now() }, "top");
  if (li) { li.dataset.key = key; mine.set(key, li); }
  call("ActivityService.Add", { ...line, room: roomId, key }).catch(() => {}); // it stays in this room's log
}

// fromGo takes a numbered line: this room's own (it gets its number), one drawn already, or a new one.
function fromGo(l) {
  if (!l || typeof l.seq !== "number" || drawn.has(l.seq)) return;
  if (l.room === roomId && mine.has(l.key)) {
    const li = mine.get(l.key);
    mine.delete(l.key);
    li.dataset.seq = String(l.seq);
    drawn.set(l.seq, li);
    return;
  }
  if (!booted) { undrawn.push(l); return; } // drawn after the ring read at boot
  if (undrawn.push(l) === 1) setTimeout(() => requestAnimationFrame(drawUndrawn), DRAW_MS);
  if (undrawn.length > SHOWN) undrawn.shift();
}

function drawUndrawn() {
  const lines = undrawn;
  undrawn = [];
  lines.sort((a, b) => a.seq - b.seq);
  placeNew(lines.filter((l) => !drawn.has(l.seq)));
}

function cleared() {
  $("activity-log")?.replaceChildren();
  mine.clear();
  drawn.clear();
  undrawn = [];
  count();
}

// ---- filter, clear, export ----
function filterOne(li) {
  const q = ($("activity-filter")?.value || "").trim().toLowerCase();
  const failedOnly = $("activity-failed")?.checked;
  li.hidden = Boolean((q && !li.textContent.toLowerCase().includes(q)) || (failedOnly && !li.classList.contains("failed")));
}

function filterAll() {
  for (const li of $("activity-log")?.children || []) filterOne(li);
  count();
}

function count() {
  const log = $("activity-log");
  const out = $("activity-count");
  if (!log || !out) return;
  const all = log.children.length;
  const shown = [...log.children].filter((li) => !li.hidden).length;
  out.textContent = all === 0 ? "Nothing yet." : shown === all ? `${all} entr${all === 1 ? "y" : "ies"}` : `${shown} of ${all} entries`;
}

async function clearLog() {
  try { await call("ActivityService.Clear"); } catch { /* cleared here at least */ }
  cleared();
}

export function exportName(now = new Date()) {
  const p = (n) => String(n).padStart(2, "0");
  return `voicebox-activity-${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}.json`;
}

// exportLog saves the whole log Go keeps: a Save dialog in the desktop, a download in a browser.
async function exportLog() {
  if (isDesktop()) {
    await call("RoomService.ExportActivity", exportName());
    return;
  }
  const lines = await call("ActivityService.List");
  const blob = new Blob([JSON.stringify(lines || [], null, 2) + "\n"], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const a = el("a", { href: url, download: exportName(), hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

async function boot() {
  $("activity-filter")?.addEventListener("input", filterAll);
  $("activity-failed")?.addEventListener("change", filterAll);
  $("activity-clear")?.addEventListener("click", clearLog);
  $("activity-export")?.addEventListener("click", () => exportLog().catch(async (err) => {
    const { notifyError } = await import("./ui.js");
    notifyError(err, { doing: "Not exported" });
  }));
  on("activity", fromGo);
  on("activity:cleared", cleared);
  let lines = [];
  await firstApp; // the first app opens first (boot.js); what arrives meanwhile is drawn after the log
  try { lines = (await call("ActivityService.List")) || []; } catch { /* an older Go: the log starts empty */ }
  for (let i = lines.length - 1; i >= 0; i--) { // newest first, below what this page drew already
    const l = lines[i];
    if (drawn.has(l.seq)) continue;
    if (l.room === roomId && mine.has(l.key)) { fromGo(l); continue; }
    place(l, "bottom");
  }
  booted = true;
  const early = undrawn;
  undrawn = [];
  for (const l of early) fromGo(l);
  count();
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot); else boot();
