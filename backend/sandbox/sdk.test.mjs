// Unit tests of the mini-app SDK (sdk.js) in a minimal fake window: the port handshake accepts a port only
// from window.parent, messages sent before it are queued, tools run with JSON results and errors, and the
// storage shim works and forgets; the WebMCP API keeps the browser's promises and events (docs/webmcp.md);
// dialogs become notices; the IndexedDB section stores, indexes, walks and rolls back.
// Run: node --test backend/sandbox/sdk.test.mjs
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";

const source = readFileSync(new URL("./sdk.js", import.meta.url), "utf8");

// The IndexedDB section schedules its work on a MessageChannel of its own, which lives as long as the page;
// here every test's channels close when the tests end, so node can exit.
const channels = [];
function TrackedChannel() {
  const c = new MessageChannel();
  channels.push(c);
  return c;
}
after(() => { for (const c of channels) c.port1.close(); });

function load(...sections) {
  const listeners = [];
  const parentPosts = [];
  const parent = { postMessage: (m, target) => parentPosts.push([m, target]) };
  const window = {
    parent,
    addEventListener: (type, fn) => { if (type === "message") listeners.push(fn); },
    removeEventListener: (type, fn) => { const i = listeners.indexOf(fn); if (i >= 0) listeners.splice(i, 1); },
  };
  const ctx = { window, document: {}, navigator: {}, console: { warn() {} }, Map, Proxy, Promise, JSON, Object, Array, String, Number, Math, TypeError, Error, setTimeout,
    EventTarget, Event, DOMException, AbortController, structuredClone, MessageChannel: TrackedChannel };
  window.window = window;
  vm.createContext(ctx);
  const code = sections.map((f) => readFileSync(new URL(f, import.meta.url), "utf8"));
  vm.runInContext(source.replace("[/*SECTIONS*/]", `[${code.join(",\n")}]`), ctx);
  const dispatch = (ev) => { for (const fn of listeners.slice()) fn(ev); };
  return { ctx, window, parent, parentPosts, dispatch, listeners };
}

const next = (port) => new Promise((resolve) => { port.onmessage = (e) => resolve(e.data); });
const collect = (port, n) => new Promise((resolve) => {
  const got = [];
  port.onmessage = (e) => { got.push(e.data); if (got.length === n) resolve(got); };
});

test("says hello to the parent and takes a port only from window.parent", async () => {
  const s = load();
  assert.equal(JSON.stringify(s.parentPosts), JSON.stringify([[{ type: "mini_app_ready" }, "*"]]));
  const api = s.window.webMcp;
  api.registerTool({ name: "echo", description: "", parameters: { type: "object" }, execute: (a) => a });
  api.ready();
  // A port the app posts to itself (WebKit reports the window itself as the source) is refused.
  const fake = new MessageChannel();
  let leaked = false;
  fake.port1.onmessage = () => { leaked = true; };
  s.dispatch({ source: s.window, data: { type: "voicebox_port", conn: "c1" }, ports: [fake.port2] });
  s.dispatch({ source: {}, data: { type: "voicebox_port", conn: "c1" }, ports: [fake.port2] });
  const real = new MessageChannel();
  const queued = collect(real.port1, 2);
  s.dispatch({ source: s.parent, data: { type: "voicebox_port", conn: "c1" }, ports: [real.port2] });
  const [reg, ready] = await queued;
  assert.equal(reg.type, "register_tool");
  assert.deepEqual(reg.tool, { name: "echo", description: "", parameters: { type: "object" } });
  assert.equal(ready.type, "ready");
  assert.equal(s.listeners.length, 0, "the window listener goes once the port is taken");
  // A second port is never taken.
  const later = new MessageChannel();
  s.dispatch({ source: s.parent, data: { type: "voicebox_port", conn: "c1" }, ports: [later.port2] });
  api.registerTool({ name: "two", description: "", parameters: { type: "object" }, execute: () => 2 });
  assert.equal((await next(real.port1)).tool.name, "two");
  assert.equal(leaked, false);
  real.port1.close(); fake.port1.close(); later.port1.close();
});

