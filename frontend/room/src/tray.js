// The side bar: finding and understanding apps. A filter over everything listed; the apps that ran lately;
// the tray of mini-apps on the shelf, each with the tools it declared the last time it ran (an app declares
// its tools only while it runs, so that is what Voicebox can show before it opens: backend/recent); the
// pages of the workspace; the files the person opened; where Voicebox looks, and how deep; and, while the
// shelf is empty (the first run), what Voicebox does, with a sample app to try. What is running is marked everywhere.
import { el } from "./ui.js";
import { get, subscribe } from "./state.js";
import { isApp } from "./subject.js";
import { launchFromRoom, openAll } from "./opener.js";
import { viewEntry, viewDoc } from "./viewer.js";
import { SAMPLE_NAME, SAMPLE_HTML } from "./sample.js";

const $ = (id) => document.getElementById(id);
const RECENT_SHOWN = 6;

let query = ""; // the filter, lower case
let details = null; // the appId whose tools are shown

const ui = {
  filter: el("input", { id: "tray-filter", type: "search", placeholder: "Filter apps and pages", "aria-label": "Filter apps and pages", autocomplete: "off", spellcheck: "false" }),
  noMatch: el("p", { id: "tray-no-match", class: "empty", hidden: true }),
  recent: el("section", { id: "recent-section", hidden: true }, el("h2", {}, "Recent"), el("ul", { id: "recent-list", class: "list" })),
  details: el("div", { id: "app-details", class: "app-details", hidden: true, role: "region", "aria-label": "The app's tools" }),
  firstRun: el("div", { id: "first-run", class: "first-run", hidden: true },
    el("p", {}, "Mini-apps are HTML pages whose tools an assistant, an MCP client or you (Tool Console) can call."),
    el("button", { type: "button", id: "open-sample", title: "Opens from Voicebox itself and writes nothing; save it to the shelf to keep it",
      onclick: () => openAll([{ kind: "local", name: SAMPLE_NAME, html: SAMPLE_HTML }]) }, "Try the sample app")),
  depth: el("p", { id: "pages-depth", class: "meta" }),
  roots: el("details", { id: "scanned-roots", class: "scanned-roots" }, el("summary", {}, "Where Voicebox looks"), el("ul", { class: "list" })),
};

const matches = (...texts) => !query || texts.some((t) => typeof t === "string" && t.toLowerCase().includes(query));
const running = () => new Set(get().apps.map((a) => a.appId));

function mark(node, on) {
  node.classList.toggle("running", on);
  if (on) node.setAttribute("aria-description", "running");
  return node;
}

function render() {
  const { entries, recent, opened, roots, apps } = get();
  const live = running();
  const shelf = entries.filter(isApp);
  const pages = entries.filter((e) => !isApp(e));
  let shown = 0;

  const tray = shelf.filter((e) => matches(e.title, e.fileName));
  shown += tray.length;
  $("sqeh-actions").replaceChildren(...tray.map((e) => el("span", { class: "app-chip", dataset: { appId: e.appId } },
    mark(el("button", {
      class: "bubble", type: "button", title: `${e.title} (${e.fileName})${live.has(e.appId) ? " · running" : ""}`,
      dataset: { appId: e.appId }, onclick: () => launchFromRoom({ kind: "entry", entry: e }),
      oncontextmenu: (ev) => { ev.preventDefault(); viewEntry(e); }, // right-click: read its source in the File Viewer
    }, e.title), live.has(e.appId)),
    el("button", { type: "button", class: "chip-info", title: `${e.title}: its tools`, "aria-label": `${e.title}: its tools`,
      "aria-expanded": String(details === e.appId), onclick: () => { details = details === e.appId ? null : e.appId; render(); } }, "i"))));
  $("tray-empty").hidden = shelf.length > 0;
  ui.firstRun.hidden = shelf.length > 0;
  renderDetails(shelf.find((e) => e.appId === details), recent, live);

  const recents = recent.filter((r) => matches(r.title)).slice(0, RECENT_SHOWN);
  shown += recents.length;
  ui.recent.hidden = recents.length === 0;
  ui.recent.querySelector("ul").replaceChildren(...recents.map((r) => el("li", {},
    mark(el("button", { type: "button", class: "link", dataset: { appId: r.appId }, onclick: () => launchFromRoom({ kind: "entry", entry: r }) },
      el("span", { class: "name" }, r.title),
      el("span", { class: "where" }, `${live.has(r.appId) ? "running · " : ""}${r.tools.length} tool${r.tools.length === 1 ? "" : "s"} · opened ${when(r.lastRun)}`)), live.has(r.appId)))));

  const listed = pages.filter((e) => matches(e.title, e.fileName, e.workspacePath));
  shown += listed.length;
  $("page-list").replaceChildren(...listed.map((e) => el("li", {},
    mark(el("button", { type: "button", class: "link", dataset: { appId: e.appId }, onclick: () => viewEntry(e) },
      el("span", { class: "name" }, e.title),
      el("span", { class: "where" }, `${live.has(e.appId) ? "running · " : ""}${e.source === "sandbox" ? `sandbox ${e.sandbox}` : e.workspacePath || e.fileName}`)), live.has(e.appId)))));
  $("pages-empty").hidden = pages.length > 0;

  // An opened file the workspace lists already is listed there, not twice.
  const inStore = new Set(entries.map((e) => e.storagePath));
  const docs = opened.filter((d) => !inStore.has(d.path) && matches(d.title, d.name, d.path));
  shown += docs.length;
  const docRunning = new Set(apps.map((a) => a.document).filter(Boolean));
  $("opened-section").hidden = docs.length === 0;
  $("opened-list").replaceChildren(...docs.map((d) => el("li", {},
    mark(el("button", { type: "button", class: "link", dataset: { document: d.id }, onclick: () => viewDoc(d) },
      el("span", { class: "name" }, d.title || d.name),
      el("span", { class: "where" }, `${docRunning.has(d.id) ? "running · " : ""}${d.path}`)), docRunning.has(d.id)))));

  ui.noMatch.hidden = !query || shown > 0;
  ui.noMatch.textContent = `Nothing matches “${ui.filter.value}”.`;
  renderRoots(roots);
}

