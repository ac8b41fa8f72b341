// The room's MiniAppRegistry (seed 000, sections 2 and 3). It opens each mini-app in a bridge frame served
// by the asset server on a foreign origin, keeps a private MessagePort to each bridge, and is the one place
// the room (Tool Console), the voice session, external callers through Go, and automation call tools:
//
//   window.voicebox.launch(ref)                     → Promise<{appId, tools}> once the app is ready
//   window.voicebox.callTool(appId, name, args)     → Promise<{ok:true, result} | {ok:false, refused, message}>
//   window.voicebox.close(appId), .tools(), .apps()
//   window.voicebox.functionDeclarations("openai"|"gemini") → Go's declarations for every open tool
//
// Go's registry (voice, MCP) mirrors this one: on each app's ready and close the room registers and
// unregisters its tools, and it answers the requests Go sends this room on its request channel.
//
// Bounds: the bridge times every call (the sandbox's own wall) and Go's registry times what Go asks (and
// cancels what it gave up on). The room bounds only what it runs on its own: the person's launches and
// window.voicebox.callTool, with the values Go owns (RoomConfig.limits).
import { call, on, roomId, isDesktop, requests } from "./transport.js";
import { el, notify, logActivity } from "./ui.js";
import { openWindow } from "./popover.js";

// A direct call's backstop fires this long after the bridge's own bound, so the bridge's answer wins; it
// settles a call whose bridge froze.
const BACKSTOP_MARGIN_MS = 500;

const apps = new Map(); // appId → MiniApp
const listeners = new Set();
let config = null;
// configReady settles once the registry knows the room's configuration (null if it could not be read):
// until then a file opened at boot cannot be launched (room.js waits for it).
export const configReady = call("RoomService.Config").then((c) => { config = c; return c; }, () => null);

// track tells the desktop's watchdog (Go) what runs here, so that after a restart of a hung web process it
// knows which apps to reopen and which one to leave closed. Fire and forget; the desktop only.
let lastFocus = null; // the app brought to the front last (what File › Save Page to Shelf saves)
function track(ev) {
  if (isDesktop()) call("RoomService.Track", { room: roomId, ...ev }).catch(() => {});
}

function changed() { for (const fn of listeners) { try { fn(); } catch (err) { console.error(err); } } }

export class LaunchError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

const refusal = (refused, message) => ({ ok: false, refused, message });

class MiniApp {
  constructor(info, request) {
    Object.assign(this, { appId: info.appId, title: info.title, slug: info.slug, launchId: info.launchId,
      bridgeURL: info.bridgeURL, bridgeOrigin: info.bridgeOrigin, source: info.source, request });
    this.tools = [];
    this.ready = false;
    this.port = null;
    this.pending = new Map();
    this.pings = new Map(); // apart from calls: a pong settles a ping, never a call
    this.nextId = 1;
    this.waiters = [];
    this.closed = false;
    this.loads = 0; // how many times the app's document became ready (reloads count)
  }

  open() {
    this.win = openWindow({ title: this.title, appId: this.appId, onClose: () => close(this.appId), onReload: () => this.reload() });
    this.win.el.addEventListener("voicebox:focus", () => { lastFocus = this.appId; });
    const f = document.createElement("iframe");
    f.className = "mini-app-bridge";
    f.title = this.title;
    // The bridge has its own origin; the sandbox attribute adds no-popups/no-top-navigation for it and, by
    // inheritance, for the app inside it. Forms are allowed so an app's form can go to another page of its
    // folder: the bridge has none (form-action 'none'), the app's form-action is its own folder.
    f.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
    f.setAttribute("referrerpolicy", "no-referrer");
    f.setAttribute("allow", "camera 'none'; microphone 'none'; geolocation 'none'; display-capture 'none'");
    f.src = this.bridgeURL;
    this.frame = f;
    this.win.body.append(f);
  }

