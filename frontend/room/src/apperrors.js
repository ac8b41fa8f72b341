// A broken app says so (docs/room.md, "Feedback"): the SDK passes the app's uncaught errors and unhandled
// rejections, with file and line, over its port; the bridge bounds them (backend/sandbox/bridge.js,
// onAppError) and hands them to the room, which marks the app's window ("error" in its bar and a strip
// that names the first) and reports each to Go (RegistryService.Report: Go's record of the document, which
// the written apps' check reads, and the activity log's line). The room keeps the first KEEP per document.
import { call } from "./transport.js";

const KEEP = 20;

// appError takes one report for app (a registry MiniApp), in the shape messages.js' fromBridge gives it:
// { kind, message, file, line, column } (texts, and numbers 0 when unknown).
export function appError(app, d) {
  const message = d.message || "an error"; // the bridge bounds the texts (onAppError)
  const file = d.file;
  const where = file ? `${file}${d.line ? `:${d.line}` : ""}${d.column ? `:${d.column}` : ""}` : "";
  app.errors = app.errors || [];
  if (app.errors.length < KEEP) app.errors.push({ message, where, kind: d.kind });
  app.errorCount = (app.errorCount || 0) + 1;
  // The strip names the first error since the document loaded: the one that broke it, usually.
  const first = app.errors[0];
  const more = app.errorCount > 1 ? ` (and ${app.errorCount - 1} more in the activity log)` : "";
  if (app.win) app.win.setError({ text: `${first.message}${first.where ? ` at ${first.where}` : ""}${more}`, count: app.errorCount });
  call("RegistryService.Report", app.appId, { title: app.title, error: { kind: d.kind, message, where } }).catch(() => {});
}

// appErrorsGone forgets an app's errors when its document goes (a reload, a navigation).
export function appErrorsGone(app) {
  app.errors = [];
  app.errorCount = 0;
  if (app.win) app.win.setError(null);
}
