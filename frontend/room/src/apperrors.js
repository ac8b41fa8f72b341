// A broken app says so (docs/room.md, "Feedback"): the SDK passes the app's uncaught errors and unhandled
// rejections, with file and line, over its port; the bridge bounds them (backend/sandbox/bridge.js,
// onAppError) and hands them to the room, which marks the app's window ("error" in its bar and a strip
// that names the first) and logs each in the activity log. The room keeps the first KEEP per document.
import { logActivity } from "./ui.js";

const KEEP = 20;

const text = (v, max) => String(v == null ? "" : v).slice(0, max);

// appError takes one report { message, file, line, column, kind } for app (a registry MiniApp).
export function appError(app, d) {
  if (!d || typeof d !== "object") return;
  const message = text(d.message, 500) || "an error";
  const file = text(d.file, 200);
  const line = Number.isInteger(d.line) && d.line > 0 ? d.line : 0;
  const column = Number.isInteger(d.column) && d.column > 0 ? d.column : 0;
  const where = file ? `${file}${line ? `:${line}` : ""}${column ? `:${column}` : ""}` : "";
  app.errors = app.errors || [];
  if (app.errors.length < KEEP) app.errors.push({ message, where, kind: d.kind === "rejection" ? "rejection" : "error" });
  app.errorCount = (app.errorCount || 0) + 1;
  // The strip names the first error since the document loaded: the one that broke it, usually.
  const first = app.errors[0];
  const more = app.errorCount > 1 ? ` (and ${app.errorCount - 1} more in the activity log)` : "";
  if (app.win) app.win.setError({ text: `${first.message}${first.where ? ` at ${first.where}` : ""}${more}`, count: app.errorCount });
  logActivity(app.title, d.kind === "rejection" ? "unhandled rejection" : "script error", where || undefined, message, true);
}

// appErrorsGone forgets an app's errors when its document goes (a reload, a navigation).
export function appErrorsGone(app) {
  app.errors = [];
  app.errorCount = 0;
  if (app.win) app.win.setError(null);
}
