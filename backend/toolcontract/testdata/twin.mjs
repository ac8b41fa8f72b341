// Driver for TestTwinDifferential (twin_test.go): reads a JSON array of
// {tool, args?} (tool as JSON text, args as JSON text) on stdin and writes the
// JavaScript twin's verdicts as a JSON array.
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const C = require("../toolcontract.js");
let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;
const verdict = (r) => (r.ok ? { ok: true } : { refused: r.refused, path: r.path });
const out = JSON.parse(input).map((c) => {
  const t = C.validateTool(JSON.parse(c.tool));
  if (c.args === undefined || !t.ok) return verdict(t);
  return verdict(C.validateArgs(t.tool, c.args));
});
process.stdout.write(JSON.stringify(out));
