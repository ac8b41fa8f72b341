/* Voicebox bridge: the outer mediator between the room and one sandboxed mini-app (docs/sandbox.md,
 * "Origins and frames" and "Protocol"). It runs on the asset server's origin, never the room's. The room's
 * origin is injected by the server into #voicebox-bridge-config; nothing is read from the URL.
 *
 * Room ↔ bridge: one bridge_ready window message to the room (target: the exact room origin), answered by
 * a "connect" window message from window.parent at the room origin that names the connection (conn) and
 * may carry a MessagePort. With a port, everything else travels over it; without one (WebKit, where a
 * port message costs a trip through another process: docs/performance.md), over window messages aimed at
 * the room's exact origin, taken only from window.parent at that origin with conn. Every message to the
 * room carries conn, so that the room drops what an earlier document of this frame sent. Bridge ↔ inner:
 * the inner frame's SDK says mini_app_ready (accepted only from inner.contentWindow); each time it does,
 * once the room has connected, the bridge names a fresh connection for that document, on a fresh
 * MessageChannel when the room's has a port, else in window messages taken only from inner.contentWindow.
 * A frame that the room's document brought may load before the room listens: the room then asks with
 * room_ready, and the bridge says bridge_ready again while it has no connection (the same document id, so
 * the room connects it once).
 * Every other window message is ignored. Declarations and arguments are checked with the JavaScript twin of
 * the Go tool contract (toolcontract.js); the 16-tool, 5,000 ms and 64 KiB bounds are enforced here. */
