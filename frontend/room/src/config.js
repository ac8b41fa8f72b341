// The room's configuration (RoomService.Config), read once for every module: from the page where the
// desktop wrote it there (boot.js), else from Go.
import { call } from "./transport.js";
import { boot } from "./boot.js";

// roomConfig is the promise of it; it rejects when Go could not say.
export const roomConfig = boot ? Promise.resolve(boot.config) : call("RoomService.Config");

// config is the configuration once known: at once when the page brought it, null until Go answers (and
// for good when it could not). configReady settles with it.
export let config = boot ? boot.config : null;
export const configReady = roomConfig.then((c) => (config = c), () => null);
