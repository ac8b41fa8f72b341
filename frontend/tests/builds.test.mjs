// The build cards' words and the Versions list (builds.js). Run: node --test frontend/tests/builds.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { card, actions, elapsedMs, duration, metaLine, outcome, tail, retryArgs, versionView, undoTarget, stateLabel, dismissKey } from "../room/src/builds.js";

const T0 = 1_760_000_000_000;
const job = (over = {}) => ({
  id: "b1", kind: "create", request: "make me a chess clock", name: "Chess Clock", slug: "chess-clock", caller: "you",
  state: "writing", text: "", chars: 0, round: 1, provider: "openai", model: "gpt-5.5", tokensIn: 0, tokensOut: 0,
  startedAt: T0, ...over,
});

test("elapsed time ticks while a build runs and stops when it ended", () => {
  assert.equal(elapsedMs(job(), T0 + 12_400), 12_400);
  assert.equal(elapsedMs(job({ state: "done", endedAt: T0 + 5_000 }), T0 + 60_000), 5_000);
  assert.equal(elapsedMs(job(), T0 - 3_000), 0, "a start after now is not a negative time");
  assert.equal(elapsedMs(job({ startedAt: 0 }), T0), 0);
  assert.deepEqual([0, 999, 42_000, 59_999, 60_000, 65_000, 754_000].map(duration), ["0 s", "0 s", "42 s", "59 s", "1 min 00 s", "1 min 05 s", "12 min 34 s"]);
});

test("a writing build: the request, the streaming text's tail, characters, round, time, provider; Cancel only", () => {
  const text = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n");
  const c = card(job({ text, chars: 12345, round: 2 }), T0 + 7_000);
  assert.equal(c.heading, "New app: Chess Clock");
  assert.equal(c.badge, "writing");
  assert.equal(c.request, "make me a chess clock");
  assert.equal(c.meta, "12,345 characters · round 2 · 7 s · OpenAI gpt-5.5");
  assert.equal(c.text.split("\n").length, 12);
  assert.ok(c.text.startsWith("line 19") && c.text.endsWith("line 30"), c.text);
  assert.deepEqual(c.actions, ["cancel"]);
  assert.equal(c.outcome, null);
  assert.ok(c.running);
  assert.deepEqual(card(job({ state: "checking", text: "x" }), T0).actions, ["cancel"]);
  assert.equal(stateLabel(job({ state: "checking" })), "checking the app");
  assert.equal(metaLine(job({ chars: 1, provider: "gemini", model: "" }), T0), "1 character · round 1 · 0 s · Gemini");
});

test("a finished build shows no streaming text and offers Dismiss", () => {
  for (const state of ["done", "failed", "cancelled"]) {
    const c = card(job({ state, text: "<html>", endedAt: T0 + 1000, appId: state === "done" ? "page_chess-clock" : "", code: state === "failed" ? "code-model-failed" : "" }), T0 + 9_000);
    assert.equal(c.text, "", state);
    assert.equal(c.actions.at(-1), "dismiss", state);
    assert.ok(!c.actions.includes("cancel"), state);
    assert.equal(c.meta.includes("1 s"), true, `${state}: the time it took, not the time since: ${c.meta}`);
  }
});

test("done: the app's title and tools, Bring to Front; open with problems says so honestly", () => {
  const ok = job({ state: "done", endedAt: T0 + 3000, appId: "page_chess-clock", title: "Chess Clock", version: 1, tools: ["start_clock", "read_page"] });
  assert.deepEqual(outcome(ok), { tone: "ok", line: "Chess Clock is open (version 1), with 2 tools: start_clock, read_page.", details: "", tools: ["start_clock", "read_page"], action: "" });
  assert.deepEqual(actions(ok), ["show", "dismiss"]);
  const bad = { ...ok, tools: [], problems: ["no tool was registered", "an uncaught error at line 3: x is not defined"] };
  assert.equal(outcome(bad).tone, "warn");
  assert.equal(outcome(bad).line, "Chess Clock is open, but does not work yet: no tool was registered; an uncaught error at line 3: x is not defined");
  assert.equal(stateLabel(bad), "does not work yet");
});

