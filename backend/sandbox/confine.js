/* Voicebox confinement of a mini-app's document (docs/sandbox.md, "What CSP does not cover"). The asset
 * server injects it right before the SDK, so it runs before any script of the app, and into every child
 * document it serves (docs/sandbox.md, "Child frames"). It closes the ways out that the app's
 * Content-Security-Policy does not govern:
 *
 *  - WebRTC: connect-src does not cover it (Chromium ignores `webrtc 'block'`), so every RTC* interface is
 *    taken out of this window, for good (non-configurable).
 *  - Fresh realms: a child frame with scripts of its own would get a window where WebRTC is whole again,
 *    and the app cannot reach into it to patch it (the sandbox gives each child a new opaque origin). So
 *    the app's own content never becomes a child realm. An iframe with srcdoc, or a blob: or data: src,
 *    that enters the document (or gets such an attribute) is taken out in the same microtask checkpoint,
 *    before its document loads (those loads are asynchronous), stripped of the attribute and put back
 *    empty; its HTML is posted to the asset server, which serves it back under the launch's child path,
 *    with this confinement first, and the frame is pointed there (frame-src allows nothing else). Every
 *    other frame-like element (object, embed, frames with any other URL, frames in shadow roots) is
 *    removed, as before. Shadow roots are made open so that they can be watched; declarative shadow
 *    roots are refused (the asset server disarms them in the app's own HTML; document.write,
 *    setHTMLUnsafe and parseHTMLUnsafe refuse them here).
 *  - Links out of the app's folder: a click on one does nothing, so the browser does not look its host up.
 *
 * Everything it needs for that is taken from the platform before the app runs, so an app that redefines
 * prototypes later changes nothing here. (Fetching a child's HTML need not be: whatever HTML reaches the
 * server is served confined.) */
