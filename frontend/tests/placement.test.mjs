// Where pop-overs go (placement.js), as pure functions of boxes. Run: node --test frontend/tests/placement.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { place, fit, dragTo, resizeTo, slots, STEP, MIN_W, MIN_H } from "../room/src/placement.js";

const inside = (r, box) => r.left >= 0 && r.top >= 0 && r.left + r.width <= box.width && r.top + r.height <= box.height;

for (const box of [{ width: 860, height: 800 }, { width: 440, height: 507 }, { width: 472, height: 366 }]) {
  test(`twelve windows in ${box.width}×${box.height}: none lands on another while slots last, all inside`, () => {
    const placed = [];
    const n = Math.min(12, slots(box).length);
    for (let i = 0; i < 12; i++) placed.push(place(box, placed));
    for (const [i, r] of placed.entries()) {
      assert.ok(inside(r, box), `window ${i} ${JSON.stringify(r)} is outside ${JSON.stringify(box)}`);
      assert.ok(r.width >= MIN_W && r.height >= MIN_H, `window ${i} is below the minimum: ${JSON.stringify(r)}`);
    }
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < i; j++) {
        const same = Math.abs(placed[i].left - placed[j].left) < STEP / 2 && Math.abs(placed[i].top - placed[j].top) < STEP / 2;
        assert.ok(!same, `window ${i} lands on window ${j} at ${placed[i].left},${placed[i].top}`);
      }
    }
  });
}

test("the seventh window does not hide the first (the old cascade wrapped after six)", () => {
  const box = { width: 860, height: 800 };
  const placed = [];
  for (let i = 0; i < 7; i++) placed.push(place(box, placed));
  assert.notDeepEqual([placed[6].left, placed[6].top], [placed[0].left, placed[0].top]);
});

test("a window closed frees its slot for the next", () => {
  const box = { width: 860, height: 800 };
  const a = place(box, []), b = place(box, [a]);
  assert.deepEqual(place(box, [b]), a);
});

test("below the File Viewer's header", () => {
  const r = place({ width: 860, height: 800 }, [], { top: 120 });
  assert.ok(r.top >= 120, `top ${r.top}`);
});

test("a stage smaller than a window: the window is the stage", () => {
  assert.deepEqual(place({ width: 200, height: 100 }, []), { left: 0, top: 0, width: 200, height: 100 });
});

test("fit keeps the place and gives up size first, then moves; the whole window stays inside", () => {
  const box = { width: 440, height: 507 };
  assert.deepEqual(fit({ left: 52, top: 48, width: 480, height: 560 }, box), { left: 52, top: 48, width: 388, height: 459 });
  const moved = fit({ left: 400, top: 450, width: 480, height: 560 }, box);
  assert.ok(inside(moved, box), JSON.stringify(moved));
  assert.deepEqual([moved.left, moved.width], [0, 440]); // it cannot keep its place: it moves and keeps what size fits
  assert.deepEqual(fit({ left: 10, top: 20, width: 300, height: 200 }, { width: 1000, height: 900 }), { left: 10, top: 20, width: 300, height: 200 });
  assert.equal(fit({ left: 10, top: 20, width: 300, height: 200 }, { width: 1000, height: 900 }, { top: 150 }).top, 150);
});

test("a drag keeps the ✕ (the right edge) and the title bar in the stage", () => {
  const box = { width: 800, height: 600 };
  assert.deepEqual(dragTo(5000, 5000, { width: 300 }, box), { left: 500, top: 568 });
  assert.deepEqual(dragTo(-5000, -5, { width: 300 }, box), { left: -180, top: 0 });
});

test("a resize stays between the minimum and the stage", () => {
  const box = { width: 800, height: 600 };
  const r = { left: 100, top: 100 };
  assert.deepEqual(resizeTo(10, 10, r, box), { width: MIN_W, height: MIN_H });
  assert.deepEqual(resizeTo(5000, 5000, r, box), { width: 700, height: 500 });
});
