// The pop-over windows as a desktop has them (docs/room.md, "Windows"): where a new one goes (placement.js),
// which is in front, minimised and maximised windows, resizing from a visible grip, re-fitting them all when
// the stage shrinks (the ✕ never ends up behind a side panel), and the window list at the foot of the stage
// (#window-list): one button per open app that brings it to the front, minimised or not. popover.js builds
// each window's parts and hands the window here.
import { el } from "./dom.js";
import { place, fit, dragTo, resizeTo } from "./placement.js";
import { subscribe } from "./state.js";

const wins = new Map(); // window element → { title, min, max, saved: {left, top, width, height}, onFocus }
let z = 10; // the windows and the File Viewer share this order: the one touched or shown last is in front
const Z_MAX = 100000; // below the window list and the toasts (style.css)

const $ = (id) => document.getElementById(id);
const container = () => $("mini-app-container");

function box() {
  const c = container();
  return { width: c.clientWidth, height: c.clientHeight };
}

function rectOf(win) {
  return { left: win.offsetLeft, top: win.offsetTop, width: win.offsetWidth, height: win.offsetHeight };
}

function setRect(win, r) {
  if (r.left !== undefined) win.style.left = `${Math.round(r.left)}px`;
  if (r.top !== undefined) win.style.top = `${Math.round(r.top)}px`;
  if (r.width !== undefined) win.style.width = `${Math.round(r.width)}px`;
  if (r.height !== undefined) win.style.height = `${Math.round(r.height)}px`;
}

// viewerTop is where the File Viewer's header ends in the stage, while it shows: new windows start below.
function viewerTop() {
  const viewer = $("file-viewer");
  if (!viewer || viewer.hidden) return 0;
  const head = viewer.querySelector("header");
  if (!head) return 0;
  return head.getBoundingClientRect().bottom - container().getBoundingClientRect().top + 8;
}

// raise puts el (a window or the File Viewer) in front of the others, renumbering them all now and then.
function raise(el) {
  if (z >= Z_MAX) {
    const layers = [...wins.keys(), $("file-viewer")].filter(Boolean).sort((a, b) => Number(a.style.zIndex) - Number(b.style.zIndex));
    z = 10;
    for (const l of layers) l.style.zIndex = String(++z);
  }
  el.style.zIndex = String(++z);
}

// add places a new window (already in the container) and lists it: in front of everything, the File
// Viewer too, but below the viewer's header. onFocus hears each time the person brings it to the front.
export function add(win, title, onFocus) {
  wins.set(win, { title, min: false, max: false, saved: null, onFocus });
  list(); // the window list shows first: the stage's room for windows is what is left above it
  const others = [...wins.keys()].filter((w) => w !== win && !w.hidden).map(rectOf);
  setRect(win, place(box(), others, { top: viewerTop() }));
  front(win);
}

export function remove(win) {
  wins.delete(win);
  const top = topmost();
  if (top) front(top, { quiet: true });
  list();
}

export function setTitle(win, title) {
  const w = wins.get(win);
  if (w) { w.title = title; list(); }
}

function topmost() {
  let best = null;
  for (const w of wins.keys()) if (!w.hidden && (!best || Number(w.style.zIndex) > Number(best.style.zIndex))) best = w;
  return best;
}

// front brings win to the front (restoring it when minimised) and marks it; quiet: without telling its
// onFocus (the room notes the app used last: state.front).
export function front(win, { quiet = false } = {}) {
  const w = wins.get(win);
  if (!w) return;
  if (w.min) { w.min = false; win.hidden = false; }
  raise(win);
  for (const x of wins.keys()) x.classList.toggle("focused", x === win);
  list();
  if (!quiet) w.onFocus?.();
}

export function minimise(win) {
  const w = wins.get(win);
  if (!w) return;
  const hadFocus = win.contains(document.activeElement);
  w.min = true;
  win.hidden = true;
  win.classList.remove("focused");
  const top = topmost();
  if (top) front(top, { quiet: true }); else list();
  if (hadFocus) listButton(win)?.focus();
}

export function toggleMaximise(win) {
  const w = wins.get(win);
  if (!w) return;
  if (w.max) {
    w.max = false;
    win.classList.remove("maximised");
    setRect(win, fit(w.saved, box()));
  } else {
    w.saved = rectOf(win);
    w.max = true;
    win.classList.add("maximised");
  }
  win.querySelector(".mini-app-max")?.setAttribute("aria-pressed", String(w.max));
  front(win);
}

export function isMaximised(win) { return Boolean(wins.get(win)?.max); }

