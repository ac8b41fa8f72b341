// The assistant writing and changing apps, in the room (docs/authoring.md, "In the room"; Go:
// backend/author, AuthorService):
//
// - the build cards (#builds, at the top of the side panel, so they never cover the stage's apps): one per
//   running or recent build, drawn from Go's state notice `author:jobs` (the newest says it all; the room
//   reads AuthorService.Jobs at load). builds.js says what a card shows; finished cards can be dismissed;
// - the New App field at the top of the side bar (File › New App…, Ctrl+N, puts the keyboard in it):
//   Enter creates, Shift+Enter is a new line;
// - Change this app… on an open app's pop-over (popover.js asks changePanel for the strip under its bar):
//   a field for the change, the build's progress, and the app's Versions, with Undo and Restore.
import { call, on } from "./transport.js";
import { el, notify, notifyError } from "./ui.js";
import { describe } from "./errortext.js";
import { card, running, versionView, undoTarget, retryArgs, dismissKey, stateLabel, metaLine, outcome } from "./builds.js";
import { launchFromRoom } from "./opener.js";
import { toggle } from "./layout.js";
import { open as openSettings } from "./settings.js";

const $ = (id) => document.getElementById(id);
const TICK_MS = 500; // the running builds' elapsed time
const DISMISSED = "voicebox.builds.dismissed";
const MAX_CHARS = 4000; // a description or a change (Go: author.MaxDescription)

let jobs = []; // Go's builds, oldest first (author.JobsView)
let heard = false; // an event came: it is newer than what Jobs() may still answer
const cards = new Map(); // job id → the card's parts
const listeners = new Set(); // the open Change panels: each hears every new list
let dismissed = new Set(readDismissed());

function readDismissed() {
  try { return JSON.parse(localStorage.getItem(DISMISSED) || "[]") || []; } catch { return []; }
}

// rememberDismissed keeps the dismissed builds that Go still lists (the rest are gone anyway).
function rememberDismissed() {
  const live = new Set(jobs.map(dismissKey));
  dismissed = new Set([...dismissed].filter((k) => live.has(k)));
  try { localStorage.setItem(DISMISSED, JSON.stringify([...dismissed])); } catch { /* no storage: for this page only */ }
}

function setJobs(list) {
  jobs = Array.isArray(list) ? list : [];
  render();
  for (const fn of listeners) fn(jobs);
}

// ---- the build cards ----

const section = () => $("builds");

function render() {
  const list = $("build-list");
  if (!list) return;
  const now = Date.now();
  const shown = jobs.filter((j) => !dismissed.has(dismissKey(j))).reverse(); // newest first
  for (const [id, c] of cards) if (!shown.some((j) => j.id === id)) { c.node.remove(); cards.delete(id); }
  shown.forEach((j, i) => {
    let c = cards.get(j.id);
    if (!c) { c = makeCard(j); cards.set(j.id, c); }
    c.update(j, now);
    if (list.children[i] !== c.node) list.insertBefore(c.node, list.children[i] || null);
  });
  section().hidden = shown.length === 0;
  const live = shown.filter(running).length;
  $("builds-count").textContent = live ? `${live} running` : "";
  tick();
}

let timer = 0;
// tick updates the running cards' time while any runs.
function tick() {
  const live = jobs.some(running);
  if (live && !timer) timer = setInterval(() => { const now = Date.now(); for (const j of jobs) if (running(j)) cards.get(j.id)?.update(j, now); }, TICK_MS);
  if (!live && timer) { clearInterval(timer); timer = 0; }
}

const ACTION_LABEL = { cancel: "Cancel", show: "Bring to Front", settings: "Open Settings", retry: "Try Again", dismiss: "Dismiss" };

function makeCard(first) {
  const parts = {
    heading: el("span", { class: "build-heading" }),
    badge: el("span", { class: "build-state" }),
    request: el("p", { class: "build-request" }),
    text: el("pre", { class: "build-text", "aria-label": "The code model's answer so far" }),
    meta: el("p", { class: "build-meta" }),
    outcome: el("p", { class: "build-outcome" }),
    details: el("details", { class: "build-details" }, el("summary", {}, "Details"), el("pre", {})),
    actions: el("div", { class: "build-actions" }),
  };
  const node = el("li", { class: "build-card", dataset: { id: first.id } },
    el("div", { class: "build-head" }, parts.heading, parts.badge),
    parts.request, parts.text, parts.meta, parts.outcome, parts.details, parts.actions);
  let job = first, said = "";
  const run = {
    cancel: (b) => { b.disabled = true; call("AuthorService.Cancel", job.id).catch((err) => { b.disabled = false; notifyError(err, { doing: "Not cancelled" }); }); },
    show: () => launchFromRoom({ kind: "entry", entry: { appId: job.appId, title: job.title || job.name } }),
    settings: () => openSettings(),
    retry: () => start(retryArgs(job), job.kind === "edit" ? `${job.name} was not changed` : "The app was not started"),
    dismiss: () => { dismissed.add(dismissKey(job)); rememberDismissed(); render(); },
  };
  return {
    node,
    update(j, now) {
      job = j;
      const c = card(j, now);
      node.dataset.state = c.state;
      parts.heading.textContent = c.heading;
      parts.badge.textContent = c.badge;
      parts.request.textContent = c.request;
      parts.request.title = c.request;
      parts.meta.textContent = c.meta;
      parts.text.hidden = !c.text;
      if (parts.text.textContent !== c.text) {
        parts.text.textContent = c.text;
        parts.text.scrollTop = parts.text.scrollHeight; // the newest lines in view
      }
      const o = c.outcome;
      parts.outcome.hidden = !o;
      parts.outcome.className = `build-outcome ${o ? o.tone : ""}`;
      parts.outcome.textContent = o ? o.line : "";
      parts.details.hidden = !o || !o.details;
      parts.details.lastChild.textContent = o ? o.details : "";
      const key = c.actions.join(",");
      if (key !== said) {
        said = key;
        parts.actions.replaceChildren(...c.actions.map((a) => el("button", {
          type: "button", class: `build-${a}${a === "dismiss" ? " link-button" : ""}`,
          onclick: (e) => run[a](e.currentTarget),
        }, ACTION_LABEL[a])));
      }
    },
  };
}

