// Settings: the voice provider, its keys and models (SettingsService), and Settings › MCP (mcp.js mounts
// itself into #settings-mcp). Keys are write-only: the fields are always empty and say only whether a key
// is set; typing one replaces it, Clear removes the stored one. Go keeps them in settings.json (0600).
import { call, on } from "./transport.js";
import { notify, notifyError } from "./ui.js";

const $ = (id) => document.getElementById(id);
let current = null;
const cleared = { openai: false, gemini: false };

function describeKey(p) {
  if (!p || p.key !== "set") return "not set";
  return p.keySource === "env" ? "set (from the environment)" : "set";
}

function fill(s) {
  current = s;
  const form = $("settings-form");
  if (!form || !s) return;
  for (const r of form.querySelectorAll('input[name="provider"]')) r.checked = r.value === s.provider;
  for (const p of ["openai", "gemini"]) {
    const v = s[p] || {};
    const key = $(`settings-${p}-key`);
    key.value = "";
    key.placeholder = describeKey(v);
    $(`settings-${p}-key-state`).textContent = describeKey(v);
    $(`settings-${p}-key-state`).dataset.set = String(v.key === "set");
    $(`settings-${p}-clear`).hidden = !(v.key === "set" && v.keySource === "settings");
    const model = $(`settings-${p}-model`);
    model.value = v.model || "";
    model.placeholder = v.defaultModel || "";
    const code = $(`settings-${p}-code-model`); // the model that writes apps (backend/author)
    code.value = v.codeModel || "";
    code.placeholder = v.defaultCodeModel || "";
    cleared[p] = false;
  }
}

// open shows the Settings dialog (the top bar's button, Ctrl+, and an error's "Open Settings").
export async function open() {
  const dlg = $("settings-dialog");
  if (!dlg) return;
  try {
    fill(await call("SettingsService.Get"));
  } catch (err) {
    notifyError(err, { doing: "Could not read the settings" });
  }
  if (!dlg.open) dlg.showModal();
}

async function save(e) {
  e.preventDefault();
  const form = $("settings-form");
  const patch = {};
  const provider = form.querySelector('input[name="provider"]:checked');
  if (provider) patch.provider = provider.value;
  for (const p of ["openai", "gemini"]) {
    const key = $(`settings-${p}-key`).value.trim();
    if (key) patch[`${p}Key`] = key;
    else if (cleared[p]) patch[`${p}Key`] = "";
    patch[`${p}Model`] = $(`settings-${p}-model`).value.trim();
    patch[`${p}CodeModel`] = $(`settings-${p}-code-model`).value.trim();
  }
  try {
    fill(await call("SettingsService.Update", patch));
    notify("Settings saved.", "ok");
    $("settings-dialog").close();
  } catch (err) {
    notifyError(err, { doing: "Settings not saved" });
  }
}

function wire() {
  const btn = $("open-settings");
  if (btn) btn.addEventListener("click", open);
  const form = $("settings-form");
  if (form) form.addEventListener("submit", save);
  const cancel = $("settings-cancel");
  if (cancel) cancel.addEventListener("click", () => $("settings-dialog").close());
  for (const p of ["openai", "gemini"]) {
    const clear = $(`settings-${p}-clear`);
    if (!clear) continue;
    clear.addEventListener("click", () => {
      cleared[p] = true;
      $(`settings-${p}-key`).value = "";
      $(`settings-${p}-key-state`).textContent = "will be cleared when you save";
      clear.hidden = true;
    });
  }
  on("settings:changed", (s) => { if (s && !$("settings-dialog")?.open) fill(s); });
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
else wire();
