// The room's toasts (#notices, at the foot of the stage, so they never cover the side panels): one line that
// says what happened and what to do, a ✕, actions where they help (Open Settings, Retry, Undo) and the
// details behind "Details". At most MAX_SHOWN show, newest first; info and ok toasts go after
// INFO_MS, errors after ERROR_MS, none while the pointer or the focus is on it or its details are open,
// and a sticky one (Undo) only when dismissed. A toast with the same key as one showing is not shown
// twice: that one counts "×2" and starts its time again (docs/room.md, "Feedback").
import { el } from "./dom.js";

export const MAX_SHOWN = 3;
export const INFO_MS = 6000;
export const ERROR_MS = 30000;

const shown = new Map(); // key → toast

function region() { return document.getElementById("notices"); }

// toast shows { level: "info" | "ok" | "error", line, details, actions: [{ label, run, id }], key, sticky,
// id, ms } and returns its handle { dismiss, node }.
export function toast({ level = "info", line, details = "", actions = [], key, sticky = false, id, ms }) {
  key = key || `${level}:${line}`;
  const same = shown.get(key);
  if (same) {
    same.count++;
    same.badge.textContent = `×${same.count}`;
    same.badge.hidden = false;
    region().prepend(same.node);
    same.restart();
    return same;
  }
  const box = region();
  const t = { key, count: 1, timer: 0, held: 0, sticky, ms: ms || (level === "error" ? ERROR_MS : INFO_MS) };
  t.badge = el("span", { class: "notice-count", hidden: true, title: "Shown again" });
  const close = el("button", { type: "button", class: "notice-close", title: "Dismiss", "aria-label": "Dismiss" }, "✕");
  const text = el("p", { class: "notice-line" }, line);
  const buttons = actions.map((a) => el("button", {
    type: "button", class: "notice-action", id: a.id || null,
    onclick: async () => { const keep = await a.run(); if (!keep) t.dismiss(); },
  }, a.label));
  let more = null, pre = null;
  if (details) {
    pre = el("pre", { class: "notice-details", hidden: true }, details);
    more = el("button", { type: "button", class: "notice-more", "aria-expanded": "false" }, "Details");
    more.addEventListener("click", () => {
      const open = pre.hidden;
      pre.hidden = !open;
      more.setAttribute("aria-expanded", String(open));
      more.textContent = open ? "Hide details" : "Details";
      hold(t, open);
    });
  }
  t.node = el("div", { class: `notice ${level}`, id: id || null, role: level === "error" ? "alert" : "status", dataset: { key } },
    el("div", { class: "notice-main" }, text, t.badge, close),
    buttons.length || more ? el("div", { class: "notice-actions" }, ...buttons, more) : null,
    pre);
  t.dismiss = () => {
    clearTimeout(t.timer);
    if (shown.get(key) === t) shown.delete(key);
    t.node.remove();
  };
  t.restart = () => {
    clearTimeout(t.timer);
    if (!t.sticky && t.held === 0) t.timer = setTimeout(t.dismiss, t.ms);
  };
  close.addEventListener("click", t.dismiss);
  // The toast waits while the person reads it or works in it.
  t.node.addEventListener("pointerenter", () => hold(t, true));
  t.node.addEventListener("pointerleave", () => hold(t, false));
  t.node.addEventListener("focusin", () => hold(t, true));
  t.node.addEventListener("focusout", (e) => { if (!t.node.contains(e.relatedTarget)) hold(t, false); });
  t.node.addEventListener("keydown", (e) => { if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); t.dismiss(); } });
  shown.set(key, t);
  box.prepend(t.node);
  trim(box);
  t.restart();
  return t;
}

function hold(t, on) {
  t.held = Math.max(0, t.held + (on ? 1 : -1));
  if (t.held > 0) clearTimeout(t.timer);
  else t.restart();
}

// trim keeps MAX_SHOWN toasts: the oldest info goes first, then the oldest error, a sticky one last.
function trim(box) {
  while (box.children.length > MAX_SHOWN) {
    const all = [...shown.values()].filter((t) => t.node.parentNode === box);
    const oldest = (f) => [...box.children].reverse().map((n) => all.find((t) => t.node === n)).find((t) => t && f(t));
    const victim = oldest((t) => !t.sticky && !t.node.classList.contains("error")) || oldest((t) => !t.sticky) || oldest(() => true);
    if (!victim) { box.lastChild.remove(); continue; }
    victim.dismiss();
  }
}

// dismissAll closes every toast (a test's or a person's clean slate).
export function dismissAll() { for (const t of [...shown.values()]) t.dismiss(); }
