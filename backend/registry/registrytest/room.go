// Package registrytest has a Go test double of the room page for tests of Go callers (voice, MCP) that
// need no browser.
package registrytest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// App is a mini-app the room double can open: its declarations and what its tools do.
type App struct {
	AppID string
	Title string
	Slug  string
	Tools []string // raw tool declarations
	// Run answers a call; nil answers {"ok":true}. Returning refused != "" refuses the call.
	Run func(tool string, args json.RawMessage) (result json.RawMessage, refused string)
}

// RoomCall is a call that reached an app in the room double.
type RoomCall struct {
	AppID string
	Tool  string
	Args  json.RawMessage
}

// Room is a Go test double of the room page: it answers the registry's registry:request events on the
// bus as the real room's registry module does (launch registers the app's tools, then answers; call runs
// the app's tool; close unregisters).
type Room struct {
	ID  string
	bus *events.Bus
	reg *registry.Registry

	mu       sync.Mutex
	shelf    []App
	open     map[string]App
	calls    []RoomCall
	hang     bool
	oversize int
	cancel   func()
	stopped  chan struct{}
}

// NewRoom says hello to the registry and starts answering.
func NewRoom(bus *events.Bus, reg *registry.Registry, shelf ...App) *Room {
	r := &Room{ID: "room-test", bus: bus, reg: reg, shelf: shelf, open: map[string]App{}, stopped: make(chan struct{})}
	_ = reg.Hello(r.ID)
	ch, cancel := bus.Subscribe(1024)
	r.cancel = cancel
	go func() {
		defer close(r.stopped)
		for ev := range ch {
			if ev.Name != registry.EventRequest {
				continue
			}
			req, ok := ev.Data.(registry.Request)
			if !ok || req.Room != r.ID {
				continue
			}
			go r.answer(req)
		}
	}()
	return r
}

// Stop stops answering.
func (r *Room) Stop() {
	r.cancel()
	<-r.stopped
}

// Hang makes calls never answer (to test timeouts and cancellation).
func (r *Room) Hang(on bool) {
	r.mu.Lock()
	r.hang = on
	r.mu.Unlock()
}

// Oversize makes every call answer a JSON string n bytes long, whatever the app (0: the apps answer
// again), to test the output cap.
func (r *Room) Oversize(n int) {
	r.mu.Lock()
	r.oversize = n
	r.mu.Unlock()
}

// Open registers an app as if the room had launched it. Like the room, it keeps the tools that pass the
// tool contract; the error also names a declaration the registry refused, so a test's fixture cannot be
// wrong unnoticed.
func (r *Room) Open(a App) error {
	verdicts, err := r.register(a)
	if err != nil {
		return err
	}
	for _, v := range verdicts {
		if !v.OK {
			return fmt.Errorf("registrytest: %s: tool %q refused: %s %s", a.AppID, v.Name, v.Refused, v.Message)
		}
	}
	return nil
}

func (r *Room) register(a App) ([]toolcontract.Verdict, error) {
	raws := make([]json.RawMessage, len(a.Tools))
	for i, t := range a.Tools {
		raws[i] = json.RawMessage(t)
	}
	r.mu.Lock()
	r.open[a.AppID] = a
	r.mu.Unlock()
	return r.reg.Register(r.ID, a.AppID, a.Title, a.Slug, raws)
}

// Calls returns the calls that reached apps.
func (r *Room) Calls() []RoomCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RoomCall(nil), r.calls...)
}

func (r *Room) find(ref string) (App, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.shelf {
		if a.AppID == ref || strings.EqualFold(a.Slug, ref) || strings.EqualFold(a.Title, ref) || strings.EqualFold(a.Slug+".html", ref) {
			return a, true
		}
	}
	return App{}, false
}

func (r *Room) answer(req registry.Request) {
	switch req.Op {
	case registry.OpLaunch:
		a, ok := r.find(req.Ref)
		if !ok {
			_ = r.reg.Reply(registry.Reply{ID: req.ID, Refused: "mini-app-not-found", Message: "no mini-app " + req.Ref})
			return
		}
		if _, err := r.register(a); err != nil {
			_ = r.reg.Reply(registry.Reply{ID: req.ID, Refused: registry.CodeLaunchFailed, Message: err.Error()})
			return
		}
		_ = r.reg.Reply(registry.Reply{ID: req.ID, OK: true, AppID: a.AppID})
	case registry.OpClose:
		r.mu.Lock()
		delete(r.open, req.AppID)
		r.mu.Unlock()
		r.reg.Unregister(req.AppID)
		_ = r.reg.Reply(registry.Reply{ID: req.ID, OK: true})
	case registry.OpCall:
		r.mu.Lock()
		a := r.open[req.AppID]
		r.calls = append(r.calls, RoomCall{AppID: req.AppID, Tool: req.Tool, Args: append(json.RawMessage(nil), req.Args...)})
		hang, oversize := r.hang, r.oversize
		r.mu.Unlock()
		if hang {
			<-context.Background().Done() // never answers; the registry gives up at its timeout
			return
		}
		res, refused := json.RawMessage(`{"ok":true}`), ""
		switch {
		case oversize > 0:
			res = json.RawMessage(`"` + strings.Repeat("x", oversize) + `"`)
		case a.Run != nil:
			res, refused = a.Run(req.Tool, req.Args)
		}
		if refused != "" {
			_ = r.reg.Reply(registry.Reply{ID: req.ID, Refused: refused, Message: "the app refused"})
			return
		}
		_ = r.reg.Reply(registry.Reply{ID: req.ID, OK: true, Result: res})
	}
}

// Scoreboard is the seed's example app: set_score adds points to a team and answers
// {"ok":true,"currentScore":N} (in the app's own key order, which a decode and re-encode would sort); any
// other tool a test adds to it answers {"ok":true}. Each Scoreboard keeps its own scores.
func Scoreboard() App {
	var mu sync.Mutex
	score := map[string]float64{}
	return App{
		AppID: "app_scoreboard", Title: "Scoreboard", Slug: "scoreboard",
		Tools: []string{`{"name":"set_score","description":"Add points to a team on the scoreboard","parameters":{"type":"object","properties":{"team":{"type":"string","enum":["home","away"]},"points":{"type":"number","description":"Points to add"}},"required":["team","points"]}}`},
		Run: func(tool string, args json.RawMessage) (json.RawMessage, string) {
			if tool != "set_score" {
				return json.RawMessage(`{"ok":true}`), ""
			}
			var in struct {
				Team   string  `json:"team"`
				Points float64 `json:"points"`
			}
			_ = json.Unmarshal(args, &in)
			mu.Lock()
			score[in.Team] += in.Points
			cur := score[in.Team]
			mu.Unlock()
			n, _ := json.Marshal(cur)
			return json.RawMessage(`{"ok":true,"currentScore":` + string(n) + `}`), ""
		},
	}
}
