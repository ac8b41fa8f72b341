// What the room boots with when its server wrote it into the page (the desktop: desktopboot.go): the page's
// id, its configuration, the files the person opened and their launches, prepared, so that its first
// launch waits for no call to Go (docs/performance.md, "Where the cold start goes"). Where the element is
// empty (`voicebox serve`), the room asks Go for the same over its door. No imports: transport.js reads
// the page's id from here.
const text = document.getElementById("voicebox-boot")?.textContent.trim();

// boot is the page's boot data, or null.
export const boot = text ? JSON.parse(text) : null;

// preparedLaunch hands out, once, the launch Go prepared for an opened file the booting room opens
// (SandboxService.Prepare's answer), or null.
export function preparedLaunch(req, by) {
  const launches = boot?.launches;
  if (by !== "boot" || !launches || !req.document || !Object.hasOwn(launches, req.document)) return null;
  const info = launches[req.document];
  delete launches[req.document];
  return info;
}
