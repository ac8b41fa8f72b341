/* Voicebox mini-app SDK, injected by the asset server right after the app's <!doctype html> (so Standards
 * Mode is kept). It gives the app window.webMcp.registerTool(…) and window.webMcp.ready() (with the WebMCP
 * spellings navigator.modelContext and document.modelContext), a document-local in-memory localStorage,
 * sessionStorage and document.cookie (nothing persists across launches), and talks to the bridge only over
 * the MessagePort the bridge transfers after our mini_app_ready, accepted only from window.parent. */
(function () {
  "use strict";
  if (window.webMcp && window.webMcp.__voicebox) return;
  var parentWin = window.parent;
  var port = null, queue = [];
  var executes = new Map();
  var readySent = false, seq = 0;

  // ---- storage that forgets ----
  function makeStorage() {
    var m = new Map();
    var api = {
      key: function (i) { i = Math.floor(Number(i)); if (!(i >= 0 && i < m.size)) return null; return Array.from(m.keys())[i]; },
      getItem: function (k) { k = String(k); return m.has(k) ? m.get(k) : null; },
      setItem: function (k, v) { m.set(String(k), String(v)); },
      removeItem: function (k) { m.delete(String(k)); },
      clear: function () { m.clear(); }
    };
    Object.defineProperty(api, "length", { configurable: true, get: function () { return m.size; } });
    return new Proxy(api, {
      get: function (t, p) { if (typeof p === "symbol" || p in t) return t[p]; return m.has(p) ? m.get(p) : undefined; },
      set: function (t, p, v) { if (typeof p === "symbol" || p in t) return false; m.set(p, String(v)); return true; },
      has: function (t, p) { return (typeof p === "string" && m.has(p)) || p in t; },
      deleteProperty: function (t, p) { if (typeof p === "string") m.delete(p); return true; },
      ownKeys: function () { return Array.from(m.keys()); },
      getOwnPropertyDescriptor: function (t, p) {
        if (typeof p === "string" && m.has(p)) return { value: m.get(p), writable: true, enumerable: true, configurable: true };
        return undefined;
      }
    });
  }
  function define(obj, name, desc) {
    try { desc.configurable = true; Object.defineProperty(obj, name, desc); } catch (e) { /* keep the platform's */ }
  }
  var local = makeStorage(), session = makeStorage();
  define(window, "localStorage", { enumerable: true, get: function () { return local; } });
  define(window, "sessionStorage", { enumerable: true, get: function () { return session; } });
  var jar = new Map();
  define(document, "cookie", {
    get: function () { return Array.from(jar, function (kv) { return kv[0] ? kv[0] + "=" + kv[1] : kv[1]; }).join("; "); },
    set: function (v) {
      var pair = String(v).split(";")[0], i = pair.indexOf("=");
      var k = i < 0 ? "" : pair.slice(0, i).trim(), val = i < 0 ? pair.trim() : pair.slice(i + 1).trim();
      if (/;\s*max-age=\s*-?0\b|;\s*expires=\s*thu, 01 jan 1970/i.test(String(v))) jar.delete(k); else jar.set(k, val);
    }
  });

  // The sandbox (no allow-modals) already keeps dialogs from blocking the room; these stubs also keep them
  // quiet in engines that would show them, for code that calls them from this realm.
  define(window, "alert", { writable: true, value: function () {} });
  define(window, "confirm", { writable: true, value: function () { return false; } });
  define(window, "prompt", { writable: true, value: function () { return null; } });
  define(window, "print", { writable: true, value: function () {} });

  // ---- the port ----
  function send(m) { if (port) port.postMessage(m); else queue.push(m); }
  function onWindowMessage(e) {
    if (port || e.source !== parentWin || parentWin === window) return;
    var d = e.data;
    if (!d || d.type !== "voicebox_port" || !e.ports || !e.ports[0]) return;
    port = e.ports[0];
    port.onmessage = onPort;
    window.removeEventListener("message", onWindowMessage, true);
    var q = queue; queue = [];
    for (var i = 0; i < q.length; i++) port.postMessage(q[i]);
  }
  window.addEventListener("message", onWindowMessage, true);
  // Over the port, so in order with the registrations: the document finished loading (a page that never
  // calls ready() is ready a moment later), and the document is going away (its tools go with it).
  window.addEventListener("load", function () { send({ type: "loaded" }); });
  window.addEventListener("pagehide", function () { send({ type: "unloading" }); });

  // A tool runs with execute(input, client): client.signal aborts when the caller cancels the call.
  var running = new Map(); // callId → AbortController of a call in flight
  function reply(callId, ok, value) {
    running.delete(callId);
    if (!port) return;
    if (ok) {
      var text;
      try { text = JSON.stringify(value === undefined ? null : value); } catch (e) { return reply(callId, false, "the tool's result is not JSON data: " + e.message); }
      if (text === undefined) text = "null";
      port.postMessage({ type: "tool_result", callId: callId, ok: true, result: text });
    } else {
      port.postMessage({ type: "tool_result", callId: callId, ok: false, error: String(value) });
    }
  }
  function errorText(err) { return err && typeof err.message === "string" ? err.message : String(err); }
  function settle(callId, out) {
    // MCP style: {content:[…], isError:true} is a failure; any other value (plain or {content:[…]}) is the result.
    if (out && typeof out === "object" && out.isError === true && Array.isArray(out.content)) {
      var text = out.content.map(function (c) { return c && typeof c.text === "string" ? c.text : ""; }).join("\n");
      return reply(callId, false, text || "the tool reported an error");
    }
    reply(callId, true, out);
  }
  function onPort(e) {
    var d = e.data;
    if (!d || typeof d !== "object") return;
    if (d.type === "call_tool") {
      var fn = executes.get(d.name);
      if (typeof fn !== "function") return reply(d.callId, false, "the app has no tool " + JSON.stringify(String(d.name)));
      var out, ac = new AbortController();
      running.set(d.callId, ac);
      try { out = fn(d.args || {}, { signal: ac.signal }); } catch (err) { return reply(d.callId, false, errorText(err)); }
      if (out && typeof out.then === "function") {
        out.then(function (v) { settle(d.callId, v); }, function (err) { reply(d.callId, false, errorText(err)); });
      } else settle(d.callId, out);
    } else if (d.type === "cancel_call") {
      var inFlight = running.get(d.callId);
      if (inFlight) { running.delete(d.callId); inFlight.abort(new DOMException("the call was cancelled", "AbortError")); }
    } else if (d.type === "ping") {
      port.postMessage({ type: "pong", id: d.id });
    } else if (d.type === "register_result" && d.verdict && !d.verdict.ok) {
      try { console.warn("webMcp: tool " + JSON.stringify(d.verdict.name) + " refused: " + d.verdict.refused + ": " + d.verdict.message); } catch (err) { /* no console */ }
    }
  }

  // ---- the API ----
  var WIRE_KEYS = ["name", "description", "parameters", "inputSchema", "annotations", "title"];
  function registerTool(decl) {
    if (!decl || typeof decl !== "object") throw new TypeError("registerTool expects a tool declaration object");
    var exec = decl.execute;
    if (typeof exec !== "function") throw new TypeError("registerTool: execute must be a function");
    var wire = {};
    for (var i = 0; i < WIRE_KEYS.length; i++) if (WIRE_KEYS[i] in decl) wire[WIRE_KEYS[i]] = decl[WIRE_KEYS[i]];
    try { wire = JSON.parse(JSON.stringify(wire)); } catch (e) { wire = { name: String(decl.name), description: "", parameters: "not JSON data" }; }
    var name = typeof decl.name === "string" ? decl.name : "";
    if (!executes.has(name)) executes.set(name, exec); // the first declaration of a name wins, as in the bridge
    send({ type: "register_tool", seq: ++seq, tool: wire });
    return { unregister: function () { unregisterTool(name); } };
  }
  function unregisterTool(name) {
    name = String(name);
    if (!executes.has(name)) return;
    executes.delete(name);
    send({ type: "unregister_tool", name: name });
  }
  function ready() {
    if (readySent) return;
    readySent = true;
    send({ type: "ready" });
  }
  function provideContext(ctx) {
    Array.from(executes.keys()).forEach(unregisterTool);
    ((ctx && ctx.tools) || []).forEach(registerTool);
    ready();
  }
  function clearContext() { Array.from(executes.keys()).forEach(unregisterTool); }

  var api = Object.freeze({
    registerTool: registerTool, unregisterTool: unregisterTool, ready: ready,
    provideContext: provideContext, clearContext: clearContext, __voicebox: true
  });
  define(window, "webMcp", { value: api, writable: false, enumerable: false });
  define(navigator, "modelContext", { value: api, writable: false, enumerable: false });
  define(document, "modelContext", { value: api, writable: false, enumerable: false });

  parentWin.postMessage({ type: "mini_app_ready" }, "*"); // only a hello: the bridge answers with a port
})();
