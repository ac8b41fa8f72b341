// MCP: the door that lets MCP clients (Claude Desktop, Cursor, VS Code, the MCP Inspector) list and call the
// open mini-apps' tools. Settings › MCP holds the switch, the URL, the bearer token, the port and the client
// configs: the stdio form (no token) in view, the HTTP form (the lasting token) only once the person opens
// it, with what it risks (docs/sandbox.md, "Ports and credentials"). It mounts into #settings-mcp when the
// Settings dialog has one, and into the side panel until then.
// The side panel always shows who is connected. Each external call lands in the activity log through the
// registry's "activity" events, caller "mcp:<client name>".
import { call, on } from "./transport.js";
import { el, notify, notifyError } from "./ui.js";
import { askConfirm } from "./confirm.js";
import { copyText } from "./clipboard.js";

const $ = (id) => document.getElementById(id);

const STATUS_REFRESH_MS = 250;
let status = null;
let showToken = false;

// ---- the settings panel (built once, moved to wherever it belongs) ----
const ui = {
  enabled: el("input", { type: "checkbox", id: "mcp-enabled", role: "switch" }),
  state: el("p", { id: "mcp-status", class: "mcp-status", role: "status" }),
  url: el("input", { type: "text", id: "mcp-url", readonly: true, spellcheck: "false", placeholder: "not running" }),
  token: el("input", { type: "password", id: "mcp-token", readonly: true, spellcheck: "false", autocomplete: "off" }),
  showToken: el("button", { type: "button", id: "mcp-token-show" }, "Show"),
  config: el("pre", { id: "mcp-config", class: "mcp-config", hidden: true }),
  port: el("input", { type: "number", id: "mcp-port", min: "1", max: "65535", step: "1", inputmode: "numeric" }),
  portUse: el("button", { type: "button", id: "mcp-port-use", onclick: usePort }, "Use"),
  portNote: el("span", { id: "mcp-port-note", class: "meta" }),
  httpConfig: el("pre", { id: "mcp-http-config", class: "mcp-config", hidden: true }),
  discovery: el("p", { id: "mcp-discovery", class: "meta" }),
};

const copyButton = (label, get) => el("button", {
  type: "button",
  onclick: async () => {
    try {
      await copyText(await get());
      notify(`${label} copied.`, "ok");
    } catch (err) {
      notifyError(err, { doing: "Not copied" });
    }
  },
}, "Copy");

const panel = el("div", { id: "mcp-settings", class: "mcp-settings" },
  el("h3", {}, "MCP"),
  el("label", { class: "mcp-switch" }, ui.enabled, " Let MCP clients use the open mini-apps"),
  el("p", { class: "meta" },
    "Claude Desktop, Cursor, VS Code or the MCP Inspector can then list and call the tools of the apps open here, " +
    "and open or close apps, while you watch. Off by default; it listens on 127.0.0.1 only and every request must carry the token. " +
    "The switch and New token take effect at once (no Save needed)."),
  ui.state,
  el("div", { class: "mcp-field" }, el("label", { for: "mcp-url" }, "URL"), ui.url, copyButton("URL", () => status?.url || "")),
  el("div", { class: "mcp-field" }, el("label", { for: "mcp-token" }, "Token"), ui.token, ui.showToken,
    copyButton("Token", () => status?.token || ""),
    el("button", { type: "button", id: "mcp-token-rotate", class: "danger", onclick: rotate }, "New token")),
  el("div", { class: "mcp-field" },
    el("span", { class: "label" }, "Client config"),
    el("button", { type: "button", id: "mcp-config-show", onclick: () => toggleConfig(ui.config, "mcp-config-show", "MCPService.ClientConfig") }, "Show"),
    copyButton("Client config", () => call("MCPService.ClientConfig"))),
  ui.config,
  el("p", { class: "meta" },
    "The client config runs `voicebox mcp`, which speaks MCP over stdio and reaches this window through a socket only " +
    "your user can open: it holds no token. `voicebox mcp --print-config` prints the same."),
  el("div", { class: "mcp-field" }, el("label", { for: "mcp-port" }, "Port"), ui.port, ui.portUse, ui.portNote),
  el("details", { id: "mcp-http" },
    el("summary", {}, "HTTP config, for clients that take a URL only"),
    el("p", { class: "meta", id: "mcp-http-warning" },
      "It holds the token above, which does not change until you make a new one. A client set up with it sends the token " +
      "to 127.0.0.1 at this port whether or not Voicebox listens there: while Voicebox is closed, or its port is taken, " +
      "whatever program holds the port receives it. Use the client config above where the client can run a command. " +
      "`voicebox mcp --print-config=http` prints the same."),
    el("div", { class: "mcp-field" },
      el("span", { class: "label" }, "HTTP config"),
      el("button", { type: "button", id: "mcp-http-config-show", onclick: () => toggleConfig(ui.httpConfig, "mcp-http-config-show", "MCPService.HTTPClientConfig") }, "Show"),
      copyButton("HTTP config", () => call("MCPService.HTTPClientConfig"))),
    ui.httpConfig),
  ui.discovery);

