/* Voicebox confinement of a mini-app's document (docs/sandbox.md, "What CSP does not cover"). The asset
 * server injects it right before the SDK, so it runs before any script of the app. It closes the ways out
 * that the app's Content-Security-Policy does not govern:
 *
 *  - WebRTC: connect-src does not cover it (Chromium ignores `webrtc 'block'`), so every RTC* interface is
 *    taken out of this window, for good (non-configurable).
 *  - Fresh realms: a child frame with scripts of its own (srcdoc, javascript: URLs) would get a window
 *    where WebRTC is whole again, and the app cannot reach into it to patch it (the sandbox gives each
 *    child a new opaque origin). So the app gets no child frames: every frame-like element that enters the
 *    document, or a shadow root, is removed in the same microtask checkpoint, before its document loads
 *    (those loads are asynchronous). Shadow roots are made open so that they can be watched; declarative
 *    shadow roots are refused (the asset server disarms them in the app's own HTML; document.write,
 *    setHTMLUnsafe and parseHTMLUnsafe refuse them here).
 *  - Links out of the app's folder: a click on one does nothing, so the browser does not look its host up.
 *
 * Everything it needs is taken from the platform before the app runs, so an app that redefines prototypes
 * later changes nothing here. */
(function () {
  "use strict";
  var win = window, doc = document;
  var apply = Reflect.apply, defineProperty = Object.defineProperty, getOwnNames = Object.getOwnPropertyNames;
  var getDesc = Object.getOwnPropertyDescriptor;
  function getter(proto, name) { var d = getDesc(proto, name); return d && d.get; }
  function call(fn, self, args) { return apply(fn, self, args || []); }

  // ---- WebRTC ----
  var rtc = /^(webkit|moz)?RTC/;
  var names = getOwnNames(win);
  for (var i = 0; i < names.length; i++) {
    if (!rtc.test(names[i])) continue;
    try { defineProperty(win, names[i], { value: undefined, writable: false, enumerable: false, configurable: false }); } catch (e) { /* already fixed */ }
  }

  // ---- no child frames ----
  var FRAMES = "iframe,frame,object,embed,fencedframe,portal";
  var MO = win.MutationObserver, observe = MO.prototype.observe;
  var addedNodes = getter(MutationRecord.prototype, "addedNodes");
  var listLength = getter(NodeList.prototype, "length"), listItem = NodeList.prototype.item;
  var nodeType = getter(Node.prototype, "nodeType"), parentNode = getter(Node.prototype, "parentNode");
  var localName = getter(Element.prototype, "localName"), shadowRoot = getter(Element.prototype, "shadowRoot");
  var matches = Element.prototype.matches, removeChild = Node.prototype.removeChild;
  var elementQSA = Element.prototype.querySelectorAll, fragmentQSA = DocumentFragment.prototype.querySelectorAll;
  var createWalker = Document.prototype.createTreeWalker, nextNode = TreeWalker.prototype.nextNode;
  var SHOW_ELEMENT = 1, ELEMENT = 1, FRAGMENT = 11;

  function drop(el) {
    var p = call(parentNode, el);
    if (p) call(removeChild, p, [el]);
  }
  function each(list, fn) {
    var n = call(listLength, list);
    for (var k = 0; k < n; k++) fn(call(listItem, list, [k]));
  }
  // sweep removes every frame in a subtree (an element or a shadow root) and watches the shadow roots in it.
  function sweep(root) {
    var t = call(nodeType, root);
    if (t === ELEMENT && call(matches, root, [FRAMES])) { drop(root); return; }
    each(call(t === FRAGMENT ? fragmentQSA : elementQSA, root, [FRAMES]), drop);
    var w = call(createWalker, doc, [root, SHOW_ELEMENT]);
    for (var el = t === ELEMENT ? root : call(nextNode, w); el; el = call(nextNode, w)) {
      var sr = call(shadowRoot, el);
      if (sr) watch(sr);
    }
  }
  var watched = new WeakSet(), has = WeakSet.prototype.has, add = WeakSet.prototype.add;
  var observer = new MO(function (records) {
    for (var r = 0; r < records.length; r++) {
      each(call(addedNodes, records[r]), function (n) { if (call(nodeType, n) === ELEMENT) sweep(n); });
    }
  });
  function watch(root) {
    if (call(has, watched, [root])) return;
    call(add, watched, [root]);
    call(observe, observer, [root, { childList: true, subtree: true }]);
    sweep(root);
  }
  call(observe, observer, [doc, { childList: true, subtree: true }]);

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
  var declarative = /shadowrootmode/i, stringOf = String;
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
  var folder = /^https?:\/\/[^/]+\/app\/[^/]+\//.exec(location.href);
  var composedPath = Event.prototype.composedPath, preventDefault = Event.prototype.preventDefault;
  var getAttribute = Element.prototype.getAttribute, getAttributeNS = Element.prototype.getAttributeNS;
  var URLCtor = URL, startsWith = String.prototype.startsWith;
  var baseURI = getter(Node.prototype, "baseURI");
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
