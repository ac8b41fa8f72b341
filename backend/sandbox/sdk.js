/* Voicebox mini-app SDK, injected by the asset server right after the app's <!doctype html> (so Standards
 * Mode is kept). It gives the app the WebMCP API (docs/webmcp.md): window.webMcp, navigator.modelContext and
 * document.modelContext (one object) with registerTool(…), unregisterTool, provideContext, clearContext and
 * ready(); a document-local in-memory localStorage, sessionStorage and document.cookie (nothing persists
 * across launches); dialogs as notices on the app's pop-over; a navigator.serviceWorker that registers
 * nothing. It talks to the bridge only over the MessagePort the bridge transfers after our mini_app_ready,
 * accepted only from window.parent.
 *
 * The server passes this function its sections (sdk-*.js: declarative forms, capabilities, IndexedDB), each
 * a function of the `sdk` object below; see sandbox.SDKScript. */
(function (sections) {
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

  // ---- dialogs: notices on the app's pop-over ----
  // The sandbox (no allow-modals) keeps dialogs from blocking the room. A page still gets what a browser that
  // cannot ask the person gives it: alert() returns at once, confirm() false, prompt() null. The room shows
  // what the page said, and which answer it got, as a notice on the app's pop-over.
  function notice(kind, text) {
    send({ type: "notice", kind: kind, text: String(text === undefined ? "" : text).slice(0, 500) });
  }
  define(window, "alert", { writable: true, value: function (m) { notice("alert", m); } });
  define(window, "confirm", { writable: true, value: function (m) { notice("confirm", m); return false; } });
  define(window, "prompt", { writable: true, value: function (m) { notice("prompt", m); return null; } });
  define(window, "print", { writable: true, value: function () {} });

  // ---- service workers: none, as in a browser that has them switched off ----
  // Reading navigator.serviceWorker in a sandboxed document throws; pages that register one for offline use
  // expect an object whose register() rejects.
  var workers = new EventTarget();
  workers.controller = null;
  workers.ready = new Promise(function () {}); // no worker ever controls this page
  workers.register = function () {
    return Promise.reject(new DOMException("Service workers are not available to mini-apps", "SecurityError"));
  };
  workers.getRegistration = function () { return Promise.resolve(undefined); };
  workers.getRegistrations = function () { return Promise.resolve([]); };
  workers.startMessages = function () {};
  define(navigator, "serviceWorker", { enumerable: true, get: function () { return workers; } });

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

  // ask sends a request the bridge answers with {type:"answer", id, ok, message} (a download, a copy).
  var asks = new Map(), nextAsk = 1;
  function ask(m) {
    return new Promise(function (resolve, reject) {
      m.id = nextAsk++;
      asks.set(m.id, { resolve: resolve, reject: reject });
      send(m);
    });
  }

  function reply(callId, ok, value) {
    if (!port || !running.delete(callId)) return; // one answer per call; a cancelled call gets none
    var text;
    if (ok) {
      try { text = JSON.stringify(value === undefined ? null : value); } catch (e) { ok = false; value = "the tool's result is not JSON data: " + e.message; }
    }
    if (ok) port.postMessage({ type: "tool_result", callId: callId, ok: true, result: text === undefined ? "null" : text });
    else port.postMessage({ type: "tool_result", callId: callId, ok: false, error: String(value) });
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

  // A tool runs with execute(input, client): client.signal aborts when the bridge gives up on the call
  // (its 5,000 ms bound), and client.requestUserInteraction(cb) brings the app to the front with a "needs
  // you" state while cb runs; the call still ends at its bound.
  var running = new Map(); // callId → AbortController of a call in flight
  function runTool(d) {
    var fn = executes.get(d.name);
    var ac = new AbortController();
    running.set(d.callId, ac);
    if (typeof fn !== "function") return reply(d.callId, false, "the app has no tool " + JSON.stringify(String(d.name)));
    var client = {
      signal: ac.signal,
      requestUserInteraction: function (cb) {
        send({ type: "attention", callId: d.callId, on: true });
        return Promise.resolve().then(function () { return typeof cb === "function" ? cb() : undefined; }).finally(function () {
          send({ type: "attention", callId: d.callId, on: false });
        });
      }
    };
    fire("toolactivated", d.name);
    var out;
    try { out = fn(d.args || {}, client); } catch (err) { return reply(d.callId, false, errorText(err)); }
    if (out && typeof out.then === "function") {
      out.then(function (v) { settle(d.callId, v); }, function (err) { reply(d.callId, false, errorText(err)); });
    } else settle(d.callId, out);
  }
  function onPort(e) {
    var d = e.data;
    if (!d || typeof d !== "object") return;
    switch (d.type) {
      case "call_tool": runTool(d); break;
      case "cancel_call": {
        var ac = running.get(d.callId);
        if (!ac) break;
        running.delete(d.callId);
        ac.abort(new DOMException("the call was cancelled", "AbortError"));
        fire("toolcancel", String(d.name || ""));
        break;
      }
      case "ping": port.postMessage({ type: "pong", id: d.id }); break;
      case "register_result": {
        var r = registering.get(d.seq);
        registering.delete(d.seq);
        if (d.verdict && !d.verdict.ok) {
          try { console.warn("webMcp: tool " + JSON.stringify(d.verdict.name) + " refused: " + d.verdict.refused + ": " + d.verdict.message); } catch (err) { /* no console */ }
        }
        if (r) r(); // refused by the contract, a tool still counts as registered for the page (docs/webmcp.md)
        break;
      }
      case "answer": {
        var a = asks.get(d.id);
        if (!a) break;
        asks.delete(d.id);
        if (d.ok === true) a.resolve(); else a.reject(new DOMException(String(d.message || "refused"), "NotAllowedError"));
        break;
      }
    }
  }

  // ---- the API (docs/webmcp.md says where it follows the draft and where the browser) ----
  var WIRE_KEYS = ["name", "description", "parameters", "inputSchema", "annotations", "title"];
  var registering = new Map(); // seq → resolve of registerTool's promise
  function declare(decl, exec, refused) {
    var wire = {};
    for (var i = 0; i < WIRE_KEYS.length; i++) if (WIRE_KEYS[i] in decl) wire[WIRE_KEYS[i]] = decl[WIRE_KEYS[i]];
    try { wire = JSON.parse(JSON.stringify(wire)); } catch (e) { wire = { name: String(decl.name), description: "", parameters: "not JSON data" }; }
    var name = typeof decl.name === "string" ? decl.name : "";
    var dup = executes.has(name);
    if (!dup) executes.set(name, exec); // the first declaration of a name wins, as in the bridge
    var m = { type: "register_tool", seq: ++seq, tool: wire };
    if (refused) m.refused = refused;
    send(m);
    fire("toolchange", name);
    return { name: name, seq: seq, dup: dup };
  }
  function registerTool(decl, options) {
    if (!decl || typeof decl !== "object") return Promise.reject(new TypeError("registerTool expects a tool declaration object"));
    if (typeof decl.execute !== "function") return Promise.reject(new TypeError("registerTool: execute must be a function"));
    var signal = options && options.signal;
    if (signal && signal.aborted) return Promise.reject(signal.reason);
    var d = declare(decl, decl.execute);
    var p = new Promise(function (resolve, reject) {
      // The bridge refuses the duplicate too (so the room shows it); the page hears it as the browser says it.
      if (d.dup) return reject(new DOMException("Duplicate tool name", "InvalidStateError"));
      registering.set(d.seq, resolve);
      if (signal) signal.addEventListener("abort", function () { unregisterTool(d.name); reject(signal.reason); }, { once: true });
    });
    p.unregister = function () { unregisterTool(d.name); }; // Voicebox's older handle, kept for its pages
    return p;
  }
  function unregisterTool(name) {
    name = String(name);
    if (!executes.has(name)) return;
    executes.delete(name);
    send({ type: "unregister_tool", name: name });
    fire("toolchange", name);
  }
  function ready() {
    if (readySent) return;
    readySent = true;
    send({ type: "ready" });
  }
  function provideContext(ctx) {
    Array.from(executes.keys()).forEach(unregisterTool);
    ((ctx && ctx.tools) || []).forEach(function (t) { registerTool(t).catch(function () {}); });
    ready();
  }
  function clearContext() { Array.from(executes.keys()).forEach(unregisterTool); }

  // One object under three names, an EventTarget like the browser's ModelContext: toolchange, toolactivated
  // (a call starts) and toolcancel (a call ran out of time) carry the tool's name in event.toolName.
  var api = new EventTarget();
  function fire(type, name) {
    var ev = new Event(type);
    Object.defineProperty(ev, "toolName", { value: name, enumerable: true });
    try { api.dispatchEvent(ev); } catch (err) { /* a throwing listener is the page's own */ }
  }
  var methods = { registerTool: registerTool, unregisterTool: unregisterTool, ready: ready, provideContext: provideContext, clearContext: clearContext };
  Object.keys(methods).forEach(function (k) { Object.defineProperty(api, k, { value: methods[k], enumerable: true }); });
  ["toolchange", "toolactivated", "toolcancel"].forEach(function (type) {
    var h = null;
    Object.defineProperty(api, "on" + type, {
      enumerable: true,
      get: function () { return h; },
      set: function (fn) {
        if (h) api.removeEventListener(type, h);
        h = typeof fn === "function" ? fn : null;
        if (h) api.addEventListener(type, h);
      }
    });
  });
  Object.defineProperty(api, "__voicebox", { value: true });
  Object.freeze(api);
  define(window, "webMcp", { value: api, writable: false, enumerable: false });
  define(navigator, "modelContext", { value: api, writable: false, enumerable: false });
  define(document, "modelContext", { value: api, writable: false, enumerable: false });

  // What the sections (sdk-*.js) get: the port, the tool table and the helpers above.
  var sdk = Object.freeze({
    send: send, ask: ask, notice: notice, define: define, fire: fire,
    declare: declare, unregister: unregisterTool
  });
  for (var i = 0; i < sections.length; i++) {
    try { sections[i](sdk); } catch (err) { try { console.warn("Voicebox SDK:", err); } catch (e) { /* no console */ } }
  }

  parentWin.postMessage({ type: "mini_app_ready" }, "*"); // only a hello: the bridge answers with a port
})([/*SECTIONS*/]);