(function () {
  "use strict";
  var win = window, doc = document;
  var apply = Reflect.apply, defineProperty = Object.defineProperty, getOwnNames = Object.getOwnPropertyNames;
  var getDesc = Object.getOwnPropertyDescriptor;
  function getter(proto, name) { var d = getDesc(proto, name); return d && d.get; }
  function call(fn, self, args) { return apply(fn, self, args || []); }
  // The app's folder, /app/<token>/ on the bridge origin (sandbox.AppPath), from this document's URL.
  var folder = /^https?:\/\/[^/]+\/app\/[^/]+\//.exec(location.href);
  var URLCtor = URL, startsWith = String.prototype.startsWith, stringOf = String;
  var baseURI = getter(Node.prototype, "baseURI");

  // ---- WebRTC ----
  var rtc = /^(webkit|moz)?RTC/;
  var names = getOwnNames(win);
  for (var i = 0; i < names.length; i++) {
    if (!rtc.test(names[i])) continue;
    try { defineProperty(win, names[i], { value: undefined, writable: false, enumerable: false, configurable: false }); } catch (e) { /* already fixed */ }
  }

  // ---- child frames ----
  var FRAMES = "iframe,frame,object,embed,fencedframe,portal";
  var MO = win.MutationObserver, observe = MO.prototype.observe;
  var addedNodes = getter(MutationRecord.prototype, "addedNodes"), recordTarget = getter(MutationRecord.prototype, "target");
  var listLength = getter(NodeList.prototype, "length"), listItem = NodeList.prototype.item;
  var nodeType = getter(Node.prototype, "nodeType"), parentNode = getter(Node.prototype, "parentNode");
  var nextSibling = getter(Node.prototype, "nextSibling"), getRootNode = Node.prototype.getRootNode;
  var localName = getter(Element.prototype, "localName"), shadowRoot = getter(Element.prototype, "shadowRoot");
  var matches = Element.prototype.matches, removeChild = Node.prototype.removeChild, insertBefore = Node.prototype.insertBefore;
  var elementQSA = Element.prototype.querySelectorAll, fragmentQSA = DocumentFragment.prototype.querySelectorAll;
  var createWalker = Document.prototype.createTreeWalker, nextNode = TreeWalker.prototype.nextNode;
  var getAttribute = Element.prototype.getAttribute, removeAttribute = Element.prototype.removeAttribute;
  var setSrc = getDesc(HTMLIFrameElement.prototype, "src").set;
  var SHOW_ELEMENT = 1, ELEMENT = 1, FRAGMENT = 11;

  function drop(el) {
    var p = call(parentNode, el);
    if (p) call(removeChild, p, [el]);
  }
  function each(list, fn) {
    var n = call(listLength, list);
    for (var k = 0; k < n; k++) fn(call(listItem, list, [k]));
  }
  // sweep deals with every frame in a subtree (an element or a shadow root) and watches the shadow roots in it.
  function sweep(root) {
    var t = call(nodeType, root);
    if (t === ELEMENT && call(matches, root, [FRAMES])) { frame(root); return; }
    each(call(t === FRAGMENT ? fragmentQSA : elementQSA, root, [FRAMES]), frame);
    var w = call(createWalker, doc, [root, SHOW_ELEMENT]);
    for (var el = t === ELEMENT ? root : call(nextNode, w); el; el = call(nextNode, w)) {
      var sr = call(shadowRoot, el);
      if (sr) watch(sr);
    }
  }
  var watched = new WeakSet(), has = WeakSet.prototype.has, add = WeakSet.prototype.add;
  var observer = new MO(function (records) {
    for (var r = 0; r < records.length; r++) {
      var target = call(recordTarget, records[r]);
      if (call(nodeType, target) === ELEMENT && call(matches, target, [FRAMES])) frame(target); // src or srcdoc changed
      each(call(addedNodes, records[r]), function (n) { if (call(nodeType, n) === ELEMENT) sweep(n); });
    }
  });
  function watch(root) {
    if (call(has, watched, [root])) return;
    call(add, watched, [root]);
    call(observe, observer, [root, { childList: true, subtree: true }]);
    sweep(root);
  }
  call(observe, observer, [doc, { childList: true, subtree: true, attributes: true, attributeFilter: ["src", "srcdoc"] }]);

  // frame decides about one frame-like element. An iframe of the document (not of a shadow root) stays when
  // it is empty (about:blank: cross-origin, nothing of the app runs there) or shows a stored child
  // document; with srcdoc, or a blob: or data: src, it becomes one. Anything else is removed.
  var childPath = folder ? folder[0] + ".child/" : null;
  function frame(el) {
    if (!childPath || call(localName, el) !== "iframe" || call(getRootNode, el) !== doc) return drop(el);
    var srcdoc = call(getAttribute, el, ["srcdoc"]), src = call(getAttribute, el, ["src"]);
    var queued = call(wmGet, pending, [el]);
    if (queued) { call(wmSet, pending, [el, null]); if (srcdoc === null && src === null) return fromURL(el, queued); }
    if (srcdoc === null && (src === null || src === "" || src === "about:blank")) return;
    var u = null;
    try { u = new URLCtor(src === null ? "about:srcdoc" : src, call(baseURI, doc)); } catch (e) { /* refused below */ }
    if (srcdoc === null && u && call(startsWith, u.href, [childPath]) && /^\d+$/.test(u.href.slice(childPath.length))) return;
    if (srcdoc === null && (!u || (u.protocol !== "blob:" && u.protocol !== "data:"))) return drop(el);
    // Out of the document before the child's document commits, stripped, and back in the same place.
    var p = call(parentNode, el), next = call(nextSibling, el);
    call(removeChild, p, [el]);
    call(removeAttribute, el, ["srcdoc"]);
    call(removeAttribute, el, ["src"]);
    call(insertBefore, p, [el, next]);
    if (srcdoc !== null) { call(wmSet, srcdocs, [el, srcdoc]); return becomeChild(el, Promise.resolve(srcdoc), true); }
    fromURL(el, u);
  }
  // fromURL makes a blob: or data: URL a child document (relative URLs do not resolve there, as in a tab).
  function fromURL(el, u) {
    if (u.protocol === "data:") return becomeChild(el, dataHTML(u.href));
    var blob = call(mapGet, blobs, [u.href]);
    if (!blob) return becomeChild(el, Promise.reject(refusal("child-frame-refused", "the blob: URL was not made by this document")));
    if (!/^text\/html\s*(;|$)/i.test(blob.type)) return becomeChild(el, Promise.reject(refusal("child-frame-refused", "a child frame shows HTML only, not " + (blob.type || "a blob without a type"))));
    becomeChild(el, blob.arrayBuffer());
  }
  // The src property takes a blob: or data: URL without starting a navigation that frame-src would refuse
  // (and report): the frame becomes a child at once, or when it enters the document (pending).
  var pending = new WeakMap(), srcDesc = getDesc(HTMLIFrameElement.prototype, "src");
  defineProperty(HTMLIFrameElement.prototype, "src", { configurable: true, enumerable: true, get: srcDesc.get, set: function (v) {
    var u = null;
    try { u = new URLCtor(stringOf(v), call(baseURI, doc)); } catch (e) { /* the platform's setter decides */ }
    if (!u || (u.protocol !== "blob:" && u.protocol !== "data:") || call(getAttribute, this, ["srcdoc"]) !== null) return call(srcDesc.set, this, [v]);
    call(removeAttribute, this, ["src"]);
    if (call(getRootNode, this) === doc) fromURL(this, u); else call(wmSet, pending, [this, u]);
  } });

  // becomeChild posts the frame's HTML to the asset server and points the frame at the stored document; a
  // newer document for the same frame wins. A refusal ({refused: code} on the error) is an error event on
  // the frame, and an error of the app's window (which the SDK reports to the room).
  var latest = new WeakMap(), wmGet = WeakMap.prototype.get, wmSet = WeakMap.prototype.set;
  var platformFetch = win.fetch, reportError = win.reportError, ErrorCtor = Error, encode = encodeURIComponent;
  var dispatchEvent = EventTarget.prototype.dispatchEvent, ErrorEventCtor = ErrorEvent;
  function refusal(code, message) { var e = new ErrorCtor("child frame refused (" + code + "): " + message); e.refused = code; return e; }
  // MAX_CHILD_BYTES is sandbox.MaxChildBytes (a Go test holds them equal): the server refuses past it too,
  // but a browser may not read that answer while it still sends (WebKit: "Load failed").
  var MAX_CHILD_BYTES = 2097152, Encoder = TextEncoder, encodeText = TextEncoder.prototype.encode;
  var byteLength = getter(ArrayBuffer.prototype, "byteLength"), viewLength = getter(Object.getPrototypeOf(Uint8Array.prototype), "byteLength");
  function becomeChild(el, body, inheritsBase) {
    var mine = {};
    call(wmSet, latest, [el, mine]);
    var base = inheritsBase ? "?base=" + encode(call(baseURI, doc)) : "";
    body.then(function (b) {
      if (typeof b === "string") b = call(encodeText, new Encoder(), [b]);
      var n = b instanceof ArrayBuffer ? call(byteLength, b) : call(viewLength, b);
      if (n > MAX_CHILD_BYTES) throw refusal("child-frame-too-large", "a child frame's document may be at most " + MAX_CHILD_BYTES + " bytes, not " + n);
      return call(platformFetch, win, [childPath + base, { method: "POST", body: b, credentials: "omit" }]);
    }).then(function (res) {
      return res.json().catch(function () { return null; }).then(function (d) {
        if (!d || typeof d.url !== "string") throw refusal(d && d.refused || "child-frame-refused", d && d.message || "the server did not store it");
        if (call(wmGet, latest, [el]) === mine) call(setSrc, el, [d.url]);
      });
    }).catch(function (e) {
      if (call(wmGet, latest, [el]) !== mine) return;
      if (!e || !e.refused) e = refusal("child-frame-refused", "it could not be stored (" + e + ")");
      call(dispatchEvent, el, [new ErrorEventCtor("error", { message: e.message, error: e })]); // the app's own frame hears it
      if (typeof reportError === "function") call(reportError, win, [e]); else throw e; // and the room (sdk.js)
    });
  }

  // A blob: URL's Blob: remembered as URL.createObjectURL makes it (a revoked URL a moment longer: a page may
  // revoke it right after handing it to a frame).
  var blobs = new Map(), mapGet = Map.prototype.get, mapSet = Map.prototype.set, mapDelete = Map.prototype["delete"];
  var createObjectURL = URL.createObjectURL, revokeObjectURL = URL.revokeObjectURL, BlobCtor = Blob, later = win.setTimeout;
  defineProperty(URL, "createObjectURL", { configurable: true, writable: true, value: function (o) {
    var url = call(createObjectURL, URL, [o]);
    if (o instanceof BlobCtor) call(mapSet, blobs, [url, o]);
    return url;
  } });
  defineProperty(URL, "revokeObjectURL", { configurable: true, writable: true, value: function (url) {
    call(later, win, [function () { call(mapDelete, blobs, [stringOf(url)]); }, 1000]);
    return call(revokeObjectURL, URL, [url]);
  } });

  // dataHTML decodes a data: URL of HTML (RFC 2397: percent-encoded, or base64) to its bytes.
  function dataHTML(href) {
    var comma = href.indexOf(","), head = href.slice(5, comma).toLowerCase();
    var type = head.split(";")[0].trim() || "text/plain";
    if (comma < 0 || type !== "text/html") return Promise.reject(refusal("child-frame-refused", "a child frame shows HTML only, not " + type));
    var raw = new TextEncoder().encode(href.slice(comma + 1)), bytes = new Uint8Array(raw.length), n = 0;
    for (var k = 0; k < raw.length; k++) {
      var hex = raw[k] === 37 && k + 2 < raw.length ? String.fromCharCode(raw[k + 1], raw[k + 2]) : "";
      if (/^[0-9a-f]{2}$/i.test(hex)) { bytes[n++] = parseInt(hex, 16); k += 2; } else bytes[n++] = raw[k];
    }
    bytes = bytes.subarray(0, n);
    if (!/;\s*base64\s*$/.test(head)) return Promise.resolve(bytes);
    var text = "";
    for (var c = 0; c < n; c += 8192) text += String.fromCharCode.apply(null, bytes.subarray(c, c + 8192));
    try {
      var bin = atob(text.replace(/[\t\n\f\r ]/g, "")), out = new Uint8Array(bin.length);
      for (var j = 0; j < bin.length; j++) out[j] = bin.charCodeAt(j);
      return Promise.resolve(out);
    } catch (e) {
      return Promise.reject(refusal("child-frame-refused", "the data: URL's base64 does not decode"));
    }
  }

  // The srcdoc the app gave a frame still reads back as it was (the attribute itself is gone).
  var srcdocs = new WeakMap(), srcdocDesc = getDesc(HTMLIFrameElement.prototype, "srcdoc");
  defineProperty(HTMLIFrameElement.prototype, "srcdoc", { configurable: true, enumerable: true, set: srcdocDesc.set, get: function () {
    var v = call(srcdocDesc.get, this);
    return v === "" && call(getAttribute, this, ["srcdoc"]) === null && call(wmGet, srcdocs, [this]) !== undefined ? call(wmGet, srcdocs, [this]) : v;
  } });

  // Shadow roots are created open (so sweep can find them in clones and adopted subtrees) and never clonable.
  var platformAttachShadow = Element.prototype.attachShadow;
  if (platformAttachShadow) {
    defineProperty(Element.prototype, "attachShadow", { configurable: true, writable: true, value: function attachShadow(init) {
      var o = { mode: "open" };
      if (init && typeof init === "object") { o.delegatesFocus = !!init.delegatesFocus; if (init.slotAssignment) o.slotAssignment = init.slotAssignment; }
      var sr = call(platformAttachShadow, this, [o]);
      watch(sr);
      return sr;
    } });
  }

  // Declarative shadow roots would not go through attachShadow: markup that asks for one is refused.
  var declarative = /shadowrootmode/i;
  function refuseDeclarative(html) {
    if (declarative.test(stringOf(html))) throw new TypeError("declarative shadow roots are not available to mini-apps");
  }
  function guardHTML(proto, name) {
    var fn = proto && proto[name];
    if (typeof fn !== "function") return;
    defineProperty(proto, name, { configurable: true, writable: true, value: function (html) {
      refuseDeclarative(html);
      return call(fn, this, arguments);
    } });
  }
  guardHTML(Element.prototype, "setHTMLUnsafe");
  guardHTML(win.ShadowRoot && ShadowRoot.prototype, "setHTMLUnsafe");
  guardHTML(Document, "parseHTMLUnsafe");
  // document.write feeds the document's own parser: the attribute may come in pieces, so the end of what
  // was written before is checked with each new piece.
  var tail = "";
  ["write", "writeln"].forEach(function (name) {
    var fn = Document.prototype[name];
    defineProperty(Document.prototype, name, { configurable: true, writable: true, value: function () {
      var text = "";
      for (var k = 0; k < arguments.length; k++) text += stringOf(arguments[k]);
      refuseDeclarative(tail + text);
      tail = (tail + text).slice(-16);
      return call(fn, this, arguments);
    } });
  });

  // ---- links out of the app's folder ----
  // Following a link starts a navigation, and Chromium looks its host up (a preconnect) before the
  // bridge's frame-src refuses it; the Navigation API that could refuse it first is off in a document with
  // an opaque origin. So a link is followed only inside the app's folder (same origin, path under
  // /app/<token>/, sandbox.AppPath): a click on any other link does nothing. javascript: links run here.
  var composedPath = Event.prototype.composedPath, preventDefault = Event.prototype.preventDefault;
  var getAttributeNS = Element.prototype.getAttributeNS;
  function leavesFolder(href) {
    if (href === null) return false;
    var u;
    try { u = new URLCtor(href, call(baseURI, doc)); } catch (e) { return true; }
    if (u.protocol === "javascript:") return false;
    return !folder || !call(startsWith, u.href, [folder[0]]);
  }
  win.addEventListener("click", function (e) {
    var path = call(composedPath, e);
    for (var k = 0; k < path.length; k++) {
      var n = path[k];
      if (call(nodeType, n) !== ELEMENT) continue;
      var name = call(localName, n);
      if (name !== "a" && name !== "area") continue;
      var href = call(getAttribute, n, ["href"]);
      if (href === null) href = call(getAttributeNS, n, ["http://www.w3.org/1999/xlink", "href"]); // SVG <a>
      if (leavesFolder(href)) call(preventDefault, e);
      return;
    }
  }, true);
})();