// start calls Create or Edit ([method, ...args]); a refusal is a toast in words (Open Settings where a
// key is missing). It resolves the build's id, or "" when it did not start.
async function start([method, ...args], doing) {
  try {
    const st = await call(method, ...args);
    if (document.body.classList.contains("panel-hidden") || section()?.classList.contains("folded")) {
      notify(`Building ${st.name || "the app"}: the side panel's Builds show how it goes (Ctrl+Alt+B shows the panel).`, "info");
    }
    return st.job || "";
  } catch (err) {
    notifyError(err, { doing, retry: () => start([method, ...args], doing) });
    return "";
  }
}

// ---- New App (the side bar) ----

const form = {
  text: el("textarea", { id: "new-app-text", rows: 2, maxlength: String(MAX_CHARS), placeholder: "Describe an app: a chess clock with two big buttons…",
    "aria-label": "Describe the app to write (Enter creates it, Shift+Enter is a new line)", spellcheck: "true" }),
  name: el("input", { id: "new-app-name", type: "text", maxlength: "120", placeholder: "Name (optional)", "aria-label": "The app's name (optional)", autocomplete: "off" }),
  create: el("button", { id: "new-app-create", type: "submit", title: "Write the app (Enter)" }, "Create"),
};

async function create(e) {
  e?.preventDefault();
  const description = form.text.value.trim();
  if (form.create.disabled) return; // the one before is still being started
  if (!description) { form.text.focus(); return; }
  form.create.disabled = true;
  const job = await start(["AuthorService.Create", description, form.name.value.trim()], "The app was not started");
  form.create.disabled = false;
  if (job) { form.text.value = ""; form.name.value = ""; }
}

// submitOnEnter makes Enter submit a text area (Shift+Enter: a new line; not while an IME composes).
function submitOnEnter(area, submit) {
  area.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || e.shiftKey || e.isComposing || e.ctrlKey || e.altKey || e.metaKey) return;
    e.preventDefault();
    submit();
  });
}

// focusNewApp is File › New App… and Ctrl+N: the side bar shows and the keyboard goes to the field.
export function focusNewApp() {
  if (document.body.classList.contains("sidebar-hidden")) toggle("sidebar", true);
  form.text.focus();
  form.text.select();
}

// ---- Change this app… (a pop-over's strip) ----

const when = (t) => {
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return "";
  const time = d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  return d.toDateString() === new Date().toDateString() ? time : `${d.toLocaleDateString()} ${time}`;
};

