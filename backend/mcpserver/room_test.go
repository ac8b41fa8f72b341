package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/registry"
)

// fakeRoom stands in for the room page: it answers "registry:request" events on the bus with
// registry.Reply, the way frontend/room does, so these tests need no browser. It runs a scoreboard.
type fakeRoom struct {
	t   *testing.T
	id  string
	reg *registry.Registry

	mu     sync.Mutex
	calls  []registry.Request // every call that reached the "app"
	scores map[string]float64
	// hooks for particular tests
	silent  bool   // never answer (timeout)
	bigger  int    // answer calls with a result this many bytes long
	refuseN string // launch refs to refuse
}

const scoreboardTool = `{
  "name": "set_score",
  "description": "Add points to a team on the scoreboard",
  "parameters": {
    "type": "object",
    "properties": {
      "team": {"type": "string", "enum": ["home", "away"]},
      "points": {"type": "number", "description": "Points to add"}
    },
    "required": ["team", "points"]
  }
}`

const resetTool = `{"name": "reset", "description": "Set both scores to zero", "parameters": {"type": "object", "properties": {}}}`

const timerTool = `{"name": "start", "description": "Start the countdown", "parameters": {"type": "object", "properties": {"seconds": {"type": "integer", "minimum": 1, "maximum": 3600}}, "required": ["seconds"]}}`

func newFakeRoom(t *testing.T, bus *events.Bus, reg *registry.Registry) *fakeRoom {
	t.Helper()
	r := &fakeRoom{t: t, id: "room-1", reg: reg, scores: map[string]float64{}}
	if err := reg.Hello(r.id); err != nil {
		t.Fatal(err)
	}
	evs, cancel := bus.Subscribe(256)
	t.Cleanup(cancel)
	go func() {
		for ev := range evs {
			if ev.Name != registry.EventRequest {
				continue
			}
			req, ok := ev.Data.(registry.Request)
			if !ok || req.Room != r.id {
				continue
			}
			go r.handle(req)
		}
	}()
	return r
}

// open registers an app's tools as the room does once the app is ready.
func (r *fakeRoom) open(appID, title, slug string, decls ...string) {
	r.t.Helper()
	raws := make([]json.RawMessage, len(decls))
	for i, d := range decls {
		raws[i] = json.RawMessage(d)
	}
	verdicts, err := r.reg.Register(r.id, appID, title, slug, raws)
	if err != nil {
		r.t.Fatal(err)
	}
	for _, v := range verdicts {
		if !v.OK {
			r.t.Fatalf("register %s: %+v", v.Name, v)
		}
	}
}

func (r *fakeRoom) handle(req registry.Request) {
	r.mu.Lock()
	silent, bigger := r.silent, r.bigger
	r.mu.Unlock()
	if silent {
		return
	}
	rep := registry.Reply{ID: req.ID}
	switch req.Op {
	case registry.OpCall:
		r.mu.Lock()
		r.calls = append(r.calls, req)
		r.mu.Unlock()
		switch {
		case bigger > 0:
			rep.OK, rep.Result = true, json.RawMessage(`"`+strings.Repeat("x", bigger)+`"`)
		case req.Tool == "set_score":
			var in struct {
				Team   string  `json:"team"`
				Points float64 `json:"points"`
			}
			_ = json.Unmarshal(req.Args, &in)
			r.mu.Lock()
			r.scores[in.Team] += in.Points
			score := r.scores[in.Team]
			r.mu.Unlock()
			rep.OK = true
			rep.Result = json.RawMessage(fmt.Sprintf(`{"ok":true,"currentScore":%g}`, score))
		default:
			rep.OK, rep.Result = true, json.RawMessage(`{"ok":true}`)
		}
	case registry.OpLaunch:
		switch strings.ToLower(req.Ref) {
		case "timer", "timer.html", "app_timer":
			r.open("app_timer", "Timer", "timer", timerTool)
			rep.OK, rep.AppID = true, "app_timer"
		default:
			rep.Refused, rep.Message = "mini-app-not-found", "no mini-app "+req.Ref
		}
	case registry.OpClose:
		rep.OK = true
	}
	_ = r.reg.Reply(rep)
}

func (r *fakeRoom) callCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

func (r *fakeRoom) lastCall() registry.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.calls) == 0 {
		return registry.Request{}
	}
	return r.calls[len(r.calls)-1]
}
