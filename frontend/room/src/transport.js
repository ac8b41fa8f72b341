// The room's one door to Go. In the desktop it calls the Wails bindings (window.go.services.*) and listens
// to Wails events; in `voicebox serve` it calls the same methods over HTTP and listens to server-sent events.
// Every failure becomes a RoomError with the Go side's code, so callers never care which door they used.

export class RoomError extends Error {
  constructor(body) {
    const b = body && typeof body === "object" ? body : { error: "internal-error", message: String(body) };
    super(b.message || b.error || "request failed");
    this.code = b.error || "internal-error";
    this.app = b.app;
  }
}

// Wails binds each Go struct as window.go.<package>.<Struct>; find the service in whichever package has it.
export const isDesktop = () => Boolean(window.go && window.go.services);
function boundService(service) {
  for (const pkg of Object.values(window.go || {})) if (pkg && pkg[service]) return pkg[service];
  return undefined;
}

async function viaWails(service, method, args) {
  const fn = boundService(service)?.[method];
  if (typeof fn !== "function") throw new RoomError({ error: "unsupported", message: `${service}.${method} is not bound` });
  try {
    return await fn(...args);
  } catch (err) {
    throw new RoomError(typeof err === "string" ? safeParse(err) : err);
  }
}

function safeParse(s) {
  try { return JSON.parse(s); } catch { return { error: "internal-error", message: s }; }
}

async function http(method, url, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(url, init);
  const text = await res.text();
  const data = text ? safeParse(text) : null;
  if (!res.ok) throw new RoomError(data || { error: `http-${res.status}`, message: res.statusText });
  return data;
}

const q = (k, v) => `${k}=${encodeURIComponent(v)}`;

// HTTP twins of the bound methods, by "Service.Method".
const routes = {
  "StoreService.List": () => http("GET", "/api/mini-apps"),
  "StoreService.Get": (ref) => http("GET", `/api/mini-apps?${q("ref", ref)}`),
  "StoreService.Delete": (id) => http("DELETE", `/api/mini-apps?${q("id", id)}`),
  "StoreService.Save": (req) => http("POST", "/api/mini-apps", req),
  "StoreService.ReadFile": (path) => http("GET", `/api/file?${q("path", path)}`),
  "DocumentService.List": async () => [],
  "DocumentService.Read": (id) => Promise.reject(new RoomError({ error: "document-not-found", message: id })),
  "RoomService.Config": () => http("GET", "/api/config"),
  "RegistryService.Hello": (room) => http("POST", "/api/registry/hello", { room }),
  "RegistryService.Goodbye": (room) => http("POST", "/api/registry/goodbye", { room }),
  "RegistryService.Register": (room, appId, title, slug, tools) =>
    http("POST", "/api/mini-app/tools", { room, appId, title, slug, tools }).then((r) => r.verdicts),
  "RegistryService.Unregister": (appId) => http("DELETE", `/api/mini-app/tools?${q("appId", appId)}`),
  "RegistryService.Reply": (reply) => http("POST", "/api/registry/reply", reply),
  "RegistryService.Call": (appId, tool, args) => http("POST", "/api/mini-app/call", { appId, tool, args }),
  "RegistryService.Apps": () => http("GET", "/api/mini-app/tools").then((r) => r.apps),
  "RegistryService.FunctionDeclarations": (provider) => http("GET", `/api/mini-app/declarations?${q("provider", provider)}`),
  "SandboxService.Prepare": (req) => http("POST", "/api/sandbox/prepare", req),
  "SandboxService.Release": (launchId) => http("POST", "/api/sandbox/release", { launchId }),
};

// roomId names this page load of the room to Go: requests Go publishes on "registry:request" carry the id
// of the room that must answer, and in `voicebox serve` the end of this page's event stream says goodbye.
export const roomId = (() => {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return "room-" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
})();

// call("StoreService.List") runs a Go method through whichever door this room has.
export function call(name, ...args) {
  if (isDesktop()) {
    const [service, method] = name.split(".");
    return viaWails(service, method, args);
  }
  const route = routes[name];
  if (!route) return Promise.reject(new RoomError({ error: "unsupported", message: `${name} has no HTTP route` }));
  return route(...args);
}

// Register an extra HTTP route (used by modules that add services).
export function addRoute(name, fn) { routes[name] = fn; }
export { http as httpJSON };

let source = null;
// on("store:changed", fn) subscribes to a Go event; it returns a function that unsubscribes.
export function on(name, fn) {
  if (isDesktop()) return window.runtime.EventsOn(name, fn);
  if (!source) source = new EventSource(`/api/events?${q("room", roomId)}`);
  const listener = (ev) => fn(ev.data ? safeParse(ev.data) : undefined);
  source.addEventListener(name, listener);
  return () => source.removeEventListener(name, listener);
}