  connect() {
    if (this.port) { this.port.close(); this.unloaded(); }
    const ch = new MessageChannel();
    this.port = ch.port1;
    this.port.onmessage = (e) => this.onMessage(e.data);
    this.frame.contentWindow.postMessage({ type: "connect" }, this.bridgeOrigin, [ch.port2]);
  }

  onMessage(d) {
    if (!d || typeof d !== "object") return;
    switch (d.type) {
      case "result": {
        const p = this.pending.get(d.id);
        if (!p) return;
        this.pending.delete(d.id);
        clearTimeout(p.timer);
        if (d.ok !== true) return p.resolve(refusal(d.refused || "tool-error", d.message || ""));
        let result;
        try { result = JSON.parse(d.result); } catch { return p.resolve(refusal("tool-error", "the tool's result is not JSON")); }
        return p.resolve({ ok: true, result });
      }
      case "pong": {
        const resolve = this.pings.get(d.id);
        if (resolve) { this.pings.delete(d.id); resolve(true); }
        return;
      }
      case "closing": notify(`${this.title} was closed: ${d.message}`, "error"); close(this.appId); return;
      case "ready": this.tools = Array.isArray(d.tools) ? d.tools : []; this.ready = true; this.loads++; track({ op: "ready", appId: this.appId }); this.mirror(true); return;
      case "tools": this.tools = Array.isArray(d.tools) ? d.tools : []; if (this.ready) this.mirror(false); return;
      case "unloaded": this.unloaded(); return;
      case "verdict": {
        const v = d.verdict || {};
        logActivity(this.title, `register ${v.name || "(unnamed)"}`, undefined, `${v.refused}: ${v.message}`, true);
        return;
      }
    }
  }

  // mirror tells Go this app's tools, then settles whoever waits for the app to be ready.
  async mirror(first) {
    this.win.setStatus(`${this.tools.length} tool${this.tools.length === 1 ? "" : "s"}`);
    changed();
    try {
      const verdicts = await call("RegistryService.Register", roomId, this.appId, this.title, this.slug || "", this.tools);
      for (const v of verdicts || []) {
        if (!v.ok) logActivity("Go", `register ${v.name}`, this.appId, `${v.refused}: ${v.message}`, true);
      }
    } catch (err) {
      notify(`Voice and external callers cannot see ${this.title}'s tools: ${err.message}`, "error");
    }
    if (first && !this.closed) {
      logActivity(this.title, "ready", this.tools.map((t) => t.name).join(", ") || "(no tools)");
      const w = this.waiters; this.waiters = [];
      for (const x of w) x.resolve(this.summary());
    }
  }

  unloaded() {
    const had = this.ready;
    this.tools = [];
    this.ready = false;
    if (this.win) this.win.setStatus("reloading…");
    if (had) {
      call("RegistryService.Unregister", this.appId).catch(() => {});
      track({ op: "reload", appId: this.appId }); // a new document is loading
    }
    changed();
  }

  reload() {
    if (!this.port) return;
    this.unloaded();
    this.port.postMessage({ type: "reload" });
  }

  summary() { return { appId: this.appId, title: this.title, tools: this.tools.slice() }; }

