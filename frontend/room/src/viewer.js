// The File Viewer (#file-viewer): the source of a store entry, a file the person opened or a page read in
// the browser, with Open as Mini-App, Save to Shelf and Delete. What it shows is state.viewing: a subject
// (subject.js) with its source text. Save (the viewer's button, the top bar's, Ctrl+S, File › Save Page to
// Shelf) saves "the page that is open": the viewer's when it is up, else the app in front.
import { call } from "./transport.js";
import { notify, logActivity } from "./ui.js";
import { get, update, subscribe } from "./state.js";
import { target, isApp } from "./subject.js";
import { openSubject } from "./registry.js";
import { launchFromRoom } from "./opener.js";
import { trashEntry } from "./trash.js";

const $ = (id) => document.getElementById(id);

// viewEntry shows a store entry (it reads it again: the list holds no HTML).
export async function viewEntry(entry) {
  try {
    const e = await call("StoreService.Get", entry.appId);
    show({ kind: "entry", entry: e }, e.title,
      `${e.kind} · ${e.source}${e.sandbox ? " " + e.sandbox : ""} · ${e.storagePath} · ${e.sizeBytes} bytes`, e.html);
  } catch (err) {
    notify(`Could not open ${entry.title}: ${err.message}`, "error");
  }
}

// viewDoc shows a file the person opened.
export async function viewDoc(doc) {
  try {
    const d = await call("DocumentService.Read", doc.id);
    show({ kind: "doc", doc: d }, d.title || d.name, `${d.path} · ${d.sizeBytes} bytes`, d.content);
  } catch (err) {
    notify(`Could not open ${doc.title || doc.name}: ${err.message}`, "error");
  }
}

// viewLocal shows a page read in the browser; nothing of it is on disk until it is saved.
export function viewLocal(name, html) {
  show({ kind: "local", name, html }, name, `${new Blob([html]).size} bytes (not saved)`, html);
}

function show(subject, title, meta, source) {
  $("file-title").textContent = title;
  $("file-meta").textContent = meta;
  $("file-source").textContent = source;
  $("file-delete").hidden = subject.kind !== "entry";
  $("file-viewer").hidden = false;
  update({ viewing: { ...subject, source } });
}

export function closeViewer() {
  $("file-viewer").hidden = true;
  update({ viewing: null });
}

const viewerUp = () => (!$("file-viewer").hidden && get().viewing) || null;

// saveTarget is what Save saves: the viewer's page when the viewer is up, else the app in front; null when
// that is on the shelf already.
function saveTarget() {
  const viewing = viewerUp();
  const t = target(viewing || openSubject(get().front));
  return t && t.save ? { ...t, viewing } : null;
}

export async function savePage() {
  const t = saveTarget();
  if (!t) {
    notify("Open a page first (one that is not on the shelf yet), then save it to the shelf.", "info");
    return;
  }
  try {
    const saved = await call("StoreService.Save", t.save);
    notify(`Saved “${saved.title}” to the shelf.`, "ok");
    logActivity("you", "save_page_to_shelf", t.label, saved.title);
    // The viewer now shows the saved app (its kind, source and buttons), if it still shows what was saved.
    if (t.viewing && viewerUp() === t.viewing) await viewEntry(saved);
  } catch (err) {
    if (err.code === "mini-app-name-taken" && err.app) {
      notify(`Not saved: the shelf name belongs to “${err.app.title}”. Nothing was written.`, "error");
    } else {
      notify(`Not saved: ${err.message}`, "error");
    }
  }
}

async function deleteEntry() {
  const v = get().viewing;
  if (v?.kind === "entry" && await trashEntry(v.entry)) closeViewer();
}

function render() {
  const can = Boolean(saveTarget());
  $("save-page").disabled = !can;
  $("file-save").disabled = !can;
  const v = get().viewing;
  $("file-save").textContent = v?.kind === "entry" && isApp(v.entry) ? "On the Shelf" : "Save to Shelf";
}

function wire() {
  $("file-close").onclick = closeViewer;
  $("file-save").onclick = savePage;
  $("save-page").onclick = savePage;
  $("file-delete").onclick = deleteEntry;
  $("file-run-app").onclick = () => { const v = get().viewing; if (v) launchFromRoom(v); };
  subscribe(render, "viewing", "front", "apps");
  render();
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire); else wire();
