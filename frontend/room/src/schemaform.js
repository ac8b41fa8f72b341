// Forms from tool schemas, for the Tool Console. Each property gets a control of its type: text; a number
// input with the schema's bounds; a switch for a boolean; a list for an enum; checkboxes for an array of
// choices; fields of its own for a nested object. A JSON box is left only where the schema says no more
// (an object without properties, a property of no type). The form never refuses anything itself: what the
// person entered goes to Go, which answers with the contract's exact refusal (docs/sandbox.md, Bounds).
import { el } from "./ui.js";

let ids = 0;
const nextId = () => `tc-f${++ids}`;
const UNSET = { set: false };

// objectFields builds the fields of an object schema; read() gives the object of the fields that are set.
export function objectFields(schema) {
  const props = schema && typeof schema.properties === "object" && schema.properties ? schema.properties : {};
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  const fields = Object.keys(props).map((k) => [k, field(k, props[k], required.has(k))]);
  return {
    nodes: fields.map(([, f]) => f.node),
    read: () => {
      const out = {};
      for (const [k, f] of fields) { const r = f.read(); if (r.set) out[k] = r.value; }
      return out;
    },
  };
}

// field builds one labelled control for a property; read() returns {set, value} ({set:false} when an
// optional field is left empty).
export function field(name, schema, required) {
  const s = schema && typeof schema === "object" ? schema : {};
  const id = nextId();
  const { input, read } = control(id, name, s, required);
  const label = el("label", { for: id }, name, required ? el("span", { class: "req", title: "required" }, " *") : null,
    s.description ? el("small", {}, ` ${s.description}`) : null);
  const cls = s.type === "object" && s.properties ? "tc-field tc-object" : "tc-field";
  return { node: el("div", { class: cls }, label, input), read };
}

function control(id, name, s, required) {
  const type = s.type;
  if (Array.isArray(s.enum) && ["string", "number", "integer"].includes(type)) {
    const input = el("select", { id, name }, el("option", { value: "" }, required ? "— choose —" : "— none —"),
      ...s.enum.map((m) => el("option", { value: JSON.stringify(m) }, String(m))));
    return { input, read: () => (input.value === "" ? UNSET : { set: true, value: JSON.parse(input.value) }) };
  }
  if (type === "boolean") return toggle(id, name, required);
  if (type === "number" || type === "integer") {
    const input = el("input", { id, name, type: "number", step: type === "integer" ? "1" : "any", min: s.minimum, max: s.maximum,
      placeholder: type + rangeHint(s) });
    return { input, read: () => (input.value === "" ? UNSET : { set: true, value: Number(input.value) }) };
  }
  if (type === "string") {
    const input = el("input", { id, name, type: "text", placeholder: "text" + lengthHint(s) });
    return { input, read: () => (input.value === "" ? UNSET : { set: true, value: input.value }) };
  }
  if (type === "array" && Array.isArray(s.items?.enum)) return choices(id, name, s.items.enum);
  if (type === "array") {
    const itemType = s.items?.type;
    const input = el("input", { id, name, type: "text", placeholder: `a, b, c or a JSON array (${itemType || "any"})` });
    return {
      input, read: () => {
        const v = input.value.trim();
        if (v === "") return UNSET;
        if (v.startsWith("[")) return { set: true, value: JSON.parse(v) };
        return { set: true, value: v.split(",").map((x) => x.trim()).filter((x) => x !== "").map((x) => listItem(x, itemType)) };
      },
    };
  }
  if (type === "object" && s.properties && typeof s.properties === "object") {
    const inner = objectFields(s);
    const input = el("fieldset", { id, name, class: "tc-nested" }, ...inner.nodes);
    return {
      input, read: () => {
        const v = inner.read();
        return Object.keys(v).length || required ? { set: true, value: v } : UNSET;
      },
    };
  }
  const input = el("textarea", { id, name, rows: 2, placeholder: "JSON" });
  return { input, read: () => (input.value.trim() === "" ? UNSET : { set: true, value: JSON.parse(input.value) }) };
}

// toggle is a switch. An optional boolean starts unset (and says so) until the person flips it.
function toggle(id, name, required) {
  const box = el("input", { id, name, type: "checkbox", role: "switch" });
  const state = el("span", { class: "tc-switch-state" });
  let touched = required;
  const show = () => { state.textContent = touched ? String(box.checked) : "not set"; box.indeterminate = !touched; };
  box.addEventListener("change", () => { touched = true; show(); });
  show();
  return { input: el("span", { class: "tc-switch" }, box, state), read: () => (touched ? { set: true, value: box.checked } : UNSET) };
}

// choices are checkboxes for an array whose items are an enum.
function choices(id, name, options) {
  const boxes = options.map((m) => el("input", { type: "checkbox", name, value: JSON.stringify(m) }));
  const input = el("fieldset", { id, class: "tc-choices" }, ...boxes.map((b, i) => el("label", {}, b, ` ${String(options[i])}`)));
  return {
    input, read: () => {
      const chosen = boxes.filter((b) => b.checked).map((b) => JSON.parse(b.value));
      return chosen.length ? { set: true, value: chosen } : UNSET;
    },
  };
}

function listItem(x, type) {
  if (type === "number" || type === "integer") { const n = Number(x); return Number.isNaN(n) ? x : n; }
  if (type === "boolean") return x === "true" ? true : x === "false" ? false : x;
  return x;
}

function rangeHint(s) {
  if (s.minimum === undefined && s.maximum === undefined) return "";
  return ` ${s.minimum ?? "−∞"}…${s.maximum ?? "∞"}`;
}

function lengthHint(s) {
  if (s.minLength === undefined && s.maxLength === undefined) return "";
  return ` (${s.minLength ?? 0}–${s.maxLength ?? "∞"} chars)`;
}