test("runs tools: JSON text results, errors, MCP isError, aliases", async () => {
  const s = load();
  const { webMcp } = s.window;
  assert.equal(s.window.navigator, undefined);
  assert.equal(s.ctx.navigator.modelContext, webMcp);
  assert.equal(s.ctx.document.modelContext, webMcp);
  webMcp.registerTool({ name: "echo", description: "", inputSchema: { type: "object" }, execute: async (a) => ({ got: a.text }) });
  webMcp.registerTool({ name: "fail", description: "", parameters: { type: "object" }, execute: () => { throw new Error("boom"); } });
  webMcp.registerTool({ name: "mcp", description: "", parameters: { type: "object" }, execute: () => ({ content: [{ type: "text", text: "no" }], isError: true }) });
  webMcp.registerTool({ name: "nothing", description: "", parameters: { type: "object" }, execute: () => undefined });
  await assert.rejects(webMcp.registerTool({ name: "x", description: "" }), TypeError);
  const ch = new MessageChannel();
  const regs = collect(ch.port1, 4);
  s.dispatch({ source: s.parent, data: { type: "voicebox_port", conn: "c1" }, ports: [ch.port2] });
  await regs;
  const ask = async (name, args) => { const p = next(ch.port1); ch.port1.postMessage({ type: "call_tool", callId: 7, name, args }); return p; };
  assert.deepEqual(await ask("echo", { text: "hi" }), { type: "tool_result", callId: 7, ok: true, result: '{"got":"hi"}' });
  assert.deepEqual(await ask("fail", {}), { type: "tool_result", callId: 7, ok: false, error: "boom" });
  assert.deepEqual(await ask("mcp", {}), { type: "tool_result", callId: 7, ok: false, error: "no" });
  assert.deepEqual(await ask("nothing", {}), { type: "tool_result", callId: 7, ok: true, result: "null" });
  assert.equal((await ask("missing", {})).ok, false);
  const pong = next(ch.port1);
  ch.port1.postMessage({ type: "ping", id: 3 });
  assert.deepEqual(await pong, { type: "pong", id: 3 });
  ch.port1.close();
});

test("storage shim works and forgets", () => {
  const a = load(), b = load();
  const ls = a.window.localStorage;
  ls.setItem("k", 1);
  ls.other = "x";
  assert.equal(ls.getItem("k"), "1");
  assert.equal(ls.other, "x");
  assert.equal(ls.length, 2);
  assert.equal(ls.key(0), "k");
  assert.equal(ls.key(5), null);
  assert.equal(JSON.stringify(Object.keys(ls)), '["k","other"]');
  ls.removeItem("k");
  assert.equal(ls.getItem("k"), null);
  a.window.sessionStorage.setItem("s", "v");
  assert.equal(a.window.localStorage.getItem("s"), null, "session and local are separate");
  a.ctx.document.cookie = "a=1; path=/";
  a.ctx.document.cookie = "b=2";
  assert.equal(a.ctx.document.cookie, "a=1; b=2");
  a.ctx.document.cookie = "a=; max-age=0";
  assert.equal(a.ctx.document.cookie, "b=2");
  ls.clear();
  assert.equal(ls.length, 0);
  assert.equal(b.window.localStorage.length, 0, "another launch starts empty");
  assert.equal(b.ctx.document.cookie, "");
});

