package httpapi

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"time"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/services"
)

// Options are what the API serves.
type Options struct {
	Host    string // the bound host:port; requests naming any other Host are refused
	Room    fs.FS  // the room's static files (index.html at the top)
	Store   *services.StoreService
	Bus     *events.Bus
	Config  func() services.RoomConfig // what the room needs to know at start-up
	Extra   func(mux *http.ServeMux)
	RoomCSP string // the room page's Content-Security-Policy

	// Registry and Sandbox (both optional) add the mini-app routes of registry.go. With Registry set, a
	// room's event stream (/api/events?room=<id>) ending says Goodbye for that room.
	Registry *services.RegistryService
	Sandbox  *services.SandboxService
	// RoomGrace is how long a room may stay without an event stream (a reconnect) before Goodbye; 0: 5 s.
	RoomGrace time.Duration
}

// Origin is the room's own origin for a bound host:port.
func Origin(host string) string { return "http://" + host }

// New returns the whole handler, door included.
func New(o Options) http.Handler {
	mux := http.NewServeMux()
	a := &api{o: o, streams: newRoomStreams(o.RoomGrace)}
	mux.HandleFunc("/api/mini-apps", byMethod("/api/mini-apps",
		method{http.MethodGet, a.miniApps},
		method{http.MethodPost, post(MaxBody, o.Store.Save)},
		method{http.MethodDelete, func(w http.ResponseWriter, r *http.Request) {
			removed, err := o.Store.Delete(r.URL.Query().Get("id"))
			reply(w, removed, err)
		}},
	))
	mux.HandleFunc("/api/mini-apps/restore", byMethod("/api/mini-apps/restore", method{http.MethodPost, post(MaxBody, o.Store.Restore)}))
	mux.HandleFunc("GET /api/file", a.file)
	mux.HandleFunc("GET /api/config", a.config)
	mux.HandleFunc("GET /api/events", a.events)
	if o.Registry != nil {
		a.registryRoutes(mux)
	}
	if o.Extra != nil {
		o.Extra(mux)
	}
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not-found", "no such route: "+r.URL.Path)
	})
	static := http.FileServerFS(o.Room)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(w, http.StatusMethodNotAllowed, CodeMethod, r.Method+" is not allowed here")
			return
		}
		if o.RoomCSP != "" {
			w.Header().Set("Content-Security-Policy", o.RoomCSP)
		}
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Referrer-Policy", "no-referrer")
		static.ServeHTTP(w, r)
	})
	return &door{host: o.Host, origin: Origin(o.Host), next: mux}
}

type api struct {
	o       Options
	streams *roomStreams // the rooms whose event streams are open (registry.go)
}

// miniApps answers GET /api/mini-apps: one entry by ?ref=, else the list.
func (a *api) miniApps(w http.ResponseWriter, r *http.Request) {
	if q := r.URL.Query(); q.Has("ref") {
		e, err := a.o.Store.Get(q.Get("ref"))
		reply(w, e, err)
		return
	}
	list, err := a.o.Store.List()
	reply(w, list, err)
}

func (a *api) file(w http.ResponseWriter, r *http.Request) {
	fc, err := a.o.Store.ReadFile(r.URL.Query().Get("path"))
	reply(w, fc, err)
}

func (a *api) config(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, a.o.Config())
}

// events streams the bus to the room as server-sent events, with a comment line every 15 s so proxies
// and the browser keep the stream open.
func (a *api) events(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, services.CodeInternal, "streaming unsupported")
		return
	}
	ch, cancel := a.o.Bus.Subscribe(256)
	defer cancel()
	if room := r.URL.Query().Get("room"); room != "" && a.o.Registry != nil {
		defer a.roomStream(room)()
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": voicebox\n\n")
	flusher.Flush()
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
			fmt.Fprint(w, ": ping\n\n")
		case ev, open := <-ch:
			if !open {
				return
			}
			data, err := json.Marshal(ev.Data)
			if err != nil {
				continue
			}
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.Name, data)
		}
		flusher.Flush()
	}
}
