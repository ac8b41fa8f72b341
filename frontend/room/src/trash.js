// Deleting to the Trash: the question before (confirm.js) and the Undo toast after, "“Title” moved to
// the Trash. [Undo] [✕]". The toast stays until the person undoes, dismisses it or deletes something else
// (that delete's toast replaces it; the earlier files stay restorable from the Trash itself). Ctrl+Z in
// the room, outside text fields, undoes too. Go decides what a delete takes and brings back exactly that,
// or nothing (docs/trash.md).
import { call } from "./transport.js";
import { el, notify, logActivity } from "./ui.js";
import { askConfirm } from "./confirm.js";

let toast = null; // { box, undo }

function dismiss() {
  if (toast) toast.box.remove();
  toast = null;
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
    notify(`Not deleted: ${err.message}`, "error");
    return false;
  }
}

// offerUndo shows the toast for a delete answered by StoreService.Delete ({ removed, trashed, undo }).
function offerUndo(title, deleted) {
  dismiss();
  const n = deleted.removed.length;
  const what = n === 1 ? "" : ` (${n} files)`;
  const run = async () => {
    button.disabled = true;
    try {
      const { restored } = await call("StoreService.Restore", { undo: deleted.undo });
      dismiss();
      notify(`Restored “${title}”.`, "ok");
      logActivity("you", "undo delete", title, restored);
    } catch (err) {
      button.disabled = false;
      notify(err.code === "restore-path-taken"
        ? `Not restored: ${err.message.replace(/^restore-path-taken: /, "")}. Move that file away, then Undo again.`
        : `Not restored: ${err.message}`, "error");
    }
  };
  const button = el("button", { type: "button", id: "undo-delete", onclick: run }, "Undo");
  const close = el("button", { type: "button", class: "undo-close", title: "Dismiss", "aria-label": "Dismiss", onclick: dismiss }, "✕");
  const box = el("div", { id: "undo-toast", role: "status", "aria-live": "polite", dataset: { undo: deleted.undo } },
    el("span", {}, `“${title}” moved to the Trash${what}.`), button, close);
  document.body.append(box);
  toast = { box, undo: run };
}

window.addEventListener("keydown", (e) => {
  if (!toast || !(e.ctrlKey || e.metaKey) || e.shiftKey || e.altKey || e.key.toLowerCase() !== "z") return;
  const t = e.target;
  if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) || document.querySelector("dialog[open]")) return;
  e.preventDefault();
  toast.undo();
});