test("failed: errortext's sentence for the code, with the provider, and Open Settings where a key is the problem", () => {
  const refused = job({ state: "failed", endedAt: T0 + 500, code: "code-model-key-refused", message: "HTTP 401: the key was refused" });
  const o = outcome(refused);
  assert.equal(o.line, "OpenAI refused the API key, so the app was not written. Check the key in Settings.");
  assert.equal(o.action, "settings");
  assert.ok(o.details.includes("HTTP 401") && o.details.includes("(code-model-key-refused)"));
  assert.deepEqual(actions(refused), ["settings", "retry", "dismiss"]);
  const none = job({ state: "failed", code: "no-code-model", message: "no key" });
  assert.deepEqual(actions(none), ["settings", "retry", "dismiss"]);
  const busy = job({ state: "failed", code: "code-model-unavailable", message: "HTTP 503", provider: "gemini" });
  assert.equal(outcome(busy).action, "retry");
  assert.deepEqual(actions(busy), ["retry", "dismiss"]);
  const unknown = job({ state: "failed", code: "", message: "" });
  assert.equal(outcome(unknown).line, "Something went wrong inside Voicebox.");
});

test("cancelled: nothing was written, or the version that stays", () => {
  assert.equal(outcome(job({ state: "cancelled" })).line, "Cancelled; nothing was written.");
  assert.equal(outcome(job({ state: "cancelled", version: 2 })).line, "Cancelled; version 2 stays.");
  assert.deepEqual(actions(job({ state: "cancelled" })), ["retry", "dismiss"]);
});

test("an edit's card and how it starts again", () => {
  const edit = job({ kind: "edit", name: "Chess Clock", request: "make the buttons bigger", appId: "page_chess-clock" });
  assert.equal(card(edit, T0).heading, "Change Chess Clock");
  assert.deepEqual(retryArgs(edit), ["AuthorService.Edit", "page_chess-clock", "make the buttons bigger"]);
  assert.deepEqual(retryArgs({ ...edit, appId: "" }), ["AuthorService.Edit", "Chess Clock", "make the buttons bigger"]);
  assert.deepEqual(retryArgs(job()), ["AuthorService.Create", "make me a chess clock", "Chess Clock"]);
  assert.notEqual(dismissKey(job()), dismissKey(job({ startedAt: T0 + 1 })), "b1 of another run is another build");
});

test("tail keeps short text whole", () => {
  assert.equal(tail("a\nb"), "a\nb");
  assert.equal(tail(""), "");
  assert.equal(tail(undefined), "");
});

test("a version's line: number, time, what made it, the request, whether it works", () => {
  const when = (t) => `at ${t}`;
  assert.deepEqual(versionView({ number: 2, time: "T", source: "edit", request: "bigger buttons", outcome: "ok" }, true, when),
    { number: 2, when: "at T", what: "changed", request: "bigger buttons", works: "works", current: true });
  assert.equal(versionView({ number: 3, source: "restore", from: 1, outcome: "check-failed", reason: "no tool" }, false).what, "version 1 restored");
  assert.equal(versionView({ number: 3, source: "restore", from: 1, outcome: "check-failed", reason: "no tool" }, false).works, "does not work: no tool");
  assert.equal(versionView({ number: 4, source: "revert", from: 2 }, false).what, "back to version 2");
  assert.equal(versionView({ number: 1, source: "copy" }, false).works, "not checked");
});

test("Undo brings back the version before the current one, as Go's revert does", () => {
  const v = (number, source, sha256, from) => ({ number, source, sha256, from });
  assert.equal(undoTarget([]), 0);
  assert.equal(undoTarget(null), 0);
  assert.equal(undoTarget([v(1, "create", "a")]), 0, "the first version has nothing before it");
  assert.equal(undoTarget([v(2, "edit", "b"), v(1, "create", "a")]), 1);
  // A version with the current content is skipped: undo must change the page.
  assert.equal(undoTarget([v(3, "edit", "a"), v(2, "edit", "b"), v(1, "create", "a")]), 2);
  // A revert counts from the version it went back to: reverting twice goes back two steps.
  assert.equal(undoTarget([v(4, "revert", "b", 2), v(3, "edit", "c"), v(2, "edit", "b"), v(1, "create", "a")]), 1);
  // A restore is a step of its own: Undo undoes it.
  assert.equal(undoTarget([v(3, "restore", "a", 1), v(2, "edit", "b"), v(1, "create", "a")]), 2);
});
