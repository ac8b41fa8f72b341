// The live voice session in the room. Go holds the upstream socket (OpenAI Realtime or Gemini Live) and the
// keys; this module captures the microphone, sends PCM16 to Go (over /api/session/audio in `voicebox
// serve`, through the bound SessionService in the desktop), plays the model's audio, and shows the state,
// a level meter and the transcript of both sides. Text works in the same session.
//
// Push-to-talk: hold Space (when the focus is not in a text field or a mini-app) or the Talk button.
// Always listening: audio streams and the provider detects turns.
//
// For automation: window.voicebox.session = { start(provider), sendText(text), stop(), state, … }.
import { call, on, isDesktop, socketProtocols } from "./transport.js";
import { el, notify, notifyError } from "./ui.js";
import { describe } from "./errortext.js";

const OUTPUT_RATE = 24000;
const LIVE = new Set(["listening", "thinking", "speaking"]);

let status = { state: "idle", mode: "push-to-talk", tools: 0 };
let pending = null; // "connecting" while start() waits for Go
const lines = new Map(); // line id → <li>

// ---- the panel ----
const $ = (id) => document.getElementById(id);
const ui = {
  provider: el("select", { id: "session-provider", title: "Voice provider" },
    el("option", { value: "openai" }, "OpenAI Realtime"), el("option", { value: "gemini" }, "Gemini Live")),
  start: el("button", { type: "button", id: "session-start" }, "Start"),
  stop: el("button", { type: "button", id: "session-stop", hidden: true }, "Stop"),
  mode: el("select", { id: "session-mode", title: "Microphone" },
    el("option", { value: "push-to-talk" }, "Push to talk (Space)"), el("option", { value: "always" }, "Always listening")),
  talk: el("button", { type: "button", id: "session-talk", title: "Hold to talk (or hold Space)", disabled: true }, "Hold to talk"),
  meter: el("div", { id: "session-meter", class: "level", role: "meter", "aria-label": "Microphone level", "aria-valuemin": "0", "aria-valuemax": "100" },
    el("span", { class: "bar" })),
  message: el("p", { id: "session-message", class: "meta", hidden: true }),
  transcript: el("ol", { id: "transcript", "aria-live": "polite" }),
  form: el("form", { id: "session-form", class: "session-form" }),
  text: el("input", { type: "text", id: "session-text", placeholder: "Type to the assistant…", autocomplete: "off", maxlength: "4000" }),
  send: el("button", { type: "submit", id: "session-send" }, "Send"),
  clear: el("button", { type: "button", id: "session-clear", class: "link-button", title: "Clear the transcript" }, "Clear"),
};
ui.form.append(ui.text, ui.send);

function mount() {
  const panel = $("session-panel");
  if (!panel) return;
  let badge = $("session-state");
  if (!badge) {
    badge = el("div", { id: "session-state", class: "state" }, "idle");
    panel.append(badge);
  }
  panel.append(
    el("div", { class: "session-row" }, ui.provider, ui.start, ui.stop),
    el("div", { class: "session-row" }, ui.mode, ui.talk),
    el("div", { class: "session-row" }, ui.meter),
    ui.message,
    el("div", { class: "session-transcript" }, el("div", { class: "transcript-head" }, el("span", {}, "Transcript"), ui.clear), ui.transcript),
    ui.form);
}

function shownState() {
  if (pending) return pending;
  if (talking && LIVE.has(status.state)) return "listening";
  if (status.state === "listening" && player.playing()) return "speaking";
  return status.state || "idle";
}