  // whenReady resolves with the app's summary once it is ready; after ms (0: no bound) it rejects.
  whenReady(ms) {
    if (this.ready) return Promise.resolve(this.summary());
    return new Promise((resolve, reject) => {
      const w = { resolve: (v) => { clearTimeout(t); resolve(v); }, reject: (e) => { clearTimeout(t); reject(e); } };
      const t = ms > 0 && setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        reject(new LaunchError("launch-timeout", `${this.title} did not become ready within ${ms / 1000} s`));
      }, ms);
      this.waiters.push(w);
    });
  }

  // call sends a tool call to the bridge. A direct call (window.voicebox.callTool: no Go caller times it)
  // gets the backstop and is reported to the desktop's watchdog; Go times and reports its own calls, and
  // learns the port's call id through onId to cancel it (forget).
  call(name, args, direct, onId) {
    if (!this.port) return Promise.resolve(refusal("unknown-tool", `${this.title} is not running`));
    return new Promise((settle) => {
      const id = this.nextId++;
      let resolve = settle, timer = 0;
      if (direct) {
        track({ op: "call", appId: this.appId, call: String(id) });
        resolve = (v) => { track({ op: "done", appId: this.appId, call: String(id) }); settle(v); };
        const ms = config.limits.callTimeoutMs;
        timer = setTimeout(() => {
          if (this.pending.delete(id)) resolve(refusal("tool-timeout", `tool execution timed out after ${ms}ms`));
        }, ms + BACKSTOP_MARGIN_MS);
      }
      this.pending.set(id, { resolve, timer });
      if (onId) onId(id);
      try {
        this.port.postMessage({ type: "call", id, name, args });
      } catch (err) {
        this.pending.delete(id);
        clearTimeout(timer);
        resolve(refusal("invalid-tool-arguments", `arguments are not JSON data: ${err.message}`));
      }
    });
  }

  // forget drops a call Go gave up on: an answer the bridge may still send goes nowhere.
  forget(id) {
    const p = this.pending.get(id);
    if (p) { this.pending.delete(id); clearTimeout(p.timer); }
  }

  ping() {
    return new Promise((resolve) => {
      const id = this.nextId++;
      this.pings.set(id, resolve);
      this.port.postMessage({ type: "ping", id });
    });
  }

  shut() {
    this.closed = true;
    if (this.port) { this.port.onmessage = null; this.port.close(); this.port = null; }
    for (const p of this.pending.values()) { clearTimeout(p.timer); p.resolve(refusal("unknown-tool", `${this.title} was closed`)); }
    this.pending.clear();
    for (const w of this.waiters) w.reject(new LaunchError("launch-failed", `${this.title} was closed`));
    this.waiters = [];
    if (this.win) this.win.remove();
  }
}

// Bridges announce themselves with a window message: it must come from that bridge's frame, from its origin.
window.addEventListener("message", (e) => {
  for (const app of apps.values()) {
    if (!app.frame || e.source !== app.frame.contentWindow) continue;
    if (e.origin !== app.bridgeOrigin) return;
    const d = e.data;
    if (d && d.type === "bridge_ready" && d.launchId === app.launchId) app.connect();
    return;
  }
});

// guardProblem says why this room may not create mini-app frames ("" when it may). Go decides first
// (RoomConfig.guard, asked at call time); in the desktop the page checks the guard for itself as well: the
// guard's flag, no Wails IPC handler in the page's script world, and the room as the window's top document.
// Fail closed: anything unexpected disables mini-apps.
function guardProblem() {
  if (!config) return "the room's configuration could not be read";
  if (config.guard !== true) return config.guardMessage || "this room cannot isolate them";
  if (config.mode !== "desktop" || config.unsafeNoGuard) return "";
  if (window.top !== window) return "the room is not the window's top document";
  if (window.__voiceboxGuard !== true) return "the desktop guard did not mark this page";
  if (window.webkit?.messageHandlers?.external) return "the window's IPC handler is reachable from the page";
  return "";
}

function guardMessage() {
  return `Mini-apps are disabled: ${guardProblem() || "this room cannot isolate them"}`;
}

