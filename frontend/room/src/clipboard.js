// copyText puts text on the clipboard: the async Clipboard API where the page may use it, else a selection
// copy (WebKitGTK in the desktop). It rejects when neither works.
import { el } from "./ui.js";

export async function copyText(text) {
  if (!text) throw new Error("nothing to copy yet");
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch { /* fall through to the selection copy */ }
  }
  const ta = el("textarea", { class: "offscreen" }, text);
  document.body.append(ta);
  ta.select();
  const ok = document.execCommand("copy");
  ta.remove();
  if (!ok) throw new Error("the clipboard is not available");
}