ui.enabled.addEventListener("change", async () => {
  const want = ui.enabled.checked;
  ui.enabled.disabled = true;
  try {
    render(await call("MCPService.SetEnabled", want));
    if (want) tellShut();
  } catch (err) {
    notifyError(err, { doing: `Could not switch MCP ${want ? "on" : "off"}` });
    ui.enabled.checked = !want;
  } finally {
    ui.enabled.disabled = false;
  }
});

ui.showToken.addEventListener("click", () => {
  showToken = !showToken;
  ui.token.type = showToken ? "text" : "password";
  ui.showToken.textContent = showToken ? "Hide" : "Show";
});

// tellShut says when a door did not open: the port in use by another program, say. MCP never moves to
// another port on its own (a client set up for this one would send its token to that program).
function tellShut() {
  if (!status || !status.enabled) return;
  if (!status.running) notify("MCP did not start.", "error", { details: status.error || "" });
  else if (status.error) notify(status.url ? "MCP is on, but `voicebox mcp` uses its port." : "MCP is on for `voicebox mcp` only: its port is in use by another program. Choose another port in Settings › MCP.", "error", { details: status.error });
}

async function usePort() {
  const port = ui.port.value.trim() === "" ? 0 : Number(ui.port.value);
  try {
    render(await call("MCPService.SetPort", port));
    notify(status.port ? `MCP's port is now ${status.port}.` : "MCP's port is back to its default.", "ok");
    tellShut();
    if (!ui.httpConfig.hidden) ui.httpConfig.textContent = await call("MCPService.HTTPClientConfig");
  } catch (err) {
    notifyError(err, { doing: "The port did not change" });
  }
}

async function rotate() {
  const yes = await askConfirm({
    title: "Make a new MCP token?",
    message: "Clients configured with the current token stop working until you give them the new one.",
    confirm: "Make New Token",
  });
  if (!yes) return;
  try {
    render(await call("MCPService.RotateToken"));
    notify("New MCP token made.", "ok");
    if (!ui.httpConfig.hidden) ui.httpConfig.textContent = await call("MCPService.HTTPClientConfig");
  } catch (err) {
    notifyError(err, { doing: "No new token was made" });
  }
}

// toggleConfig shows or hides a client config (pre) that method builds; button is its Show button's id.
async function toggleConfig(pre, button, method) {
  if (!pre.hidden) {
    pre.hidden = true;
    $(button).textContent = "Show";
    return;
  }
  try {
    pre.textContent = await call(method);
    pre.hidden = false;
    $(button).textContent = "Hide";
  } catch (err) {
    notifyError(err, { doing: "Could not build the client config" });
  }
}

// ---- the side panel: state and connected clients ----
const sidePanel = el("section", { id: "mcp-panel" },
  el("h2", {}, "MCP Clients ", el("span", { id: "mcp-count", class: "count" })),
  el("div", { id: "mcp-state", class: "state" }, "off"),
  el("ul", { id: "mcp-clients", class: "list mcp-clients" }),
  el("details", { id: "mcp-settings-fallback" }, el("summary", {}, "MCP settings")));