(function () {
  "use strict";
  function refuse(msg) {
    var p = document.createElement("p");
    p.textContent = msg;
    (document.body || document.documentElement).appendChild(p);
  }
  var cfgEl = document.getElementById("voicebox-bridge-config");
  var cfg = null;
  try { cfg = JSON.parse(cfgEl.textContent); } catch (e) { cfg = null; }
  if (!cfg || window.top === window.self || window.parent === window.self) {
    refuse("This page is part of the Voicebox room and does not run on its own.");
    return;
  }
  var TC = window.VoiceboxToolContract;
  if (!TC) { refuse("The tool contract did not load."); return; }

  var ROOM = cfg.roomOrigin;
  var LIMITS = TC.limits;
  var TIMEOUT = LIMITS.callTimeoutMs;
  var MAX_OUT = LIMITS.maxOutputBytes;
  var TIMEOUT_MSG = "tool execution timed out after " + TIMEOUT + "ms";
  var OUT_MSG = "output over budget (max 64KB)";
  var IMPLICIT_READY_MS = 1000; // a page that never calls ready() is ready this long after it loads
  var MAX_ERROR = 2048;
  // Tool churn (docs/sandbox.md, Bounds): changes to the tool set reach the room at most once per window;
  // an app that changes its tools in more than CHURN_WINDOWS windows in a row, or makes more than CHURN_OPS
  // registrations without a quiet window, is closed.
  var TOOLS_WINDOW_MS = 250, CHURN_WINDOWS = 16, CHURN_OPS = 1024;
  var MAX_REFUSED = 32; // refused registrations remembered per document, for the room to show

  var roomConn = "", roomPort = null, outbox = []; // the room's connection, once it said connect
  // The app document's connection (onHello): its name, and its port when the room's has one.
  var inner = null, innerConn = "", innerPort = null, helloWaiting = false;
  var DOC = newConn(); // this document's id in bridge_ready (a random name, as a connection's)
  var tools = new Map(), order = [];
  var refused = new Map(); // name → verdict of a refused registration of this document (shown in the room)
  var ready = false, helloSinceLoad = false, implicitTimer = 0;
  var calls = new Map(), nextCall = 1;
  var pings = new Map(), nextPing = 1; // our ping id → the room's, or our own question (onInnerLoad)

  function refusal(code, message, path) { return { ok: false, refused: code, path: path || "", message: message }; }
  function toRoom(m) {
    if (!roomConn) { outbox.push(m); return; }
    m.conn = roomConn;
    if (roomPort) roomPort.postMessage(m); else window.parent.postMessage(m, ROOM);
  }
  // toApp sends to the app's current document, on its connection (nothing before its hello). The app's
  // origin is opaque: "*", to that exact contentWindow.
  function toApp(m) {
    if (innerPort) return innerPort.postMessage(m);
    if (!innerConn || !inner) return;
    m.conn = innerConn;
    inner.contentWindow.postMessage(m, "*");
  }
  function newConn() {
    var b = new Uint8Array(8);
    crypto.getRandomValues(b);
    return Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join("");
  }
  function answer(id, r) {
    toRoom({ type: "result", id: id, ok: false, refused: r.refused, path: r.path || "", message: r.message });
  }
  function toolList() { return order.map(function (n) { return tools.get(n); }); }
  function refusedList() { return Array.from(refused.values()); }

  // ---- the room ----
  window.addEventListener("message", function (e) {
    var src = e.source;
    if (!src || src === window) return; // WebKit can report the window itself as the source
    if (src === window.parent && e.origin === ROOM) {
      var d = e.data;
      if (!d || typeof d !== "object") return;
      if (d.type === "room_ready") { if (!roomConn) hello(); return; }
      if (d.type !== "connect") { if (roomConn && !roomPort && d.conn === roomConn) onRoom(d); return; }
      if (!roomConn && typeof d.conn === "string" && d.conn) { // the first connect only
        roomConn = d.conn;
        if (e.ports && e.ports[0]) {
          roomPort = e.ports[0];
          roomPort.onmessage = function (ev) { if (ev.data && typeof ev.data === "object") onRoom(ev.data); };
        }
        var queued = outbox; outbox = [];
        for (var i = 0; i < queued.length; i++) toRoom(queued[i]);
        if (helloWaiting) { helloWaiting = false; onHello(); } // the app's carrier follows the room's
      }
      return;
    }
    if (inner && src === inner.contentWindow) {
      var m = e.data;
      if (!m || typeof m !== "object") return;
      if (m.type === "mini_app_ready") {
        helloSinceLoad = true;
        if (roomConn) onHello(); else helloWaiting = true;
      } else if (innerConn && !innerPort && m.conn === innerConn) onInner(m);
    }
    // anything else (decoy frames, the app posting to us by other names, other windows) is ignored
  });

  function onRoom(d) {
    switch (d.type) {
      case "call": onCall(d); break;
      case "cancel": onCancel(d); break;
      case "ping": onPing(d); break;
      case "reload": reloadApp(); break;
    }
  }

  function onCall(d) {
    var t = typeof d.name === "string" ? tools.get(d.name) : undefined;
    if (!t || !innerConn) return answer(d.id, refusal("unknown-tool", "unknown tool " + JSON.stringify(String(d.name))));
    var v = TC.validateArgs(t, d.args === undefined ? "{}" : d.args);
    if (!v.ok) return answer(d.id, v);
    var cid = nextCall++;
    var timer = setTimeout(function () {
      var c = calls.get(cid);
      if (!c) return;
      cancelInApp(cid, c);
      answer(d.id, refusal("tool-timeout", TIMEOUT_MSG));
    }, TIMEOUT);
    calls.set(cid, { id: d.id, name: t.name, timer: timer, attention: false, formSaid: false });
    toApp({ type: "call_tool", callId: cid, name: t.name, args: v.args });
  }

  // onCancel ends a call the room's caller gave up on: it is answered `cancelled`, the app is told to abort
  // it (its execute's signal), and what the app still answers is dropped.
  function onCancel(d) {
    calls.forEach(function (c, cid) {
      if (c.id !== d.id) return;
      cancelInApp(cid, c);
      answer(d.id, refusal("cancelled", "the caller cancelled the call"));
    });
  }

  // ---- the inner frame ----
  function createInner() {
    inner = document.createElement("iframe");
    inner.id = "inner-app";
    inner.setAttribute("sandbox", "allow-scripts allow-forms"); // never allow-same-origin; forms: form-action keeps them in the app's folder
    inner.setAttribute("referrerpolicy", "no-referrer");
    inner.title = document.title || "mini-app";
    helloSinceLoad = false;
    inner.addEventListener("load", onInnerLoad);
    inner.src = cfg.appSrc;
    document.body.appendChild(inner);
  }

  // reset forgets the current document of the inner frame: its port, its tools, its calls.
  function reset() {
    if (innerPort) { innerPort.onmessage = null; innerPort.close(); innerPort = null; }
    innerConn = "";
    var had = ready || order.length > 0 || refused.size > 0;
    tools.clear(); order = []; refused.clear();
    ready = false;
    clearTimeout(implicitTimer);
    calls.forEach(function (c, cid) {
      endCall(cid, c);
      answer(c.id, refusal("unknown-tool", "the app reloaded before the tool answered"));
    });
    pings.clear();
    churn.forget();
    if (had) toRoom({ type: "unloaded" });
  }

  function onHello() {
    reset();
    churn.op(); // a document that reloads itself over and over churns too: the budget spans the launch
    if (!inner) return;
    innerConn = newConn();
    // An opaque origin: "*", and only the connection's name, its port (where the room's has one) and the
    // app's own URL prefix (cfg.appBase, AppBase in Go).
    var hello = { type: "voicebox_port", appBase: cfg.appBase, conn: innerConn };
    if (roomPort) {
      var ch = new MessageChannel();
      innerPort = ch.port1;
      innerPort.onmessage = function (ev) { if (ev.data && typeof ev.data === "object") onInner(ev.data); };
      inner.contentWindow.postMessage(hello, "*", [ch.port2]);
    } else inner.contentWindow.postMessage(hello, "*");
    implicitTimer = setTimeout(function () { if (!ready && innerConn) markReady(true); }, 10000);
  }

  // A load with no hello since the previous one is either a document without the SDK (the app navigated to
  // one of its images, say: the old document said "unloading" on pagehide, so we have no connection) or,
  // in WebKit, a navigation that was refused (frame-src) and left the app's document where it was: WebKit
  // fires the frame's load event for it, before or after the hello's message by chance. So a document we
  // are still connected to is asked to answer, as a call would be, and forgotten only if it does not.
  function onInnerLoad() {
    var hello = helloSinceLoad;
    helloSinceLoad = false;
    if (hello) return;
    if (!innerConn) return documentWithoutSDK();
    var conn = innerConn, id = nextPing++;
    var timer = setTimeout(function () {
      pings.delete(id);
      if (innerConn === conn) documentWithoutSDK();
    }, TIMEOUT);
    pings.set(id, function () { clearTimeout(timer); });
    toApp({ type: "ping", id: id });
  }

  function documentWithoutSDK() {
    reset();
    withoutSDKAt = Date.now();
    if (withoutSDKAt - blobNavRefusedAt < BLOB_NAV_MS) reloadApp();
  }

  function reloadApp() {
    blobNavRefusedAt = 0; withoutSDKAt = 0;
    reset(); if (inner) inner.remove(); createInner();
  }

  // ---- a download by navigation (docs/webmcp.md) ----
  // A page that saves with `location = URL.createObjectURL(blob)` navigates its own frame to a blob: URL.
  // Nothing in the page can catch that, and in a browser this bridge's frame-src refuses it (in the desktop
  // the guard makes it a download: backend/guard/blobdownload.c), where Chromium leaves the engine's error
  // page instead of the app and WebKit keeps the app. The bridge hears the refusal, tells the person, and
  // loads the app again if its document went, whichever of the refusal and the error page's load comes
  // first. It cannot save the bytes: the blob lives in the app's opaque origin.
  var BLOB_NAV_MS = 5000; // the error page commits right after the refusal
  var blobNavRefusedAt = 0, withoutSDKAt = 0;
  document.addEventListener("securitypolicyviolation", function (e) {
    // Chromium reports the blocked blob: URL as "" (measured), WebKit as "blob" or the URL.
    if (e.effectiveDirective !== "frame-src" || !/^(blob(:|$)|$)/i.test(e.blockedURI)) return;
    blobNavRefusedAt = Date.now();
    toRoom({ type: "notice", kind: "refused", text: "the app tried to save a file by opening it (a blob: URL), " +
      "which Voicebox does only in its desktop app; here the app's download links save files" });
    if (inner && !innerConn && blobNavRefusedAt - withoutSDKAt < BLOB_NAV_MS) reloadApp();
  });

  function markReady(implicit) {
    ready = true;
    clearTimeout(implicitTimer);
    churn.sent(toolList());
    toRoom({ type: "ready", tools: toolList(), refused: refusedList(), implicit: implicit });
  }

  function onInner(d) {
    switch (d.type) {
      case "tool_result": onResult(d); break;
      case "register_tool": onRegister(d); break;
      case "unregister_tool": onUnregister(d); break;
      case "ready": if (!ready) markReady(false); break;
      case "loaded":
        if (!ready) {
          clearTimeout(implicitTimer);
          implicitTimer = setTimeout(function () { if (!ready && innerConn) markReady(true); }, IMPLICIT_READY_MS);
        }
        break;
      case "unloading": reset(); break;
      case "pong": onPong(d); break;
      case "notice": case "download": case "clipboard": case "attention": mediate(d); break;
      case "app_error": onAppError(d); break;
    }
  }

  // ---- the app's own errors (sdk.js reportErrors): to the room, bounded per document ----
  var MAX_APP_ERRORS = 20, appErrors = { conn: "", n: 0 };
  function onAppError(d) {
    if (appErrors.conn !== innerConn) appErrors = { conn: innerConn, n: 0 }; // a new document counts afresh
    if (appErrors.n >= MAX_APP_ERRORS) return;
    appErrors.n++;
    var file = typeof d.file === "string" ? d.file : "";
    if (file.indexOf(cfg.appBase) === 0) file = file.slice(cfg.appBase.length); // the app's own path
    else if (/^[a-z]+:/i.test(file)) file = file.replace(/^[a-z]+:\/\/[^/]*/i, "").split(/[?#]/)[0].split("/").pop() || file;
    var num = function (v) { return typeof v === "number" && v > 0 && v < 1e9 ? Math.floor(v) : 0; };
    toRoom({ type: "app_error", kind: d.kind === "rejection" ? "rejection" : "error", message: String(d.message).slice(0, 500),
      file: file.slice(0, 200), line: num(d.line), column: num(d.column) });
  }

  function onResult(d) {
    var c = calls.get(d.callId);
    if (!c) return; // late (timed out), unknown or forged: dropped
    endCall(d.callId, c);
    if (d.ok !== true) {
      var msg = typeof d.error === "string" && d.error ? d.error : "the tool failed";
      return answer(c.id, refusal("tool-error", msg.length > MAX_ERROR ? msg.slice(0, MAX_ERROR) + "…" : msg));
    }
    var text = d.result;
    if (typeof text !== "string") {
      try { text = JSON.stringify(text === undefined ? null : text); } catch (err) { text = undefined; }
      if (typeof text !== "string") return answer(c.id, refusal("tool-error", "the tool's result is not JSON data"));
    }
    if (text.length * 3 > MAX_OUT && (text.length > MAX_OUT || TC.utf8Length(text) > MAX_OUT)) {
      return answer(c.id, refusal("output-over-budget", OUT_MSG));
    }
    toRoom({ type: "result", id: c.id, ok: true, result: text });
  }

  function onRegister(d) {
    var decl = d.tool;
    var r = TC.validateTool(decl);
    var name = r.ok ? r.tool.name : (decl && typeof decl.name === "string" ? decl.name : "");
    var v;
    if (!r.ok) v = { name: name, ok: false, refused: r.refused, path: r.path, message: r.message };
    else if (d.refused && typeof d.refused === "object") v = selfRefused(name, d.refused);
    else if (tools.has(name)) v = { name: name, ok: false, refused: "duplicate-tool", path: "/name", message: "tool " + JSON.stringify(name) + " is already registered by this app" };
    else if (order.length >= LIMITS.maxTools) v = { name: name, ok: false, refused: "too-many-tools", path: "", message: "an app may register at most " + LIMITS.maxTools + " tools" };
    else {
      tools.set(name, r.tool);
      order.push(name);
      v = { name: name, ok: true };
    }
    toApp({ type: "register_result", seq: d.seq, verdict: v });
    refused.delete(name);
    if (!v.ok) {
      refused.set(name, v);
      if (refused.size > MAX_REFUSED) refused.delete(refused.keys().next().value);
    }
    if (!v.ok && churn.quiet()) toRoom({ type: "verdict", verdict: v });
    churn.op();
  }

  function onUnregister(d) {
    if (typeof d.name === "string" && tools.has(d.name)) {
      tools.delete(d.name);
      order = order.filter(function (n) { return n !== d.name; });
    }
    if (typeof d.name === "string") refused.delete(d.name); // a form that is gone takes its refusal along
    churn.op();
  }

  // ---- pings: the benchmark's floor, relayed with no validation; kept apart from calls ----
  function onPing(d) {
    if (!innerConn) return;
    var id = nextPing++;
    pings.set(id, d.id);
    toApp({ type: "ping", id: id });
  }

  function onPong(d) {
    if (!pings.has(d.id)) return; // not a ping of ours: dropped
    var to = pings.get(d.id); // the room's ping id, or the bridge's own question (onInnerLoad)
    pings.delete(d.id);
    if (typeof to === "function") to(); else toRoom({ type: "pong", id: to });
  }

  // churn coalesces tool-set changes into one "tools" message per window and closes an app that never stops
  // changing them (docs/sandbox.md, Bounds).
  var churn = (function () {
    var timer = 0, windowOps = 0, ops = 0, busyWindows = 0, lastSent = "[[],[]]";
    function flush() {
      timer = 0;
      if (windowOps === 0) { ops = 0; busyWindows = 0; return; } // a quiet window: the budget starts over
      windowOps = 0;
      if (++busyWindows > CHURN_WINDOWS) return close();
      if (ready) {
        var list = toolList(), no = refusedList(), text = JSON.stringify([list, no]);
        if (text !== lastSent) { lastSent = text; toRoom({ type: "tools", tools: list, refused: no }); }
      }
      timer = setTimeout(flush, TOOLS_WINDOW_MS); // watch one more window for quiet
    }
    function close() {
      var msg = "it kept changing its tools (" + ops + " registrations without a pause)";
      reset();
      if (inner) { inner.removeEventListener("load", onInnerLoad); inner.remove(); inner = null; }
      toRoom({ type: "closing", message: msg });
    }
    return {
      op: function () {
        windowOps++;
        if (++ops > CHURN_OPS) return close();
        if (!timer) timer = setTimeout(flush, TOOLS_WINDOW_MS);
      },
      quiet: function () { return ops < 2 * LIMITS.maxTools; }, // refusals reach the activity log until the app churns
      sent: function (list) { lastSent = JSON.stringify([list, refusedList()]); },
      forget: function () { lastSent = "[[],[]]"; } // a new document: its first tool set is news

    };
  })();

  // endCall forgets a call in flight; a "needs you" state it raised ends with it.
  function endCall(cid, c) {
    calls.delete(cid);
    clearTimeout(c.timer);
    if (c.attention) toRoom({ type: "attention", on: false });
  }
  // cancelInApp ends a call the bridge has answered without the app: its execute's signal aborts and
  // toolcancel fires there; what the app still answers is dropped.
  function cancelInApp(cid, c) {
    endCall(cid, c);
    toApp({ type: "cancel_call", callId: cid, name: c.name });
  }

  // selfRefused is the verdict for a declaration the SDK itself says the contract cannot take (a form whose
  // controls cannot make a schema: two controls with one name). It can only refuse the app's own tool.
  function selfRefused(name, why) {
    return { name: name, ok: false, refused: "invalid-tool-parameters", path: String(why.path || "").slice(0, 256),
      message: String(why.message || "the form cannot be a tool").slice(0, 512) };
  }

  // ---- what the room does for the app (docs/webmcp.md): notices, downloads, copies, "needs you" ----
  var NOTICE_KINDS = { alert: 1, confirm: 1, prompt: 1, form: 1, blocked: 1 };
  var NOTICES_PER_SECOND = 5;
  var notices = { second: 0, count: 0 };
  // gesture is the person's recent click or key press in the app: user activation reaches every ancestor
  // frame, so the bridge sees it in its own window, where the app cannot forge it.
  function gesture() { return !!(navigator.userActivation && navigator.userActivation.isActive); }
  function mediationAnswer(d, ok, code, message) {
    if (typeof d.id === "number") toApp({ type: "answer", id: d.id, ok: ok, refused: code, message: message });
    if (!ok) toRoom({ type: "notice", kind: "refused", text: message });
  }
  // formCall marks the call in flight to the tool named name as having said its form is filled in; false
  // when there is none, or it said so already.
  function formCall(name) {
    var found = null;
    calls.forEach(function (c) { if (!found && c.name === name && !c.formSaid) found = c; });
    if (found) found.formSaid = true;
    return !!found;
  }
  function mediate(d) {
    switch (d.type) {
      case "notice": {
        if (!NOTICE_KINDS[d.kind]) return;
        var text = String(d.text).slice(0, 500);
        // "The assistant filled in the form" brings the app to the front: the page may say it only while a
        // caller's call to that form's tool is in flight, and once per call (issue 28; docs/webmcp.md).
        // Anything the page posts alone claims nothing and moves nothing.
        if (d.kind === "form" && !formCall(text)) return;
        var now = Math.floor(Date.now() / 1000);
        if (notices.second !== now) { notices.second = now; notices.count = 0; }
        if (++notices.count > NOTICES_PER_SECOND) return; // a page that alerts in a loop is not heard more often
        toRoom({ type: "notice", kind: d.kind, text: text });
        return;
      }
      case "download": {
        var b = d.blob;
        if (!(b instanceof Blob)) return mediationAnswer(d, false, "download-refused", "a download must be bytes (a Blob)");
        if (b.size > cfg.maxDownloadBytes) return mediationAnswer(d, false, "download-too-large", "the download is " + b.size + " bytes, over the limit of " + cfg.maxDownloadBytes);
        if (!gesture()) return mediationAnswer(d, false, "needs-gesture", "a download needs the person's click in the app");
        toRoom({ type: "download", name: String(d.name || "").slice(0, 255), blob: b });
        return mediationAnswer(d, true);
      }
      case "clipboard": {
        var text = String(d.text);
        if (text.length > cfg.maxCopyChars) return mediationAnswer(d, false, "copy-too-large", "the text is " + text.length + " characters, over the limit of " + cfg.maxCopyChars);
        if (!gesture()) return mediationAnswer(d, false, "needs-gesture", "copying needs the person's click or key press in the app");
        toRoom({ type: "clipboard", text: text });
        return mediationAnswer(d, true);
      }
      case "attention": { // only while the call that asks is in flight
        var c = calls.get(d.callId);
        if (!c || c.attention === !!d.on) return;
        c.attention = !!d.on;
        toRoom({ type: "attention", on: c.attention });
        return;
      }
    }
  }

  function hello() { window.parent.postMessage({ type: "bridge_ready", launchId: cfg.launchId, doc: DOC }, ROOM); }

  createInner();
  hello();
})();
