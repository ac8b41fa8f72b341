// The room's one door to Go. In the desktop it calls the Wails bindings (window.go.<package>.<Service>) and
// listens to Wails events; in `voicebox serve` it calls the very same methods by name over HTTP
// (POST /api/call/<Service>.<Method> with the argument array) and listens to server-sent events. Go's list
// of bound methods is the only list: nothing here names a route. Every failure becomes a RoomError with the
// Go side's code, so callers never care which door they used.
//
// requests(handle) is the room's request channel (docs/sandbox.md, "Room ↔ Go"): what Go asks of this room
// (a tool call, a launch, a close) arrives in order and nothing is dropped; handle's answer goes back with
// the request's id.
//
// In `voicebox serve` every request carries the run's secret (docs/sandbox.md, "Ports and credentials") in a
// header, never in a cookie: cookies ignore ports, so any other server on 127.0.0.1 would receive one.

import { boot } from "./boot.js";

// The run's secret, in `voicebox serve`: the address it printed carries it in its fragment (#token=…), which
// no request sends. The room keeps it in sessionStorage, which only this origin (scheme, host and port)
// reads and which outlives a reload, and takes it out of the address bar. "" in the desktop (its room
// reaches Go through Wails) and in a tab opened without it.
const SECRET_KEY = "voicebox-secret";
const served = !boot; // the desktop always writes its boot data into the page (boot.js)
let secret = served ? takeSecret() : "";

function takeSecret() {
  let fromURL = "";
  const frag = new URLSearchParams(location.hash.slice(1));
  if (frag.has("token")) {
    fromURL = frag.get("token");
    frag.delete("token");
    const rest = frag.toString();
    history.replaceState(history.state, "", location.pathname + location.search + (rest ? "#" + rest : ""));
  }
  try {
    if (fromURL) sessionStorage.setItem(SECRET_KEY, fromURL);
    return sessionStorage.getItem(SECRET_KEY) || "";
  } catch {
    return fromURL; // storage refused (a browser setting): this page load still works
  }
}

// A room without the secret (a tab opened at the bare address, or one from before `voicebox serve` started
// again) can do nothing: it says so once, plainly, instead of failing at every step. Its calls then never
// settle, so no part of the room reports an error of its own.
let locked = false;
const never = new Promise(() => {});
function lock(why) {
  if (locked) return;
  locked = true;
  secret = "";
  try { sessionStorage.removeItem(SECRET_KEY); } catch { /* nothing kept */ }
  const show = () => {
    for (const child of document.body.children) child.style.display = "none";
    const msg = document.createElement("main");
    msg.id = "room-locked";
    msg.setAttribute("role", "alert");
    msg.style.cssText = "display:block;max-width:36rem;margin:20vh auto;padding:0 1rem;font:1.1rem/1.5 system-ui,sans-serif";
    const h = document.createElement("h1");
    h.textContent = "Open the address Voicebox printed";
    const p = document.createElement("p");
    p.textContent = why + " Open the address on the `Voicebox room:` line that `voicebox serve` printed: it carries this run's secret.";
    msg.append(h, p);
    document.body.append(msg);
    document.body.dataset.locked = "true";
  };
  if (document.body) show();
  else document.addEventListener("DOMContentLoaded", show);
}
if (served && !secret) lock("This tab was opened without the room's secret.");
const STALE = "This address's secret is not the running room's (was `voicebox serve` started again?).";

// authorization is the header every HTTP request of the room carries.
const authorization = () => ({ Authorization: `Bearer ${secret}` });

