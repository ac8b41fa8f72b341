// What the person can open as a mini-app or save to the shelf, worked out in one place whatever names it.
// A subject is one of
//   {kind: "entry", entry}               a store entry (an app on the shelf, a page of the workspace…)
//   {kind: "doc", doc}                   a file the person opened in the desktop (by its document id)
//   {kind: "local", name, html, title?}  a page read in the browser (serve's Open File…, a drop)
//   {kind: "app", app}                   an open mini-app: {appId, title, source, request} (registry.js)
// and target(subject) says {label, open, save}: the launch request that opens it (SandboxService.Prepare;
// also how the desktop's watchdog reopens it after a restart), and the save request that puts it on the
// shelf (StoreService.Save), or null when there is nothing to save (an app on the shelf already).

// isApp: an entry with no kind comes from an older server and counts as an app (docs: the store's package
// comment, "kind").
export const isApp = (entry) => (entry.kind || "app") === "app";

export function target(s) {
  switch (s && s.kind) {
    case "entry": {
      const e = s.entry;
      return { label: e.title, open: { ref: e.appId }, save: isApp(e) ? null : { ref: e.appId } };
    }
    case "doc":
      return { label: s.doc.title || s.doc.name, open: { document: s.doc.id }, save: { document: s.doc.id } };
    case "local": {
      const label = s.title || s.name || "page.html";
      return { label, open: { html: s.html, name: s.name || "" }, save: { name: s.name || label, html: s.html } };
    }
    case "app": {
      const a = s.app, r = a.request || {};
      if (a.source === "store") return target({ kind: "entry", entry: { appId: a.appId, title: a.title, kind: a.appId.startsWith("app_") ? "app" : "page" } });
      if (a.source === "document") return target({ kind: "doc", doc: { id: r.document, title: a.title } });
      return target({ kind: "local", name: r.name || "", html: r.html, title: a.title });
    }
  }
  return null;
}
