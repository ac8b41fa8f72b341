// copyText puts text on the clipboard: the async Clipboard API where the page may use it, else a selection
// copy (WebKitGTK in the desktop). It rejects when neither works, with a code errortext.js words for the
// person (nothing-to-copy, clipboard-unavailable).
import { el } from "./ui.js";

const failure = (code, message) => Object.assign(new Error(message), { code });

export async function copyText(text) {
  if (!text) throw failure("nothing-to-copy", "nothing to copy yet");
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
  if (!ok) throw failure("clipboard-unavailable", "the clipboard is not available");
}
