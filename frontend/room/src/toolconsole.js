// The Tool Console (#tool-console): every tool of every open app, with a form generated from its schema.
// A call from here goes through Go's registry exactly like a model's call (Go validates the arguments
// against the declaration, the bridge validates them again and enforces 5,000 ms and 64 KiB), so the room
// is useful with no model at all. Outcomes are shown beside the form and in the activity log. Tools the
// contract refused are listed too, greyed out, with the code and the reason.
import { call } from "./transport.js";
import { el, logActivity } from "./ui.js";
import { onChange, openApps } from "./registry.js";

const $ = (id) => document.getElementById(id);

// field builds one input for a property schema; read() returns {set:false} for an empty optional field.
function field(name, schema, required) {
  const s = schema && typeof schema === "object" ? schema : {};
  const type = s.type;
  const id = `tc-${Math.random().toString(36).slice(2)}`;
  let input, read;
  const text = (v) => v.trim();
  if (Array.isArray(s.enum) && (type === "string" || type === "number" || type === "integer")) {
    input = el("select", { id, name }, el("option", { value: "" }, required ? "— choose —" : "— none —"),
      ...s.enum.map((m) => el("option", { value: JSON.stringify(m) }, String(m))));
    read = () => (input.value === "" ? { set: false } : { set: true, value: JSON.parse(input.value) });
  } else if (type === "boolean") {
    input = el("select", { id, name }, el("option", { value: "" }, "— unset —"), el("option", { value: "true" }, "true"), el("option", { value: "false" }, "false"));
    read = () => (input.value === "" ? { set: false } : { set: true, value: input.value === "true" });
  } else if (type === "number" || type === "integer") {
    input = el("input", { id, name, type: "text", inputmode: "decimal", placeholder: type + rangeHint(s) });
    read = () => {
      const v = text(input.value);
      if (v === "") return { set: false };
      const n = Number(v);
      return { set: true, value: Number.isNaN(n) ? v : n }; // a non-number goes as text: Go refuses its type
    };
  } else if (type === "string") {
    input = el("input", { id, name, type: "text", placeholder: "text" + lengthHint(s) });
    read = () => (input.value === "" ? { set: false } : { set: true, value: input.value });
  } else if (type === "array") {
    const items = s.items || {};
    if (Array.isArray(items.enum)) {
      input = el("select", { id, name, multiple: true, size: Math.min(5, items.enum.length) },
        ...items.enum.map((m) => el("option", { value: JSON.stringify(m) }, String(m))));
      read = () => {
        const chosen = [...input.selectedOptions].map((o) => JSON.parse(o.value));
        return chosen.length ? { set: true, value: chosen } : { set: false };
      };
    } else {
      input = el("input", { id, name, type: "text", placeholder: `JSON array or a, b, c (${items.type || "any"})` });
      read = () => {
        const v = text(input.value);
        if (v === "") return { set: false };
        if (v.startsWith("[")) return { set: true, value: JSON.parse(v) };
        return { set: true, value: v.split(",").map((x) => x.trim()).filter((x) => x !== "").map((x) => listItem(x, items.type)) };
      };
    }
  } else {
    input = el("textarea", { id, name, rows: 2, placeholder: "JSON" });
    read = () => (text(input.value) === "" ? { set: false } : { set: true, value: JSON.parse(input.value) });
  }
  const label = el("label", { for: id }, name, required ? el("span", { class: "req", title: "required" }, " *") : null,
    s.description ? el("small", {}, ` ${s.description}`) : null);
  return { node: el("div", { class: "tc-field" }, label, input), read };
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

function toolCard(app, tool) {
  const params = tool.parameters || {};
  const props = params.properties || {};
  const required = new Set(Array.isArray(params.required) ? params.required : []);
  const fields = Object.keys(props).map((k) => [k, field(k, props[k], required.has(k))]);
  const raw = el("textarea", { class: "tc-raw", rows: 2, placeholder: "{ \"arguments\": \"as JSON\" } (overrides the form)" });
  const out = el("pre", { class: "tc-out", hidden: true });
  const btn = el("button", { type: "submit" }, "Call");
  const form = el("form", { class: "tc-form" }, ...fields.map(([, f]) => f.node),
    el("details", { class: "tc-json" }, el("summary", {}, "Arguments as JSON"), raw), btn, out);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    let args;
    try {
      if (raw.value.trim() !== "") args = JSON.parse(raw.value);
      else {
        args = {};
        for (const [k, f] of fields) { const r = f.read(); if (r.set) args[k] = r.value; }
      }
    } catch (err) {
      show(out, false, `not JSON: ${err.message}`);
      return;
    }
    btn.disabled = true;
    out.hidden = false;
    out.textContent = "…";
    try {
      const o = await call("RegistryService.Call", app.appId, tool.name, args);
      if (o.ok) show(out, true, JSON.stringify(o.result === undefined ? null : o.result, null, 2));
      else show(out, false, `${o.refused}${o.path ? ` at ${o.path}` : ""}: ${o.message}`);
    } catch (err) {
      show(out, false, `${err.code}: ${err.message}`);
      logActivity("console", `${tool.name} (${app.appId})`, args, `${err.code}: ${err.message}`, true);
    } finally {
      btn.disabled = false;
    }
  });
  return el("details", { class: "tc-tool", dataset: { appId: app.appId, tool: tool.name } },
    el("summary", {}, el("code", {}, tool.name), el("span", { class: "tc-desc" }, tool.description || "")), form);
}

