// The room's one door to Go. In the desktop it calls the Wails bindings (window.go.<package>.<Service>) and
// listens to Wails events; in `voicebox serve` it calls the very same methods by name over HTTP
// (POST /api/call/<Service>.<Method> with the argument array) and listens to server-sent events. Go's list
// of bound methods is the only list: nothing here names a route. Every failure becomes a RoomError with the
// Go side's code, so callers never care which door they used.
//
// requests(handle) is the room's request channel (docs/sandbox.md, "Room ↔ Go"): what Go asks of this room
// (a tool call, a launch, a close) arrives in order and nothing is dropped; handle's answer goes back with
// the request's id.

import { boot } from "./boot.js";

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

// viaHTTP is the same call over HTTP; the room's cookie carries the run's secret.
async function viaHTTP(name, args) {
  const res = await fetch(`/api/call/${encodeURIComponent(name)}`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(args),
  });
  const text = await res.text();
  const data = text ? safeParse(text) : null;
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

let source = null;
// on("store:changed", fn) subscribes to a Go event; it returns a function that unsubscribes.
export function on(name, fn) {
  if (isDesktop()) return windowEvents(name, fn);
  if (!source) source = new EventSource("/api/events");
  const listener = (ev) => fn(ev.data ? safeParse(ev.data) : undefined);
  source.addEventListener(name, listener);
  return () => source.removeEventListener(name, listener);
}

// The desktop sends Go's events as batches on one window event, "room:events" (app.go, WindowEvents): one
// call onto the GTK main thread per batch, not per event. Each is handed to its name's listeners in order.
let listeners = null; // event name → Set of listeners
function windowEvents(name, fn) {
  if (!listeners) {
    listeners = new Map();
    window.runtime.EventsOn("room:events", (batch) => {
      for (const ev of batch || []) for (const f of [...(listeners.get(ev.name) || [])]) f(ev.data);
    });
  }
  if (!listeners.has(name)) listeners.set(name, new Set());
  const mine = (data) => fn(data); // its own entry: the same fn subscribed twice runs twice
  listeners.get(name).add(mine);
  return () => listeners.get(name).delete(mine);
}

// requests runs handle(request) → Promise<reply> for every request Go sends this room, and sends each
// reply back with its request's id and this room's. Both modes carry them on a WebSocket (channelSocket):
// the desktop's is on a loopback port its boot data names, since a Wails event would run as the person's
// gesture and the room would hand that on to the app (desktopchannel.go).
export function requests(handle) {
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
    ws = new WebSocket(url);
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
