// Deleting to the Trash: the question before (confirm.js) and the Undo toast after, among the room's
// toasts (notices.js): "“Title” moved to the Trash. [Undo] [✕]". The toast stays until the person undoes,
// dismisses it or deletes something else (that delete's toast replaces it; the earlier files stay
// restorable from the Trash itself). Ctrl+Z in the room, outside text fields, undoes too. Go decides what
// a delete takes and brings back exactly that, or nothing (docs/trash.md).
import { call } from "./transport.js";
import { notify, notifyError, logActivity } from "./ui.js";
import { askConfirm } from "./confirm.js";
import { toast } from "./notices.js";

let undoing = null; // the Undo toast showing: { box, undo, dismiss }

function dismiss() {
  if (undoing) undoing.dismiss();
  undoing = null;
}

// What goes with an entry, as the store's ownership rule decides it (docs/trash.md).
function whatGoes(e) {
  if ((e.kind || "app") !== "app") return "Its file goes to the Trash.";
  if (e.source === "workspace") return "Its workspace file, its shelf copy and its record go to the Trash.";
  return "Its shelf copy and its record go to the Trash.";
}

// trashEntry asks, then moves the entry's files to the Trash and offers Undo. It says whether it did.
export async function trashEntry(e) {
  const yes = await askConfirm({
    title: `Move “${e.title}” to the Trash?`,
    message: `${whatGoes(e)} You can undo this.`,
    detail: e.storagePath,
    confirm: "Move to Trash",
  });
  if (!yes) return false;
  try {
    const deleted = await call("StoreService.Delete", e.appId);
    logActivity("you", "delete", e.title, deleted.removed);
    offerUndo(e.title, deleted);
    return true;
  } catch (err) {
    notifyError(err, { doing: "Not deleted" });
    return false;
  }
}

// offerUndo shows the toast for a delete answered by StoreService.Delete ({ removed, trashed, undo }), in
// the room's toasts (notices.js): sticky, with Undo and ✕.
function offerUndo(title, deleted) {
  dismiss();
  const n = deleted.removed.length;
  const what = n === 1 ? "" : ` (${n} files)`;
  const run = async () => {
    const button = document.getElementById("undo-delete");
    if (button) button.disabled = true;
    try {
      const { restored } = await call("StoreService.Restore", { undo: deleted.undo });
      dismiss();
      notify(`Restored “${title}”.`, "ok");
      logActivity("you", "undo delete", title, restored);
      return false;
    } catch (err) {
      if (button) button.disabled = false;
      notifyError(err, { doing: "Not restored" });
      return true; // the toast stays: Undo can be tried again
    }
  };
  const t = toast({ level: "ok", line: `“${title}” moved to the Trash${what}.`, sticky: true, id: "undo-toast", key: `undo:${deleted.undo}`,
    actions: [{ id: "undo-delete", label: "Undo", run }] });
  t.node.dataset.undo = deleted.undo;
  undoing = { box: t.node, undo: run, dismiss: t.dismiss };
}

window.addEventListener("keydown", (e) => {
  if (!undoing || !undoing.box.isConnected || !(e.ctrlKey || e.metaKey) || e.shiftKey || e.altKey || e.key.toLowerCase() !== "z") return;
  const t = e.target;
  if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) || document.querySelector("dialog[open]")) return;
  e.preventDefault();
  undoing.undo().then((keep) => { if (!keep) dismiss(); });
});
