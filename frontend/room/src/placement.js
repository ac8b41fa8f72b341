// Where pop-over windows go on the stage, as pure functions of boxes (no DOM: placement.test.mjs tests them).
//
// A new window takes the first cascade slot no window sits at already, so it never lands exactly on another
// (docs/room.md, "Windows"). Slots step STEP down and right, which is more than a title bar's height, so
// the bar of every window in a cascade, with its ✕, stays in sight; when a column runs out of room, the
// next one starts further right. A window is sized to fit the stage from its slot, never below MIN_W×MIN_H
// unless the stage itself is smaller. Below `top` (the File Viewer's header while it shows) no slot starts,
// so a new window never covers the viewer's own buttons.

export const STEP = 32;
export const COLUMN = 3 * STEP;
export const MIN_W = 240;
export const MIN_H = 160;
export const WANT_W = 480;
export const WANT_H = 560;
export const LEFT = 20;
export const TOP = 16;
export const GAP = 8; // kept free at the stage's right and bottom edges
export const BAR = 32; // a title bar: what must stay in the stage when a window is dragged down

const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), Math.max(lo, hi));

// slots lists the cascade's slots in a box, in the order they are taken.
export function slots({ width, height }, { top = 0 } = {}) {
  const y0 = Math.max(TOP, top);
  const out = [];
  for (let col = 0; LEFT + COLUMN * col + MIN_W + GAP <= width; col++) {
    for (let row = 0; ; row++) {
      const x = LEFT + COLUMN * col + STEP * row;
      const y = y0 + STEP * row;
      if (x + MIN_W + GAP > width || y + MIN_H + GAP > height) break;
      out.push({ left: x, top: y });
    }
  }
  return out;
}

// place returns { left, top, width, height } for a new window in box, beside others ({ left, top }).
export function place(box, others, { top = 0, want = { width: WANT_W, height: WANT_H } } = {}) {
  const all = slots(box, { top });
  if (all.length === 0) return { left: 0, top: 0, width: Math.max(1, box.width), height: Math.max(1, box.height) };
  const taken = (s) => others.some((o) => Math.abs(o.left - s.left) < STEP / 2 && Math.abs(o.top - s.top) < STEP / 2);
  const s = all.find((x) => !taken(x)) || all[others.length % all.length];
  return {
    left: s.left,
    top: s.top,
    width: Math.max(MIN_W, Math.min(want.width, box.width - s.left - GAP)),
    height: Math.max(MIN_H, Math.min(want.height, box.height - s.top - GAP)),
  };
}

// fit moves and shrinks a window ({ left, top, width, height }) back into box after the box shrank: the
// whole window, its ✕ and its resize grip with it, stays inside. It keeps its place and gives up size
// first (down to the minimum), so a cascade stays a cascade; only then does it move. A window kept below
// `top` (the File Viewer's header, for the windows in front of the viewer) moves down to it first.
export function fit(r, box, { top = 0 } = {}) {
  const [left, width] = fitAxis(r.left, r.width, box.width, MIN_W);
  const [y, height] = fitAxis(Math.max(r.top, top), r.height, box.height, MIN_H);
  return { left, top: y, width, height };
}

function fitAxis(pos, size, room, least) {
  const min = Math.min(least, Math.max(room, 1));
  const kept = Math.min(size, room - pos);
  if (kept >= min) return [pos, kept];
  const s = Math.max(min, Math.min(size, room));
  return [clamp(pos, 0, room - s), s];
}

// dragTo is where a window dragged to (x, y) may go: its right edge (the ✕) stays in the box, at least 120
// px of it too, and its title bar stays below the box's top and above its bottom.
export function dragTo(x, y, { width }, box) {
  return {
    left: clamp(x, Math.min(0, 120 - width), box.width - width),
    top: clamp(y, 0, box.height - BAR),
  };
}

// resizeTo is a window's size when its grip is dragged to (w, h): at least the minimum, at most what the
// box holds from the window's corner.
export function resizeTo(w, h, r, box) {
  return {
    width: clamp(w, Math.min(MIN_W, box.width - r.left), box.width - r.left),
    height: clamp(h, Math.min(MIN_H, box.height - r.top), box.height - r.top),
  };
}
