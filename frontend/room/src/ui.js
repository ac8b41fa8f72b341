// The room's feedback, for every module: notify shows a toast (notices.js), notifyError an error in words for
// the person (errortext.js: one line, what Go said behind "Details", Open Settings or Retry where they
// help), logActivity a line of the activity log (activity.js). el builds elements (dom.js).
import { toast } from "./notices.js";
import { describe } from "./errortext.js";
import { addLine } from "./activity.js";

export { el } from "./dom.js";

// notify shows message for a while (errors longer); opts: { details, actions, key, sticky, id, ms }.
export function notify(message, level = "info", opts = {}) {
  return toast({ level, line: String(message), ...opts });
}

// notifyError shows err as one human line. ctx: { doing: what did not happen ("Not saved"), provider,
// title (for the sentence), retry: a function (adds Retry where it helps), key: shown once while it shows
// (default: the line) }.
export function notifyError(err, ctx = {}) {
  const d = describe(err, ctx);
  const actions = [];
  if (d.action === "settings") actions.push({ label: "Open Settings", run: () => import("./settings.js").then((m) => m.open()) }); // settings.js imports this module
  if (d.action === "retry" && typeof ctx.retry === "function") actions.push({ label: "Retry", run: ctx.retry });
  return toast({ level: "error", line: d.line, details: d.details, actions, key: ctx.key || `error:${d.line}` });
}

// logActivity adds a line to the activity log: who called what, with which input, what came back, whether
// it failed and how long it took (ms, when measured).
export function logActivity(who, what, input, outcome, failed = false, ms) {
  addLine({ who, what, input, outcome, failed, ms });
}