// socketProtocols are what the room's WebSockets offer: a page cannot give a WebSocket a header, so the
// secret rides as a subprotocol (base64url, as backend/httpapi/auth.go reads it) beside "voicebox", the one
// the server selects. None where there is no secret (the desktop's channel has its own key).
export function socketProtocols() {
  if (!secret) return undefined;
  const b = new TextEncoder().encode(secret);
  const enc = btoa(String.fromCharCode(...b)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return ["voicebox", `voicebox.secret.${enc}`];
}

export class RoomError extends Error {
  constructor(body) {
    const b = body && typeof body === "object" ? body : { error: "internal-error", message: String(body) };
    super(b.message || b.error || "request failed");
    this.code = b.error || "internal-error";
    this.app = b.app;
  }
}

// Wails binds each Go struct as window.go.<package>.<Struct>; find the service in whichever package has it.
export const isDesktop = () => Boolean(window.go && window.go.services);
function boundService(service) {
  for (const pkg of Object.values(window.go || {})) if (pkg && pkg[service]) return pkg[service];
  return undefined;
}

async function viaWails(service, method, args) {
  const fn = boundService(service)?.[method];
  if (typeof fn !== "function") throw new RoomError({ error: "unsupported", message: `${service}.${method} is not bound` });
  try {
    return await fn(...args);
  } catch (err) {
    throw new RoomError(typeof err === "string" ? safeParse(err) : err);
  }
}

function safeParse(s) {
  try { return JSON.parse(s); } catch { return { error: "internal-error", message: s }; }
}

// viaHTTP is the same call over HTTP, with the run's secret.
async function viaHTTP(name, args) {
  if (locked) return never;
  const res = await fetch(`/api/call/${encodeURIComponent(name)}`, {
    method: "POST", headers: { "Content-Type": "application/json", ...authorization() }, body: JSON.stringify(args),
  });
  const text = await res.text();
  const data = text ? safeParse(text) : null;
  // The door's own refusal (a method may answer 401 for its own reasons: a provider refused a key).
  if (res.status === 401 && data?.error === "unauthorized") { lock(STALE); return never; }
  if (!res.ok) throw new RoomError(data || { error: `http-${res.status}`, message: res.statusText });
  return data;
}

// roomId names this page load of the room to Go: requests Go sends carry the id of the room that must
// answer, and in `voicebox serve` this page's request channel says hello and, when it ends, goodbye. The
// desktop names the page in its boot data (boot.js), with launches made for that name.
export const roomId = boot?.roomId || "room-" + randomHex(16);

// randomHex is n random bytes in hex: the room's names for itself and for its connections.
export function randomHex(n) {
  const b = new Uint8Array(n);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

// call("StoreService.List") runs a Go method through whichever door this room has.
export function call(name, ...args) {
  if (isDesktop()) {
    const [service, method] = name.split(".");
    return viaWails(service, method, args);
  }
  return viaHTTP(name, args);
}

// on("store:changed", fn) subscribes to a Go event; it returns a function that unsubscribes.
export function on(name, fn) {
  if (!listeners) {
    listeners = new Map();
    if (isDesktop()) {
      // The desktop sends Go's events as batches on one window event, "room:events" (app.go, WindowEvents):
      // one call onto the GTK main thread per batch, not per event.
      window.runtime.EventsOn("room:events", (batch) => { for (const ev of batch || []) dispatch(ev.name, ev.data); });
    } else {
      readEvents();
    }
  }
  if (!listeners.has(name)) listeners.set(name, new Set());
  const mine = (data) => fn(data); // its own entry: the same fn subscribed twice runs twice
  listeners.get(name).add(mine);
  return () => listeners.get(name).delete(mine);
}

let listeners = null; // event name → Set of listeners, each event handed to its name's in order
function dispatch(name, data) {
  for (const f of [...(listeners.get(name) || [])]) f(data);
}

// readEvents follows `voicebox serve`'s event stream (server-sent events at /api/events) for the page's
// life, opened again a second after it ends. It reads it with fetch: EventSource cannot send the secret's
// header.
async function readEvents() {
  for (;;) {
    if (locked) return;
    try {
      const res = await fetch("/api/events", { headers: authorization(), cache: "no-store" });
      if (res.status === 401) return lock(STALE);
      if (res.ok && res.body) await readStream(res.body.getReader());
    } catch { /* the server went away: try again below */ }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

// readStream hands each event of the server-sent event stream to its listeners: blocks end with a blank
// line (Go writes "\n" line ends, httpapi/server.go); "event:" names it, "data:" lines carry its JSON; lines
// starting with ":" keep the stream open.
async function readStream(reader) {
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += decoder.decode(value, { stream: true });
    let end;
    while ((end = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) dispatch(name, data[0] === "" && data.length === 1 ? undefined : safeParse(data.join("\n")));
    }
  }
}

// requests runs handle(request) → Promise<reply> for every request Go sends this room, and sends each
// reply back with its request's id and this room's. Both modes carry them on a WebSocket (channelSocket):
// the desktop's is on a loopback port its boot data names, since a Wails event would run as the person's
// gesture and the room would hand that on to the app (desktopchannel.go).
export function requests(handle) {
  if (locked) return;
  const send = channelSocket(run, boot?.channel);
  function run(req) {
    if (!req || req.room !== roomId) return;
    Promise.resolve(handle(req)).then((rep) => { if (rep) send({ ...rep, id: req.id, room: roomId }); });
  }
}

// channelSocket is the room's request channel: one WebSocket, at address or else on the room's own origin
// (`voicebox serve`), requests down and replies up (both JSON arrays), reconnected while the page lives.
// Replies made while it is down wait for the next one.
function channelSocket(run, address) {
  let ws = null, waiting = [], retry = 100;
  const url = address || `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/room/channel?room=${encodeURIComponent(roomId)}`;
  const connect = () => {
    if (locked) return;
    ws = new WebSocket(url, socketProtocols());
    ws.onopen = () => { retry = 100; if (waiting.length) { ws.send(JSON.stringify(waiting)); waiting = []; } };
    ws.onmessage = (e) => { const batch = safeParse(e.data); if (Array.isArray(batch)) for (const req of batch) run(req); };
    ws.onclose = () => { ws = null; setTimeout(connect, retry); retry = Math.min(retry * 2, 2000); };
  };
  connect();
  return (rep) => {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify([rep]));
    else waiting.push(rep);
  };
}