function render() {
  const badge = $("session-state");
  const state = shownState();
  if (badge) {
    let text = state;
    if (status.state === "connecting" && status.attempt) text = `reconnecting (${status.attempt})`;
    if (state === "listening" && status.talking) text = "listening (talking)";
    badge.textContent = text;
    badge.dataset.state = state;
    badge.className = `state state-${state}`;
  }
  document.body.dataset.session = state;
  const live = LIVE.has(status.state) || (status.state === "connecting" && status.attempt);
  ui.start.hidden = live || Boolean(pending);
  ui.stop.hidden = !(live || pending);
  ui.talk.disabled = !LIVE.has(status.state) || status.mode === "always";
  ui.talk.classList.toggle("active", Boolean(status.talking));
  ui.mode.value = status.mode || "push-to-talk";
  if (status.provider && !pending) ui.provider.value = status.provider;
  const msg = status.state === "error" && status.code ? describe(status, { provider: status.provider }).line : status.message || "";
  ui.message.textContent = msg;
  ui.message.title = status.message || "";
  ui.message.hidden = !msg;
  ui.message.className = `meta ${status.state === "error" ? "error" : ""}`;
}

// sessionError shows a failed session once (Start's refusal and the error state it caused are one error),
// in words for the person, with Open Settings for a key and Retry for a connection.
function sessionError(err) {
  notifyError(err, { provider: err.provider || status.provider || ui.provider.value, key: "voice-error",
    retry: () => start(ui.provider.value).catch((e) => { if (status.state !== "error") sessionError(e); }) });
}

function applyStatus(st) {
  if (!st) return;
  const was = status.state;
  status = st;
  render();
  if (LIVE.has(st.state)) {
    link.open();
    if (st.mode === "always") mic.start();
  } else if (st.state === "idle" || st.state === "error") {
    link.close();
    mic.stop();
    player.stop();
    if (st.state === "error" && was !== "error" && st.message) sessionError(st);
  }
}

// ---- transcript ----
function showLine(l) {
  if (!l || !l.id) return;
  let li = lines.get(l.id);
  if (!li) {
    li = el("li", { class: `line ${l.role}`, dataset: { id: l.id, role: l.role } },
      el("span", { class: "who" }, l.role === "user" ? "You" : "Assistant"), el("span", { class: "text" }));
    lines.set(l.id, li);
    ui.transcript.append(li);
    while (ui.transcript.children.length > 500) {
      const first = ui.transcript.firstChild;
      lines.delete(first.dataset.id);
      first.remove();
    }
  }
  li.querySelector(".text").textContent = l.text;
  li.classList.toggle("partial", !l.final);
  li.dataset.final = String(Boolean(l.final));
  ui.transcript.scrollTop = ui.transcript.scrollHeight;
}

function clearLines() {
  lines.clear();
  ui.transcript.replaceChildren();
}

// ---- playback: PCM16 at 24 kHz, scheduled back to back ----
let audioCtx = null;
function context() {
  if (!audioCtx) audioCtx = new AudioContext();
  if (audioCtx.state === "suspended") audioCtx.resume().catch(() => {});
  return audioCtx;
}

const player = {
  sources: new Set(),
  next: 0,
  played: 0, // bytes received for playback, for tests and diagnostics
  playing() { return this.sources.size > 0; },
  play(buf) {
    this.played += buf.byteLength;
    if (talking) return; // the person is speaking over the model: what it still sends is dropped
    const i16 = new Int16Array(buf);
    if (!i16.length) return;
    const ctx = context();
    const f32 = new Float32Array(i16.length);
    for (let i = 0; i < i16.length; i++) f32[i] = i16[i] / 32768;
    const b = ctx.createBuffer(1, f32.length, OUTPUT_RATE);
    b.copyToChannel(f32, 0);
    const src = ctx.createBufferSource();
    src.buffer = b;
    src.connect(ctx.destination);
    const at = Math.max(ctx.currentTime + 0.02, this.next);
    src.start(at);
    this.next = at + b.duration;
    this.sources.add(src);
    src.onended = () => { this.sources.delete(src); if (!this.sources.size) render(); };
    if (this.sources.size === 1) render();
  },
  stop() {
    for (const s of this.sources) { try { s.stop(); } catch { /* already ended */ } }
    this.sources.clear();
    this.next = 0;
    render();
  },
};

