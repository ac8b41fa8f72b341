// What the room does for a mini-app that a browser tab would do itself (docs/webmcp.md). The bridge has
// already checked the bounds and the person's gesture; here the room saves downloads (a native Save dialog
// in the desktop, a download from the room's origin in `voicebox serve`), copies text, shows what the app
// said in alert()/confirm()/prompt() as notices on its pop-over, and shows when an app needs the person.
import { call, isDesktop } from "./transport.js";
import { el, logActivity } from "./ui.js";
import { copyText } from "./clipboard.js";

const NOTICES_PER_WINDOW = 3;

// notice puts a line on the app's pop-over, under its title bar; it stays until closed (never blocks).
export function notice(app, text) {
  if (!app.win) return;
  const box = app.win.el.querySelector(".mini-app-notices") || app.win.el.insertBefore(el("div", { class: "mini-app-notices" }), app.win.body);
  const close = el("button", { type: "button", title: "Dismiss", "aria-label": "Dismiss" }, "✕");
  const line = el("div", { class: "mini-app-notice", role: "status" }, el("span", {}, text), close);
  close.addEventListener("click", () => line.remove());
  box.append(line);
  while (box.children.length > NOTICES_PER_WINDOW) box.firstChild.remove();
}

const quote = (s) => `“${String(s).length > 200 ? String(s).slice(0, 200) + "…" : s}”`;

// appNotice shows a notice the app's page caused (through the bridge), with what the page was answered.
// Only a form the assistant filled in raises the app, and only while a caller's call to it runs: the
// bridge passes that notice only then (issue 28), and the room checks again that it has a call in flight.
export function appNotice(app, kind, text) {
  if (kind === "form" && !app.pending?.size) return;
  const said = {
    alert: () => `${app.title} says: ${quote(text)}`,
    confirm: () => `${app.title} asked: ${quote(text)}. It was answered Cancel: a mini-app cannot open dialogs.`,
    prompt: () => `${app.title} asked: ${quote(text)}. It was answered with nothing: a mini-app cannot open dialogs.`,
    form: () => { app.win.focus(); return `The assistant filled in the form ${quote(text)}. Check it and submit it yourself.`; },
    refused: () => `Refused: ${text}`,
    blocked: () => `Refused: a form of ${app.title} tried to send its data to ${text}, outside the app.`,
  }[kind];
  if (said) notice(app, said());
}

// fileName makes the app's suggested name safe to save: no folders, no control or reserved characters, no
// leading dots, at most 120 characters; "download" when nothing is left.
export function fileName(name) {
  let n = String(name || "").split(/[\\/]/).pop().normalize("NFC");
  n = n.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069<>:"|?*]/g, "_").replace(/^[.\s]+|[.\s]+$/g, "");
  if (n.length > 120) { const dot = n.lastIndexOf("."); const ext = dot > 0 && n.length - dot <= 10 ? n.slice(dot) : ""; n = n.slice(0, 120 - ext.length) + ext; }
  return n || "download";
}

let saving = false; // one Save at a time for the whole room: a dialog is modal for the person
export async function saveDownload(app, name, blob) {
  const file = fileName(name);
  if (!(blob instanceof Blob)) return;
  if (saving) { notice(app, `Not saved: ${file} (another download is being saved)`); return; }
  saving = true;
  try {
    if (isDesktop()) {
      const path = await call("RoomService.SaveDownload", file, await base64(blob));
      notice(app, path ? `Saved ${path}` : `Not saved: ${file} (cancelled)`);
    } else {
      const url = URL.createObjectURL(blob);
      const a = el("a", { href: url, download: file, hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
      notice(app, `Downloaded ${file} (${blob.size} bytes)`);
    }
    logActivity(app.title, "download", file, `${blob.size} bytes`);
  } catch (err) {
    notice(app, `Not saved: ${file}: ${err.message}`);
  } finally {
    saving = false;
  }
}

function base64(blob) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ""));
    r.onerror = () => reject(r.error);
    r.readAsDataURL(blob);
  });
}

// copyForApp puts the app's text on the clipboard (the bridge checked the person's gesture). The desktop
// copies through Go: WebKitGTK lets the room write only inside a gesture of its own.
export async function copyForApp(app, text) {
  try {
    if (isDesktop()) await call("RoomService.CopyText", text);
    else await copyText(text);
    notice(app, `Copied ${text.length} character${text.length === 1 ? "" : "s"}`);
  } catch (err) {
    notice(app, `Not copied: ${err.message}`);
  }
}

// needsYou shows, while a tool call waits for the person (client.requestUserInteraction), that the app
// needs them: its window comes to the front with a visible mark. The keyboard stays where it is until the
// person clicks into the app.
export function needsYou(app, on) {
  if (!app.win || (on && !app.pending?.size)) return; // the bridge ties it to a call in flight; so does the room
  app.win.el.classList.toggle("needs-you", on);
  const bar = app.win.el.querySelector(".mini-app-bar");
  let badge = bar && bar.querySelector(".mini-app-needs-you");
  if (on) {
    app.win.focus();
    if (bar && !badge) bar.insertBefore(el("span", { class: "mini-app-needs-you", role: "status" }, "needs you"), bar.querySelector(".mini-app-status"));
  } else if (badge) badge.remove();
}
