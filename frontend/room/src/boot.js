// What the room boots with when its server wrote it into the page (the desktop: desktopboot.go): the page's
// id, its configuration, the files the person opened and their launches, prepared, so that its first
// launch waits for no call to Go (docs/performance.md, "Where the cold start goes"). Where the element is
// empty (`voicebox serve`), the room asks Go for the same over its door. No imports: transport.js reads
// the page's id from here.
const text = document.getElementById("voicebox-boot")?.textContent.trim();

// boot is the page's boot data, or null.
export const boot = text ? JSON.parse(text) : null;

// firstApp settles once the first app the page brought a launch for has opened (ready, its tools with Go)
// or could not (room.js settles it, FIRST_APP_WAIT_MS at most after the room runs); at once when the page
// brought none (`voicebox serve`, a window with no file). The room's other first reads wait for it (the
// side bar's lists, the activity log, the voice and MCP status): their answers redraw the room on the page's
// one thread, where the app's documents and messages wait behind them (docs/performance.md, "What waits").
let settleFirstApp;
export const firstApp = boot?.launches && Object.keys(boot.launches).length > 0
  ? new Promise((settle) => { settleFirstApp = settle; })
  : Promise.resolve();
export const firstAppSettled = () => settleFirstApp?.();

// preparedLaunch hands out, once, the launch Go prepared for an opened file the booting room opens
// (SandboxService.Prepare's answer), or null.
export function preparedLaunch(req, by) {
  const launches = boot?.launches;
  if (by !== "boot" || !launches || !req.document || !Object.hasOwn(launches, req.document)) return null;
  const info = launches[req.document];
  delete launches[req.document];
  return info;
}
