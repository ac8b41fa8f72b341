// Who has the keyboard (docs/sandbox.md, "Keyboard"). An app that could move the focus into its frame
// whenever it liked (focus() on a hidden input, every 100 ms, once the person had clicked it) would read
// what the person types into the room: an API key in Settings, the assistant box, the Tool Console. So the
// room owns the keyboard:
//
// - every app's frame is inert except the one app the person handed the keyboard to, with a pointer press
//   on its window or Enter on its title: a press on an app without the keyboard lands on the room (it does
//   not reach the app) and hands it the keyboard, so the person's next press reaches it;
// - any other press in the room, or the focus arriving on a room control, takes the keyboard back;
// - an app whose frame takes the focus while it does not have the keyboard is closed at once. WebKitGTK lets
//   a frame the person once clicked call focus() even when it is inert, and a room cannot take the focus
//   back while the move is under way (WebKit ignores a focus change from the blur handlers it runs), so
//   taking it back later would leave the keys typed meanwhile to the app. Removing the frame while the
//   move is under way leaves the focus nowhere, and the room puts it back where it was.

const wins = new Map(); // pop-over window → { body, caught }: the element that holds the app's frame
let owner = null; // the window whose app has the keyboard, or null: the room has it
let lastRoomFocus = null; // the room element that had the focus last, to give it back after a theft

// windowOf is the pop-over whose app a press or the focus concerns. A room part inside a pop-over
// (.room-owned: the Change strip, author.js) is the room's: a press or the focus there takes the keyboard
// back, so an app cannot read what the person types about it.
const windowOf = (node) => (node instanceof Element && !node.closest(".room-owned") ? node.closest(".mini-app-window") : null);
const isFrame = (node) => node instanceof Element && node.tagName === "IFRAME";

function apply() {
  for (const [win, w] of wins) w.body.inert = win !== owner;
}

// give hands the keyboard to the app in win and, with focus, the focus too, once the press that asked for
// it has done its own focusing (the bridge frame holds the app's frame as its first child window; WebKit
// lets the room focus only a frame the person has used before).
function give(win, focus) {
  const w = wins.get(win);
  if (!w) return;
  owner = win;
  apply();
  if (windowOf(document.activeElement) !== win) toRoom(); // the app that had the keyboard keeps no focus
  if (!focus) return;
  setTimeout(() => {
    if (owner !== win) return;
    const bridge = w.body.querySelector("iframe")?.contentWindow;
    try { (bridge.frames[0] || bridge).focus(); } catch { /* gone or still loading */ }
  });
}

function takeBack() {
  owner = null;
  apply();
  toRoom();
}

// toRoom moves the focus out of an app's frame into the room. blur() on the frame is not always enough:
// WebKitGTK can leave the focus in a frame the room focused through its window (give), and then neither
// blur() nor the person's press on the room moves it (seen under load: no focus event in the room,
// activeElement still the frame a moment later, so the app was closed as a thief). Focusing the room's own
// window always moves it.
function toRoom() {
  if (!isFrame(document.activeElement)) return;
  document.activeElement.blur();
  if (isFrame(document.activeElement)) window.focus();
}

// thief closes the app in win: its frame leaves the document now (see the top), then the pop-over's owner
// closes it and says why. The room's own focus comes back once the move that was under way has ended.
function thief(win) {
  const w = wins.get(win);
  if (!w) return;
  wins.delete(win);
  if (owner === win) owner = null;
  w.body.replaceChildren();
  const back = lastRoomFocus;
  setTimeout(() => {
    if (back && back.isConnected && !isFrame(document.activeElement)) back.focus({ preventScroll: true });
  });
  w.caught();
}

// checkFocus closes the app whose frame has the focus without having the keyboard.
function checkFocus() {
  const a = document.activeElement;
  if (!isFrame(a)) return;
  const win = windowOf(a);
  if (win && wins.has(win) && win !== owner) thief(win);
}

// adopt makes a new pop-over's frame inert until the person hands it the keyboard; caught() is called
// (once) when its app takes the focus without it. release forgets the window.
export function adopt(win, body, caught) {
  wins.set(win, { body, caught });
  body.inert = true;
}

export function release(win) {
  wins.delete(win);
  if (owner === win) owner = null;
}

// handOver is Enter on a pop-over's title: the keyboard's way to what a press on its window does.
export function handOver(win) { give(win, true); }

function inside(body, e) {
  const r = body.getBoundingClientRect();
  return e.clientX >= r.left && e.clientX < r.right && e.clientY >= r.top && e.clientY < r.bottom;
}

function wire() {
  document.addEventListener("pointerdown", (e) => {
    if (!e.isTrusted) return;
    const win = windowOf(e.target);
    const w = win && wins.get(win);
    if (w) {
      // An inert body is not the target of a press on it: the window is. The press only hands over.
      if (owner !== win) give(win, inside(w.body, e));
    } else if (owner) {
      takeBack();
    }
  }, true);
  document.addEventListener("focusin", (e) => {
    if (isFrame(e.target)) return;
    lastRoomFocus = e.target;
    if (owner && windowOf(e.target) !== owner) takeBack();
  }, true);
  // The room's document loses the focus to a frame: WebKit runs this while the move is under way, with
  // document.activeElement already the frame that takes it.
  window.addEventListener("blur", checkFocus);
  // From one app's frame to another's, the room hears nothing: it looks.
  setInterval(checkFocus, 250);
}

wire();