// Without a port (WebKit's connection: docs/sandbox.md, "Bridge ↔ app") the SDK posts to its parent at
// the bridge's origin with the connection's name, and takes only its parent's messages with that name.
test("a connection without a port: window messages with its name, to and from window.parent only", async () => {
  const s = load();
  s.window.webMcp.registerTool({ name: "echo", description: "", parameters: { type: "object" }, execute: (a) => ({ got: a.text }) });
  s.window.webMcp.ready();
  s.parentPosts.length = 0;
  const bridge = "http://127.0.0.1:9";
  s.dispatch({ source: s.parent, origin: bridge, data: { type: "voicebox_port" } }); // no name: not a connection
  assert.equal(s.parentPosts.length, 0);
  s.dispatch({ source: s.parent, origin: bridge, data: { type: "voicebox_port", conn: "c1" } });
  assert.deepEqual(s.parentPosts.map(([m, target]) => [m.type, m.conn, target]), [["register_tool", "c1", bridge], ["ready", "c1", bridge]]);
  assert.equal(s.listeners.length, 1, "the window listener stays: it is the connection");
  const call = (ev) => { s.parentPosts.length = 0; s.dispatch(ev); return new Promise((r) => setTimeout(r, 5)).then(() => JSON.parse(JSON.stringify(s.parentPosts.map(([m]) => m)))); };
  const msg = (conn) => ({ type: "call_tool", callId: 4, name: "echo", args: { text: "hi" }, conn });
  assert.deepEqual(await call({ source: {}, origin: "null", data: msg("c1") }), [], "another window (another app) is not the bridge");
  assert.deepEqual(await call({ source: s.parent, origin: bridge, data: msg("c0") }), [], "another connection's message is dropped");
  assert.deepEqual(await call({ source: s.parent, origin: bridge, data: msg(undefined) }), []);
  assert.deepEqual(await call({ source: s.parent, origin: bridge, data: { type: "voicebox_port", conn: "c2" } }), [], "a second connection is never taken");
  assert.deepEqual(await call({ source: s.parent, origin: bridge, data: msg("c1") }),
    [{ type: "tool_result", callId: 4, ok: true, result: '{"got":"hi"}', conn: "c1" }]);
});

// connect gives the SDK a port and returns our end of it, with every message it sends collected.
function connect(s) {
  const ch = new MessageChannel();
  const got = [];
  let waiter = null;
  ch.port1.onmessage = (e) => { got.push(e.data); if (waiter && waiter.test(e.data)) { const w = waiter; waiter = null; w.resolve(e.data); } };
  s.dispatch({ source: s.parent, data: { type: "voicebox_port", conn: "c1" }, ports: [ch.port2] });
  const until = (test) => {
    const had = got.find(test);
    if (had) return Promise.resolve(had);
    return new Promise((resolve) => { waiter = { test, resolve }; });
  };
  return { port: ch.port1, got, until, close: () => ch.port1.close() };
}

test("registerTool keeps the browser's promise: resolved on the verdict, duplicates and aborts rejected", async () => {
  const s = load();
  const mc = s.ctx.document.modelContext;
  assert.equal(mc, s.ctx.navigator.modelContext);
  assert.ok("modelContext" in s.ctx.navigator && "modelContext" in s.ctx.document, "feature detection");
  const changes = [];
  mc.ontoolchange = (e) => changes.push(e.toolName);
  const b = connect(s);
  const p = mc.registerTool({ name: "a", description: "d", inputSchema: { type: "object" }, annotations: { readOnlyHint: true }, execute: () => 1 });
  assert.equal(typeof p.then, "function");
  assert.equal(typeof p.unregister, "function", "Voicebox's older handle stays");
  const reg = await b.until((m) => m.type === "register_tool");
  assert.deepEqual(reg.tool.annotations, { readOnlyHint: true }, "annotations travel to the bridge");
  let settled = false;
  p.then(() => { settled = true; });
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(settled, false, "pending until the bridge answers");
  b.port.postMessage({ type: "register_result", seq: reg.seq, verdict: { name: "a", ok: true } });
  await p;
  await assert.rejects(mc.registerTool({ name: "a", description: "d", execute: () => 2 }), (e) => e.name === "InvalidStateError");
  const ac = new AbortController();
  const q = mc.registerTool({ name: "b", description: "d", inputSchema: { type: "object" }, execute: () => 3 }, { signal: ac.signal });
  ac.abort();
  await assert.rejects(q, (e) => e.name === "AbortError");
  await b.until((m) => m.type === "unregister_tool" && m.name === "b"); // abort unregisters
  await assert.rejects(mc.registerTool({ name: "c", description: "d", execute: () => 4 }, { signal: AbortSignal.abort() }), (e) => e.name === "AbortError");
  assert.ok(!b.got.some((m) => m.type === "register_tool" && m.tool.name === "c"), "an aborted signal registers nothing");
  assert.deepEqual(changes, ["a", "a", "b", "b"]);
  b.close();
});

