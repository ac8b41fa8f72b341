// The room's MiniAppRegistry (docs/sandbox.md, "Origins and frames"). It opens each mini-app in a bridge frame served
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
import { call, roomId, isDesktop, requests, randomHex } from "./transport.js";
import { el, notify, notifyError, logActivity } from "./ui.js";
import { openWindow } from "./popover.js";
import { appError, appErrorsGone } from "./apperrors.js";
import { appNotice, saveDownload, copyForApp, needsYou } from "./mediation.js";
import { handOver } from "./keyboard.js";
import { update, subscribe } from "./state.js";
import { target } from "./subject.js";
import { toBridge, fromBridge, bridgeHello, onConnection } from "./messages.js";
import { config, configReady } from "./config.js";
import { preparedLaunch } from "./boot.js";

// A direct call's backstop fires this long after the bridge's own bound, so the bridge's answer wins; it
// settles a call whose bridge froze.
const BACKSTOP_MARGIN_MS = 500;

const apps = new Map(); // appId → MiniApp

// bridgeFrame are the attributes of every bridge frame (besides its title and src). The bridge has its own
// origin; the sandbox attribute adds no-popups/no-top-navigation for it and, by inheritance, for the app
// inside it. Forms are allowed so an app's form can go to another page of its folder: the bridge has none
// (form-action 'none'), the app's form-action is its own folder. The desktop writes the first app's frame
// into the room's document with these (desktopboot.go, held to this table by desktopboot_test.go).
const bridgeFrame = {
  class: "mini-app-bridge",
  sandbox: "allow-scripts allow-same-origin allow-forms",
  referrerpolicy: "no-referrer",
  allow: "camera 'none'; microphone 'none'; geolocation 'none'; display-capture 'none'",
};

// bootWindow is the window the room's document brought for a launch (desktopboot.go): its frame has loaded
// or is loading the launch's bridge since the document was parsed. It is adopted only when its frame is
// exactly the one the room would make for this launch; else it goes, and the room makes its own.
function bootWindow(bridgeURL) {
  const win = document.getElementById("voicebox-boot-window");
  const f = win?.querySelector(".mini-app-body > iframe");
  if (!f) return null;
  const want = { ...bridgeFrame, src: bridgeURL };
  const names = f.getAttributeNames().filter((n) => n !== "title");
  if (names.length === Object.keys(want).length && names.every((n) => f.getAttribute(n) === want[n])) return win;
  if (f.getAttribute("src") === bridgeURL) win.remove(); // this launch's, but not as the room makes frames
  return null;
}

// dropBootWindow removes the window the room's document brought, unadopted: this room may not open apps.
function dropBootWindow() { document.getElementById("voicebox-boot-window")?.remove(); }

// track tells the desktop's watchdog (Go) what runs here, so that after a restart of a hung web process it
// knows which apps to reopen and which one to leave closed. Fire and forget; the desktop only.
export function track(ev) {
  if (isDesktop()) call("RoomService.Track", { room: roomId, ...ev }).catch(() => {});
}

// changed publishes the open apps to the room's state (state.js: the Tool Console, the tray follow it).
function changed() { update({ apps: openApps() }); }

export class LaunchError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

const refusal = (refused, message) => ({ ok: false, refused, message });

class MiniApp {
  constructor(info, request) {
    Object.assign(this, { appId: info.appId, title: info.title, slug: info.slug, launchId: info.launchId,
      bridgeURL: info.bridgeURL, bridgeOrigin: info.bridgeOrigin, source: info.source, request });
    this.tools = [];
    this.refused = []; // verdicts of the tools the bridge or Go refused (shown greyed in the Tool Console)
    this.ready = false;
    this.conn = ""; // the name of the connection with the bridge's document (connect), "" before and after
    this.port = null; // the connection's MessagePort, where the room uses one (byPort)
    this.pending = new Map();
    this.pings = new Map(); // apart from calls: a pong settles a ping, never a call
    this.nextId = 1;
    this.waiters = [];
    this.closed = false;
    this.loads = 0; // how many times the app's document became ready (reloads count)
  }

  open() {
    const into = bootWindow(this.bridgeURL);
    this.win = openWindow({ title: this.title, appId: this.appId, onClose: () => close(this.appId), onReload: () => this.reload(),
      onFocus: () => update({ front: this.appId }), into }); // what File › Save Page to Shelf saves when no viewer is up
    if (into) {
      // Its bridge may have said hello before this room listened: ask again (bridgeHello connects it once).
      this.frame = into.querySelector("iframe");
      this.frame.contentWindow.postMessage(toBridge.roomReady(), this.bridgeOrigin);
      return;
    }
    const f = document.createElement("iframe");
    for (const [name, value] of Object.entries(bridgeFrame)) f.setAttribute(name, value);
    f.title = this.title;
    f.src = this.bridgeURL;
    this.frame = f;
    this.win.body.append(f);
  }

