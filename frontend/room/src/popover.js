// Pop-over windows for open mini-apps inside #mini-app-container: each has a title bar (drag to move,
// double-click to maximise; minimise, maximise, reload, close) and a resize grip, and comes to the front when
// touched. Where windows go, minimising, maximising, resizing and the window list are windows.js' business;
// which app has the keyboard is keyboard.js': a press on a window hands its app the keyboard, Enter on its
// title too. A window shows when its app is broken (setError): the bar says "error" and a strip names it.
// ✎ (Change this app…) opens the room's strip under the bar: what to change, and the app's versions
// (author.js, loaded when first asked for).
import { el, notify, logActivity } from "./ui.js";
import { adopt, release, handOver } from "./keyboard.js";
import * as windows from "./windows.js";

const GRIP_STEP = 32; // a key press on the grip resizes by this much

// loadAuthor loads the room's app writing (author.js) when a Change strip is first asked for: it is one of
// the room's later parts (room.js), not the first app's.
const loadAuthor = () => import("./author.js");

// openWindow creates a window and returns its parts; the caller puts its frame into body. into: a window the
// room's document brought with its frame already loading (registry.js, bootWindow), built around where it is:
// a frame moved in the document would load again.
export function openWindow({ title, appId, onClose, onReload, onFocus, into }) {
  const titleEl = el("span", { class: "mini-app-title", tabindex: "0", title: "Click the app, or press Enter here, to type in it" }, title);
  const status = el("span", { class: "mini-app-status" }, "loading…");
  const button = (cls, label, text) => el("button", { type: "button", class: cls, title: label, "aria-label": label }, text);
  const min = button("mini-app-min", "Minimise (the window list brings it back)", "–");
  const max = button("mini-app-max", "Maximise or restore (double-click the title bar too)", "□");
  max.setAttribute("aria-pressed", "false");
  const reload = button("mini-app-reload", "Reload the app (its tools are registered again)", "⟳");
  const close = button("mini-app-close", "Close the app (its tools go away)", "✕");
  const change = button("mini-app-change", "Change this app… (say what to change; its versions)", "✎");
  change.setAttribute("aria-expanded", "false");
  const bar = el("header", { class: "mini-app-bar" }, titleEl, status, change, min, max, reload, close);
  const grip = el("div", { class: "mini-app-grip", role: "button", tabindex: "0", title: "Resize (drag, or arrow keys)", "aria-label": `Resize ${title}` });
  let win, body;
  if (into) {
    win = into;
    body = into.querySelector(".mini-app-body");
    win.removeAttribute("id");
    win.setAttribute("role", "dialog");
    win.setAttribute("aria-label", title);
    win.dataset.appId = appId;
    win.insertBefore(bar, body);
    win.append(grip);
  } else {
    body = el("div", { class: "mini-app-body" });
    win = el("section", { class: "mini-app-window", role: "dialog", "aria-label": title, dataset: { appId } }, bar, body, grip);
    document.getElementById("mini-app-container").append(win);
  }
  windows.add(win, title, onFocus);
  win.classList.remove("booting"); // placed: now it shows
  adopt(win, body, () => {
    const why = `${title} moved the keyboard into itself while it was not the app you were using, so it was closed: it could have read what you typed. Open it again to go on using it.`;
    notify(why, "error");
    logActivity("Voicebox", "close", title, "it took the keyboard from the room", true);
    if (onClose) onClose();
  });

  win.addEventListener("pointerdown", () => windows.front(win), true);
  titleEl.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || !e.isTrusted) return;
    e.preventDefault();
    windows.front(win);
    handOver(win);
  });
  min.addEventListener("click", () => windows.minimise(win));
  max.addEventListener("click", () => windows.toggleMaximise(win));
  reload.addEventListener("click", () => onReload && onReload());
  let panel = null; // the Change strip, while it shows
  const setPanel = (node) => {
    panel?.remove();
    panel = node;
    if (node) win.insertBefore(node, body);
    change.setAttribute("aria-expanded", String(Boolean(node)));
  };
  change.addEventListener("click", async () => {
    if (panel) { setPanel(null); return; }
    let author;
    try { author = await loadAuthor(); } catch (err) { notify(`Change this app… is not available: ${err.message}`, "error"); return; }
    setPanel(author.changePanel({ appId: win.dataset.appId, title: () => title, close: () => { setPanel(null); change.focus(); } }));
  });
  close.addEventListener("click", () => onClose && onClose());
  bar.addEventListener("pointerdown", (e) => { if (!e.target.closest("button")) windows.drag(win, bar, e); });
  bar.addEventListener("dblclick", (e) => { if (!e.target.closest("button")) windows.toggleMaximise(win); });
  grip.addEventListener("pointerdown", (e) => windows.resize(win, grip, e));
  grip.addEventListener("keydown", (e) => {
    const d = { ArrowLeft: [-GRIP_STEP, 0], ArrowRight: [GRIP_STEP, 0], ArrowUp: [0, -GRIP_STEP], ArrowDown: [0, GRIP_STEP] }[e.key];
    if (!d) return;
    e.preventDefault();
    windows.resizeBy(win, ...d);
  });

  let strip = null, said = "loading…", errors = 0;
  const showStatus = () => {
    status.textContent = errors ? `${said} · ${errors === 1 ? "error" : `${errors} errors`}` : said;
  };
  return {
    el: win,
    body,
    focus: () => windows.front(win),
    setStatus: (text) => { said = text; showStatus(); },
    setTitle: (text) => { title = text; titleEl.textContent = text; win.setAttribute("aria-label", text); },
    // setError shows that the app is broken: "error" in the bar and a strip with the newest error and how
    // many there were (null clears it: the app was reloaded).
    setError: (e) => {
      win.classList.toggle("has-error", Boolean(e));
      errors = e ? e.count : 0;
      showStatus();
      if (!e) { strip?.remove(); strip = null; return; }
      const text = `${title} has a script error: ${e.text}`;
      if (!strip) {
        strip = el("div", { class: "mini-app-error", role: "alert" }, el("span", { class: "mini-app-error-text" }),
          el("button", { type: "button", title: "Dismiss", "aria-label": "Dismiss", onclick: () => { strip.remove(); strip = null; } }, "✕"));
        win.insertBefore(strip, body);
      }
      strip.firstChild.textContent = text;
    },
    remove: () => { windows.remove(win); release(win); win.remove(); },
  };
}
