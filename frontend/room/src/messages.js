// The messages of the sandbox protocol (docs/sandbox.md, "Protocol") and of the room's request channel:
// one table of their types, the constructors the room sends with, and the checks of what it receives.
// The bridge and the SDK are classic scripts on the sandbox's origin and cannot import this module;
// frontend/messages.test.mjs reads them (and Go's request ops) and fails when a type one of them sends or handles
// is missing here, or the reverse. This module touches no DOM, so that node can import it.

export const TYPES = {
  // window messages: the bridge's hello to the room, the room's answer naming the connection, the room's
  // request for the hello again (a frame that loaded before the room listened); the app's hello to the
  // bridge, the bridge's answer naming that connection (each answer carries a port where the room's has one)
  handshake: ["bridge_ready", "connect", "room_ready", "mini_app_ready", "voicebox_port"],
  // room → bridge, on the connection: its port, or window messages in WebKit (docs/sandbox.md)
  toBridge: ["call", "cancel", "reload", "ping"],
  // bridge → room, on the connection (window messages carry its name)
  // (notice, download, clipboard, attention: what the room does for the app, docs/webmcp.md; app_error: the
  // app's own uncaught errors, docs/room.md)
  fromBridge: ["result", "ready", "tools", "unloaded", "verdict", "pong", "closing", "notice", "download", "clipboard", "attention",
    "app_error"],
  // bridge → app, on the app's port
  toApp: ["call_tool", "cancel_call", "register_result", "ping", "answer"],
  // app → bridge, on the app's port
  fromApp: ["register_tool", "unregister_tool", "ready", "loaded", "unloading", "tool_result", "pong",
    "notice", "download", "clipboard", "attention", "app_error"],
  // Go → room, on the room's request channel (backend/registry: Op…)
  requestOps: ["call", "launch", "close", "cancel"],
};

// What the room sends a bridge.
export const toBridge = {
  connect: (conn) => ({ type: "connect", conn }),
  roomReady: () => ({ type: "room_ready" }), // a window message: say bridge_ready again if not connected yet
  call: (id, name, args) => ({ type: "call", id, name, args }),
  cancel: (id) => ({ type: "cancel", id }), // the bridge answers the call `cancelled` and cancels it in the app
  reload: () => ({ type: "reload" }),
  ping: (id) => ({ type: "ping", id }),
};

// onConnection says whether a bridge's window message carries the name of the room's connection with it
// (the caller has checked its source and origin): what an earlier document of the frame sent does not.
export const onConnection = (d, conn) => Boolean(d) && typeof d === "object" && d.conn === conn;

// bridgeHello returns the id of the bridge document that says hello in a window message when it is the
// bridge with this launch id, else null (the caller has checked its source and origin). A document may say
// it twice (once loaded, once more when asked: toBridge.roomReady); it is connected once.
export const bridgeHello = (d, launchId) =>
  Boolean(d) && d.type === "bridge_ready" && d.launchId === launchId && typeof d.doc === "string" && d.doc !== "" ? d.doc : null;

const isObject = (d) => d !== null && typeof d === "object";
const text = (v) => (typeof v === "string" ? v : "");
const list = (v) => (Array.isArray(v) ? v : []);

// fromBridge returns a message from a bridge in the shape the room relies on, or null when it is
// not one the room knows: every field the room reads has its type (a missing text is "", a missing list []).
export function fromBridge(d) {
  if (!isObject(d)) return null;
  switch (d.type) {
    case "result":
      if (typeof d.id !== "number") return null;
      return d.ok === true
        ? { type: "result", id: d.id, ok: true, result: text(d.result) }
        : { type: "result", id: d.id, ok: false, refused: text(d.refused) || "tool-error", path: text(d.path), message: text(d.message) };
    case "pong":
      return typeof d.id === "number" ? { type: "pong", id: d.id } : null;
    case "ready":
    case "tools":
      return { ...d, tools: list(d.tools), refused: list(d.refused) }; // refused: the contract's verdicts
    case "unloaded":
      return { type: "unloaded" };
    case "verdict":
      return { type: "verdict", verdict: isObject(d.verdict) ? d.verdict : {} };
    case "closing": // the bridge closes an app that churns its tools (docs/sandbox.md)
      return { type: "closing", message: text(d.message) };
    case "app_error": // the app's uncaught error or unhandled rejection (apperrors.js)
      return { type: "app_error", kind: d.kind === "rejection" ? "rejection" : "error", message: text(d.message), file: text(d.file),
        line: Number.isInteger(d.line) && d.line > 0 ? d.line : 0, column: Number.isInteger(d.column) && d.column > 0 ? d.column : 0 };
    // The bridge has checked these: the bounds, the person's gesture, the call in flight (docs/webmcp.md).
    case "notice":
      return { type: "notice", kind: text(d.kind), text: text(d.text) };
    case "download":
      return d.blob instanceof Blob ? { type: "download", name: text(d.name), blob: d.blob } : null;
    case "clipboard":
      return { type: "clipboard", text: text(d.text) };
    case "attention":
      return { type: "attention", on: d.on === true };
  }
  return TYPES.fromBridge.includes(d.type) ? d : null;
}