// launch opens an app: a reference string (name, file, slug, appId or title, as the store resolves it) or
// {ref} | {document: id} | {html, name}. It resolves once the app called ready() (or loaded without it).
// An app it opened that is not ready within bound ms (default: Go's launchTimeoutMs; 0: none, Go bounds
// its own launches) is closed again, so a launch that failed leaves nothing open. onOpen(app) hears of the
// app it opened. by says who asks (the desktop's watchdog keeps an app it closed closed until the person
// opens it): "person" (the default: the room's buttons, files the person opened, automation), "model" (Go's
// callers), "watchdog" (its plan), "boot" (a room that boots opens its last opened file).
export async function launch(what, { bound, onOpen, by = "person" } = {}) {
  await configReady;
  if (guardProblem()) throw new LaunchError("mini-apps-disabled", guardMessage());
  const req = typeof what === "string" ? { ref: what } : { ...(what || {}) };
  req.room = roomId;
  let info;
  try {
    info = await call("SandboxService.Prepare", req);
  } catch (err) {
    throw new LaunchError(err.code || "launch-failed", err.message);
  }
  if (bound === undefined) bound = config.limits.launchTimeoutMs;
  await mayLaunch(info, by);
  const existing = apps.get(info.appId);
  if (existing) {
    if (req.ref || (req.document && existing.request.document === req.document)) { // the same app or file: bring it up
      call("SandboxService.Release", info.launchId).catch(() => {});
      existing.win.focus();
      return existing.whenReady(bound);
    }
    await close(info.appId); // a page opened again: start fresh with the new content
  }
  if (guardProblem()) { // checked again right before a frame is made
    call("SandboxService.Release", info.launchId).catch(() => {});
    throw new LaunchError("mini-apps-disabled", guardMessage());
  }
  const app = new MiniApp(info, req);
  apps.set(app.appId, app);
  track({ op: "launch", appId: app.appId, title: app.title, request: relaunchRequest(info, req), by });
  lastFocus = app.appId;
  app.open();
  changed();
  if (onOpen) onOpen(app);
  try {
    return await app.whenReady(bound);
  } catch (err) {
    if (err.code === "launch-timeout" && closeIf(app)) err.message += ", so it was closed";
    throw err;
  }
}

// closeIf closes app if it is still the open instance of its id (not one opened again since).
function closeIf(app) {
  if (apps.get(app.appId) !== app) return false;
  close(app.appId);
  return true;
}

// mayLaunch refuses, in the desktop, an app the watchdog closed unless the person opens it, and a booting
// room's reopening of a file an earlier room opened (backend/recovery MayLaunch).
async function mayLaunch(info, by) {
  if (!isDesktop() || by === "person" || by === "watchdog") return;
  const why = await call("RoomService.MayLaunch", info.appId, by).catch(() => "");
  if (!why) return;
  call("SandboxService.Release", info.launchId).catch(() => {});
  throw new LaunchError("launch-failed", `${info.title} stays closed: ${why}.`);
}

// relaunchRequest is how to open the app again after a restart: by its id for the store, by the opened
// document, or with its HTML.
function relaunchRequest(info, req) {
  if (info.source === "store") return { ref: info.appId };
  if (info.source === "document") return { document: req.document };
  return { html: req.html, name: req.name || "" };
}

// frontApp is the open app the person used last, and what saving it to the shelf means (File › Save Page
// to Shelf saves "the page that is open": the viewer's page when the viewer is up, else this app).
export function frontApp() {
  const app = apps.get(lastFocus);
  if (!app || app.closed) return null;
  const r = relaunchRequest({ appId: app.appId, source: app.source }, app.request);
  const save = r.ref ? { ref: r.ref } : r.document ? { document: r.document } : { name: r.name || app.title, html: r.html };
  return { appId: app.appId, title: app.title, source: app.source, save };
}

function unknownTool(appId, name) {
  return refusal("unknown-tool", `no open app ${JSON.stringify(String(appId))} has a tool ${JSON.stringify(String(name))}`);
}

export function callTool(appId, name, args) {
  const app = apps.get(appId);
  if (!app) return Promise.resolve(unknownTool(appId, name));
  return app.call(name, args === undefined ? {} : args, true);
}

export async function close(appId) {
  const app = apps.get(appId);
  if (!app) return false;
  apps.delete(appId);
  app.shut();
  track({ op: "close", appId });
  changed();
  await Promise.allSettled([call("SandboxService.Release", app.launchId), call("RegistryService.Unregister", appId)]);
  logActivity("you", "close", app.title);
  return true;
}

