/* SDK section: what a page expects of a browser, mediated by the room (docs/webmcp.md): downloads (<a
 * download>, blob: and data: links) go to the room, which saves the bytes; clipboard
 * writes (navigator.clipboard.writeText, document.execCommand("copy")) go to the room, which copies on the
 * person's gesture (the bridge checks it); autofocus and early focus() calls take effect once the room gives
 * the app the keyboard. The section is a function of the SDK's `sdk` object (sdk.js). */
function (sdk) {
  "use strict";
  function warn(what, err) { try { console.warn("Voicebox: " + what + ": " + (err && err.message || err)); } catch (e) { /* no console */ } }

  // ---- downloads ----
  // The app's own object URLs, so a click on a blob: link can hand its bytes to the room (connect-src
  // 'none' keeps the page from reading a blob: URL back).
  var blobs = new Map();
  var createURL = URL.createObjectURL, revokeURL = URL.revokeObjectURL;
  URL.createObjectURL = function (obj) {
    var u = createURL.call(URL, obj);
    if (obj instanceof Blob) blobs.set(u, obj);
    return u;
  };
  URL.revokeObjectURL = function (u) { blobs.delete(String(u)); return revokeURL.call(URL, u); };

  function dataBlob(url) {
    var m = /^data:([^,]*?)(;base64)?,(.*)$/is.exec(url);
    if (!m) return null;
    var body = m[2] ? atob(decodeURIComponent(m[3])) : decodeURIComponent(m[3]);
    var bytes = new Uint8Array(body.length);
    for (var i = 0; i < body.length; i++) bytes[i] = body.charCodeAt(i) & 255;
    return new Blob([bytes], { type: m[1] || "text/plain" });
  }
  function blobFor(url) {
    if (/^blob:/i.test(url)) return Promise.resolve(blobs.get(url) || null);
    if (/^data:/i.test(url)) return Promise.resolve(dataBlob(url));
    return fetch(url).then(function (r) { return r.ok ? r.blob() : null; }); // a file of the app's own folder
  }
  function isDownload(a) {
    var href = a.getAttribute("href");
    return href !== null && (a.hasAttribute("download") || /^(blob|data):/i.test(href.trim()));
  }
  function save(url, name) {
    var blob = blobs.get(url); // taken now: pages often revoke the URL right after the click
    (blob ? Promise.resolve(blob) : blobFor(url)).then(function (b) {
      if (!b) throw new Error("the link's bytes are not readable");
      return sdk.ask({ type: "download", name: String(name || ""), blob: b });
    }).catch(function (err) { warn("the download was not saved", err); });
  }
  function saveLink(a) { save(a.href, a.getAttribute("download") || ""); }
  // A page that prevents its own link's default keeps it. The confinement (confine.js) prevents every link
  // out of the app's folder too, blob: and data: included, with its own reference to preventDefault: so
  // only the page's calls, through the prototype, are counted here.
  var pagePrevented = new WeakSet(), preventDefault = Event.prototype.preventDefault;
  Event.prototype.preventDefault = function () { pagePrevented.add(this); return preventDefault.apply(this, arguments); };
  window.addEventListener("click", function (e) {
    var a = e.target && e.target.closest ? e.target.closest("a[href]") : null;
    if (!a || !isDownload(a) || pagePrevented.has(e)) return;
    preventDefault.call(e);
    saveLink(a);
  }); // bubbling, after the page's own handlers
  var click = HTMLElement.prototype.click;
  HTMLElement.prototype.click = function () {
    // A link that is not in the document (the usual a = createElement("a"); a.click()) sends its click
    // event nowhere we listen.
    if (this instanceof HTMLAnchorElement && !this.isConnected && isDownload(this)) return saveLink(this);
    return click.call(this);
  };
  // ---- forms ----
  // A form may submit within the app (its CSP's form-action names the app's own URL). One that goes
  // elsewhere is refused by that policy anyway; refusing it here first keeps the app's page (Chromium
  // replaces a frame whose navigation was blocked with an error page) and tells the person.
  var here = new URL(location.href).origin;
  // outside returns the origin a submission would go to when that is not the app's own ("" when it is).
  function outside(form, by) {
    var action = by && by.hasAttribute && by.hasAttribute("formaction") ? by.formAction : form.action;
    try { var to = new URL(action, location.href); return to.origin === here ? "" : to.origin; } catch (err) { return ""; }
  }
  window.addEventListener("submit", function (e) {
    var to = e.defaultPrevented ? "" : outside(e.target, e.submitter);
    if (!to) return;
    e.preventDefault();
    sdk.notice("blocked", to);
  }); // bubbling, after the page's own handlers
  var submit = HTMLFormElement.prototype.submit;
  HTMLFormElement.prototype.submit = function () { // form.submit() fires no submit event
    var to = outside(this, null);
    if (to) return sdk.notice("blocked", to);
    return submit.call(this);
  };

  // ---- clipboard ----
  function copy(text) {
    return sdk.ask({ type: "clipboard", text: String(text) });
  }
  var clipboard = new EventTarget();
  var noRead = function () { return Promise.reject(new DOMException("Mini-apps cannot read the clipboard", "NotAllowedError")); };
  clipboard.writeText = function (text) { return copy(text); };
  clipboard.write = function (items) {
    var item = items && items[0];
    if (!item || typeof item.getType !== "function" || item.types.indexOf("text/plain") < 0) {
      return Promise.reject(new DOMException("Mini-apps can copy text only", "NotAllowedError"));
    }
    return item.getType("text/plain").then(function (b) { return b.text(); }).then(copy);
  };
  clipboard.readText = noRead;
  clipboard.read = noRead;
  sdk.define(navigator, "clipboard", { enumerable: true, get: function () { return clipboard; } });

  function selectedText() {
    var el = document.activeElement;
    if (el && (el.localName === "textarea" || el.localName === "input") && typeof el.selectionStart === "number") {
      return el.value.slice(el.selectionStart, el.selectionEnd);
    }
    var sel = window.getSelection && window.getSelection();
    return sel ? String(sel) : "";
  }
  var execCommand = Document.prototype.execCommand;
  sdk.define(document, "execCommand", { writable: true, value: function (command) {
    if (String(command).toLowerCase() !== "copy") return execCommand.apply(document, arguments);
    var text = selectedText();
    try { // a page's copy listener may set the data itself, as in a browser
      var data = new DataTransfer();
      var ev = new ClipboardEvent("copy", { clipboardData: data, bubbles: true, cancelable: true });
      (document.activeElement || document).dispatchEvent(ev);
      if (ev.defaultPrevented) text = data.getData("text/plain");
    } catch (err) { /* no ClipboardEvent constructor: the selection it is */ }
    copy(text).catch(function (err) { warn("copy refused", err); });
    return !navigator.userActivation || navigator.userActivation.isActive;
  } });

  // ---- focus ----
  // A frame that does not have the keyboard may not take it: autofocus is blocked in a cross-origin frame,
  // and so are focus() calls, and the room closes an app whose frame takes the focus without having been
  // handed the keyboard (frontend/room/src/keyboard.js; WebKit lets a frame the person once pressed in
  // take it). So a focus() while the frame lacks the keyboard is kept for later, not passed on, and the
  // element the page wanted is focused once the frame has the keyboard: the room handed it over (a launch
  // by the person) or the person pressed in the app (only an app with the keyboard gets presses).
  // document.hasFocus() alone does not say it: a frame in another process than the room's may have the
  // keyboard without its page being told (headless Chromium), so a press of the person's counts too.
  var wanted = null, settled = false, pressed = false;
  var focus = HTMLElement.prototype.focus;
  function hasKeyboard() { return pressed || document.hasFocus(); }
  HTMLElement.prototype.focus = function () {
    if (hasKeyboard()) return focus.apply(this, arguments);
    wanted = this;
    settled = false;
  };
  function takeFocus() {
    if (settled || !hasKeyboard()) return;
    settled = true;
    var a = document.activeElement;
    if (a && a !== document.body && a !== document.documentElement) return; // the person chose
    var el = wanted && wanted.isConnected ? wanted : document.querySelector("[autofocus]");
    wanted = null;
    if (el) focus.call(el);
  }
  var later = function () { setTimeout(takeFocus, 0); }; // after the press's own focus change
  window.addEventListener("focus", later);
  window.addEventListener("blur", function () { pressed = false; });
  window.addEventListener("pointerdown", function (e) {
    if (!e.isTrusted) return;
    pressed = true;
    later();
  }, true);
}
