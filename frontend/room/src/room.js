// The room page: it reads what Go knows into the room's state (state.js) and keeps it current, opens the
// files the person hands it, and wires the top bar and the window's drops. The side bar (tray.js), the File
// Viewer (viewer.js), the Tool Console and the mini-apps (registry.js) follow the state.
import { call, on, isDesktop } from "./transport.js";
import { notify, notifyError } from "./ui.js";
import { get, update } from "./state.js";
import { roomConfig } from "./config.js";
import { boot, firstApp, firstAppSettled } from "./boot.js";
import { openAll, recoverAtBoot } from "./opener.js";
import { viewDoc, viewLocal, closeViewer, savePage } from "./viewer.js";

const $ = (id) => document.getElementById(id);

// FIRST_APP_WAIT_MS bounds how long the room's other first reads wait for the first app (boot.js, firstApp):
// an app that never becomes ready does not keep the side bar empty for the launch's whole timeout.
const FIRST_APP_WAIT_MS = 1500;

async function refresh() {
  try {
    const { apps, roots } = await call("StoreService.List");
    update({ entries: apps || [], roots: roots || [] });
  } catch (err) {
    notifyError(err, { doing: "Could not read the mini-apps", key: "error:refresh", retry: refresh });
  }
}

async function refreshRecent() {
  try {
    update({ recent: (await call("RecentService.List")) || [] });
  } catch (err) {
    notifyError(err, { doing: "Could not read the recent apps" });
  }
}

async function refreshOpened() {
  try {
    update({ opened: (await call("DocumentService.List")) || [] });
  } catch (err) {
    notifyError(err, { doing: "Could not read the opened files" });
  }
}

// openAtBoot opens the files the person opened before this room ran: with the page's list (boot.js) at
// once, its first frame made before the room's other modules run; else once Go said which.
function openAtBoot() {
  if (!boot) return refreshOpened().then(() => openDocuments(get().opened, "boot"));
  update({ opened: boot.opened || [] });
  openDocuments(get().opened, "boot").finally(firstAppSettled);
  setTimeout(firstAppSettled, FIRST_APP_WAIT_MS);
}

// openDocuments opens files the person opened in the desktop (the command line, a second launch's
// hand-over, a drop, File › Open File…) as mini-apps, all of them, in their order; where mini-apps cannot
// open, the File Viewer shows the last. by: "person" for files just opened, "boot" for the list a booting
// room reads (the watchdog does not let it reopen what an earlier room opened: backend/recovery).
async function openDocuments(docs, by) {
  if (!docs || docs.length === 0) return;
  if (by !== "boot") await refreshOpened();
  if (!(await openAll(docs.map((doc) => ({ kind: "doc", doc })), by))) viewDoc(docs[docs.length - 1]);
}

// Files picked in the browser (serve mode) or dropped onto a browser window are read here: the room never
// learns their paths and Go never reads them until the person saves one. They open as mini-apps, in their
// order, like the desktop's; where mini-apps cannot open, the File Viewer shows the last.
async function openLocalFiles(files) {
  const pages = [];
  for (const f of files) {
    if (!/\.html?$/i.test(f.name)) {
      notify(`${f.name} is not an .html file.`, "error");
      continue;
    }
    pages.push({ kind: "local", name: f.name, html: await f.text() });
  }
  if (pages.length && !(await openAll(pages))) viewLocal(pages.at(-1).name, pages.at(-1).html);
}

async function pickFolder() {
  try {
    const cfg = await call("RoomService.OpenFolder");
    if (cfg) applyConfig(cfg);
  } catch (err) {
    notifyError(err, { doing: "Could not open the folder" });
  }
}

function applyConfig(cfg) {
  update({ config: cfg });
  $("workspace").textContent = cfg.workspace || "";
  $("open-folder").hidden = cfg.mode !== "desktop";
}

// The stage says what to do while nothing is open. (CSS :has() would do, but WebKitGTK does not re-check it
// when pop-overs come and go.)
function wireStageHint() {
  const hint = $("stage-empty");
  const box = $("mini-app-container");
  const viewer = $("file-viewer");
  const sync = () => { hint.hidden = box.children.length > 0 || !viewer.hidden; };
  new MutationObserver(sync).observe(box, { childList: true });
  new MutationObserver(sync).observe(viewer, { attributes: true, attributeFilter: ["hidden"] });
  sync();
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
  $("open-folder").onclick = pickFolder;
  $("open-file").onchange = (e) => { openLocalFiles([...e.target.files]); e.target.value = ""; }; // Open File… (shortcuts.js)
  wireDrop();
  wireStageHint();
  recoverAtBoot();

  on("store:changed", () => { refresh(); refreshRecent(); }); // the recent list keeps to what the store has
  on("recent:changed", refreshRecent);
  on("files:open", (docs) => openDocuments(docs, "person"));
  on("menu:save", savePage);
  on("workspace:changed", (cfg) => { applyConfig(cfg); closeViewer(); refresh(); });
  on("notice", (n) => (n.code ? notifyError({ code: n.code, message: n.message }, { provider: n.provider }) : notify(n.message, n.level || "info")));

  // What the room boots with came with the page (boot.js) or is asked for at once, so a file opened on the
  // command line starts opening as soon as the room runs; the side bar's lists wait for that app
  // (docs/performance.md).
  if (isDesktop()) openAtBoot();
  const listed = firstApp.then(() => Promise.all([refresh(), refreshRecent()]));
  try {
    const cfg = await roomConfig;
    applyConfig(cfg);
    if (cfg.layoutProbe) import("./layoutprobe.js").then((m) => m.reportWhenSettled()); // the layout tests' (desktoproom.go)
  } catch (err) {
    notifyError(err, { doing: "Could not read the room's configuration" });
  }
  await listed;
  await later;
  document.body.dataset.ready = "true";
}

// later are the room's parts that the first app does not wait for (boot.js, firstApp): the side bar (tray.js),
// the Tool Console, the MCP panel, the voice session, the keys (Settings with them) and the assistant's
// app writing (author.js: New App, the build cards). Their evaluation,
// their DOM and their first calls to Go ran on the page's one thread ahead of the first app's documents and
// messages; the side bar and the Tool Console also redrew at each update the first launch made (they draw
// from the state when they load).
const later = firstApp.then(() => Promise.all(["./tray.js", "./toolconsole.js", "./mcp.js", "./session.js", "./shortcuts.js", "./author.js"].map((m) => import(m))));

main();
