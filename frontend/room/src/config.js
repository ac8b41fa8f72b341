// The room's configuration (RoomService.Config), read once for every module: from the page where the
// desktop wrote it there (boot.js), else from Go. It rejects when Go could not say.
import { call } from "./transport.js";
import { boot } from "./boot.js";

export const roomConfig = boot ? Promise.resolve(boot.config) : call("RoomService.Config");
