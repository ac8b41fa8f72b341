// The room's layout (docs/room.md, "Layout"): the Mini-Apps panel (left) and the side panel (right) show or
// hide with the top bar's toggles and Ctrl+B / Ctrl+Alt+B, as an editor's side bars do; below NARROW px
// the Mini-Apps panel starts hidden so the stage keeps a useful size (the person's own choice wins until
// the window crosses that width again). The side panel's sections (Live Session, Tool Console, Activity)
// each fold with their heading and scroll on their own, so the activity log stays in reach while the
// console is in use. Choices are remembered where the room has storage.
const NARROW = 860;
const KEY = "voicebox.layout";

const $ = (id) => document.getElementById(id);

function remembered() {
  try { return JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch { return {}; }
}

function remember(state) {
  try { localStorage.setItem(KEY, JSON.stringify(state)); } catch { /* no storage here: choices last this page */ }
}

const state = { sidebar: null, panel: null, folded: {}, ...remembered() }; // null: as the width says
let narrow = innerWidth < NARROW;

function shown(which) {
  if (which === "sidebar") return state.sidebar ?? !narrow;
  return state.panel ?? true;
}

function apply() {
  for (const which of ["sidebar", "panel"]) {
    const on = shown(which);
    document.body.classList.toggle(`${which}-hidden`, !on);
    const b = $(`toggle-${which}`);
    if (b) b.setAttribute("aria-expanded", String(on));
  }
  for (const section of document.querySelectorAll("#panel > section")) {
    const folded = Boolean(state.folded[section.id]);
    section.classList.toggle("folded", folded);
    section.querySelector(".section-toggle")?.setAttribute("aria-expanded", String(!folded));
  }
}

// toggle shows or hides a panel ("sidebar" | "panel"); on: force it.
export function toggle(which, on) {
  state[which] = on ?? !shown(which);
  remember(state);
  apply();
}

function fold(id, folded) {
  state.folded[id] = folded;
  remember(state);
  apply();
}

// showActivity brings the activity log into view and puts the keyboard in its filter.
export function showActivity() {
  if (!shown("panel")) toggle("panel", true);
  if (state.folded.activity) fold("activity", false);
  const f = $("activity-filter");
  if (f) { f.focus(); f.select(); }
}

// foldable turns each side-panel section's heading into the button that folds it.
function foldable() {
  for (const section of document.querySelectorAll("#panel > section")) {
    const h = section.querySelector(":scope > h2");
    if (!h || h.querySelector(".section-toggle")) continue;
    const b = document.createElement("button");
    b.type = "button";
    b.className = "section-toggle";
    b.setAttribute("aria-controls", section.id);
    b.title = "Fold or unfold";
    b.append(...h.childNodes);
    h.append(b);
    b.addEventListener("click", () => fold(section.id, !state.folded[section.id]));
  }
}

function wire() {
  foldable();
  $("toggle-sidebar")?.addEventListener("click", () => toggle("sidebar"));
  $("toggle-panel")?.addEventListener("click", () => toggle("panel"));
  addEventListener("resize", () => {
    const now = innerWidth < NARROW;
    if (now === narrow) return;
    narrow = now;
    state.sidebar = null; // crossing the width: the default for the new width again
    apply();
  });
  apply();
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire); else wire();