  // connect answers the bridge's hello with a new connection name: what an earlier document of the frame
  // still sends carries the old one and is dropped (docs/sandbox.md, "Room ↔ bridge").
  connect() {
    if (this.conn) { this.hangUp(); this.unloaded(); }
    this.conn = randomHex(8);
    const w = this.frame.contentWindow;
    if (!byPort()) return w.postMessage(toBridge.connect(this.conn), this.bridgeOrigin);
    const ch = new MessageChannel();
    this.port = ch.port1;
    this.port.onmessage = (e) => this.onMessage(e.data);
    w.postMessage(toBridge.connect(this.conn), this.bridgeOrigin, [ch.port2]);
  }

  // post sends a message to the bridge's document: on the port, or to its frame at its origin only, with
  // the connection's name. It throws what structured cloning throws (arguments that are not data).
  post(m) {
    if (this.port) return this.port.postMessage(m);
    const w = this.frame && this.frame.contentWindow;
    if (w) w.postMessage({ ...m, conn: this.conn }, this.bridgeOrigin);
  }

  // hangUp ends the connection: nothing the bridge still sends on it reaches this app.
  hangUp() {
    this.conn = "";
    if (this.port) { this.port.onmessage = null; this.port.close(); this.port = null; }
  }

  onMessage(raw) {
    const d = fromBridge(raw);
    if (!d) return;
    switch (d.type) {
      case "result": {
        const p = this.pending.get(d.id);
        if (!p) return;
        this.pending.delete(d.id);
        clearTimeout(p.timer);
        if (!d.ok) return p.resolve(refusal(d.refused, d.message));
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
      case "ready": this.setTools(d); this.ready = true; this.loads++; track({ op: "ready", appId: this.appId }); this.mirror(true); return;
      case "tools": this.setTools(d); if (this.ready) this.mirror(false); return;
      case "unloaded": this.unloaded(); return;
      case "app_error": appError(this, d); return;
      case "verdict": logRefusal(this.title, d.verdict); return;
      case "notice": appNotice(this, d.kind, d.text); return;
      case "download": saveDownload(this, d.name, d.blob); return;
      case "clipboard": copyForApp(this, d.text); return;
      case "attention": needsYou(this, d.on === true); return;
    }
  }

  setTools(d) {
    this.tools = Array.isArray(d.tools) ? d.tools : [];
    this.refused = Array.isArray(d.refused) ? d.refused : [];
  }

  // reportRefused tells Go the declarations the bridge refused (registry.Health), when they changed: most
  // documents have none, and then this costs nothing.
  async reportRefused() {
    const key = JSON.stringify(this.refused);
    if (key === (this.reportedRefused || "[]")) return;
    this.reportedRefused = key;
    await call("RegistryService.Report", this.appId, { title: this.title, refused: this.refused });
  }

  // mirror tells Go this app's tools, then settles whoever waits for the app to be ready.
  async mirror(first) {
    this.showCounts();
    changed();
    try {
      await this.reportRefused();
      const verdicts = await call("RegistryService.Register", roomId, this.appId, this.title, this.slug || "", this.tools);
      const goRefused = (verdicts || []).filter((v) => !v.ok);
      for (const v of goRefused) logRefusal(`${this.title} (Go)`, v);
      if (goRefused.length) { // the twins agree, so this is rare; the tools Go refused are not callable
        const names = new Set(goRefused.map((v) => v.name));
        this.tools = this.tools.filter((t) => !names.has(t.name));
        this.refused = this.refused.concat(goRefused);
        this.showCounts();
        changed();
      }
    } catch (err) {
      notifyError(err, { doing: `Voice and MCP clients cannot see ${this.title}'s tools` });
    }
    if (first && !this.closed) {
      logActivity(this.title, "ready", this.tools.map((t) => t.name).join(", ") || "(no tools)");
      if (this.loads === 1 && this.byPerson) this.giveFocus();
      const w = this.waiters; this.waiters = [];
      for (const x of w) x.resolve(this.summary());
    }
  }

  // showCounts puts "2 tools · 2 refused" in the pop-over's title bar.
  showCounts() {
    const n = this.tools.length, r = this.refused.length;
    this.win.setStatus(`${n} tool${n === 1 ? "" : "s"}${r ? ` · ${r} refused` : ""}`);
  }

  // giveFocus hands the keyboard to an app the person launched (keyboard.js owns who has it; a launch by
  // voice or MCP never takes the person's keys), unless they are typing in the room right now. The app's
  // page then focuses what it wanted (autofocus, or a focus() it called before it had the keyboard).
  giveFocus() {
    const a = document.activeElement;
    if (a && (a.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(a.tagName))) return;
    if (this.win) handOver(this.win.el);
  }

  unloaded() {
    const had = this.ready;
    this.tools = [];
    this.refused = [];
    this.reportedRefused = ""; // Go forgets the document's report with its tools (Unregister)
    this.ready = false;
    appErrorsGone(this);
    if (this.win) this.win.setStatus("reloading…");
    if (had) {
      call("RegistryService.Unregister", this.appId).catch(() => {});
      track({ op: "reload", appId: this.appId }); // a new document is loading
    }
    changed();
  }

  // renew loads another launch of this app (a written app's new version: Go's fresh launch) into its window,
  // where the person left it; whoever waits for it hears when the new document is ready.
  renew(info) {
    call("SandboxService.Release", this.launchId).catch(() => {});
    if (this.conn) { this.hangUp(); this.unloaded(); }
    this.ready = false;
    Object.assign(this, { title: info.title, launchId: info.launchId, bridgeURL: info.bridgeURL, bridgeOrigin: info.bridgeOrigin, bridgeDoc: undefined });
    this.win.setTitle(info.title);
    this.frame.title = info.title;
    this.frame.src = info.bridgeURL;
    changed();
  }

  reload() {
    if (!this.conn) return;
    this.unloaded();
    this.post(toBridge.reload());
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
  // learns the bridge's call id through onId to cancel it (cancelCall).
  call(name, args, direct, onId) {
    if (!this.conn) return Promise.resolve(refusal("unknown-tool", `${this.title} is not running`));
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
        this.post(toBridge.call(id, name, args));
      } catch (err) {
        this.pending.delete(id);
        clearTimeout(timer);
        resolve(refusal("invalid-tool-arguments", `arguments are not JSON data: ${err.message}`));
      }
    });
  }

  // cancelCall drops a call Go gave up on (an answer the bridge may still send goes nowhere) and tells the
  // bridge, which cancels it in the app.
  cancelCall(id) {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (this.conn) this.post(toBridge.cancel(id));
  }

  ping() {
    return new Promise((resolve) => {
      const id = this.nextId++;
      this.pings.set(id, resolve);
      this.post(toBridge.ping(id));
    });
  }

  shut() {
    this.closed = true;
    this.hangUp();
    for (const p of this.pending.values()) { clearTimeout(p.timer); p.resolve(refusal("unknown-tool", `${this.title} was closed`)); }
    this.pending.clear();
    for (const w of this.waiters) w.reject(new LaunchError("launch-failed", `${this.title} was closed`));
    this.waiters = [];
    if (this.win) this.win.remove();
  }
}

