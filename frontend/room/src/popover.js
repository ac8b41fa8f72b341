// Pop-over windows for open mini-apps inside #mini-app-container: each has a title bar (drag to move,
// reload, close), resizes from its corner, and comes to the front when touched. Which app has the keyboard
// is keyboard.js' business: a press on a window hands its app the keyboard, Enter on its title too.
import { el, notify, logActivity } from "./ui.js";
import { adopt, release, handOver } from "./keyboard.js";

let z = 10;
let cascade = 0;
const windows = new Set();
const focusHandlers = new Map(); // window → its onFocus

function container() { return document.getElementById("mini-app-container"); }

export function bringToFront(win) {
  if (!win) return;
  win.style.zIndex = String(++z);
  for (const w of windows) w.classList.toggle("focused", w === win);
  focusHandlers.get(win)?.(); // the room notes the app used last (state.front)
}

// openWindow creates a window and returns its parts; the caller puts its frame into body.
export function openWindow({ title, appId, onClose, onReload, onFocus }) {
  const box = container();
  const rect = box.getBoundingClientRect();
  const width = Math.max(320, Math.min(480, rect.width - 40));
  const height = Math.max(240, Math.min(560, rect.height - 40));
  const step = (cascade++ % 6) * 28;
  const titleEl = el("span", { class: "mini-app-title", tabindex: "0", title: "Click the app, or press Enter here, to type in it" }, title);
  const status = el("span", { class: "mini-app-status" }, "loading…");
  const reload = el("button", { type: "button", class: "mini-app-reload", title: "Reload the app (its tools are registered again)" }, "⟳");
  const close = el("button", { type: "button", class: "mini-app-close", title: "Close the app (its tools go away)" }, "✕");
  const bar = el("header", { class: "mini-app-bar" }, titleEl, status, reload, close);
  const body = el("div", { class: "mini-app-body" });
  const win = el("section", { class: "mini-app-window", role: "dialog", "aria-label": title, dataset: { appId } }, bar, body);
  win.style.left = `${Math.max(0, Math.min(rect.width - width, 20 + step))}px`;
  win.style.top = `${Math.max(0, Math.min(rect.height - height, 16 + step))}px`;
  win.style.width = `${width}px`;
  win.style.height = `${height}px`;
  box.append(win);
  windows.add(win);
  if (onFocus) focusHandlers.set(win, onFocus);
  adopt(win, body, () => {
    const why = `${title} moved the keyboard into itself while it was not the app you were using, so it was closed: it could have read what you typed. Open it again to go on using it.`;
    notify(why, "error");
    logActivity("Voicebox", "close", title, "it took the keyboard from the room", true);
    if (onClose) onClose();
  });
  bringToFront(win);

  win.addEventListener("pointerdown", () => bringToFront(win), true);
  titleEl.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || !e.isTrusted) return;
    e.preventDefault();
    bringToFront(win);
    handOver(win);
  });
  reload.addEventListener("click", () => onReload && onReload());
  close.addEventListener("click", () => onClose && onClose());

  // Drag by the title bar; pointer capture keeps the drag when the pointer crosses the app's frame.
  bar.addEventListener("pointerdown", (e) => {
    if (e.target.closest("button")) return;
    e.preventDefault();
    const startX = e.clientX, startY = e.clientY;
    const left = win.offsetLeft, top = win.offsetTop;
    bar.setPointerCapture(e.pointerId);
    win.classList.add("dragging");
    const move = (ev) => {
      const b = box.getBoundingClientRect();
      const x = Math.max(-win.offsetWidth + 80, Math.min(b.width - 80, left + ev.clientX - startX));
      const y = Math.max(0, Math.min(b.height - 32, top + ev.clientY - startY));
      win.style.left = `${x}px`;
      win.style.top = `${y}px`;
    };
    const up = () => {
      bar.removeEventListener("pointermove", move);
      bar.removeEventListener("pointerup", up);
      bar.removeEventListener("pointercancel", up);
      win.classList.remove("dragging");
    };
    bar.addEventListener("pointermove", move);
    bar.addEventListener("pointerup", up);
    bar.addEventListener("pointercancel", up);
  });

  return {
    el: win,
    body,
    focus: () => bringToFront(win),
    setStatus: (text) => { status.textContent = text; },
    remove: () => { windows.delete(win); focusHandlers.delete(win); release(win); win.remove(); },
  };
}
