// Opening mini-apps from the room: the tray, the File Viewer's Open as Mini-App, the sample, the files the
// person opened (command line, a second launch's hand-over, a drop, File › Open File…: several at once all
// open, in their order, each window cascaded from the one before), and, after the desktop restarted a hung
// web process, the watchdog's plan.
import { call, roomId, isDesktop } from "./transport.js";
import { notify, notifyError, logActivity } from "./ui.js";
import { launch, mayOpenApps, track } from "./registry.js";
import { target } from "./subject.js";

// launchFromRoom opens a subject (subject.js) and says how it went in the activity log and, when it failed
// and the person asked, in a notice (a booting room's refusal is the watchdog's plan). opened(app) is told
// as soon as the app's window is there. It resolves whether the app opened and became ready.
export async function launchFromRoom(subject, by = "person", opened) {
  const t = target(subject);
  const who = by === "boot" ? "Voicebox" : "you";
  const start = performance.now();
  try {
    const r = await launch(t.open, { by, onOpen: opened });
    logActivity(who, "launch", t.label, `${r.appId}: ${r.tools.length} tool(s)`, false, performance.now() - start);
    return true;
  } catch (err) {
    const own = ["launch-failed", "launch-timeout", "mini-apps-disabled"].includes(err.code); // the sentence says it
    if (by !== "boot") notifyError(err, { title: t.label, doing: own ? "" : `${t.label} did not open`, retry: () => launchFromRoom(subject, by) });
    logActivity(who, "launch", t.label, `${err.code || "launch-failed"}: ${err.message}`, true, performance.now() - start);
    return false;
  }
}

// openAll opens subjects as mini-apps in their order: each window opens once the one before it has (so the
// cascade follows the order), without waiting for the apps to be ready. It resolves false, opening
// nothing, when this room may not open mini-apps; else once every app is ready or failed.
export async function openAll(subjects, by = "person") {
  let may = mayOpenApps();
  if (may instanceof Promise) may = await may; // no await when it is known: see registry.js launch()
  if (!may) return false;
  const launches = [];
  for (const s of subjects) {
    await new Promise((opened) => { launches.push(launchFromRoom(s, by, opened).finally(opened)); });
  }
  await Promise.all(launches);
  return true;
}

// reopenOffered opens an app the watchdog left to the person (the person's launch lifts the watchdog's hold
// on it); the notice with the other buttons stays.
async function reopenOffered(o) {
  try {
    const r = await launch(o.request, { by: "person" });
    logActivity("you", "launch", o.title, `${r.appId}: reopened after the watchdog stopped`);
  } catch (err) {
    notifyError(err, { doing: `${o.title} did not open`, title: o.title });
  }
  return true;
}

// After the desktop restarted a hung web process, the reloaded room asks what happened: it shows the
// notices and reopens the apps of the plan one after the other, leaving the one closed closed. When the
// watchdog does not know which app stopped the room, the plan paces them (probationMs after each is ready)
// so that, if the room stops again, one app is the newcomer (backend/recovery).
export async function recoverAtBoot() {
  if (!isDesktop()) return;
  let plan;
  try { plan = await call("RoomService.Recovery", roomId); } catch { return; }
  if (!plan || !plan.recovered) return;
  // The apps the watchdog did not reopen itself (the web process kept failing): a button for each on the
  // last notice, which stays until dismissed. The person's click is the only launch that reopens them.
  const offer = (plan.offer || []).map((o) => ({
    label: `Reopen ${o.title}`, id: `watchdog-reopen-${o.appId}`,
    run: () => reopenOffered(o),
  }));
  const notices = plan.notices || [];
  notices.forEach((n, i) => notify(n, "error", i === notices.length - 1 && offer.length ? { actions: offer, sticky: true } : {}));
  logActivity("Voicebox", "watchdog", plan.reason, plan.closed ? `closed ${plan.closed.title} (${plan.why})` : "restarted", true);
  let reopened = 0;
  const failed = [];
  const reopen = plan.reopen || [];
  for (const [i, r] of reopen.entries()) {
    try {
      await launch(r.request, { by: "watchdog" });
      reopened++;
    } catch (err) {
      failed.push(r.title);
      notifyError(err, { doing: `Could not reopen ${r.title}`, title: r.title });
    }
    if (plan.probationMs > 0 && i < reopen.length - 1) await new Promise((ok) => setTimeout(ok, plan.probationMs));
  }
  track({ op: "reopened", reopened, failed });
}
