// node --test backend/toolcontract/toolcontract.test.mjs
// Runs testdata/vectors.json against toolcontract.js (the Go side runs the
// same file in vectors_test.go), plus JavaScript-only checks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import vm from "node:vm";

const require = createRequire(import.meta.url);
const C = require("./toolcontract.js");
const here = new URL(".", import.meta.url);
const doc = JSON.parse(readFileSync(new URL("testdata/vectors.json", here), "utf8"));

// define keeps own "__proto__" keys as data (plain assignment would not).
function define(o, k, v) {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}
function typeObject() { return { type: "object" }; }
function manyTools(n) {
  return Array.from({ length: n }, (_, i) => ({ name: "t" + i, description: "", parameters: typeObject() }));
}
function expandList(list) {
  const out = [];
  for (const e of list) {
    if (e && e.$gen === "manyTools" && e.splice) out.push(...manyTools(e.n));
    else out.push(expand(e));
  }
  return out;
}
// Generators, as documented in vectors.json (and expandGen in Go).
function expand(v) {
  if (Array.isArray(v)) return expandList(v);
  if (v === null || typeof v !== "object") return v;
  if (!Object.prototype.hasOwnProperty.call(v, "$gen")) {
    const o = {};
    for (const k of Object.keys(v)) define(o, k, expand(v[k]));
    return o;
  }
  switch (v.$gen) {
    case "repeat": return v.s.repeat(v.n);
    case "concat": return v.parts.map(expand).join("");
    case "manyKeys": {
      const parts = Array.from({ length: v.n }, (_, i) => `"k${i}":0`);
      if (v.dup) parts.push(`"k0":0`);
      return "{" + parts.join(",") + "}";
    }
    case "deepSchema": {
      let k = (v.depth + 1) / 2;
      const inner = typeObject();
      if (v.depth % 2 === 0) { k = v.depth / 2; inner.properties = {}; }
      for (const key of Object.keys(v)) if (key !== "$gen" && key !== "depth") define(inner, key, expand(v[key]));
      let cur = inner;
      for (let i = 1; i < k; i++) cur = { type: "object", properties: { a: cur } };
      return cur;
    }
    case "wideSchema": {
      let nodes = v.nodes;
      const o = typeObject();
      if (nodes % 2 === 0) { o.description = "x"; nodes--; }
      o.properties = {};
      for (let i = 0; i < (nodes - 3) / 2; i++) o.properties["p" + i] = { type: "string" };
      return o;
    }
    case "manyTools": return manyTools(v.n);
  }
  throw new Error("unknown generator " + v.$gen);
}

function checkVerdict(id, want, got) {
  if (want.ok) {
    assert.ok(got.ok, `${id}: want ok, got ${got.refused} at ${JSON.stringify(got.path)} (${got.message})`);
    return;
  }
  assert.ok(!got.ok, `${id}: want ${want.refused} at ${JSON.stringify(want.path)}, got ok`);
  assert.deepEqual({ refused: got.refused, path: got.path }, { refused: want.refused, path: want.path },
    `${id}: ${got.message}`);
}

const tools = {};
for (const k of Object.keys(doc.tools)) tools[k] = expand(doc.tools[k]);

test("vectors", () => {
  let ran = 0;
  for (const c of doc.cases) {
    if (c.goOnly) continue;
    ran++;
    if (c.register) {
      const { accepted, verdicts } = C.registerAll(expand(c.register));
      const want = c.expect.flatMap((w) => Array(w.repeat || 1).fill(w));
      assert.equal(verdicts.length, want.length, c.id);
      verdicts.forEach((v, i) => checkVerdict(`${c.id}[${i}]`, want[i], v));
      assert.equal(accepted.length, verdicts.filter((v) => v.ok).length, c.id);
    } else if (c.args !== undefined) {
      const r = C.validateTool(tools[c.toolRef]);
      assert.ok(r.ok, `${c.id}: tool refused: ${r.message}`);
      const got = C.validateCall([r.tool], c.call ?? r.tool.name, expand(c.args));
      checkVerdict(c.id, c.expect, got);
      if (got.ok) assert.equal(Object.getPrototypeOf(got.args), null, `${c.id}: snapshot has a prototype`);
    } else {
      const decl = c.toolText !== undefined ? JSON.parse(c.toolText) : expand(c.tool);
      checkVerdict(c.id, c.expect, C.validateTool(decl));
    }
  }
  assert.ok(ran >= 150, `only ${ran} vectors ran`);
});

const setScore = () => C.validateTool(tools.set_score).tool;

test("snapshot keeps constructor/prototype keys as data, null prototype everywhere", () => {
  const r = C.validateArgs(setScore(), '{"team":"home","points":3,"constructor":{"prototype":{"x":1}},"list":[{"a":1}]}');
  assert.ok(r.ok);
  assert.equal(Object.getPrototypeOf(r.args), null);
  assert.equal(Object.getPrototypeOf(r.args.constructor), null);
  assert.deepEqual(Object.keys(r.args.constructor.prototype), ["x"]);
  assert.ok(Array.isArray(r.args.list));
  assert.equal(Object.getPrototypeOf(r.args.list[0]), null);
  assert.equal(r.args.points, 3);
});

