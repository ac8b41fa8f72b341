// The guard's script in the room's page world (guard.go), at document start in the top frame, in the room
// only: a non-writable window.WailsInvoke (the Wails runtime sends everything through it) that hands each
// message to the isolated world as an EVT event (forwarder.js), and the non-writable flag window[FLAG] ===
// true that the room checks before it runs any mini-app. It keeps its own copies of what it calls, so a
// script that replaces dispatchEvent or CustomEvent later does not intercept the messages. And it tells
// the isolated world about the room document's own getUserMedia calls (MIC "+" when one starts, "-" when
// it settles): a permission request does not say which frame asked.
//
// This file is a function expression: Go calls it with (ROOM, EVT, FLAG, MIC) as JSON strings (guard.go).
(function (ROOM, EVT, FLAG, MIC) {
  if (location.origin !== ROOM) return;
  var doc = document, CE = CustomEvent, dispatch = EventTarget.prototype.dispatchEvent,
      apply = Reflect.apply, str = String, then = Promise.prototype.then;
  function WailsInvoke(message) {
    apply(dispatch, doc, [new CE(EVT, { detail: str(message) })]);
  }
  Object.defineProperty(window, "WailsInvoke", { value: WailsInvoke, writable: false, configurable: false, enumerable: false });
  Object.defineProperty(window, FLAG, { value: true, writable: false, configurable: false, enumerable: false });
  var MD = window.MediaDevices, gum = MD && MD.prototype.getUserMedia;
  if (typeof gum !== "function") return;
  function mic(d) { apply(dispatch, doc, [new CE(MIC, { detail: d })]); }
  function done() { mic("-"); }
  Object.defineProperty(MD.prototype, "getUserMedia", { writable: true, configurable: true, enumerable: true,
    value: function getUserMedia(constraints) {
      mic("+");
      var p;
      try { p = apply(gum, this, [constraints]); } catch (e) { done(); throw e; }
      apply(then, p, [done, done]);
      return p;
    } });
})