function b64ToBuffer(s) {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.buffer;
}

function bufferToB64(buf) {
  const u8 = new Uint8Array(buf);
  let s = "";
  for (let i = 0; i < u8.length; i += 0x8000) s += String.fromCharCode.apply(null, u8.subarray(i, i + 0x8000));
  return btoa(s);
}

// ---- the audio link to Go: keeps audio and push-to-talk in order ----
const link = {
  ws: null,
  rate: 0, // the microphone's rate, once it is open
  openRate: 0,
  queue: [], // desktop: frames and controls waiting for the previous call
  busy: false,
  sent: 0,
  open() {
    if (isDesktop()) return; // the desktop uses events and bound calls
    if (this.ws && this.ws.readyState <= 1) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // Before the microphone is open the socket still plays the model's audio; its rate is a placeholder.
    this.openRate = this.rate || 48000;
    const ws = new WebSocket(`${scheme}://${location.host}/api/session/audio?rate=${this.openRate}`, socketProtocols());
    ws.binaryType = "arraybuffer";
    ws.onmessage = (ev) => { if (typeof ev.data !== "string") player.play(ev.data); };
    ws.onclose = () => {
      if (this.ws === ws) this.ws = null;
      if (LIVE.has(status.state)) setTimeout(() => { if (LIVE.has(status.state)) this.open(); }, 500);
    };
    this.ws = ws;
  },
  close() {
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
    this.queue = [];
  },
  setRate(rate) {
    this.rate = rate;
    if (this.ws && this.openRate === rate) return;
    if (this.ws) { const old = this.ws; this.ws = null; old.close(); }
    if (LIVE.has(status.state)) this.open();
  },
  audio(buf) {
    this.sent += buf.byteLength;
    if (!isDesktop()) {
      if (this.ws && this.ws.readyState === 1) this.ws.send(buf);
      return;
    }
    this.queue.push({ audio: buf });
    this.pump();
  },
  ptt(down) {
    if (!isDesktop()) {
      if (this.ws && this.ws.readyState === 1) this.ws.send(JSON.stringify({ type: "ptt", down }));
      else call("SessionService.PushToTalk", down).then(applyStatus, () => {});
      return;
    }
    this.queue.push({ ptt: down });
    this.pump();
  },
  async pump() {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queue.length) {
        const item = this.queue.shift();
        if (item.audio) {
          // Frames that queued up behind a slow call go as one.
          const parts = [item.audio];
          while (this.queue.length && this.queue[0].audio) parts.push(this.queue.shift().audio);
          const total = parts.reduce((n, p) => n + p.byteLength, 0);
          const joined = new Uint8Array(total);
          let off = 0;
          for (const p of parts) { joined.set(new Uint8Array(p), off); off += p.byteLength; }
          await call("SessionService.SendAudio", bufferToB64(joined.buffer), this.rate).catch(() => {});
        } else {
          await call("SessionService.PushToTalk", item.ptt).then(applyStatus, () => {});
        }
      }
    } finally {
      this.busy = false;
    }
  },
};