// changePanel is the strip under an open app's bar: what to change, how the change goes, and the app's
// versions. app: { appId, title() }; close() takes the strip away. It is the room's, not the app's: a press
// or the focus in it takes the keyboard back from the app (keyboard.js, .room-owned).
export function changePanel({ appId, title, close }) {
  const text = el("textarea", { class: "change-text", rows: 2, maxlength: String(MAX_CHARS), placeholder: "What should change? Make the buttons bigger…",
    "aria-label": `What to change in ${title()} (Enter changes it, Shift+Enter is a new line)` });
  const submit = el("button", { type: "submit", class: "change-submit" }, "Change");
  const shut = el("button", { type: "button", class: "change-close", title: "Close (Escape)", "aria-label": "Close" }, "✕");
  const status = el("p", { class: "change-status", role: "status" });
  const cancel = el("button", { type: "button", class: "change-cancel", hidden: true }, "Cancel");
  const undo = el("button", { type: "button", class: "change-undo" });
  const statusRow = el("div", { class: "change-row", hidden: true }, status, cancel);
  const undoRow = el("div", { class: "change-row", hidden: true }, undo);
  const list = el("ol", { class: "change-versions" });
  const versions = el("details", { class: "change-versions-box" }, el("summary", {}, "Versions"), list);
  const node = el("form", { class: "mini-app-change-panel room-owned", "aria-label": `Change ${title()}` },
    el("div", { class: "change-row" }, text, el("div", { class: "change-buttons" }, submit, shut)),
    statusRow, undoRow, versions);

  let jobId = "", wasRunning = false, busy = false;
  // ended names the builds of this app that ended: when it changes (this strip's change, or one the
  // assistant made meanwhile), the versions are read again.
  const endedOf = (all) => all.filter((j) => j.appId === appId && !running(j)).map((j) => `${j.id}@${j.endedAt}`).join();
  let ended = endedOf(jobs);
  const follow = (all) => {
    const now = endedOf(all);
    if (now !== ended) { ended = now; loadVersions(); }
    const j = all.find((x) => x.id === jobId);
    if (!j) return;
    const live = running(j);
    statusRow.hidden = false;
    const o = outcome(j);
    status.className = `change-status ${o ? o.tone : ""}`;
    status.textContent = o ? o.line : `${stateLabel(j)} · ${metaLine(j, Date.now())}`;
    cancel.hidden = !live;
    submit.disabled = live;
    if (wasRunning && !live && j.appId !== appId) loadVersions(); // it ended without opening here
    wasRunning = live;
  };
  listeners.add(follow);
  const ticking = setInterval(() => { if (!node.isConnected) return stop(); if (wasRunning) follow(jobs); }, TICK_MS);
  function stop() { listeners.delete(follow); clearInterval(ticking); }

  async function loadVersions() {
    let vs;
    try {
      vs = (await call("AuthorService.Versions", appId)) || [];
    } catch (err) {
      list.replaceChildren(el("li", { class: "empty" }, describe(err, { doing: "The versions could not be read" }).line));
      return;
    }
    versions.firstChild.textContent = vs.length ? `Versions (${vs.length})` : "Versions";
    if (!vs.length) {
      list.replaceChildren(el("li", { class: "empty" }, "Voicebox did not write this app: a change makes a copy of it, with versions you can go back to."));
      undoRow.hidden = true;
      return;
    }
    const back = undoTarget(vs);
    undoRow.hidden = false;
    undo.disabled = !back || busy;
    undo.textContent = back ? `Undo (back to version ${back})` : "Undo (nothing earlier)";
    undo.onclick = () => restore(back, true);
    list.replaceChildren(...vs.map((v, i) => {
      const row = versionView(v, i === 0, when);
      return el("li", { class: row.current ? "current" : "", dataset: { version: String(row.number) } },
        el("div", { class: "version-head" }, el("strong", {}, `${row.number}`), el("span", { class: "meta" }, [row.when, row.what].filter(Boolean).join(" · ")),
          row.current ? el("span", { class: "version-current" }, "current")
            : el("button", { type: "button", class: "version-restore", disabled: busy, onclick: () => restore(row.number) }, "Restore")),
        row.request ? el("span", { class: "version-request" }, row.request) : null,
        el("span", { class: `version-works ${v.outcome || ""}` }, row.works));
    }));
  }

  // restore brings version n back; undo does it as revert_mini_app does (Go picks n, as undoTarget did), so
  // that undoing again goes back further.
  async function restore(n, undo = false) {
    if (!n || busy) return;
    busy = true;
    for (const b of node.querySelectorAll(".version-restore, .change-undo")) b.disabled = true;
    try {
      const built = undo ? await call("AuthorService.Revert", appId) : await call("AuthorService.Restore", appId, n);
      notify(`${title()}: version ${n} is back (now version ${built.version}).`, "ok");
    } catch (err) {
      notifyError(err, { doing: `${title()}: version ${n} was not restored`, title: title() });
    }
    busy = false;
    loadVersions();
  }

  node.addEventListener("submit", async (e) => {
    e.preventDefault();
    const change = text.value.trim();
    if (!change || submit.disabled) return;
    submit.disabled = true;
    const id = await start(["AuthorService.Edit", appId, change], `${title()} was not changed`);
    if (!id) { submit.disabled = false; return; }
    text.value = "";
    jobId = id;
    wasRunning = true;
    follow(jobs);
  });
  submitOnEnter(text, () => node.requestSubmit());
  cancel.addEventListener("click", () => { cancel.disabled = true; call("AuthorService.Cancel", jobId).catch((err) => notifyError(err, { doing: "Not cancelled" })).finally(() => { cancel.disabled = false; }); });
  shut.addEventListener("click", () => { stop(); close(); });
  node.addEventListener("keydown", (e) => { if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); stop(); close(); } });
  versions.open = true;
  loadVersions();
  setTimeout(() => text.focus());
  return node;
}

// ---- wiring ----

function mount() {
  const box = $("new-app");
  if (box) {
    const f = el("form", { id: "new-app-form", class: "new-app-form" }, form.text, el("div", { class: "new-app-row" }, form.name, form.create));
    box.append(f);
    f.addEventListener("submit", create);
    submitOnEnter(form.text, () => f.requestSubmit());
  }
  on("author:jobs", (v) => { heard = true; setJobs(v && v.jobs); });
  call("AuthorService.Jobs").then((v) => { if (!heard) setJobs(v && v.jobs); }, (err) => notifyError(err, { doing: "Could not read the builds" }));
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mount); else mount();