test("JSON.parse-style own __proto__ in declarations is refused", () => {
  const decl = JSON.parse('{"name":"t","description":"","parameters":{"type":"object","properties":{"__proto__":{"type":"string"}}}}');
  const r = C.validateTool(decl);
  assert.deepEqual([r.refused, r.path], ["invalid-tool-parameters", "/properties/__proto__"]);
});

test("plain-data arguments (objects, not text)", () => {
  const tool = setScore();
  assert.ok(C.validateArgs(tool, { team: "home", points: 3 }).ok);
  const inherited = Object.create({ points: 3 });
  inherited.team = "home";
  assert.equal(C.validateArgs(tool, inherited).refused, "invalid-tool-arguments");
  const meta = ["x"];
  meta.extra = 1;
  const r = C.validateArgs(tool, { team: "home", points: 3, tags: meta });
  assert.deepEqual([r.refused, r.path], ["invalid-argument", "/tags/extra"]);
  const own = JSON.parse('{"team":"home","points":3,"__proto__":{}}');
  assert.deepEqual([C.validateArgs(tool, own).refused, C.validateArgs(tool, own).path], ["invalid-argument", "/__proto__"]);
  assert.equal(C.validateArgs(tool, { team: "home", points: NaN }).refused, "invalid-tool-arguments");
  assert.equal(C.validateArgs(tool, { team: "home", points: 3, f() {} }).refused, "invalid-tool-arguments");
  assert.equal(C.validateArgs(tool, { team: "home", get points() { return 3; } }).refused, "invalid-tool-arguments");
  const cyclic = { team: "home", points: 3 };
  cyclic.self = cyclic;
  assert.equal(C.validateArgs(tool, cyclic).refused, "invalid-argument-bounds");
  assert.equal(C.validateArgs(tool, { team: "home", points: 3, sparse: [1, , 3] }).refused, "invalid-tool-arguments");
});

test("raw lone surrogates and UTF-8 byte counting", () => {
  const tool = setScore();
  assert.equal(C.validateArgs(tool, '{"team":"home","points":3,"x":"\ud800"}').refused, "invalid-tool-arguments");
  assert.equal(C.utf8Length("é😀a"), 7);
  assert.equal(C.utf8Length("\ud800"), 3);
});

test("unknown tool fails closed; registerAll tolerates junk", () => {
  assert.equal(C.validateArgs(null, "{}").refused, "unknown-tool");
  assert.equal(C.validateCall([], "x", "{}").refused, "unknown-tool");
  const { verdicts } = C.registerAll([null, 5, { name: "ok", description: "", parameters: { type: "object" } }]);
  assert.deepEqual(verdicts.map((v) => v.ok), [false, false, true]);
  const bad = C.validateArgs({ name: "t", description: "", parameters: { type: "string" } }, "{}");
  assert.equal(bad.refused, "invalid-tool-parameters");
});

test("cyclic declarations are bounded", () => {
  const p = { type: "object", properties: {} };
  p.properties.a = p;
  assert.equal(C.validateTool({ name: "t", description: "", parameters: p }).refused, "invalid-tool-parameters");
});

test("output budget and timeout refusals", () => {
  assert.ok(C.checkOutput("x".repeat(65536)).ok);
  assert.equal(C.checkOutput("x".repeat(65537)).refused, "output-over-budget");
  assert.equal(C.checkOutput("é".repeat(32769)).refused, "output-over-budget");
  assert.equal(C.timeoutRefusal().message, "tool execution timed out after 5000ms");
});

test("runs as a classic script (no module system)", () => {
  const src = readFileSync(new URL("toolcontract.js", here), "utf8");
  const ctx = vm.createContext({});
  vm.runInContext(src, ctx);
  const api = vm.runInContext("VoiceboxToolContract", ctx);
  assert.equal(typeof api.validateTool, "function");
  assert.equal(api.limits.maxTools, 16);
  assert.ok(src.split("\n").length < 530, "keep toolcontract.js small");
});

// The same table as annotationCases in annotations_test.go: known hints kept as booleans, nothing else.
test("annotations keep the known hints only, as booleans", () => {
  const cases = [
    [{ readOnlyHint: true, x: 1 }, { readOnlyHint: true }],
    [{ readOnlyHint: "true", destructiveHint: 0, openWorldHint: null, idempotentHint: {}, untrustedContentHint: "" },
      { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false, untrustedContentHint: false }],
    ["yes", undefined],
    [{}, undefined],
    [{ title: "t", consequentialHint: true }, undefined],
  ];
  for (const [given, want] of cases) {
    const r = C.validateTool({ name: "t", description: "d", parameters: { type: "object" }, annotations: given });
    assert.equal(r.ok, true);
    assert.deepEqual(r.tool.annotations, want, JSON.stringify(given));
  }
});
