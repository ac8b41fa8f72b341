// What the room's layout measures, for the layout tests (tests/layout): the boxes of the stage, the panels,
// the windows, the toasts and the controls a person must reach, and for every ✕ and stage control what is
// on top at its centre. The tests judge; this only measures. In a browser the tests import it; the desktop,
// whose DOM a test cannot read, reports it to Go (RoomService.LayoutReport, to the file named by
// VOICEBOX_LAYOUT_PROBE) each time the layout settles, only when its configuration asks for it: the room
// loads this module only then.
import { call } from "./transport.js";

const box = (r) => ({ x: Math.round(r.left), y: Math.round(r.top), w: Math.round(r.width), h: Math.round(r.height) });

function visible(e) {
  if (!e || !e.isConnected) return false;
  const r = e.getBoundingClientRect();
  const s = getComputedStyle(e);
  return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none";
}

function describe(e) {
  if (!e) return "";
  const id = e.id ? `#${e.id}` : "";
  const cls = typeof e.className === "string" && e.className ? `.${e.className.trim().split(/\s+/).join(".")}` : "";
  return `${e.tagName.toLowerCase()}${id}${cls}`;
}

// control measures one element: its box, whether it is the topmost thing at its centre (hit), what is
// (top), and the first thing above it that is not another pop-over (cover: "" when only pop-overs are).
function control(e, name) {
  const r = e.getBoundingClientRect();
  const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
  const at = document.elementsFromPoint(cx, cy);
  const mine = (n) => n === e || e.contains(n);
  const layer = ".mini-app-window, #file-viewer"; // the layers that take turns in front (windows.js)
  const win = e.closest(".mini-app-window");
  let cover = "";
  for (const n of at) {
    if (mine(n)) break;
    const other = n.closest(layer);
    if (win && other && other !== win) continue; // a layer in front of a pop-over: the window list brings it up
    cover = describe(n);
    break;
  }
  return { name, box: box(r), hit: at.length > 0 && mine(at[0]), top: describe(at[0]), cover, window: win ? win.dataset.appId || "" : "" };
}

const closers = "#file-close, .mini-app-close, .notice-close, .undo-close, .mini-app-error button, dialog[open] button";
const stageControls = "#file-viewer header button, .mini-app-bar button, .mini-app-grip, #window-list button, .notice button";

// measure returns the report.
export function measure() {
  const $ = (s) => document.querySelector(s);
  const rect = (s) => { const e = $(s); return e && visible(e) ? box(e.getBoundingClientRect()) : null; };
  const all = (s) => [...document.querySelectorAll(s)].filter(visible);
  const front = all(".mini-app-window").sort((a, b) => Number(b.style.zIndex) - Number(a.style.zIndex))[0];
  return {
    viewport: { w: innerWidth, h: innerHeight },
    stage: rect("#stage"),
    container: rect("#mini-app-container"),
    sidebar: rect("#sidebar"),
    panel: rect("#panel"),
    session: rect("#session-panel"),
    activity: rect("#activity-log"),
    viewer: rect("#file-viewer"),
    viewerButtons: all("#file-viewer header button").map((e) => control(e, e.id)),
    windows: all(".mini-app-window").map((w) => ({ appId: w.dataset.appId, box: box(w.getBoundingClientRect()), front: w === front,
      maximised: w.classList.contains("maximised") })),
    minimised: [...document.querySelectorAll(".mini-app-window[hidden]")].map((w) => w.dataset.appId),
    frames: document.querySelectorAll("iframe").length, // shown or not: the window the room's document brought too
    windowList: all("#window-list button").map((e) => e.textContent),
    toasts: all("#notices .notice, #undo-toast").map((e) => ({ box: box(e.getBoundingClientRect()), text: e.querySelector(".notice-line")?.textContent || e.textContent })),
    dialogs: [...document.querySelectorAll("dialog[open]")].map((d) => d.id),
    closers: all(closers).filter((e) => e.textContent.trim() === "✕").map((e) => control(e, describe(e))),
    controls: all(stageControls).map((e) => control(e, describe(e))),
  };
}

// reportWhenSettled sends a report after the layout has been still for a moment, again after each change
// (room.js starts it when the room's configuration asks for it).
export function reportWhenSettled() {
  let timer = 0;
  const later = () => { clearTimeout(timer); timer = setTimeout(() => call("RoomService.LayoutReport", measure()).catch(() => {}), 400); };
  new ResizeObserver(later).observe(document.body);
  new MutationObserver(later).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["hidden", "style", "class", "open"] });
  later();
}