// follow runs move(dx, dy, start) as the pointer moves after pressing handle (pointer capture keeps it
// when the pointer crosses the app's frame), until it lets go.
function follow(win, handle, e, move) {
  if (wins.get(win)?.max) return;
  e.preventDefault();
  e.stopPropagation();
  const x0 = e.clientX, y0 = e.clientY;
  const start = rectOf(win);
  handle.setPointerCapture(e.pointerId);
  win.classList.add("dragging");
  const onMove = (ev) => setRect(win, move(ev.clientX - x0, ev.clientY - y0, start));
  const up = () => {
    handle.removeEventListener("pointermove", onMove);
    handle.removeEventListener("pointerup", up);
    handle.removeEventListener("pointercancel", up);
    win.classList.remove("dragging");
  };
  handle.addEventListener("pointermove", onMove);
  handle.addEventListener("pointerup", up);
  handle.addEventListener("pointercancel", up);
}

// drag moves win by its title bar; resize sizes it by its grip.
export function drag(win, bar, e) { follow(win, bar, e, (dx, dy, r) => dragTo(r.left + dx, r.top + dy, r, box())); }
export function resize(win, grip, e) { follow(win, grip, e, (dx, dy, r) => resizeTo(r.width + dx, r.height + dy, r, box())); }

// resizeBy is the grip's keyboard: arrow keys grow or shrink the window by step.
export function resizeBy(win, dw, dh) {
  if (wins.get(win)?.max) return;
  const r = rectOf(win);
  setRect(win, resizeTo(r.width + dw, r.height + dh, r, box()));
}

// fitAll keeps every window inside the stage when it shrinks (a smaller main window, a side panel shown).
// The windows in front of the File Viewer stay below its header (which grows when the stage narrows).
export function fitAll() {
  const b = box();
  if (b.width <= 0 || b.height <= 0) return;
  const viewer = $("file-viewer");
  const vz = viewer && !viewer.hidden ? Number(viewer.style.zIndex) : Infinity;
  const vt = viewerTop();
  for (const [win, w] of wins) {
    if (w.max) continue;
    if (w.saved) w.saved = fit(w.saved, b);
    if (win.hidden) continue;
    const r = rectOf(win);
    const f = fit(r, b, { top: Number(win.style.zIndex) > vz ? vt : 0 });
    if (f.left !== r.left || f.top !== r.top || f.width !== r.width || f.height !== r.height) setRect(win, f);
  }
}

// next brings the window after the front one (in opening order) to the front, minimised ones too.
export function next() {
  const all = [...wins.keys()];
  if (!all.length) return;
  const cur = all.indexOf(topmost());
  const win = all[(cur + 1) % all.length];
  front(win);
  win.querySelector(".mini-app-title")?.focus();
}

// ---- the window list ----
function listButton(win) {
  return [...($("window-list")?.children || [])].find((b) => b.winRef === win);
}

function list() {
  const nav = $("window-list");
  if (!nav) return;
  const top = topmost();
  nav.replaceChildren(...[...wins].map(([win, w]) => {
    const b = el("button", {
      type: "button", class: `window-tab${w.min ? " minimised" : ""}${win === top ? " front" : ""}`,
      title: w.min ? `${w.title} (minimised): bring it back` : `Bring ${w.title} to the front`,
      "aria-current": win === top ? "true" : "false", dataset: { appId: win.dataset.appId || "" },
      onclick: () => { front(win); win.querySelector(".mini-app-title")?.focus(); },
    }, w.title);
    b.winRef = win;
    return b;
  }));
  nav.hidden = wins.size === 0;
  $("stage")?.classList.toggle("has-windows", wins.size > 0);
}

// The File Viewer is one more layer: it comes to the front when it shows and when it is pressed, so the
// windows opened before it never hide its buttons; windows opened while it shows start below its header.
function wireViewer(viewer) {
  new MutationObserver(() => { if (!viewer.hidden) raise(viewer); }).observe(viewer, { attributes: true, attributeFilter: ["hidden"] });
  subscribe((s) => { if (s.viewing) raise(viewer); }, "viewing"); // another file in the viewer (viewer.js)
  viewer.addEventListener("pointerdown", () => raise(viewer), true);
}

function wire() {
  const c = container();
  if (!c) return;
  const fits = new ResizeObserver(() => fitAll());
  fits.observe(c);
  const viewer = $("file-viewer");
  if (viewer) {
    wireViewer(viewer);
    const head = viewer.querySelector("header");
    if (head) fits.observe(head); // its buttons wrap onto a second row when the stage narrows
  }
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire); else wire();
