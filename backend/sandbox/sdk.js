/* Voicebox mini-app SDK, injected by the asset server right after the app's <!doctype html> (so Standards
 * Mode is kept). It gives the app the WebMCP API (docs/webmcp.md): window.webMcp, navigator.modelContext and
 * document.modelContext (one object) with registerTool(…), unregisterTool, provideContext, clearContext and
 * ready(); a document-local in-memory localStorage, sessionStorage and document.cookie (nothing persists
 * across launches); dialogs as notices on the app's pop-over; a navigator.serviceWorker that registers
 * nothing. It talks to the bridge only on the connection window.parent names after our mini_app_ready:
 * its port, or (WebKit) window messages with its name (docs/sandbox.md, "Bridge ↔ app").
 *
 * The server passes this function its sections (sdk-*.js: declarative forms, capabilities, IndexedDB), each
 * a function of the `sdk` object below; see sandbox.SDKScript. */
(function (sections) {
  "use strict";
  if (window.webMcp && window.webMcp.__voicebox) return;
  var parentWin = window.parent;
  var conn = "", port = null, bridgeOrigin = "", queue = [];
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

  // ---- the connection ----
  function post(m) {
    if (port) return port.postMessage(m);
    m.conn = conn;
    parentWin.postMessage(m, bridgeOrigin);
  }
  function send(m) { if (conn) post(m); else queue.push(m); }
  function onWindowMessage(e) {
    if (e.source !== parentWin || parentWin === window) return;
    var d = e.data;
    if (!d || typeof d !== "object") return;
    if (conn) { if (!port && d.conn === conn) onBridge(d); return; }
    if (d.type !== "voicebox_port" || typeof d.conn !== "string" || !d.conn) return;
    conn = d.conn;
    bridgeOrigin = e.origin;
    if (e.ports && e.ports[0]) {
      port = e.ports[0];
      port.onmessage = function (ev) { if (ev.data) onBridge(ev.data); };
      window.removeEventListener("message", onWindowMessage, true);
    }
    var q = queue; queue = [];
    for (var i = 0; i < q.length; i++) post(q[i]);
  }
  window.addEventListener("message", onWindowMessage, true);
  // On the connection, so in order with the registrations: the document finished loading (a page that never
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
    if (!conn || !running.delete(callId)) return; // one answer per call; a cancelled call gets none
    var text;
    if (ok) {
      try { text = JSON.stringify(value === undefined ? null : value); } catch (e) { ok = false; value = "the tool's result is not JSON data: " + e.message; }
    }
    if (ok) post({ type: "tool_result", callId: callId, ok: true, result: text === undefined ? "null" : text });
    else post({ type: "tool_result", callId: callId, ok: false, error: String(value) });
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
  function onBridge(d) {
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
      case "ping": post({ type: "pong", id: d.id }); break;
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

  // ---- the app's own errors: its window says it is broken (docs/room.md, "Feedback") ----
  // Uncaught errors and unhandled rejections go to the bridge with file and line, at most `max` per
  // document (the bridge bounds them again: it cannot trust this realm). WebKit hides the details of an
  // error thrown in a sandboxed page's own scripts ("Script error."), so the callbacks the page hands to
  // timers, animation frames and event listeners run inside a catch that reads the error itself, then
  // throws it on as before.
  function reportErrors(max) {
    var left = max, caught = null;
    // This script is inlined into the app's page (sandbox.InjectSDK): a line of the page's own scripts is
    // its line in the page the app wrote plus the lines of this script.
    var own = 0;
    try { own = document.currentScript ? document.currentScript.textContent.split("\n").length - 1 : 0; } catch (e) { own = 0; }
    function report(kind, message, file, line, column) {
      if (left <= 0) return;
      left--;
      if (own && file && file === String(location.href) && line > own) line -= own;
      send({ type: "app_error", kind: kind, message: String(message).slice(0, 500), file: String(file || "").slice(0, 500),
        line: Number(line) | 0, column: Number(column) | 0 });
    }
    function reportThrown(kind, err) {
      var msg, at = null;
      try {
        msg = err && typeof err.message === "string" ? (err.name ? err.name + ": " : "") + err.message : String(err);
        at = err && typeof err.stack === "string" ? /(\S+?):(\d+):(\d+)\)?\s*$/m.exec(err.stack.split("\n").slice(0, 3).join("\n")) : null;
      } catch (e) { msg = kind === "rejection" ? "a promise was rejected" : "an error"; }
      report(kind, msg, at ? at[1].replace(/^\(|^.*@/, "") : "", at ? at[2] : 0, at ? at[3] : 0);
    }
    function guard(fn) {
      if (typeof fn !== "function") return fn;
      return function () {
        try { return fn.apply(this, arguments); } catch (err) { caught = err; reportThrown("error", err); throw err; }
      };
    }
    ["setTimeout", "setInterval", "requestAnimationFrame", "queueMicrotask"].forEach(function (name) {
      var orig = window[name];
      if (typeof orig !== "function") return;
      define(window, name, { writable: true, value: function (fn) { var a = Array.prototype.slice.call(arguments); a[0] = guard(fn); return orig.apply(window, a); } });
    });
    var ET = window.EventTarget && window.EventTarget.prototype, wrapped = new WeakMap();
    if (ET && ET.addEventListener) {
      var add = ET.addEventListener, remove = ET.removeEventListener;
      var wrapperOf = function (fn) {
        if (typeof fn !== "function") return fn;
        if (!wrapped.has(fn)) wrapped.set(fn, guard(fn));
        return wrapped.get(fn);
      };
      // A page's bare addEventListener(…) calls this with no receiver (this SDK is strict): that is the window.
      var self = function (o) { return o === undefined || o === null ? window : o; };
      define(ET, "addEventListener", { writable: true, value: function (type, fn, opts) { return add.call(self(this), type, wrapperOf(fn), opts); } });
      define(ET, "removeEventListener", { writable: true, value: function (type, fn, opts) { return remove.call(self(this), type, typeof fn === "function" && wrapped.has(fn) ? wrapped.get(fn) : fn, opts); } });
    }
    window.addEventListener("error", function (e) {
      if (!e || typeof e.message !== "string") return; // a resource that failed to load is not a script error
      if (caught !== null) { caught = null; return; } // reported from the catch, with its details
      report("error", e.message || "error", e.filename, e.lineno, e.colno);
    });
    window.addEventListener("unhandledrejection", function (e) { reportThrown("rejection", e ? e.reason : undefined); });
  }
  reportErrors(20);

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

  parentWin.postMessage({ type: "mini_app_ready" }, "*"); // only a hello: the bridge answers naming the connection
})([/*SECTIONS*/]);
