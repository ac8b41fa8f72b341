package httpapi

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// MaxToolsBody is POST /api/mini-app/tools' own body bound. The route predates the shared door and keeps
// its stricter limit and status: over it, 400 {"error":"body-too-large"} (every other route answers 413).
const MaxToolsBody = toolcontract.MaxRegisterBody

// registryRoutes are the HTTP twins of RegistryService and SandboxService (see transport.js).
func (a *api) registryRoutes(mux *http.ServeMux) {
	reg, sb := a.o.Registry, a.o.Sandbox
	mux.HandleFunc("POST /api/registry/hello", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Room string `json:"room"`
		}
		if readJSON(w, r, MaxBody, http.StatusRequestEntityTooLarge, &req) {
			a.reply(w, ok(), reg.Hello(req.Room))
		}
	})
	mux.HandleFunc("POST /api/registry/goodbye", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Room string `json:"room"`
		}
		if readJSON(w, r, MaxBody, http.StatusRequestEntityTooLarge, &req) {
			a.reply(w, ok(), reg.Goodbye(req.Room))
		}
	})
	mux.HandleFunc("POST /api/registry/reply", func(w http.ResponseWriter, r *http.Request) {
		var rep registry.Reply
		if readJSON(w, r, MaxBody, http.StatusRequestEntityTooLarge, &rep) {
			a.reply(w, ok(), reg.Reply(rep))
		}
	})
	mux.HandleFunc("/api/mini-app/tools", func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			apps, err := reg.Apps()
			a.reply(w, map[string]any{"apps": apps}, err)
		case http.MethodPost:
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
			a.reply(w, map[string]any{"appId": req.AppID, "verdicts": verdicts}, err)
		case http.MethodDelete:
			a.reply(w, ok(), reg.Unregister(r.URL.Query().Get("appId")))
		default:
			w.Header().Set("Allow", "GET, POST, DELETE")
			writeError(w, http.StatusMethodNotAllowed, CodeMethod, r.Method+" is not allowed on /api/mini-app/tools")
		}
	})
	mux.HandleFunc("POST /api/mini-app/call", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			AppID string          `json:"appId"`
			Tool  string          `json:"tool"`
			Args  json.RawMessage `json:"args"`
		}
		if readJSON(w, r, MaxBody, http.StatusRequestEntityTooLarge, &req) {
			out, err := reg.Call(req.AppID, req.Tool, req.Args)
			a.reply(w, out, err)
		}
	})
	mux.HandleFunc("GET /api/mini-app/declarations", func(w http.ResponseWriter, r *http.Request) {
		d, err := reg.FunctionDeclarations(r.URL.Query().Get("provider"))
		a.reply(w, d, err)
	})
	if sb == nil {
		return
	}
	mux.HandleFunc("POST /api/sandbox/prepare", func(w http.ResponseWriter, r *http.Request) {
		var req services.LaunchRequest
		if readJSON(w, r, MaxBody, http.StatusRequestEntityTooLarge, &req) {
			info, err := sb.Prepare(req)
			a.reply(w, info, err)
		}
	})
	mux.HandleFunc("POST /api/sandbox/release", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			LaunchID string `json:"launchId"`
		}
		if readJSON(w, r, MaxBody, http.StatusRequestEntityTooLarge, &req) {
			a.reply(w, ok(), sb.Release(req.LaunchID))
		}
	})
}

func ok() map[string]bool { return map[string]bool{"ok": true} }

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