export function tools() {
  const out = [];
  for (const app of apps.values()) {
    for (const t of app.tools) out.push({ appId: app.appId, app: app.title, name: t.name, description: t.description, parameters: t.parameters });
  }
  return out;
}

export function openApps() {
  return [...apps.values()].map((a) => ({ appId: a.appId, title: a.title, slug: a.slug, source: a.source, ready: a.ready, loads: a.loads, tools: a.tools.slice() }));
}

export const functionDeclarations = (provider) => call("RegistryService.FunctionDeclarations", provider);

export function onChange(fn) { listeners.add(fn); return () => listeners.delete(fn); }

// What Go asks of this room (voice, MCP, the Tool Console): run it through the same registry and answer.
// Go times these requests and cancels a call or a launch it gave up on ("cancel", no answer): the call's
// answer is dropped, the launch's app closed (ready or not), so that what happened matches what Go said.
const fromGo = new Map(); // request id → {app, callId} of a call in flight, or {app, cancelled} of a launch

function cancel(id) {
  const e = fromGo.get(id);
  fromGo.delete(id);
  if (!e) return;
  if (e.callId !== undefined) e.app.forget(e.callId);
  else if (e.app) closeIf(e.app);
  else e.cancelled = true; // not opened yet: it closes as soon as it opens
}

async function answer(req) {
  try {
    if (req.op === "call") {
      const app = apps.get(req.appId);
      if (!app) return unknownTool(req.appId, req.tool);
      const r = await app.call(req.tool, req.args === undefined ? {} : req.args, false, (callId) => fromGo.set(req.id, { app, callId }));
      fromGo.delete(req.id);
      return r.ok ? { ok: true, result: r.result === undefined ? null : r.result } : { ok: false, refused: r.refused, message: r.message };
    }
    if (req.op === "launch") {
      const e = {};
      fromGo.set(req.id, e);
      const onOpen = (app) => { e.app = app; if (e.cancelled) closeIf(app); };
      try {
        const r = await launch(req.ref, { bound: 0, onOpen, by: "model" });
        return { ok: true, appId: r.appId };
      } finally { // Go's cancel may still be on its way after the answer: keep the entry as long as Go waits
        setTimeout(() => { if (fromGo.get(req.id) === e) fromGo.delete(req.id); }, config ? config.limits.launchTimeoutMs : 0);
      }
    }
    if (req.op === "close") return (await close(req.appId)) ? { ok: true } : { ok: false, refused: "unknown-tool", message: `no open app ${req.appId}` };
    return { ok: false, refused: "bad-request", message: `unknown op ${req.op}` };
  } catch (err) {
    return { ok: false, refused: err.code || "launch-failed", message: err.message };
  }
}

requests((req) => {
  if (req.op === "cancel") return cancel(req.id);
  return answer(req);
});

// Go reports every call from outside the room, hundreds a second under load: the log draws them together,
// at most every ACTIVITY_DRAW_MS (a redraw per call made each call wait behind a layout), the newest
// ACTIVITY_KEPT at most.
const ACTIVITY_KEPT = 200;
const ACTIVITY_DRAW_MS = 250;
let undrawn = [];
function drawActivity() {
  const lines = undrawn;
  undrawn = [];
  for (const line of lines) logActivity(...line);
}
on("activity", (a) => {
  if (!a) return;
  const o = a.outcome || {};
  const what = a.op === "call" ? `${a.tool} (${a.appId})` : a.op === "launch" ? `launch ${a.ref}` : `${a.op} ${a.appId || ""}`;
  const out = o.ok ? (o.result !== undefined ? o.result : "ok") : `${o.refused}: ${o.message}`;
  if (undrawn.push([a.caller, what, a.op === "call" ? a.args : undefined, out, !o.ok]) === 1) setTimeout(() => requestAnimationFrame(drawActivity), ACTIVITY_DRAW_MS);
  if (undrawn.length > ACTIVITY_KEPT) undrawn.shift();
});

