// Unit tests of the mini-app SDK (sdk.js) in a minimal fake window: the port handshake accepts a port only
// from window.parent, messages sent before it are queued, tools run with JSON results and errors, and the
// storage shim works and forgets. Run: node --test backend/sandbox/sdk.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";

const source = readFileSync(new URL("./sdk.js", import.meta.url), "utf8");

function load() {
  const listeners = [];
  const parentPosts = [];
  const parent = { postMessage: (m, target) => parentPosts.push([m, target]) };
  const window = {
    parent,
    addEventListener: (type, fn) => { if (type === "message") listeners.push(fn); },
    removeEventListener: (type, fn) => { const i = listeners.indexOf(fn); if (i >= 0) listeners.splice(i, 1); },
  };
  const ctx = { window, document: {}, navigator: {}, console: { warn() {} }, Map, Proxy, Promise, JSON, Object, Array, String, Number, Math, TypeError, Error, setTimeout, AbortController, DOMException };
  window.window = window;
  vm.createContext(ctx);
  vm.runInContext(source, ctx);
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
  s.dispatch({ source: s.window, data: { type: "voicebox_port" }, ports: [fake.port2] });
  s.dispatch({ source: {}, data: { type: "voicebox_port" }, ports: [fake.port2] });
  const real = new MessageChannel();
  const queued = collect(real.port1, 2);
  s.dispatch({ source: s.parent, data: { type: "voicebox_port" }, ports: [real.port2] });
  const [reg, ready] = await queued;
  assert.equal(reg.type, "register_tool");
  assert.deepEqual(reg.tool, { name: "echo", description: "", parameters: { type: "object" } });
  assert.equal(ready.type, "ready");
  assert.equal(s.listeners.length, 0, "the window listener goes once the port is taken");
  // A second port is never taken.
  const later = new MessageChannel();
  s.dispatch({ source: s.parent, data: { type: "voicebox_port" }, ports: [later.port2] });
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
  assert.throws(() => webMcp.registerTool({ name: "x", description: "" }), TypeError);
  const ch = new MessageChannel();
  const regs = collect(ch.port1, 4);
  s.dispatch({ source: s.parent, data: { type: "voicebox_port" }, ports: [ch.port2] });
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