const until = async (test) => { while (!test()) await new Promise((r) => setTimeout(r, 1)); };

test("execute gets a client: its signal aborts when the call is cancelled; requestUserInteraction raises and lowers attention", async (t) => {
  const s = load();
  const mc = s.ctx.document.modelContext;
  const events = [];
  mc.addEventListener("toolactivated", (e) => events.push("activated " + e.toolName));
  mc.addEventListener("toolcancel", (e) => events.push("cancel " + e.toolName));
  let signal = null;
  mc.registerTool({ name: "wait", description: "", inputSchema: { type: "object" }, execute: (_, client) => { signal = client.signal; return new Promise(() => {}); } });
  mc.registerTool({ name: "ask", description: "", inputSchema: { type: "object" }, execute: (_, client) => client.requestUserInteraction(async () => "yes") });
  const b = connect(s);
  t.after(b.close);
  b.port.postMessage({ type: "call_tool", callId: 1, name: "wait", args: {} });
  await until(() => signal);
  assert.equal(signal.aborted, false);
  b.port.postMessage({ type: "cancel_call", callId: 1, name: "wait" });
  await until(() => signal.aborted);
  b.port.postMessage({ type: "call_tool", callId: 2, name: "ask", args: {} });
  const result = await b.until((m) => m.type === "tool_result" && m.callId === 2);
  assert.equal(result.result, '"yes"');
  const attention = b.got.filter((m) => m.type === "attention").map((m) => [m.callId, m.on]);
  assert.deepEqual(attention, [[2, true], [2, false]]);
  assert.ok(!b.got.some((m) => m.type === "tool_result" && m.callId === 1), "a cancelled call is not answered");
  assert.deepEqual(events, ["activated wait", "cancel wait", "activated ask"]);
});

test("dialogs answer at once and become notices; service workers are absent, as in a browser without them", async () => {
  const s = load();
  const b = connect(s);
  assert.equal(s.window.alert("hi"), undefined);
  assert.equal(s.window.confirm("sure?"), false);
  assert.equal(s.window.prompt("name?", "x"), null);
  await b.until((m) => m.type === "notice" && m.kind === "prompt");
  assert.deepEqual(b.got.filter((m) => m.type === "notice").map((m) => [m.kind, m.text]), [["alert", "hi"], ["confirm", "sure?"], ["prompt", "name?"]]);
  const sw = s.ctx.navigator.serviceWorker;
  assert.ok(sw && "serviceWorker" in s.ctx.navigator);
  await assert.rejects(sw.register("/sw.js"), (e) => e.name === "SecurityError");
  assert.equal(JSON.stringify(await sw.getRegistrations()), "[]");
  assert.equal(await sw.getRegistration(), undefined);
  b.close();
});

// The IndexedDB section runs in node as it does in a page (it needs no DOM).
function idb() {
  const s = load("./sdk-idb.js");
  return s.window;
}
// plain copies a value out of the SDK's realm, so deepEqual compares data, not prototypes.
const plain = (v) => (v === undefined ? v : JSON.parse(JSON.stringify(v)));
const done = (req) => new Promise((resolve, reject) => { req.onsuccess = () => resolve(req.result); req.onerror = () => reject(req.error); });
const complete = (tx) => new Promise((resolve, reject) => { tx.oncomplete = resolve; tx.onabort = () => reject(tx.error); });