// A bridge's messages must come from that bridge's frame, from its origin: its hello (bridge_ready with the
// launch's id), then the rest on the connection the room named.
window.addEventListener("message", (e) => {
  for (const app of apps.values()) {
    if (!app.frame || e.source !== app.frame.contentWindow) continue;
    if (e.origin !== app.bridgeOrigin) return;
    const doc = bridgeHello(e.data, app.launchId);
    if (doc) {
      if (doc !== app.bridgeDoc) {
        app.bridgeDoc = doc;
        app.connect();
      }
    } else if (app.conn && !app.port && onConnection(e.data, app.conn)) app.onMessage(e.data);
    return;
  }
});

// byPort says whether the room talks to its bridges on a MessagePort rather than in window messages
// (docs/sandbox.md, "Room ↔ bridge"). Chromium and Firefox run each bridge's site in a process of its own:
// a port goes straight from process to process, a window message through the browser's own. WebKit (the
// desktop's WebKitGTK; Safari), whose navigator.vendor is always Apple's, runs every frame in one process
// but moves each port message through another and back, ~0.4 ms, where a window message is a task in the
// same process (docs/performance.md, "MCP calls").
const byPort = () => navigator.vendor !== "Apple Computer, Inc.";

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
// callers), "watchdog" (its plan), "boot" (a room that boots opens the files of its opened-files list).
export async function launch(what, { bound, onOpen, by = "person" } = {}) {
  // No await before the frame when the configuration and the launch came with the page: a booting room's
  // microtasks can wait 100 ms behind the rest of its boot (docs/performance.md).
  if (!config) await configReady;
  if (guardProblem()) throw new LaunchError("mini-apps-disabled", guardMessage());
  const req = typeof what === "string" ? { ref: what } : { ...(what || {}) };
  const fresh = req.fresh === true; // an open app loads what ref names now (registry.Reopen)
  delete req.fresh;
  req.room = roomId;
  let info;
  try {
    // by goes with the launch: the desktop's watchdog may refuse an app the person did not ask for
    // (backend/recovery MayLaunch), in this same call.
    info = preparedLaunch(req, by) || await call("SandboxService.Prepare", { ...req, by });
  } catch (err) {
    throw new LaunchError(err.code || "launch-failed", err.message);
  }
  if (bound === undefined) bound = config.limits.launchTimeoutMs;
  const existing = apps.get(info.appId);
  if (existing && fresh && req.ref) {
    existing.renew(info);
    existing.win.focus();
    return existing.whenReady(bound);
  }
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
  app.byPerson = by === "person"; // only a launch the person made hands the app the keyboard (giveFocus)
  apps.set(app.appId, app);
  track({ op: "launch", appId: app.appId, title: app.title, request: target(subjectOf(app)).open, by });
  app.open();
  update({ front: app.appId });
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

// subjectOf is an open app as subject.js takes it: what opens it again (after a restart, the watchdog's
// plan) and what saving it to the shelf means.
const subjectOf = (app) => ({ kind: "app", app: { appId: app.appId, title: app.title, source: app.source, request: app.request } });

// openSubject is the open app with this id as a subject (subject.js), or null when it is not open.
export function openSubject(appId) {
  const app = apps.get(appId);
  return app && !app.closed ? subjectOf(app) : null;
}

// mayOpenApps says whether this room may create mini-app frames (guardProblem: fail closed): at once when
// the configuration is known, else a promise of it.
export function mayOpenApps() {
  if (config) return !guardProblem();
  return configReady.then(() => Boolean(config) && !guardProblem());
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
  return [...apps.values()].map((a) => ({ appId: a.appId, title: a.title, slug: a.slug, source: a.source, document: a.request.document,
    ready: a.ready, loads: a.loads, tools: a.tools.slice(), refused: a.refused.slice() }));
}

// logRefusal writes a refused registration to the activity log as a sentence a person can read.
function logRefusal(who, v) {
  v = v || {};
  logActivity(who, `refused tool ${v.name || "(unnamed)"}`, undefined, `${v.refused}${v.path ? ` at ${v.path}` : ""}: ${v.message}`, true);
}

export const functionDeclarations = (provider) => call("RegistryService.FunctionDeclarations", provider);

// What Go asks of this room (voice, MCP, the Tool Console): run it through the same registry and answer.
// Go times these requests and cancels a call or a launch it gave up on ("cancel", no answer): the call's
// answer is dropped, the launch's app closed (ready or not), so that what happened matches what Go said.
const fromGo = new Map(); // request id → {app, callId} of a call in flight, or {app, cancelled} of a launch

function cancel(id) {
  const e = fromGo.get(id);
  fromGo.delete(id);
  if (!e) return;
  if (e.callId !== undefined) e.app.cancelCall(e.callId);
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
        const r = await launch(req.fresh ? { ref: req.ref, fresh: true } : req.ref, { bound: 0, onOpen, by: "model" });
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

function wire() {
  if (config && guardProblem()) dropBootWindow(); // the page's own check: no app runs in a room that failed it
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
  call("RegistryService.Hello", roomId).catch((err) => notifyError(err, { doing: "Voice and MCP clients cannot reach this room" }));
  window.addEventListener("pagehide", () => {
    call("RegistryService.Goodbye", roomId).catch(() => {});
    track({ op: "goodbye" });
  });
}

// window.voicebox is the room's automation API (docs/sandbox.md, "Room ↔ Go"); nothing of the room's own
// passes through it.
const api = {
  roomId, launch, callTool, close, tools, apps: openApps, functionDeclarations,
  onChange: (fn) => subscribe(() => fn(), "apps"),
  ping: (appId) => { const a = apps.get(appId); return a && a.conn ? a.ping() : Promise.reject(new Error("no such app")); },
};
window.voicebox = Object.assign(window.voicebox || {}, api);
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire); else wire();
