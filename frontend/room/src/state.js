// The room's shared state: what several modules read, kept in one place. A module changes it with
// update({key: value}) and hears of changes with subscribe(fn, ...keys): fn(state, changed) runs after
// every update that changed one of keys (any key when none is given). Nothing else is shared between the
// room's modules: no back-references through window, no DOM events sent to each other. window.voicebox
// stays the automation API (registry.js).
//
// Treat what get() returns as read-only: a module changes the state only with update().
const state = {
  config: null, // RoomConfig: where the room runs, whether mini-apps may open (Go)
  entries: [], // the store's apps and pages (StoreService.List)
  roots: [], // the folders the store walks, and how deep
  recent: [], // the store's apps that ran lately, with the tools each declared then (RecentService.List)
  opened: [], // files the person opened in the desktop (DocumentService.List), with their titles
  viewing: null, // the subject the File Viewer shows (subject.js), with its source text
  apps: [], // the open mini-apps, as window.voicebox.apps() lists them
  front: null, // the appId of the open app the person brought to the front last
};

const subscribers = new Set();

export function get() { return state; }

// update sets the given keys and tells the subscribers of those that changed (compared by identity).
export function update(patch) {
  const changed = Object.keys(patch).filter((k) => state[k] !== patch[k]);
  if (changed.length === 0) return;
  for (const k of changed) state[k] = patch[k];
  for (const s of [...subscribers]) {
    if (s.keys.length && !s.keys.some((k) => changed.includes(k))) continue;
    try { s.fn(state, changed); } catch (err) { console.error(err); }
  }
}

// subscribe runs fn(state, changed) after each update of keys; it returns a function that unsubscribes.
export function subscribe(fn, ...keys) {
  const s = { fn, keys };
  subscribers.add(s);
  return () => subscribers.delete(s);
}