function mount() {
  const side = $("panel");
  if (side && !sidePanel.isConnected) {
    const activity = $("activity");
    if (activity && activity.parentNode === side) side.insertBefore(sidePanel, activity);
    else side.append(sidePanel);
  }
  const target = $("settings-mcp");
  const fallback = $("mcp-settings-fallback");
  if (target) {
    if (panel.parentNode !== target) target.append(panel);
    if (fallback) fallback.hidden = true;
  } else if (fallback && panel.parentNode !== fallback) {
    fallback.append(panel);
    fallback.hidden = false;
  }
}

function when(ts) {
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) || d.getFullYear() < 2000 ? "" : d.toLocaleTimeString();
}

function render(st) {
  if (st) status = st;
  const s = status || { enabled: false, running: false, clients: [] };
  ui.enabled.checked = Boolean(s.enabled);
  ui.url.value = s.running ? s.url || "" : "";
  ui.token.value = s.token || "";
  ui.discovery.textContent = s.discovery ? `While it runs, ${s.discovery} tells \`voicebox mcp\` where to find it.` : "";
  if (document.activeElement !== ui.port) ui.port.value = s.port ? String(s.port) : "";
  ui.port.disabled = ui.portUse.disabled = Boolean(s.portFixedBy);
  ui.portNote.textContent = s.portFixedBy ? `${s.portFixedBy} decides it for this run.` : "";
  let line;
  if (s.running && s.url) line = `On${s.forced ? " (--mcp)" : ""}: ${s.url}${s.error ? ` (${s.error})` : ""}`;
  else if (s.running) line = `On for \`voicebox mcp\` only: ${s.error || "no port"}`;
  else if (s.enabled && s.error) line = `Not running: ${s.error}`;
  else line = "Off";
  ui.state.textContent = line;
  ui.state.className = `mcp-status ${s.running ? "on" : s.enabled ? "failed" : "off"}`;

  const clients = s.clients || [];
  const state = $("mcp-state");
  if (state) {
    state.textContent = s.running ? (s.url ? `listening on ${s.url}` : "on for `voicebox mcp` only (its port is shut)") : s.enabled ? "not running" : "off";
    state.dataset.running = String(Boolean(s.running));
  }
  const count = $("mcp-count");
  if (count) count.textContent = clients.length ? `(${clients.length})` : "";
  const list = $("mcp-clients");
  if (list) {
    list.replaceChildren(...clients.map((c) => el("li", { dataset: { session: c.session, client: c.name } },
      el("span", { class: "name" }, c.title || c.name, c.version ? el("span", { class: "version" }, ` ${c.version}`) : null),
      el("span", { class: "where" },
        [`since ${when(c.since)}`, `${c.calls} call${c.calls === 1 ? "" : "s"}`, c.lastCall ? `last ${when(c.lastCall)}` : null]
          .filter(Boolean).join(" · ")))));
    if (!clients.length && s.running) list.append(el("li", { class: "empty" }, "No client connected."));
  }
  document.body.dataset.mcp = s.running ? "on" : "off";
}

async function refresh() {
  try {
    render(await call("MCPService.Status"));
  } catch (err) {
    if (err.code !== "unsupported") notifyError(err, { doing: "Could not read the MCP status" });
    sidePanel.hidden = err.code === "unsupported";
  }
}

function start() {
  mount();
  render(null);
  // The Settings dialog may build #settings-mcp later (or rebuild it): follow it.
  new MutationObserver(() => {
    const target = $("settings-mcp");
    if ((target && panel.parentNode !== target) || !sidePanel.isConnected) mount();
  }).observe(document.body, { childList: true, subtree: true });
  // Events carry no token; the status call does. One comes with every MCP call (the client's call count):
  // refresh once for all that arrive within STATUS_REFRESH_MS, so calls do not wait behind redraws.
  let soon = 0;
  on("mcp:status", () => { soon ||= setTimeout(() => { soon = 0; refresh(); }, STATUS_REFRESH_MS); });
  refresh(); // room.js loads this module once the first app has opened (boot.js, firstApp)
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
