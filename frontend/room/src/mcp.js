// MCP: the door that lets MCP clients (Claude Desktop, Cursor, VS Code, the MCP Inspector) list and call the
// open mini-apps' tools. Settings › MCP holds the switch, the URL, the bearer token and a ready client
// config; it mounts into #settings-mcp when the Settings dialog has one, and into the side panel until then.
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
    el("button", { type: "button", id: "mcp-config-show", onclick: toggleConfig }, "Show"),
    copyButton("Client config", () => call("MCPService.ClientConfig"))),
  ui.config,
  el("p", { class: "meta" },
    "The config's \"voicebox\" entry runs `voicebox mcp`, which speaks MCP over stdio and forwards to this window " +
    "(clients that only launch commands, such as Claude Desktop); \"voicebox-http\" is for clients that take a URL and headers. " +
    "The same JSON is printed by `voicebox mcp --print-config`."),
  ui.discovery);

ui.enabled.addEventListener("change", async () => {
  const want = ui.enabled.checked;
  ui.enabled.disabled = true;
  try {
    render(await call("MCPService.SetEnabled", want));
    if (want && status && !status.running) notify("MCP did not start. Another program may use its address: pick another port here.", "error", { details: status.error || "" });
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
    if (!ui.config.hidden) ui.config.textContent = await call("MCPService.ClientConfig");
  } catch (err) {
    notifyError(err, { doing: "No new token was made" });
  }
}

async function toggleConfig() {
  if (!ui.config.hidden) {
    ui.config.hidden = true;
    $("mcp-config-show").textContent = "Show";
    return;
  }
  try {
    ui.config.textContent = await call("MCPService.ClientConfig");
    ui.config.hidden = false;
    $("mcp-config-show").textContent = "Hide";
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
  let line;
  if (s.running) line = `On${s.forced ? " (--mcp)" : ""}: ${s.url}`;
  else if (s.enabled && s.error) line = `Not running: ${s.error}`;
  else line = "Off";
  ui.state.textContent = line;
  ui.state.className = `mcp-status ${s.running ? "on" : s.enabled ? "failed" : "off"}`;

  const clients = s.clients || [];
  const state = $("mcp-state");
  if (state) {
    state.textContent = s.running ? `listening on ${s.url}` : s.enabled ? "not running" : "off";
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
