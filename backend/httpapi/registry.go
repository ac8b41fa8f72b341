package httpapi

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// MaxToolsBody is POST /api/mini-app/tools' own body bound. The route predates the shared door and keeps
// its stricter limit and status: over it, 400 {"error":"body-too-large"} (every other route answers 413).
const MaxToolsBody = toolcontract.MaxRegisterBody

// registryRoutes are the HTTP twins of RegistryService and SandboxService (see transport.js).
func (a *api) registryRoutes(mux *http.ServeMux) {
	reg, sb := a.o.Registry, a.o.Sandbox
	type roomReq struct {
		Room string `json:"room"`
	}
	mux.HandleFunc("POST /api/registry/hello", post(MaxBody, func(req roomReq) (map[string]bool, error) {
		return okOr(reg.Hello(req.Room))
	}))
	mux.HandleFunc("POST /api/registry/goodbye", post(MaxBody, func(req roomReq) (map[string]bool, error) {
		return okOr(reg.Goodbye(req.Room))
	}))
	mux.HandleFunc("POST /api/registry/reply", post(MaxBody, func(rep registry.Reply) (map[string]bool, error) {
		return okOr(reg.Reply(rep))
	}))
	mux.HandleFunc("/api/mini-app/tools", byMethod("/api/mini-app/tools",
		method{http.MethodGet, run(func() (map[string]any, error) {
			apps, err := reg.Apps()
			return map[string]any{"apps": apps}, err
		})},
		method{http.MethodPost, func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Room  string            `json:"room"`
				AppID string            `json:"appId"`
				Title string            `json:"title"`
				Slug  string            `json:"slug"`
				Tools []json.RawMessage `json:"tools"`
			}
			if !readJSON(w, r, MaxToolsBody, http.StatusBadRequest, &req) {
				return
			}
			verdicts, err := reg.Register(req.Room, req.AppID, req.Title, req.Slug, req.Tools)
			reply(w, map[string]any{"appId": req.AppID, "verdicts": verdicts}, err)
		}},
		method{http.MethodDelete, func(w http.ResponseWriter, r *http.Request) {
			reply(w, ok(), reg.Unregister(r.URL.Query().Get("appId")))
		}},
	))
	type callReq struct {
		AppID string          `json:"appId"`
		Tool  string          `json:"tool"`
		Args  json.RawMessage `json:"args"`
	}
	mux.HandleFunc("POST /api/mini-app/call", post(MaxBody, func(req callReq) (registry.Outcome, error) {
		return reg.Call(req.AppID, req.Tool, req.Args)
	}))
	mux.HandleFunc("GET /api/mini-app/declarations", func(w http.ResponseWriter, r *http.Request) {
		d, err := reg.FunctionDeclarations(r.URL.Query().Get("provider"))
		reply(w, d, err)
	})
	if sb == nil {
		return
	}
	mux.HandleFunc("POST /api/sandbox/prepare", post(MaxBody, sb.Prepare))
	type releaseReq struct {
		LaunchID string `json:"launchId"`
	}
	mux.HandleFunc("POST /api/sandbox/release", post(MaxBody, func(req releaseReq) (map[string]bool, error) {
		return okOr(sb.Release(req.LaunchID))
	}))
}

// roomStreams counts each room's open event streams. A room whose last stream ended and that did not come
// back within the grace period (EventSource reconnects on its own) has closed or reloaded: Goodbye.
type roomStreams struct {
	grace time.Duration
	mu    sync.Mutex
	open  map[string]int
	gen   map[string]int
}

func newRoomStreams(grace time.Duration) *roomStreams {
	if grace <= 0 {
		grace = 5 * time.Second
	}
	return &roomStreams{grace: grace, open: map[string]int{}, gen: map[string]int{}}
}

// roomStream says hello for room and returns what to call when its stream ends.
func (a *api) roomStream(room string) func() {
	rs := a.streams
	_ = a.o.Registry.Hello(room)
	rs.mu.Lock()
	rs.open[room]++
	rs.gen[room]++
	rs.mu.Unlock()
	return func() {
		rs.mu.Lock()
		rs.open[room]--
		gen := rs.gen[room]
		rs.mu.Unlock()
		time.AfterFunc(rs.grace, func() {
			rs.mu.Lock()
			gone := rs.open[room] == 0 && rs.gen[room] == gen
			if gone {
				delete(rs.open, room)
				delete(rs.gen, room)
			}
			rs.mu.Unlock()
			if gone {
				_ = a.o.Registry.Goodbye(room)
			}
		})
	}
}
