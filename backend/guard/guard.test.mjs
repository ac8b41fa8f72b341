// Unit tests of the guard's JavaScript (forwarder.js in the isolated world, page.js in the room's page
// world, takemic.js) in fake worlds sharing one document, applied to their arguments as guard.go applies
// them. The real window runs them in desktop_test.go. Run: node --test backend/guard/guard.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";

const read = (name) => readFileSync(new URL(`./${name}`, import.meta.url), "utf8").trim();
// guard.go's applyJS: the function expression called with its arguments as JSON strings.
const applyJS = (fn, ...args) => `(${fn}\n)(${JSON.stringify(args).slice(1, -1)});\n`;

const ROOM = "wails://wails", EVT = "voicebox-guard-ipc", MIC = EVT + "-mic", FLAG = "__voiceboxGuard";

// worlds builds the room's two script worlds over one document: each world has its own globals (as
// WebKit's isolated world has its own window wrapper), the DOM is shared.
function worlds({ origin = ROOM, gum } = {}) {
  const document = new EventTarget();
  const location = { origin };
  const posted = [];
  const isolated = vm.createContext({ document, location, console,
    webkit: { messageHandlers: { external: { postMessage(m) { posted.push(m); } } } } });
  isolated.window = isolated;
  class MediaDevices {}
  if (gum) MediaDevices.prototype.getUserMedia = gum;
  // The page world's own EventTarget (a script may replace its dispatchEvent), over the shared DOM.
  const PageEventTarget = function EventTarget() {};
  PageEventTarget.prototype = { dispatchEvent: EventTarget.prototype.dispatchEvent };
  const page = vm.createContext({ document, location, CustomEvent, EventTarget: PageEventTarget, MediaDevices, console });
  page.window = page;
  vm.runInContext(applyJS(read("forwarder.js"), ROOM, EVT, MIC), isolated);
  vm.runInContext(applyJS(read("page.js"), ROOM, EVT, FLAG, MIC), page);
  const takeMic = () => vm.runInContext(read("takemic.js"), isolated);
  return { document, location, posted, isolated, page, takeMic, MediaDevices };
}

test("WailsInvoke reaches Wails' handler as a string, through the isolated world only", () => {
  const w = worlds();
  vm.runInContext(`WailsInvoke("C" + JSON.stringify({ name: "main.RoomService.Config" })); WailsInvoke(42);`, w.page);
  assert.deepEqual(w.posted, ['C{"name":"main.RoomService.Config"}', "42"]);
  assert.equal(vm.runInContext("typeof webkit", w.page), "undefined", "the page world has no handler of its own");
});

test("Wails' BrowserOpenURL messages and non-string events are dropped", () => {
  const w = worlds();
  vm.runInContext(`WailsInvoke("BO:https://example.com/")`, w.page);
  w.document.dispatchEvent(new CustomEvent(EVT, { detail: { not: "a string" } }));
  w.document.dispatchEvent(new CustomEvent(EVT, { detail: "C{}" })); // a page dispatching it itself: a string is a string
  assert.deepEqual(w.posted, ["C{}"]);
});

test("no later listener sees a message, and a replaced dispatchEvent or CustomEvent intercepts nothing", () => {
  const w = worlds();
  let seen = 0;
  w.document.addEventListener(EVT, () => { seen++; });
  vm.runInContext(`
    EventTarget.prototype.dispatchEvent = function () { throw new Error("intercepted"); };
    window.CustomEvent = function () { throw new Error("intercepted"); };
    WailsInvoke("C1");`, w.page);
  assert.deepEqual(w.posted, ["C1"]);
  assert.equal(seen, 0, "the forwarder stops the event at the capture phase");
});

test("WailsInvoke and the guard flag cannot be replaced or removed", () => {
  const w = worlds();
  vm.runInContext(`
    try { window.WailsInvoke = () => {}; } catch {}
    try { delete window.WailsInvoke; } catch {}
    try { window.${FLAG} = false; } catch {}
    try { Object.defineProperty(window, "WailsInvoke", { value: () => {} }); } catch {}`, w.page);
  assert.equal(vm.runInContext(`window.${FLAG}`, w.page), true);
  vm.runInContext(`WailsInvoke("C2")`, w.page);
  assert.deepEqual(w.posted, ["C2"]);
});

test("outside the room's origin neither script does anything", () => {
  const w = worlds({ origin: "http://127.0.0.1:4000" });
  assert.equal(vm.runInContext("typeof WailsInvoke", w.page), "undefined");
  assert.equal(vm.runInContext(`typeof window.${FLAG}`, w.page), "undefined");
  w.document.dispatchEvent(new CustomEvent(EVT, { detail: "C{}" }));
  assert.deepEqual(w.posted, []);
  assert.equal(w.takeMic(), false);
});

test("a document that is no longer the room's posts nothing", () => {
  const w = worlds();
  w.location.origin = "http://127.0.0.1:4000";
  vm.runInContext(`WailsInvoke("C3")`, w.page);
  assert.deepEqual(w.posted, []);
});

test("the microphone goes to the room's own getUserMedia calls in flight, one request each", async () => {
  let settle;
  const w = worlds({ gum: () => new Promise((ok) => { settle = ok; }) });
  assert.equal(w.takeMic(), false, "no call in flight");
  const p = vm.runInContext("new MediaDevices().getUserMedia({ audio: true })", w.page);
  assert.equal(w.takeMic(), true);
  assert.equal(w.takeMic(), false, "one call, one permission request");
  settle("stream");
  assert.equal(await p, "stream");
  vm.runInContext("new MediaDevices().getUserMedia({ audio: true })", w.page);
  settle("again");
  await new Promise((ok) => setTimeout(ok, 0));
  assert.equal(w.takeMic(), false, "a call that settled before its request is matched to nothing");
});

test("a getUserMedia call that throws is not left in flight", () => {
  const w = worlds({ gum: () => { throw new Error("no device"); } });
  assert.throws(() => vm.runInContext("new MediaDevices().getUserMedia({ audio: true })", w.page), /no device/);
  assert.equal(w.takeMic(), false);
});
