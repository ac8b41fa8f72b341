// The assistant's builds as the room shows them (docs/authoring.md, "In the room"): a build (Go's
// author.JobView) becomes a card's lines, its elapsed time and the actions it offers; a written app's
// version becomes a line of its Versions list, and Undo's version is found as Go's revert finds it. No DOM
// here, so node tests it (frontend/tests/builds.test.mjs); author.js draws it.
import { describe } from "./errortext.js";

const PROVIDERS = { openai: "OpenAI", gemini: "Gemini" };

// running says whether a build is still under way (Cancel applies, its time ticks).
export const running = (job) => job.state === "writing" || job.state === "checking";

// elapsedMs is how long a build has run: until it ended, else until now (Go's clock and the room's are the
// same computer's; a start "in the future" counts as 0).
export function elapsedMs(job, now) {
  const start = Number(job.startedAt) || 0;
  const end = Number(job.endedAt) || now;
  return start ? Math.max(0, end - start) : 0;
}

// duration says a time the way the card shows it: "0 s", "42 s", "1 min 05 s".
export function duration(ms) {
  const s = Math.floor(Math.max(0, ms) / 1000);
  if (s < 60) return `${s} s`;
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
}

const count = (n) => Number(n || 0).toLocaleString("en-US");
const plural = (n, one, many) => `${count(n)} ${n === 1 ? one : many}`;

// appName is the app a build writes: its title once it opened, else the name it was given.
export const appName = (job) => job.title || job.name || "the app";

// STATES are the words for a build's states.
export const STATES = { writing: "writing", checking: "checking", done: "done", failed: "failed", cancelled: "cancelled" };

// stateLabel is the card's badge: what happens now ("writing", "checking the app"), or how it ended; an app
// that opened with problems is "does not work yet", not "done".
export function stateLabel(job) {
  if (job.state === "checking") return "checking the app";
  if (job.state === "done" && job.problems && job.problems.length) return "does not work yet";
  return STATES[job.state] || job.state || "";
}

// metaLine is what the code model did: "1,234 characters · round 2 · 12 s · OpenAI gpt-5.5".
export function metaLine(job, now) {
  const parts = [plural(job.chars, "character", "characters"), `round ${job.round || 1}`, duration(elapsedMs(job, now))];
  const who = [PROVIDERS[job.provider] || job.provider, job.model].filter(Boolean).join(" ");
  if (who) parts.push(who);
  return parts.join(" · ");
}

// heading names the build: "New app: Chess Clock", "Change Chess Clock".
export function heading(job) {
  return job.kind === "edit" ? `Change ${appName(job)}` : `New app: ${appName(job)}`;
}

// outcome is how a finished build ended, in words: { tone: "ok" | "warn" | "error" | "muted", line,
// details, tools, action } (action: errortext's "settings" or "retry"); null while it runs.
export function outcome(job) {
  const name = appName(job);
  switch (job.state) {
    case "done": {
      const problems = job.problems || [];
      const tools = job.tools || [];
      if (problems.length) return { tone: "warn", line: `${name} is open, but does not work yet: ${problems.join("; ")}`, details: "", tools, action: "" };
      const said = tools.length ? `${plural(tools.length, "tool", "tools")}: ${tools.join(", ")}` : "no tools";
      return { tone: "ok", line: `${name} is open${job.version ? ` (version ${job.version})` : ""}, with ${said}.`, details: "", tools, action: "" };
    }
    case "failed": {
      const d = describe({ code: job.code || "internal-error", message: job.message || "" }, { provider: job.provider, title: name });
      return { tone: "error", line: d.line, details: d.details, tools: [], action: d.action };
    }
    case "cancelled":
      return { tone: "muted", line: job.version ? `Cancelled; version ${job.version} stays.` : "Cancelled; nothing was written.", details: "", tools: [], action: "" };
  }
  return null;
}

// actions are the buttons a card offers, in order: Cancel while it runs; once it ended, Bring to Front (an
// app that opened), Open Settings (a key or a model to fix), Try Again (a build that did not finish) and
// Dismiss.
export function actions(job) {
  if (running(job)) return ["cancel"];
  const out = [];
  if (job.state === "done" && job.appId) out.push("show");
  if (job.state === "failed" && outcome(job).action === "settings") out.push("settings");
  if (job.state === "failed" || job.state === "cancelled") out.push("retry");
  out.push("dismiss");
  return out;
}

// tail is the end of the streaming text a card shows: its last lines, at most max.
export function tail(text, max = 12) {
  const lines = String(text || "").split("\n");
  return lines.slice(-max).join("\n");
}

// card is everything a build card shows, from one JobView at time now.
export function card(job, now) {
  const live = running(job);
  return {
    id: job.id,
    key: dismissKey(job),
    state: job.state,
    heading: heading(job),
    badge: stateLabel(job),
    request: job.request || "",
    text: live ? tail(job.text) : "",
    meta: metaLine(job, now),
    outcome: outcome(job),
    actions: actions(job),
    running: live,
  };
}

// dismissKey names a build across the room's reloads (Go numbers builds from b1 at each start).
export const dismissKey = (job) => `${job.id}@${job.startedAt}`;

// retryArgs is the call that starts a build again: Create(description, name) or Edit(ref, change), where
// ref is the app as it opened, else its name (an open app's title, or the store's).
export function retryArgs(job) {
  if (job.kind === "edit") return ["AuthorService.Edit", job.appId || job.name, job.request];
  return ["AuthorService.Create", job.request, job.name];
}

const SOURCES = {
  create: () => "written",
  edit: () => "changed",
  write: () => "written by an MCP client",
  copy: () => "the page as it was (a copy)",
  revert: (v) => `back to version ${v.from}`,
  restore: (v) => `version ${v.from} restored`,
  found: () => "changed outside Voicebox",
};

// versionView is a line of the Versions list: { number, when, what, request, works, current }.
// when(time) formats the time (the room: the person's locale).
export function versionView(v, current, when = (t) => t) {
  const what = (SOURCES[v.source] || (() => v.source || ""))(v);
  let works = "not checked";
  if (v.outcome === "ok") works = "works";
  else if (v.outcome === "check-failed") works = v.reason ? `does not work: ${v.reason}` : "does not work";
  return { number: v.number, when: v.time ? when(v.time) : "", what, request: v.request || "", works, current };
}

// undoTarget is the version Undo brings back, or 0 when there is none: the newest kept version before the
// current one whose content differs from it and from the page (Go's revert: a current version that is a
// revert counts from the version it went back to, so reverting twice goes back two steps). versions come
// newest first (AuthorService.Versions).
export function undoTarget(versions) {
  if (!Array.isArray(versions) || versions.length === 0) return 0;
  const cur = versions[0];
  const anchor = cur.source === "revert" && cur.from ? cur.from : cur.number;
  for (const v of versions) {
    if (v.number < anchor && v.sha256 !== cur.sha256) return v.number;
  }
  return 0;
}