// renderDetails shows the tools an app declared the last time it ran, or says that it has not run yet.
function renderDetails(entry, recent, live) {
  ui.details.hidden = !entry;
  if (!entry) return;
  const r = recent.find((x) => x.appId === entry.appId);
  const tools = r ? r.tools : [];
  ui.details.replaceChildren(
    el("h3", {}, entry.title, el("small", {}, ` ${entry.fileName}`)),
    r ? el("p", { class: "meta" }, `${live.has(entry.appId) ? "Running now. " : ""}The tools it declared when it last ran (${when(r.lastRun)}); it may declare others when it opens.`)
      : el("p", { class: "meta" }, "Voicebox learns an app's tools when it runs: open it once and they are listed here."),
    tools.length ? el("ul", { class: "list tool-list" }, tools.map((t) => el("li", {},
      el("code", {}, t.name), t.description ? el("span", { class: "tc-desc" }, ` ${t.description}`) : null,
      el("span", { class: "where" }, params(t.parameters))))) : r ? el("p", { class: "empty" }, "It declared no tools.") : null,
    el("div", { class: "actions" },
      el("button", { type: "button", onclick: () => launchFromRoom({ kind: "entry", entry }) }, live.has(entry.appId) ? "Bring to Front" : "Open"),
      el("button", { type: "button", onclick: () => viewEntry(entry) }, "View Source")));
}

// params summarises a tool's parameters on one line: "team: home|away, points: integer -20…20 (optional)".
function params(schema) {
  const props = schema && schema.properties ? schema.properties : {};
  const required = new Set(schema && Array.isArray(schema.required) ? schema.required : []);
  const names = Object.keys(props);
  if (!names.length) return "no parameters";
  return names.map((n) => {
    const p = props[n] || {};
    const kind = Array.isArray(p.enum) ? p.enum.join("|") : p.type === "array" && Array.isArray(p.items?.enum) ? `[${p.items.enum.join("|")}]` : p.type || "any";
    const range = p.minimum !== undefined || p.maximum !== undefined ? ` ${p.minimum ?? "−∞"}…${p.maximum ?? "∞"}` : "";
    return `${n}: ${kind}${range}${required.has(n) ? "" : " (optional)"}`;
  }).join(", ");
}

function renderRoots(roots) {
  const say = {
    workspace: (r) => `Workspace: ${r.path}, and one folder down (a page two folders down is not listed: open it with Open File…)`,
    shelf: (r) => `Shelf: ${r.path} (apps you saved)`,
    sandbox: (r) => `Sandboxes: ${r.path} (pages up to ${r.depth} folders into each sandbox)`,
  };
  ui.roots.querySelector("ul").replaceChildren(...roots.map((r) => el("li", { class: "where", dataset: { kind: r.kind } }, (say[r.kind] || ((x) => x.path))(r))));
  const ws = roots.find((r) => r.kind === "workspace");
  ui.depth.textContent = ws ? `Pages in the workspace and its direct subfolders; deeper ones are not listed.` : "No workspace folder is open.";
}

function when(ts) {
  const d = new Date(ts);
  if (Number.isNaN(d.getTime())) return "some time ago";
  return d.toDateString() === new Date().toDateString() ? `today ${d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}` : d.toLocaleDateString();
}

function mount() {
  const sidebar = $("sidebar");
  const trayBox = $("sqeh-actions").closest("section");
  const newApp = $("new-app"); // the filter goes below New App (author.js), above what it filters
  if (newApp) newApp.after(ui.filter, ui.noMatch); else sidebar.prepend(ui.filter, ui.noMatch);
  trayBox.before(ui.recent);
  $("tray-empty").after(ui.firstRun, ui.details);
  $("pages-empty").after(ui.depth);
  sidebar.append(ui.roots);
  ui.filter.addEventListener("input", () => { query = ui.filter.value.trim().toLowerCase(); render(); });
  ui.filter.addEventListener("keydown", (e) => { if (e.key === "Escape" && ui.filter.value) { e.preventDefault(); ui.filter.value = ""; query = ""; render(); } });
  subscribe(render, "entries", "recent", "opened", "roots", "apps");
  render();
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mount); else mount();