// ---- the microphone ----
const mic = {
  state: "off", // off | starting | on | denied
  stream: null,
  node: null,
  source: null,
  level: 0,
  frames: 0,
  async start() {
    if (this.state === "on" || this.state === "starting") return;
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      this.state = "denied";
      notify("This browser gives no microphone here: you can still type to the assistant.", "error", { key: "mic" });
      return;
    }
    this.state = "starting";
    document.body.dataset.mic = this.state;
    try {
      const ctx = context();
      const worklet = Boolean(ctx.audioWorklet && window.AudioWorkletNode);
      if (worklet) await ctx.audioWorklet.addModule("src/audio-worklet.js");
      const stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true } });
      if (this.state !== "starting") { stream.getTracks().forEach((t) => t.stop()); return; }
      const node = worklet ? this.workletNode(ctx) : this.scriptNode(ctx);
      const source = ctx.createMediaStreamSource(stream);
      const mute = ctx.createGain();
      mute.gain.value = 0;
      source.connect(node);
      node.connect(mute).connect(ctx.destination); // pulled by the graph; nothing is heard
      Object.assign(this, { stream, node, source, state: "on" });
      link.setRate(ctx.sampleRate);
    } catch (err) {
      this.state = "denied";
      notify("No microphone: you can still type to the assistant.", "error", { details: String(err.message || err), key: "mic" });
    }
    document.body.dataset.mic = this.state;
  },
  workletNode(ctx) {
    const node = new AudioWorkletNode(ctx, "voicebox-capture", { processorOptions: { batch: Math.round(ctx.sampleRate / 50) } });
    node.port.onmessage = (ev) => this.frame(ev.data);
    return node;
  },
  // Where AudioWorklet is missing, the older ScriptProcessorNode does the same conversion on the main thread.
  scriptNode(ctx) {
    const node = ctx.createScriptProcessor(2048, 1, 1);
    node.onaudioprocess = (ev) => {
      const ch = ev.inputBuffer.getChannelData(0);
      const pcm = new Int16Array(ch.length);
      let sum = 0;
      for (let i = 0; i < ch.length; i++) {
        const v = Math.max(-1, Math.min(1, ch[i]));
        sum += v * v;
        pcm[i] = v < 0 ? v * 0x8000 : v * 0x7fff;
      }
      this.frame({ pcm: pcm.buffer, level: Math.sqrt(sum / ch.length) });
    };
    return node;
  },
  stop() {
    if (this.stream) this.stream.getTracks().forEach((t) => t.stop());
    if (this.source) this.source.disconnect();
    if (this.node) {
      if (this.node.port) this.node.port.onmessage = null;
      this.node.onaudioprocess = null;
      this.node.disconnect();
    }
    Object.assign(this, { stream: null, node: null, source: null, state: "off", level: 0 });
    document.body.dataset.mic = this.state;
    meter(0);
  },
  frame({ pcm, level }) {
    this.level = level;
    meter(level);
    const sending = LIVE.has(status.state) && (status.mode === "always" || talking);
    if (sending) {
      this.frames++;
      link.audio(pcm);
    }
  },
};

function meter(level) {
  const pct = Math.min(100, Math.round(Math.sqrt(level) * 140));
  ui.meter.firstChild.style.width = `${pct}%`;
  ui.meter.setAttribute("aria-valuenow", String(pct));
  ui.meter.classList.toggle("hot", pct > 8 && (talking || status.mode === "always"));
}

// ---- push-to-talk ----
let talking = false;
async function pushToTalk(down) {
  if (down === talking) return;
  if (down && !LIVE.has(status.state)) return;
  talking = down;
  if (down) {
    player.stop(); // the person speaks over the model
    if (mic.state !== "on") await mic.start();
    if (!talking) return; // released while the microphone was opening
  }
  status = { ...status, talking: down };
  render();
  link.ptt(down);
}

function typing(target) {
  if (!target || target === document.body) return false;
  const tag = target.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || tag === "IFRAME" || target.isContentEditable;
}

function wireKeys() {
  window.addEventListener("keydown", (e) => {
    if (e.code !== "Space" || e.repeat || e.ctrlKey || e.metaKey || e.altKey || typing(document.activeElement)) return;
    if (!LIVE.has(status.state) || status.mode === "always") return;
    e.preventDefault();
    pushToTalk(true);
  });
  window.addEventListener("keyup", (e) => {
    if (e.code !== "Space" || !talking) return;
    e.preventDefault();
    pushToTalk(false);
  });
  window.addEventListener("blur", () => { if (talking) pushToTalk(false); });
  ui.talk.addEventListener("pointerdown", (e) => { e.preventDefault(); ui.talk.setPointerCapture(e.pointerId); pushToTalk(true); });
  for (const ev of ["pointerup", "pointercancel", "lostpointercapture"]) ui.talk.addEventListener(ev, () => { if (talking) pushToTalk(false); });
}

