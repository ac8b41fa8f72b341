// The Tool Console (#tool-console): every tool of every open app, with a form built from its schema
// (schemaform.js). A call from here goes through Go's registry exactly like a model's call (Go validates
// the arguments against the declaration, the bridge validates them again and enforces 5,000 ms and 64 KiB),
// so the room is useful with no model at all. A running call shows how long it has run and can be
// cancelled: Go refuses it `cancelled` and the app's execute is aborted. A result can be copied, and the
// recent calls can be run again. Outcomes show beside the form and in the activity log.
// Tools the contract refused are listed too, greyed out, with the code and the reason.
import { call } from "./transport.js";
import { el, notify, notifyError, logActivity } from "./ui.js";
import { get, subscribe } from "./state.js";
import { objectFields } from "./schemaform.js";
import { copyText } from "./clipboard.js";

const $ = (id) => document.getElementById(id);
const RECENT_CALLS = 8;
const TICK_MS = 100;

const recentCalls = []; // newest first: { appId, app, tool, args, ok, ms }
const recentList = el("ol", { id: "tc-recent", class: "tc-recent" });
const recentBox = el("details", { id: "tc-recent-box", class: "tc-recent-box", hidden: true }, el("summary", {}, "Recent calls"), recentList);

const ticket = () => `tc-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

function toolCard(app, tool) {
  const form = objectFields(tool.parameters || {});
  const raw = el("textarea", { class: "tc-raw", rows: 2, placeholder: "{ \"arguments\": \"as JSON\" } (overrides the form)" });
  const out = el("pre", { class: "tc-out", hidden: true });
  const status = el("span", { class: "tc-status", role: "status" });
  const submit = el("button", { type: "submit" }, "Call");
  const cancel = el("button", { type: "button", class: "tc-cancel", hidden: true }, "Cancel");
  const copy = el("button", { type: "button", class: "tc-copy", hidden: true, onclick: () => copyText(out.textContent).then(() => notify("Result copied.", "ok"), (err) => notifyError(err, { doing: "Not copied" })) }, "Copy");
  const formEl = el("form", { class: "tc-form", novalidate: true }, ...form.nodes,
    el("details", { class: "tc-json" }, el("summary", {}, "Arguments as JSON"), raw),
    el("div", { class: "tc-run" }, submit, cancel, status), out, copy);
  formEl.addEventListener("submit", async (e) => {
    e.preventDefault();
    let args;
    try {
      args = raw.value.trim() !== "" ? JSON.parse(raw.value) : form.read();
    } catch (err) {
      show(out, false, `not JSON: ${err.message}`);
      return;
    }
    const t = ticket();
    const started = performance.now();
    const tick = setInterval(() => { status.textContent = `running… ${seconds(performance.now() - started)}`; }, TICK_MS);
    submit.disabled = true;
    cancel.hidden = false;
    cancel.disabled = false;
    cancel.onclick = () => { cancel.disabled = true; call("RegistryService.CancelCall", t).catch((err) => notifyError(err, { doing: "Could not cancel" })); };
    copy.hidden = true;
    status.textContent = "running… 0.0 s";
    out.hidden = true;
    let ok = false;
    try {
      const o = await call("RegistryService.ConsoleCall", t, app.appId, tool.name, args);
      ok = o.ok;
      if (o.ok) show(out, true, JSON.stringify(o.result === undefined ? null : o.result, null, 2));
      else show(out, false, `${o.refused}${o.path ? ` at ${o.path}` : ""}: ${o.message}`);
    } catch (err) {
      show(out, false, `${err.code}: ${err.message}`);
      logActivity("console", `${tool.name} (${app.appId})`, args, `${err.code}: ${err.message}`, true);
    } finally {
      clearInterval(tick);
      const ms = performance.now() - started;
      status.textContent = `${ok ? "answered" : "refused"} in ${Math.round(ms)} ms`;
      submit.disabled = false;
      cancel.hidden = true;
      copy.hidden = out.hidden;
      remember({ appId: app.appId, app: app.title, tool: tool.name, args, ok, ms });
    }
  });
  return el("details", { class: "tc-tool", dataset: { appId: app.appId, tool: tool.name } },
    el("summary", {}, el("code", {}, tool.name), el("span", { class: "tc-desc" }, tool.description || "")), formEl);
}

function show(out, ok, text) {
  out.hidden = false;
  out.className = `tc-out ${ok ? "ok" : "refused"}`;
  out.textContent = text;
}

// remember keeps a call for Recent calls; rerun runs one again through its tool's card, with its arguments.
function remember(c) {
  recentCalls.unshift(c);
  recentCalls.length = Math.min(recentCalls.length, RECENT_CALLS);
  renderRecent();
}

function rerun(c) {
  const card = [...document.querySelectorAll("#tool-list details.tc-tool")].find((d) => d.dataset.appId === c.appId && d.dataset.tool === c.tool);
  if (!card) {
    notify(`${c.app} is not open: open it again to run ${c.tool}.`, "info");
    return;
  }
  card.open = true;
  card.querySelector(".tc-raw").value = JSON.stringify(c.args);
  card.querySelector(".tc-json").open = true;
  card.querySelector("form").requestSubmit();
}

function renderRecent() {
  const open = new Set(get().apps.map((a) => a.appId));
  recentBox.hidden = recentCalls.length === 0;
  recentList.replaceChildren(...recentCalls.map((c) => el("li", { class: c.ok ? "ok" : "refused", dataset: { appId: c.appId, tool: c.tool } },
    el("code", {}, c.tool), el("span", { class: "tc-desc" }, ` ${c.app} · ${JSON.stringify(c.args)} · ${Math.round(c.ms)} ms`),
    el("button", { type: "button", class: "tc-rerun", disabled: !open.has(c.appId), title: "Run it again with the same arguments", onclick: () => rerun(c) }, "Run again"))));
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
  if (!recentBox.isConnected) list.before(recentBox);
  renderRecent();
  const apps = get().apps;
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

subscribe(render, "apps");
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", render); else render();