test("IndexedDB: upgrade, stores, indexes, cursors, key ranges", async () => {
  const w = idb();
  const open = w.indexedDB.open("notes", 2);
  const upgrades = [];
  open.onupgradeneeded = (e) => {
    upgrades.push([e.oldVersion, e.newVersion]);
    const db = open.result;
    const notes = db.createObjectStore("notes", { keyPath: "id", autoIncrement: true });
    notes.createIndex("by_tag", "tags", { multiEntry: true });
    notes.createIndex("by_title", "title", { unique: true });
    db.createObjectStore("kv");
  };
  const db = await done(open);
  assert.deepEqual(upgrades, [[0, 2]]);
  assert.deepEqual(plain([...db.objectStoreNames]), ["kv", "notes"]);
  let tx = db.transaction(["notes", "kv"], "readwrite");
  const notes = tx.objectStore("notes");
  const ids = await Promise.all([
    done(notes.add({ title: "b", tags: ["x", "y"] })),
    done(notes.add({ title: "a", tags: ["y"] })),
    done(notes.put({ id: 10, title: "c", tags: [] })),
  ]);
  assert.deepEqual(plain(ids), [1, 2, 10]);
  await done(tx.objectStore("kv").put({ deep: [1, 2] }, "k"));
  await complete(tx);
  tx = db.transaction("notes");
  const ro = tx.objectStore("notes");
  assert.equal((await done(ro.get(2))).title, "a");
  assert.deepEqual(plain((await done(ro.getAll(w.IDBKeyRange.bound(1, 2)))).map((n) => n.title)), ["b", "a"]);
  assert.deepEqual(plain(await done(ro.index("by_tag").getAllKeys("y"))), [1, 2]);
  assert.equal((await done(ro.index("by_title").get("c"))).id, 10);
  assert.equal(await done(ro.count()), 3);
  const walked = [];
  await new Promise((resolve) => {
    ro.openCursor(null, "prev").onsuccess = (e) => {
      const c = e.target.result;
      if (!c) return resolve();
      walked.push(c.key);
      c.continue();
    };
  });
  assert.deepEqual(walked, [10, 2, 1]);
  assert.throws(() => ro.put({ title: "z" }), (e) => e.name === "ReadOnlyError" || e.name === "TransactionInactiveError");
  await complete(tx).catch(() => {});
  // A unique index refuses a clash, and the failed transaction changes nothing.
  tx = db.transaction("notes", "readwrite");
  tx.objectStore("notes").put({ id: 1, title: "b2", tags: [] });
  tx.objectStore("notes").add({ title: "a", tags: [] });
  await assert.rejects(complete(tx));
  tx = db.transaction("notes");
  assert.equal((await done(tx.objectStore("notes").get(1))).title, "b", "rolled back");
  assert.equal(w.indexedDB.cmp([1, "a"], [1, "b"]), -1);
  assert.equal(w.indexedDB.cmp("a", 1), 1, "strings sort after numbers");
});

test("IndexedDB: promise wrappers keep a transaction alive between requests; a new launch starts empty", async () => {
  const w = idb();
  const p = (req) => done(req);
  const open = w.indexedDB.open("kv");
  open.onupgradeneeded = () => open.result.createObjectStore("s");
  const db = await p(open);
  const tx = db.transaction("s", "readwrite");
  const store = tx.objectStore("s");
  await p(store.put(1, "a"));
  await p(store.put(2, "b")); // issued from a promise reaction after the first request's success
  const all = await p(store.getAll());
  assert.deepEqual(plain(all), [1, 2]);
  await complete(tx);
  const other = idb();
  assert.deepEqual(plain(await other.indexedDB.databases()), []);
  const again = await p(w.indexedDB.open("kv"));
  assert.equal(again.version, 1);
  assert.throws(() => w.indexedDB.open("kv", 0.5), TypeError);
  again.close();
  const up = w.indexedDB.open("kv", 3);
  up.onupgradeneeded = (e) => assert.deepEqual([e.oldVersion, e.newVersion], [1, 3]);
  assert.equal((await p(up)).version, 3);
  await assert.rejects(p(w.indexedDB.open("kv", 2)), (e) => e.name === "VersionError");
});
