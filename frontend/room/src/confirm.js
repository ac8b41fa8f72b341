// In-room confirmations. The desktop's WebKit answers window.confirm() with false without showing
// anything, so the room asks in a dialog of its own, the same in both modes: modal, focus kept inside
// (Tab and Shift+Tab cycle), Escape cancels, Enter confirms, and the confirming button says what it does.
import { el } from "./ui.js";

let current = null; // the question on screen: { dialog, settle }
let parts = null; // the dialog, built on first use

function build() {
  const title = el("h2", { id: "confirm-title" });
  const message = el("p", { id: "confirm-message" });
  const detail = el("pre", { id: "confirm-detail", class: "meta" });
  const cancel = el("button", { type: "button", id: "confirm-cancel" }, "Cancel");
  const ok = el("button", { type: "button", id: "confirm-ok" });
  const dialog = el("dialog", {
    id: "confirm-dialog", role: "alertdialog", "aria-modal": "true",
    "aria-labelledby": "confirm-title", "aria-describedby": "confirm-message",
  }, title, message, detail, el("div", { class: "confirm-actions" }, cancel, ok));
  document.body.append(dialog);
  return { dialog, title, message, detail, cancel, ok };
}

// askConfirm shows the question and resolves true when the person confirms, false otherwise.
// { title, message, detail (optional, e.g. paths), confirm: the action's name, danger: style it so }
export function askConfirm({ title, message, detail = "", confirm, danger = true }) {
  if (current) current.settle(false);
  parts ||= build();
  const { dialog, ok, cancel } = parts;
  parts.title.textContent = title;
  parts.message.textContent = message;
  parts.detail.textContent = detail;
  parts.detail.hidden = !detail;
  ok.textContent = confirm;
  ok.className = danger ? "danger primary" : "primary";
  const opener = document.activeElement;

  return new Promise((resolve) => {
    const settle = (answer) => {
      if (current?.settle !== settle) return;
      current = null;
      dialog.removeEventListener("keydown", keys);
      dialog.removeEventListener("cancel", onCancel);
      ok.onclick = cancel.onclick = null;
      if (dialog.open) dialog.close();
      if (opener && opener.isConnected && typeof opener.focus === "function") opener.focus();
      resolve(answer);
    };
    const onCancel = (e) => { e.preventDefault(); settle(false); };
    const keys = (e) => {
      if (e.key === "Escape") {
        e.preventDefault();
        settle(false);
      } else if (e.key === "Enter" && !e.isComposing) {
        e.preventDefault(); // Enter confirms, unless the person moved to Cancel
        settle(document.activeElement !== cancel);
      } else if (e.key === "Tab") {
        const stops = [cancel, ok];
        const i = stops.indexOf(document.activeElement);
        e.preventDefault();
        stops[(i + (e.shiftKey ? stops.length - 1 : 1) + stops.length) % stops.length].focus();
      }
    };
    current = { dialog, settle };
    dialog.addEventListener("keydown", keys);
    dialog.addEventListener("cancel", onCancel);
    ok.onclick = () => settle(true);
    cancel.onclick = () => settle(false);
    if (!dialog.open) dialog.showModal();
    ok.focus();
  });
}