function show(out, ok, text) {
  out.hidden = false;
  out.className = `tc-out ${ok ? "ok" : "refused"}`;
  out.textContent = text;
}

// Each open app's section stays in place while its tools do not change, so an app that opens or closes
// elsewhere neither clears nor blurs what the person is typing into another app's form.
const sections = new Map(); // appId → { key, node }

function section(a) {
  const open = new Set([...(sections.get(a.appId)?.node.querySelectorAll("details.tc-tool[open]") || [])].map((d) => d.dataset.tool));
  return el("section", { class: "tc-app", dataset: { appId: a.appId } },
    el("h3", {}, a.title, el("small", {}, ` ${a.appId}`)),
    a.tools.length ? a.tools.map((t) => {
      const card = toolCard(a, t);
      if (open.has(t.name)) card.open = true;
      return card;
    }) : el("p", { class: "empty" }, !a.ready ? "Loading…" : a.refused.length ? "No tool was accepted." : "This app registered no tools."),
    a.refused.map((v) => refusedCard(a, v)));
}

// refusedCard shows a tool the contract refused: not callable, greyed, with why.
function refusedCard(app, v) {
  return el("div", { class: "tc-tool tc-refused", "aria-disabled": "true", dataset: { appId: app.appId, tool: v.name || "", refused: v.refused || "" } },
    el("code", {}, v.name || "(unnamed)"), " ", el("span", { class: "tc-code" }, v.refused || "refused"),
    el("span", { class: "tc-desc" }, `${v.path ? `at ${v.path}: ` : ""}${v.message || ""}`));
}

function render() {
  const list = $("tool-list");
  if (!list) return;
  const apps = openApps();
  for (const id of [...sections.keys()]) if (!apps.some((a) => a.appId === id)) sections.delete(id);
  if (apps.length === 0) {
    list.replaceChildren(el("p", { class: "empty" }, "No app is open. Launch one from the tray; its tools appear here."));
    return;
  }
  const nodes = apps.map((a) => {
    const key = JSON.stringify([a.ready, a.tools, a.refused]);
    let s = sections.get(a.appId);
    if (!s || s.key !== key) {
      s = { key, node: section(a) };
      sections.set(a.appId, s);
    }
    return s.node;
  });
  for (const child of [...list.children]) if (!nodes.includes(child)) child.remove();
  nodes.forEach((node, i) => { if (list.children[i] !== node) list.insertBefore(node, list.children[i] || null); });
}

onChange(render);
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", render); else render();
