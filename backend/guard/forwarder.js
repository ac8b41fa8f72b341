// The guard's script in its isolated world (guard.go), at document start in the top frame. Wails'
// "external" message handler lives in this world only; this script relays to it the string messages that
// the room's page world dispatches as EVT (page.js), and nothing while the top document is not the room.
// It drops Wails' BrowserOpenURL messages ("BO:<url>"): a web address reaches the system browser only
// through a refused navigation the person confirms. It also counts the room document's own getUserMedia
// calls (MIC events from page.js), so the guard grants the microphone to those only (takemic.js).
//
// This file is a function expression: Go calls it with (ROOM, EVT, MIC) as JSON strings (guard.go).
(function (ROOM, EVT, MIC) {
  if (location.origin !== ROOM) return;
  var mh = window.webkit && window.webkit.messageHandlers;
  var h = mh && mh.external;
  if (!h) return;
  var post = h.postMessage.bind(h);
  document.addEventListener(EVT, function (e) {
    if (location.origin !== ROOM) return;
    var m = e.detail;
    if (typeof m !== "string") return;
    e.stopImmediatePropagation();
    if (m.charAt(0) === "B") return;
    post(m);
  }, true);
  // getUserMedia calls of the room's own document that are in flight, and how many of them may still be
  // matched to a permission request.
  var pending = 0, avail = 0;
  document.addEventListener(MIC, function (e) {
    e.stopImmediatePropagation();
    if (e.detail === "+") { pending++; avail++; }
    else if (e.detail === "-" && pending > 0) { pending--; if (avail > pending) avail = pending; }
  }, true);
  Object.defineProperty(window, "voiceboxGuardTakeMic", { value: function () {
    if (location.origin !== ROOM || avail <= 0) return false;
    avail--;
    return true;
  } });
})
