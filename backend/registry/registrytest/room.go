// Package registrytest has a Go test double of the room page for tests of Go callers (voice, MCP) that
// need no browser.
package registrytest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

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
	// ReadyAfter delays a launch's answer (an app slow to become ready).
	ReadyAfter time.Duration
}

// RoomCall is a call that reached an app in the room double.
type RoomCall struct {
	AppID string
	Tool  string
	Args  json.RawMessage
}

// Room is a Go test double of the room page: it takes the requests on its request channel and answers
// them as the real room's registry module does (launch registers the app's tools, then answers; call runs
// the app's tool; close unregisters; cancel closes what the cancelled launch opened).
type Room struct {
	ID  string
	reg *registry.Registry

	mu       sync.Mutex
	shelf    []App
	open     map[string]App
	calls    []RoomCall
	hang     bool
	oversize int
	launched map[string]string // launch request id → the app it opened
	cancels  []string
	cancel   func()
	stopped  chan struct{}
	busy     sync.WaitGroup // answers in progress
}

// NewRoom says hello to the registry and starts answering.
func NewRoom(reg *registry.Registry, shelf ...App) *Room {
	r := &Room{ID: "room-test", reg: reg, shelf: shelf, open: map[string]App{}, launched: map[string]string{}, stopped: make(chan struct{})}
	_ = reg.Hello(r.ID)
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() {
		defer close(r.stopped)
		for {
			batch, err := reg.Take(ctx, r.ID)
			if err != nil {
				return
			}
			for _, req := range batch {
				r.busy.Add(1)
				go func() { defer r.busy.Done(); r.answer(req) }()
			}
		}
	}()
	return r
}

// Idle waits until every request taken so far is answered (a hung call never is: do not wait on one).
func (r *Room) Idle() { r.busy.Wait() }

// Cancels returns the ids of the launches the registry cancelled in this room.
func (r *Room) Cancels() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.cancels...)
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

// Add puts an app on the double's shelf (a launch finds it by id, slug, title or file name).
func (r *Room) Add(a App) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shelf = append(r.shelf, a)
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

func (r *Room) reply(rep registry.Reply) {
	rep.Room = r.ID
	_ = r.reg.Reply(rep)
}

func (r *Room) answer(req registry.Request) {
	switch req.Op {
	case registry.OpCancel:
		r.mu.Lock()
		r.cancels = append(r.cancels, req.ID)
		appID := r.launched[req.ID]
		delete(r.open, appID)
		r.mu.Unlock()
		if appID != "" {
			r.reg.Unregister(appID)
		}
	case registry.OpLaunch:
		a, ok := r.find(req.Ref)
		if !ok {
			r.reply(registry.Reply{ID: req.ID, Refused: "mini-app-not-found", Message: "no mini-app " + req.Ref})
			return
		}
		time.Sleep(a.ReadyAfter)
		r.mu.Lock()
		r.launched[req.ID] = a.AppID
		cancelled := slices.Contains(r.cancels, req.ID)
		r.mu.Unlock()
		if cancelled { // the real room closes an app whose launch was cancelled, ready or not
			return
		}
		if _, err := r.register(a); err != nil {
			r.reply(registry.Reply{ID: req.ID, Refused: registry.CodeLaunchFailed, Message: err.Error()})
			return
		}
		r.reply(registry.Reply{ID: req.ID, OK: true, AppID: a.AppID})
	case registry.OpClose:
		r.mu.Lock()
		delete(r.open, req.AppID)
		r.mu.Unlock()
		r.reg.Unregister(req.AppID)
		r.reply(registry.Reply{ID: req.ID, OK: true})
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
			r.reply(registry.Reply{ID: req.ID, Refused: refused, Message: "the app refused"})
			return
		}
		r.reply(registry.Reply{ID: req.ID, OK: true, Result: res})
	}
}

// Scoreboard is the design's example app: set_score adds points to a team and answers
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
