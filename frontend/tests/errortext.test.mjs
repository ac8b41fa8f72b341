// Errors in words for the person (errortext.js). Run: node --test frontend/tests/errortext.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { describe, codeOf, TEXT } from "../room/src/errortext.js";

test("a failed connection: one line with what to do, the Go error chain only in the details", () => {
  const chain = 'failed to WebSocket dial: failed to send handshake request: Get "https://api.openai.com/v1/realtime": dial tcp: lookup api.openai.com on 127.0.0.53:53: no such host';
  const d = describe({ code: "upstream-error", message: chain }, { provider: "openai" });
  assert.equal(d.line, "OpenAI could not be reached or reported a problem. Check the internet connection, then retry.");
  assert.equal(d.action, "retry");
  assert.ok(d.details.includes(chain) && d.details.includes("(upstream-error)"));
  assert.ok(!/dial|lookup|WebSocket/.test(d.line));
});

test("a code with a byte count never reaches the line", () => {
  const d = describe({ code: "file-too-large", message: "file-too-large: /x/big.html is larger than 16777216 bytes" }, { doing: "Could not open big.html" });
  assert.equal(d.line, "Could not open big.html. The file is too large for a mini-app. Pick a smaller one.");
  assert.ok(!d.line.includes("16777216") && !d.line.includes("file-too-large"));
  assert.ok(d.details.includes("16777216"));
});

test("a missing or refused key offers Settings", () => {
  for (const code of ["missing-key", "key-refused"]) {
    const d = describe({ code, message: "x" }, { provider: "gemini" });
    assert.equal(d.action, "settings");
    assert.ok(d.line.startsWith(code === "missing-key" ? "No Gemini API key" : "Gemini refused"), d.line);
  }
});

test("no answer at all is 'unreachable' with Retry; an unknown code still reads as a sentence", () => {
  assert.equal(codeOf(new TypeError("Failed to fetch")), "unreachable");
  assert.equal(codeOf({ code: "http-502", message: "Bad Gateway" }), "unreachable");
  assert.equal(describe(new TypeError("Failed to fetch")).action, "retry");
  const d = describe({ code: "brand-new-code", message: "brand-new-code: what Go said" });
  assert.equal(d.line, TEXT["internal-error"].say);
  assert.ok(d.details.includes("what Go said"));
});

test("the room's own launch messages are the line", () => {
  const d = describe({ code: "launch-failed", message: "Timer stays closed: it stopped the room before." }, { title: "Timer" });
  assert.equal(d.line, "Timer stays closed: it stopped the room before.");
  assert.equal(d.details, "");
});

test("every sentence is one or two sentences that end with a full stop, no code in them", () => {
  for (const [code, e] of Object.entries(TEXT)) {
    assert.match(e.say, /^[{A-Z“].*[.]$/, code);
    assert.ok(!e.say.includes(code) || code === "unsupported", code);
  }
});

test("the room's clipboard fails with codes that have sentences, and the details keep what happened", async () => {
  const { readFile } = await import("node:fs/promises");
  const src = await readFile(new URL("../room/src/clipboard.js", import.meta.url), "utf8");
  const codes = [...src.matchAll(/failure\("([a-z-]+)"/g)].map((m) => m[1]);
  assert.deepEqual(codes.sort(), ["clipboard-unavailable", "nothing-to-copy"]);
  for (const code of codes) assert.ok(TEXT[code], `no sentence for ${code}`);
  const d = describe({ code: "clipboard-unavailable", message: "the clipboard is not available" }, { doing: "Not copied" });
  assert.equal(d.line, "Not copied. " + TEXT["clipboard-unavailable"].say);
  assert.ok(d.details.includes("the clipboard is not available"));
});
