// The room: the tray of mini-apps, the pages of the workspace, the File Viewer and the menu's actions.
import { call, on, isDesktop } from "./transport.js";
import { el, notify, logActivity } from "./ui.js";
import { launchFromRoom, frontApp, onChange, configReady } from "./registry.js";
import { trashEntry } from "./trash.js";
import "./toolconsole.js";

const state = {
  config: null,
  entries: [],
  opened: [],   // documents the person opened (desktop)
  viewing: null, // { kind: "entry", entry } | { kind: "doc", doc } | { kind: "local", name, content }
};

const $ = (id) => document.getElementById(id);

// Entries with no kind come from an older server: they count as apps (seed 000, section 4).
const isApp = (e) => (e.kind || "app") === "app";

async function refresh() {
  try {
    const { apps } = await call("StoreService.List");
    state.entries = apps || [];
    render();
  } catch (err) {
    notify(`Could not read the mini-apps: ${err.message}`, "error");
  }
}

function render() {
  const tray = $("sqeh-actions");
  const apps = state.entries.filter(isApp);
  tray.replaceChildren(...apps.map((e) => el("button", {
    class: "bubble", type: "button", title: `${e.title} (${e.fileName})`,
    dataset: { appId: e.appId }, onclick: () => launchFromRoom({ ref: e.appId }, e.title),
    oncontextmenu: (ev) => { ev.preventDefault(); view(e); }, // right-click: read its source in the File Viewer
  }, e.title)));
  $("tray-empty").hidden = apps.length > 0;

  const pages = state.entries.filter((e) => !isApp(e));
  $("page-list").replaceChildren(...pages.map((e) => el("li", {},
    el("button", { type: "button", class: "link", dataset: { appId: e.appId }, onclick: () => view(e) },
      el("span", { class: "name" }, e.title),
      el("span", { class: "where" }, e.source === "sandbox" ? `sandbox ${e.sandbox}` : e.workspacePath || e.fileName)))));
  $("pages-empty").hidden = pages.length > 0;

  $("opened-section").hidden = state.opened.length === 0;
  $("opened-list").replaceChildren(...state.opened.map((d) => el("li", {},
    el("button", { type: "button", class: "link", onclick: () => viewDoc(d) },
      el("span", { class: "name" }, d.name), el("span", { class: "where" }, d.path)))));

  $("save-page").disabled = !canSave();
  $("file-save").disabled = !canSave();
  const v = state.viewing;
  $("file-save").textContent = v?.kind === "entry" && isApp(v.entry) ? "On the Shelf" : "Save to Shelf";
}

// saveTarget is what File › Save Page to Shelf saves: the page in the viewer when it is up, else the
// mini-app in front. Apps (on the shelf, or workspace files the shelf proves) have nothing to save.
function saveTarget() {
  const v = state.viewing;
  if (v && !$("file-viewer").hidden) {
    if (v.kind === "entry") return isApp(v.entry) ? null : { label: v.entry.title, req: { ref: v.entry.appId }, viewer: v };
    if (v.kind === "doc") return { label: v.doc.name, req: { document: v.doc.id }, viewer: v };
    return { label: v.name, req: { name: v.name, html: v.source }, viewer: v };
  }
  const app = frontApp();
  if (!app || app.appId.startsWith("app_")) return null;
  return { label: app.title, req: app.save };
}

function canSave() { return Boolean(saveTarget()); }

async function view(entry) {
  try {
    const full = await call("StoreService.Get", entry.appId);
    showViewer({ kind: "entry", entry: full }, full.title,
      `${full.kind} · ${full.source}${full.sandbox ? " " + full.sandbox : ""} · ${full.storagePath} · ${full.sizeBytes} bytes`, full.html);
  } catch (err) {
    notify(`Could not open ${entry.title}: ${err.message}`, "error");
  }
}

async function viewDoc(doc) {
  try {
    const full = await call("DocumentService.Read", doc.id);
    showViewer({ kind: "doc", doc: full }, full.name, `${full.path} · ${full.sizeBytes} bytes`, full.content);
  } catch (err) {
    notify(`Could not open ${doc.name}: ${err.message}`, "error");
  }
}

function showViewer(viewing, title, meta, source) {
  state.viewing = { ...viewing, source };
  $("file-title").textContent = title;
  $("file-meta").textContent = meta;
  $("file-source").textContent = source;
  $("file-delete").hidden = viewing.kind !== "entry";
  $("file-viewer").hidden = false;
  render();
  document.dispatchEvent(new CustomEvent("voicebox:viewing", { detail: state.viewing }));
}

function closeViewer() {
  state.viewing = null;
  $("file-viewer").hidden = true;
  render();
}

async function savePage() {
  const target = saveTarget();
  if (!target) {
    notify("Open a page first (one that is not on the shelf yet), then save it to the shelf.", "info");
    return;
  }
  const req = target.req;
  try {
    const saved = await call("StoreService.Save", req);
    notify(`Saved “${saved.title}” to the shelf.`, "ok");
    logActivity("you", "save_page_to_shelf", req.ref || req.document || req.name, saved.appId);
    await refresh();
    // The viewer now shows the saved app (its kind, source and buttons), if it still shows what was saved.
    if (target.viewer && state.viewing === target.viewer && !$("file-viewer").hidden) await view(saved);
  } catch (err) {
    if (err.code === "mini-app-name-taken" && err.app) {
      notify(`Not saved: the shelf name belongs to “${err.app.title}”. Nothing was written.`, "error");
    } else {
      notify(`Not saved: ${err.message}`, "error");
    }
  }
}

