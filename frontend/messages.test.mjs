// The room, the bridge and the SDK agree on the protocol's message types: every type the bridge
// (backend/sandbox/bridge.js) or the SDK (sdk.js) sends or handles is in room/src/messages.js' table, every type of
// the table is sent or handled where it belongs, the room's own modules build no message outside
// messages.js, and the request channel's ops are Go's (backend/registry).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { TYPES, fromBridge, toBridge, bridgeHello, onConnection } from "./room/src/messages.js";

const root = new URL("../", import.meta.url);
const read = (rel) => readFileSync(fileURLToPath(new URL(rel, root)), "utf8");

// typesIn finds the message types a script names: {type: "x"}, d.type === "x", case "x":.
function typesIn(src) {
  const out = new Set();
  for (const m of src.matchAll(/\btype\s*(?::|===|!==|==|!=)\s*"([a-z_]+)"/g)) out.add(m[1]);
  for (const m of src.matchAll(/\bcase\s+"([a-z_]+)"\s*:/g)) out.add(m[1]);
  return out;
}

const sorted = (xs) => [...new Set(xs)].sort();

test("the bridge sends and handles exactly the table's types", () => {
  const want = sorted([...TYPES.handshake, ...TYPES.toBridge, ...TYPES.fromBridge, ...TYPES.toApp, ...TYPES.fromApp]);
  assert.deepEqual(sorted(typesIn(read("backend/sandbox/bridge.js"))), want);
});

// The SDK is sdk.js and its sections (sdkscript.go): the capabilities send downloads and copies; the forms
// and IndexedDB sections talk through the core and name no message (their "type"s are schema types).
test("the SDK sends and handles exactly the app's side of the table", () => {
  const want = sorted(["mini_app_ready", "voicebox_port", ...TYPES.toApp, ...TYPES.fromApp]);
  const sdk = read("backend/sandbox/sdk.js") + read("backend/sandbox/sdk-capabilities.js");
  assert.deepEqual(sorted(typesIn(sdk)), want);
  const protocol = new Set(Object.values(TYPES).flat());
  for (const f of ["sdk-forms.js", "sdk-idb.js"]) {
    assert.deepEqual([...typesIn(read(`backend/sandbox/${f}`))].filter((t) => protocol.has(t)), [], `${f} names protocol types`);
  }
});

test("the room's modules build no protocol message of their own (they use messages.js' constructors)", () => {
  const dir = fileURLToPath(new URL("frontend/room/src/", root));
  const protocol = new Set([...TYPES.handshake, ...TYPES.toBridge, ...TYPES.fromBridge]);
  for (const f of readdirSync(dir).filter((f) => f.endsWith(".js") && f !== "messages.js")) {
    const built = [...readFileSync(dir + f, "utf8").matchAll(/\btype\s*:\s*"([a-z_]+)"/g)].map((m) => m[1]);
    const found = built.filter((t) => protocol.has(t));
    assert.deepEqual(found, [], `${f} names protocol types itself`);
  }
});

test("the request ops are Go's", () => {
  const ops = [...read("backend/registry/registry.go").matchAll(/\bOp\w+\s*=\s*"([a-z]+)"/g)].map((m) => m[1]);
  assert.deepEqual(sorted(ops), sorted(TYPES.requestOps));
});

// Without a port (WebKit) the room takes a bridge's message only with the name of its connection: what
// an earlier document of the frame sent, or a message with no name, is dropped.
test("onConnection takes only the connection's own messages", () => {
  assert.deepEqual(toBridge.connect("c1"), { type: "connect", conn: "c1" });
  assert.equal(onConnection({ type: "result", id: 1, conn: "c1" }, "c1"), true);
  assert.equal(onConnection({ type: "result", id: 1, conn: "c0" }, "c1"), false);
  assert.equal(onConnection({ type: "result", id: 1 }, "c1"), false);
  assert.equal(onConnection(null, "c1"), false);
  assert.equal(onConnection("c1", "c1"), false);
});

test("fromBridge keeps what the room knows, in its shape", () => {
  assert.deepEqual(fromBridge({ type: "result", id: 3, ok: false }), { type: "result", id: 3, ok: false, refused: "tool-error", path: "", message: "" });
  assert.deepEqual(fromBridge({ type: "result", id: 3, ok: true, result: "1" }), { type: "result", id: 3, ok: true, result: "1" });
  assert.equal(fromBridge({ type: "result", id: "3", ok: true }), null);
  assert.deepEqual(fromBridge({ type: "ready", tools: "no" }).tools, []);
  assert.equal(fromBridge({ type: "connect" }), null);
  assert.equal(fromBridge(null), null);
  assert.deepEqual(toBridge.cancel(7), { type: "cancel", id: 7 });
  assert.deepEqual(fromBridge({ type: "app_error", kind: "x", message: 1, file: "a.js", line: 2.5, column: 4, extra: true }),
    { type: "app_error", kind: "error", message: "", file: "a.js", line: 0, column: 4 });
  assert.deepEqual(fromBridge({ type: "tools", tools: [], refused: "no" }).refused, []);
  assert.deepEqual(fromBridge({ type: "attention", on: "yes" }), { type: "attention", on: false });
  assert.deepEqual(fromBridge({ type: "notice", kind: "alert", text: 3 }), { type: "notice", kind: "alert", text: "" });
  assert.equal(fromBridge({ type: "download", name: "a.txt", blob: "not a blob" }), null);
  assert.equal(fromBridge({ type: "download", name: "a.txt", blob: new Blob(["x"]) }).name, "a.txt");
});

// A bridge's hello names its document, so that the room connects a document once however often it says
// hello (once loaded, once more when a room that listened late asks: room_ready).
test("bridgeHello is the hello of this launch's bridge, with its document's id", () => {
  assert.equal(bridgeHello({ type: "bridge_ready", launchId: "L", doc: "d1" }, "L"), "d1");
  assert.equal(bridgeHello({ type: "bridge_ready", launchId: "other", doc: "d1" }, "L"), null);
  assert.equal(bridgeHello({ type: "bridge_ready", launchId: "L" }, "L"), null);
  assert.equal(bridgeHello({ type: "bridge_ready", launchId: "L", doc: 7 }, "L"), null);
  assert.equal(bridgeHello({ type: "connect", launchId: "L", doc: "d1" }, "L"), null);
  assert.equal(bridgeHello(null, "L"), null);
  assert.deepEqual(toBridge.roomReady(), { type: "room_ready" });
});
