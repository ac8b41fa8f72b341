// The room's keyboard shortcuts, from the one list (room/shortcuts.json; the desktop's menu takes its
// accelerators from it too: menu.go). Help › Keyboard Shortcuts, Ctrl+/ and the top bar's "?" show the list
// in a dialog. Keys run here in `voicebox serve`; in the desktop the menu's accelerators catch the ones
// with a menu item first (also while a mini-app has the keyboard) and Go sends them back as menu:shortcut
// events, which run the same action. Keys owned elsewhere are only listed: Space (session.js), Enter on a
// pop-over's title (keyboard.js), Ctrl+Z (trash.js).
import { call, on, isDesktop } from "./transport.js";
import { el, notifyError } from "./ui.js";
import { savePage } from "./viewer.js";
import { open as openSettings } from "./settings.js";
import { toggle, showActivity } from "./layout.js";
import { next as nextWindow } from "./windows.js";
import { focusNewApp } from "./author.js";

let list = [];
let dialog = null;

const $ = (id) => document.getElementById(id);

function editing(t) {
  return t instanceof Element && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
}

// openFile opens the file picker: the native dialog in the desktop, the browser's in `voicebox serve`.
export function openFile() {
  if (isDesktop()) {
    call("RoomService.OpenFiles").catch((err) => notifyError(err, { doing: "Could not open the files" }));
  } else {
    $("open-file")?.click();
  }
}

// escape closes, in order: the File Viewer (dialogs close themselves: <dialog> and confirm.js).
function escape(e) {
  if (document.querySelector("dialog[open]")) return false;
  const viewer = $("file-viewer");
  if (!viewer || viewer.hidden) return false;
  if (editing(e?.target) && !viewer.contains(e.target)) return false; // Escape in a text field is the field's
  $("file-close")?.click();
  return true;
}

// trayMenu is the keyboard's right-click on a tray app: it reads the app's source, as the mouse's does.
function trayMenu(e) {
  const b = e?.target instanceof Element ? e.target.closest("#sqeh-actions button, #sqeh-actions [role=button]") : null;
  if (!b) return false;
  const r = b.getBoundingClientRect();
  b.dispatchEvent(new MouseEvent("contextmenu", { bubbles: true, cancelable: true, clientX: r.left + 8, clientY: r.top + 8 }));
  return true;
}

// What each shortcut the room runs does; it returns false when it did nothing (the key goes on).
const actions = {
  "new-app": () => focusNewApp(),
  "open-file": () => openFile(),
  "open-folder": () => isDesktop() && $("open-folder")?.click(),
  "save-page": () => savePage(),
  settings: () => openSettings(),
  "toggle-sidebar": () => toggle("sidebar"),
  "toggle-panel": () => toggle("panel"),
  "show-activity": () => showActivity(),
  "next-window": () => nextWindow(),
  shortcuts: () => showShortcuts(),
  escape,
  "tray-source": trayMenu,
};

// run runs the shortcut id (a key, a menu item, the "?" button); it says whether something happened.
export function run(id, e) {
  const fn = actions[id];
  return fn ? fn(e) !== false : false;
}

function parse(keys) {
  const parts = keys.split("+");
  const key = parts.pop() || "+";
  return { ctrl: parts.includes("Ctrl"), alt: parts.includes("Alt"), shift: parts.includes("Shift"), key: key.toLowerCase() };
}

// matches says whether the key event is the shortcut's keys (Ctrl is ⌘ on a Mac).
export function matches(keys, e) {
  const k = parse(keys);
  const key = e.key === " " ? "space" : (e.key || "").toLowerCase();
  if ((e.ctrlKey || e.metaKey) !== k.ctrl || e.altKey !== k.alt) return false;
  // Shift is part of the character for "?" and the like: only letters, named keys and F-keys compare it.
  if (/^([a-z]|f\d+|escape|enter|tab|space)$/.test(k.key) && e.shiftKey !== k.shift) return false;
  if (key === k.key) return true;
  return k.key === "`" && e.code === "Backquote"; // a layout where that key types something else
}

function onKey(e) {
  if (!e.isTrusted || e.defaultPrevented || e.isComposing) return; // the person's keys only, not a page's
  if (e.key === "ContextMenu" && trayMenu(e)) { e.preventDefault(); return; }
  for (const s of list) {
    if (!actions[s.id] || (s.only && s.only !== (isDesktop() ? "desktop" : "serve")) || !matches(s.keys, e)) continue;
    const plain = !e.ctrlKey && !e.metaKey && !e.altKey;
    if (plain && s.id !== "escape" && editing(e.target)) continue; // typing in a field
    if (run(s.id, e)) { e.preventDefault(); e.stopPropagation(); }
    return;
  }
}

// showShortcuts opens the Keyboard Shortcuts dialog: the list, by group, as this room has it.
export function showShortcuts() {
  if (!dialog) {
    dialog = el("dialog", { id: "shortcuts-dialog", "aria-labelledby": "shortcuts-title" });
    document.body.append(dialog);
  }
  const mode = isDesktop() ? "desktop" : "serve";
  const groups = new Map();
  for (const s of list) {
    if (s.only && s.only !== mode) continue;
    if (!groups.has(s.group)) groups.set(s.group, []);
    groups.get(s.group).push(s);
  }
  const close = el("button", { type: "button", id: "shortcuts-close", onclick: () => dialog.close() }, "Close");
  dialog.replaceChildren(
    el("h2", { id: "shortcuts-title" }, "Keyboard Shortcuts"),
    ...[...groups].map(([group, items]) => el("section", {},
      el("h3", {}, group),
      el("table", { class: "shortcuts" }, el("tbody", {}, ...items.map((s) => el("tr", { dataset: { id: s.id } },
        el("td", {}, ...s.keys.split(/\+(?!$)/).flatMap((k, i) => (i ? ["+", el("kbd", {}, k)] : [el("kbd", {}, k)]))),
        el("td", {}, s.label))))))),
    el("p", { class: "meta" }, isDesktop() ? "The menu's shortcuts work also while a mini-app has the keyboard." : "Keys work while the room has the keyboard (not inside a mini-app)."),
    el("div", { class: "confirm-actions" }, close));
  if (!dialog.open) dialog.showModal();
  close.focus();
}

async function load() {
  try {
    const res = await fetch("shortcuts.json");
    list = await res.json();
  } catch {
    list = []; // the dialog shows nothing; the menu (Go's copy of the list) still works in the desktop
  }
}

function wire() {
  window.addEventListener("keydown", onKey);
  $("open-shortcuts")?.addEventListener("click", () => showShortcuts());
  $("open-file-button")?.addEventListener("click", openFile);
  on("menu:shortcut", (d) => d && run(d.id));
  load();
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire); else wire();