// ---- the session API ----
async function start(provider) {
  provider = provider || ui.provider.value || "";
  pending = "connecting";
  render();
  try {
    const st = await call("SessionService.Start", provider);
    pending = null;
    applyStatus(st);
    // The microphone opens beside the session; a refusal leaves text working.
    mic.start();
    return st;
  } catch (err) {
    pending = null;
    try { applyStatus(await call("SessionService.Status")); } catch { render(); }
    throw err;
  }
}

async function stop() {
  pending = null;
  talking = false;
  const st = await call("SessionService.Stop");
  applyStatus(st);
  return st;
}

async function sendText(text) {
  text = String(text == null ? "" : text).trim();
  if (!text) return;
  await call("SessionService.SendText", text);
}

async function setMode(mode) {
  const st = await call("SessionService.SetMode", mode);
  applyStatus(st);
  if (mode === "always" && LIVE.has(st.state)) mic.start();
  return st;
}

function wireUI() {
  // A refused Start left the session in its error state, which said so already (applyStatus).
  ui.start.addEventListener("click", () => start(ui.provider.value).catch((err) => { if (status.state !== "error") sessionError(err); }));
  ui.stop.addEventListener("click", () => stop().catch((err) => notifyError(err, { doing: "Could not stop the session" })));
  ui.mode.addEventListener("change", () => setMode(ui.mode.value).catch((err) => notifyError(err, { doing: "Could not switch the microphone" })));
  ui.form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = ui.text.value;
    if (!text.trim()) return;
    sendText(text).then(() => { ui.text.value = ""; }, (err) => notifyError(err, { doing: "Not sent", provider: status.provider }));
  });
  ui.clear.addEventListener("click", () => call("SessionService.ClearTranscript").catch((err) => notifyError(err, { doing: "Not cleared" })));
}

async function init() {
  mount();
  wireUI();
  wireKeys();
  on("voice:state", applyStatus);
  on("voice:transcript", showLine);
  on("voice:cleared", clearLines);
  on("voice:interrupt", () => player.stop());
  if (isDesktop()) on("voice:audio", (b64) => player.play(b64ToBuffer(b64)));
  on("settings:changed", (s) => { if (s && s.provider && !LIVE.has(status.state)) ui.provider.value = s.provider; });
  try {
    const [st, lns] = await Promise.all([call("SessionService.Status"), call("SessionService.Transcript")]);
    for (const l of lns || []) showLine(l);
    applyStatus(st);
  } catch (err) {
    if (err.code !== "unsupported") notifyError(err, { doing: "Could not read the voice session" });
  }
  try {
    const s = await call("SettingsService.Get");
    if (s && s.provider && !LIVE.has(status.state)) ui.provider.value = s.provider;
  } catch { /* settings.js reports it */ }
  render();
}

const api = {
  start,
  stop,
  sendText,
  setMode,
  pushToTalk,
  get state() { return shownState(); },
  get status() { return { ...status }; },
  get mic() { return mic.state; },
  get level() { return mic.level; },
  get sentBytes() { return link.sent; },
  get playedBytes() { return player.played; },
  get audio() { return { context: audioCtx ? audioCtx.state : "none", rate: audioCtx ? audioCtx.sampleRate : 0, frames: mic.frames, socket: link.ws ? link.ws.readyState : -1 }; },
  transcript: () => [...ui.transcript.children].map((li) => ({ id: li.dataset.id, role: li.dataset.role, text: li.querySelector(".text").textContent, final: li.dataset.final === "true" })),
};
window.voicebox = window.voicebox || {};
window.voicebox.session = api;

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
else init();