// ---- the room's own buttons ----
async function launchFromRoom(what, label, by = "person") {
  const who = by === "boot" ? "Voicebox" : "you";
  try {
    const r = await launch(what, { by });
    logActivity(who, "launch", label, `${r.appId}: ${r.tools.length} tool(s)`);
  } catch (err) {
    if (by !== "boot") notify(err.message, "error"); // a booting room's refusal is the watchdog's plan
    logActivity(who, "launch", label, `${err.code || "launch-failed"}: ${err.message}`, true);
  }
}
export { launchFromRoom };

function viewingRequest() {
  const v = window.voiceboxRoom && window.voiceboxRoom.state && window.voiceboxRoom.state.viewing;
  if (!v) return null;
  if (v.kind === "entry") return [{ ref: v.entry.appId }, v.entry.title];
  if (v.kind === "doc") return [{ document: v.doc.id }, v.doc.name];
  return [{ html: v.source, name: v.name }, v.name];
}

function wire() {
  const run = document.getElementById("file-run-app");
  if (run) run.addEventListener("click", () => { const r = viewingRequest(); if (r) launchFromRoom(...r); });
  // A file opened on the command line, by a second launch, a drop on the window or File › Open (desktop)
  // opens as a mini-app.
  document.addEventListener("voicebox:open-document", (e) => {
    if (!config || guardProblem() || !e.detail) return;
    e.preventDefault();
    launchFromRoom({ document: e.detail.id }, e.detail.name, e.detail.by || "person");
  });
  configReady.then((c) => {
    const box = document.getElementById("mini-app-container");
    if (c && c.unsafeNoGuard) {
      console.warn(c.guardMessage);
      if (box) box.prepend(el("div", { id: "mini-apps-unsafe", class: "disabled-banner", role: "alert" }, c.guardMessage));
      return;
    }
    if (!guardProblem()) return;
    if (box) box.prepend(el("div", { id: "mini-apps-disabled", class: "disabled-banner", role: "alert" }, guardMessage()));
  });
  call("RegistryService.Hello", roomId).catch((err) => notify(`The registry did not answer: ${err.message}`, "error"));
  window.addEventListener("pagehide", () => {
    call("RegistryService.Goodbye", roomId).catch(() => {});
    track({ op: "goodbye" });
  });
  recoverAtBoot();
}

// After the desktop restarted a hung web process, the reloaded room asks what happened: it shows the
// notices and reopens the apps of the plan one after the other, leaving the one closed closed. When the
// watchdog does not know which app stopped the room, the plan paces them (probationMs after each is ready)
// so that, if the room stops again, one app is the newcomer (backend/recovery).
async function recoverAtBoot() {
  if (!isDesktop()) return;
  let plan;
  try { plan = await call("RoomService.Recovery", roomId); } catch { return; }
  if (!plan || !plan.recovered) return;
  for (const n of plan.notices || []) notify(n, "error");
  logActivity("Voicebox", "watchdog", plan.reason, plan.closed ? `closed ${plan.closed.title} (${plan.why})` : "restarted", true);
  await configReady;
  let reopened = 0;
  const failed = [];
  const reopen = plan.reopen || [];
  for (const [i, r] of reopen.entries()) {
    try {
      await launch(r.request, { by: "watchdog" });
      reopened++;
    } catch (err) {
      failed.push(r.title);
      notify(`Could not reopen ${r.title}: ${err.message}`, "error");
    }
    if (plan.probationMs > 0 && i < reopen.length - 1) await new Promise((ok) => setTimeout(ok, plan.probationMs));
  }
  track({ op: "reopened", reopened, failed });
}

const api = {
  roomId, launch, callTool, close, tools, apps: openApps, functionDeclarations, onChange,
  ping: (appId) => { const a = apps.get(appId); return a && a.port ? a.ping() : Promise.reject(new Error("no such app")); },
};
window.voicebox = Object.assign(window.voicebox || {}, api);
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire); else wire();