async function deleteEntry() {
  const v = state.viewing;
  if (!v || v.kind !== "entry") return;
  if (await trashEntry(v.entry)) {
    closeViewer();
    await refresh();
  }
}

// addOpened lists files opened in the desktop and opens the last one as a mini-app (else shows it in the
// File Viewer). by: "person" for files the person just opened, "boot" for the list a booting room reads
// (the watchdog refuses to reopen from it what an earlier room opened).
function addOpened(docs, by) {
  for (const d of docs || []) {
    if (!state.opened.some((o) => o.id === d.id)) state.opened.push(d);
  }
  render();
  const last = docs && docs[docs.length - 1];
  if (last) document.dispatchEvent(new CustomEvent("voicebox:open-document", { detail: { ...last, by }, cancelable: true })) && viewDoc(last);
}

// Files picked in the browser (serve mode) or dropped onto a browser window are read locally: the room
// never learns their paths and Go never reads them until the person saves one.
async function openLocalFiles(files) {
  for (const f of files) {
    if (!/\.html?$/i.test(f.name)) {
      notify(`${f.name} is not an .html file.`, "error");
      continue;
    }
    const content = await f.text();
    showViewer({ kind: "local", name: f.name }, f.name, `${f.size} bytes (not saved)`, content);
    document.dispatchEvent(new CustomEvent("voicebox:open-local", { detail: { name: f.name, content } }));
  }
}

async function pickFolder() {
  try {
    const cfg = await call("RoomService.OpenFolder");
    if (cfg) applyConfig(cfg);
  } catch (err) {
    notify(`Could not open the folder: ${err.message}`, "error");
  }
}

function applyConfig(cfg) {
  state.config = cfg;
  $("workspace").textContent = cfg.workspace || "";
  $("open-folder").hidden = cfg.mode !== "desktop";
}

// The stage says what to do while nothing is open. (CSS :has() would do, but WebKitGTK does not re-check it
// when pop-overs come and go.)
function wireStageHint() {
  const hint = $("stage-empty");
  const box = $("mini-app-container");
  const viewer = $("file-viewer");
  const update = () => { hint.hidden = box.children.length > 0 || !viewer.hidden; };
  new MutationObserver(update).observe(box, { childList: true });
  new MutationObserver(update).observe(viewer, { attributes: true, attributeFilter: ["hidden"] });
  update();
}

function wireDrop() {
  let depth = 0;
  const hint = $("drop-hint");
  window.addEventListener("dragenter", (e) => { e.preventDefault(); depth++; hint.hidden = false; });
  window.addEventListener("dragleave", () => { if (--depth <= 0) { depth = 0; hint.hidden = true; } });
  window.addEventListener("dragover", (e) => e.preventDefault());
  window.addEventListener("drop", (e) => {
    e.preventDefault();
    depth = 0;
    hint.hidden = true;
    // In the desktop the native drop handler hands Go the real path (files:open); here only a browser drop.
    if (!isDesktop() && e.dataTransfer?.files?.length) openLocalFiles([...e.dataTransfer.files]);
  });
}

async function main() {
  $("file-close").onclick = closeViewer;
  $("file-save").onclick = savePage;
  $("save-page").onclick = savePage;
  $("file-delete").onclick = deleteEntry;
  $("open-folder").onclick = pickFolder;
  $("open-file").onchange = (e) => openLocalFiles([...e.target.files]);
  if (isDesktop()) {
    $("open-file-label").onclick = (e) => { e.preventDefault(); call("RoomService.OpenFiles").catch((err) => notify(err.message, "error")); };
  }
  window.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "s" && !isDesktop()) {
      e.preventDefault();
      savePage();
    }
  });
  wireDrop();
  wireStageHint();

  on("store:changed", refresh);
  onChange(() => { $("save-page").disabled = !canSave(); });
  on("files:open", (docs) => addOpened(docs, "person"));
  on("menu:save", savePage);
  on("workspace:changed", (cfg) => { applyConfig(cfg); closeViewer(); refresh(); });
  on("notice", (n) => notify(n.message, n.level || "info"));

  // Everything the room boots with is asked for at once, so a file opened on the command line starts
  // opening as soon as its document and the registry's configuration are in (docs/performance.md).
  const configured = call("RoomService.Config");
  const listed = refresh();
  const opened = isDesktop() ? call("DocumentService.List") : null;
  try {
    applyConfig(await configured);
  } catch (err) {
    notify(`Could not read the room's configuration: ${err.message}`, "error");
  }
  if (opened) {
    try {
      const docs = await opened;
      await configReady;
      addOpened(docs, "boot");
    } catch (err) { notify(err.message, "error"); }
  }
  await listed;
  document.body.dataset.ready = "true";
}

window.voiceboxRoom = { refresh, state, savePage };
main();
