package httpapi

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"time"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/backend/voice"
)

// Options are what the API serves.
type Options struct {
	Host    string // the bound host:port; requests naming any other Host are refused
	Secret  string // the run's secret (auth.go); required
	Room    fs.FS  // the room's static files (index.html at the top)
	RoomCSP string // the room page's Content-Security-Policy
	Bus     *events.Bus

	// Services are the room's methods, served by name under CallPrefix: the same list the desktop binds.
	Services []any
	// Registry (optional) adds the room's request channel (channel.go): a room connected there is present,
	// and one that stays away longer than RoomGrace (0: 5 s) has said goodbye.
	Registry  *services.RegistryService
	RoomGrace time.Duration
	// Voice (optional) adds the live session's audio socket (AudioPath).
	Voice *voice.Manager
}

// Origin is the room's own origin for a bound host:port.
func Origin(host string) string { return "http://" + host }

// New returns the whole handler, door included.
func New(o Options) (http.Handler, error) {
	if o.Secret == "" {
		return nil, fmt.Errorf("httpapi: a secret is required")
	}
	table, err := methodTable(o.Services)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc(CallPrefix, callHandler(table))
	mux.HandleFunc("GET /api/events", eventStream(o.Bus))
	if o.Registry != nil {
		mux.Handle("GET "+ChannelPath, newChannel(o.Registry, o.RoomGrace))
	}
	if o.Voice != nil {
		mux.HandleFunc("GET "+AudioPath, func(w http.ResponseWriter, r *http.Request) { audioSocket(w, r, o.Voice) })
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
	return &door{host: o.Host, origin: Origin(o.Host), auth: newAuth(o.Secret), next: mux}, nil
}

// eventStream streams the bus's notices to the room as server-sent events, with a comment line every 15 s so
// proxies and the browser keep the stream open.
func eventStream(bus *events.Bus) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		flusher, ok := w.(http.Flusher)
		if !ok {
			writeError(w, http.StatusInternalServerError, services.CodeInternal, "streaming unsupported")
			return
		}
		ch, cancel := bus.Subscribe(256)
		defer cancel()
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
				batch, open := bus.Gather(ev, ch, events.GatherWindow)
				for _, ev := range batch {
					if data, err := json.Marshal(ev.Data); err == nil {
						fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.Name, data)
					}
				}
				if !open {
					flusher.Flush()
					return
				}
			}
			flusher.Flush()
		}
	}
}
