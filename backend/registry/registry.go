// Package registry is the Go side of the room's MiniAppRegistry. The room reports each open app's tools
// here (validated again: Go is the authority); callers outside the room (the live voice session, MCP
// clients) list those tools and call them here. A call is checked against the tool's declared schema before
// anything is dispatched, then sent to the room that owns the app on that room's request channel
// (channel.go), and bounded by the same 5,000 ms and 64 KiB the bridge enforces: the registry is the one
// place that times and checks what Go's callers get, so a room that misbehaves cannot hang or flood them.
package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/toolcontract"
	"github.com/voicebox/voicebox/backend/trace"
)

// Event names on the bus (notices: a lost one is harmless, the room re-reads or logs).
const (
	EventChanged  = "registry:changed" // the set of open apps or their tools changed
	EventActivity = "activity"         // a caller outside the room called something
)

// Request ops.
const (
	OpCall   = "call"
	OpLaunch = "launch"
	OpClose  = "close"
	OpCancel = "cancel" // Go gave up on the call or launch with this id: the room forgets it (no reply)
)

// Codes beside the tool contract's.
const (
	CodeNoRoom        = "no-room"        // no room page is open to run the request
	CodeLaunchFailed  = "launch-failed"  // the room could not open the app
	CodeRoomGone      = "room-gone"      // the room went away while the request was in flight
	CodeRoomReloaded  = "room-reloaded"  // the desktop restarted a room that stopped answering while the request was in flight
	CodeLaunchTimeout = "launch-timeout" // the app did not become ready within LaunchTimeout (it is closed)
	CodeRoomTimeout   = "room-timeout"   // the room did not answer a close
)

// App is an open mini-app as callers see it.
type App struct {
	AppID string               `json:"appId"`
	Title string               `json:"title"`
	Slug  string               `json:"slug,omitempty"`
	Room  string               `json:"-"`
	Tools []*toolcontract.Tool `json:"tools"`
}

// Request is what a room receives on its request channel. Room names the room page that must answer; a
// transport that reaches several rooms at once (the desktop's window events) leaves the others to ignore it.
type Request struct {
	ID    string          `json:"id"`
	Room  string          `json:"room"`
	Op    string          `json:"op"`
	AppID string          `json:"appId,omitempty"`
	Tool  string          `json:"tool,omitempty"`
	Args  json.RawMessage `json:"args,omitempty"`
	Ref   string          `json:"ref,omitempty"`
	// Fresh (launch): when the app is open already, load what ref names now into its window, rather than
	// bringing the window up as it is (a written app's new version: Reopen).
	Fresh bool `json:"fresh,omitempty"`
}

// Reply is a room's answer to a Request. Room is the room answering: the request's own room, or the reply
// settles nothing.
type Reply struct {
	ID      string          `json:"id"`
	Room    string          `json:"room"`
	OK      bool            `json:"ok"`
	Result  json.RawMessage `json:"result,omitempty"`
	Refused string          `json:"refused,omitempty"`
	Message string          `json:"message,omitempty"`
	AppID   string          `json:"appId,omitempty"` // launch: the app that opened
}

// Outcome is what a caller gets back: a result, or a structured refusal with the tool contract's codes.
type Outcome struct {
	OK      bool            `json:"ok"`
	Result  json.RawMessage `json:"result,omitempty"`
	Refused string          `json:"refused,omitempty"`
	Path    string          `json:"path,omitempty"`
	Message string          `json:"message,omitempty"`
}

func refused(code, path, msg string) Outcome { return Outcome{Refused: code, Path: path, Message: msg} }

func fromRefusal(r *toolcontract.Refusal) Outcome { return refused(r.Refused, r.Path, r.Message) }

// Activity is one line of the room's activity log for a call that came from outside the room.
type Activity struct {
	Caller  string          `json:"caller"`
	Op      string          `json:"op"`
	AppID   string          `json:"appId,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
	Ref     string          `json:"ref,omitempty"`
	Outcome Outcome         `json:"outcome"`
	Millis  int64           `json:"ms"`
}

// Registry is safe for concurrent use.
type Registry struct {
	bus *events.Bus

	mu       sync.Mutex
	apps     map[string]*App
	health   map[string]*Health   // app id → what its current document reported (health.go)
	rooms    map[string]time.Time // room id → last seen
	lastRoom string
	subs     events.Fanout[struct{}]

	// The request channel (channel.go).
	seq     uint64
	pending map[string]*waiter  // request id → its caller, until answered, timed out or cancelled
	boxes   map[string]*mailbox // room id → requests not yet taken by its transport
	observe func(CallEvent)
}

// New returns an empty registry that reaches rooms through bus.
func New(bus *events.Bus) *Registry {
	return &Registry{
		bus:     bus,
		apps:    map[string]*App{},
		health:  map[string]*Health{},
		rooms:   map[string]time.Time{},
		pending: map[string]*waiter{},
		boxes:   map[string]*mailbox{},
	}
}

// Hello records a room page; launches go to the room that said hello last.
func (r *Registry) Hello(room string) error {
	if room == "" {
		return errors.New("registry: a room id is required")
	}
	r.mu.Lock()
	r.rooms[room] = time.Now()
	r.lastRoom = room
	r.boxLocked(room)
	r.mu.Unlock()
	return nil
}

// HasRoom reports whether a room page is open to launch apps in (one said hello and has not said goodbye).
func (r *Registry) HasRoom() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastRoom != ""
}

// Goodbye forgets a room page and every app it had open; its pending requests fail room-gone and its
// transport's Take ends.
func (r *Registry) Goodbye(room string) {
	r.mu.Lock()
	delete(r.rooms, room)
	if r.lastRoom == room {
		r.lastRoom = ""
		var newest time.Time
		for id, seen := range r.rooms {
			if seen.After(newest) {
				r.lastRoom, newest = id, seen
			}
		}
	}
	changed := false
	for id, app := range r.apps {
		if app.Room == room {
			delete(r.apps, id)
			delete(r.health, id)
			changed = true
		}
	}
	r.mu.Unlock()
	r.FailRoom(room, CodeRoomGone, "the room went away before it answered")
	r.mu.Lock()
	if b := r.boxes[room]; b != nil {
		close(b.gone)
		delete(r.boxes, room)
	}
	r.mu.Unlock()
	if changed {
		r.changed()
	}
}

// Register replaces the tools of an open app with the ones that pass the tool contract, and answers a
// verdict per declaration. Registering is also how an app becomes open to callers.
func (r *Registry) Register(room, appID, title, slug string, raws []json.RawMessage) ([]toolcontract.Verdict, error) {
	if room == "" || appID == "" {
		return nil, errors.New("registry: room and appId are required")
	}
	tools, verdicts := toolcontract.RegisterAll(raws)
	r.mu.Lock()
	r.rooms[room] = time.Now()
	if r.lastRoom == "" {
		r.lastRoom = room
	}
	r.apps[appID] = &App{AppID: appID, Title: title, Slug: slug, Room: room, Tools: tools}
	h := r.healthLocked(appID)
	h.goRefused = nil
	for _, v := range verdicts {
		if !v.OK {
			h.goRefused = append(h.goRefused, v)
		}
	}
	r.mu.Unlock()
	r.changed()
	if len(tools) > 0 {
		trace.Mark("tools-registered")
	}
	return verdicts, nil
}

// Unregister closes an app's tools: later calls to it fail unknown-tool.
func (r *Registry) Unregister(appID string) {
	r.mu.Lock()
	_, ok := r.apps[appID]
	delete(r.apps, appID)
	delete(r.health, appID) // its document is gone: the next one reports afresh
	r.mu.Unlock()
	if ok {
		r.changed()
	}
}

// Apps returns the open apps, ordered by title then id.
func (r *Registry) Apps() []App {
	r.mu.Lock()
	out := make([]App, 0, len(r.apps))
	for _, a := range r.apps {
		cp := *a
		cp.Tools = append([]*toolcontract.Tool(nil), a.Tools...)
		out = append(out, cp)
	}
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Title != out[j].Title {
			return out[i].Title < out[j].Title
		}
		return out[i].AppID < out[j].AppID
	})
	return out
}

// Subscribe returns a channel that receives a value whenever the open apps or their tools change.
func (r *Registry) Subscribe() (<-chan struct{}, func()) {
	return r.subs.Subscribe(1) // one pending notice is enough: subscribers re-read Apps()
}

func (r *Registry) changed() {
	r.subs.Send(struct{}{})
	if r.bus != nil {
		r.bus.Publish(EventChanged, nil)
	}
}

// Call validates args against the tool's declaration and, only if they pass, asks the owning room to run
// the tool. It never takes longer than the call timeout and never returns a result over the output cap.
func (r *Registry) Call(ctx context.Context, caller, appID, tool string, args json.RawMessage) Outcome {
	start := time.Now()
	out := r.call(ctx, appID, tool, args)
	r.activity(Activity{Caller: caller, Op: OpCall, AppID: appID, Tool: tool, Args: Loggable(args), Outcome: out, Millis: time.Since(start).Milliseconds()})
	return out
}

func (r *Registry) call(ctx context.Context, appID, tool string, args json.RawMessage) Outcome {
	r.mu.Lock()
	app := r.apps[appID]
	r.mu.Unlock()
	if app == nil {
		return refused(toolcontract.CodeUnknownTool, "", fmt.Sprintf("no open app %q has a tool %q", appID, tool))
	}
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	if _, ref := toolcontract.ValidateCall(app.Tools, tool, args); ref != nil {
		return fromRefusal(ref)
	}
	rep, out, ok := r.send(ctx, Request{Room: app.Room, Op: OpCall, AppID: appID, Tool: tool, Args: args})
	if !ok {
		return out
	}
	if !rep.OK {
		return refused(rep.Refused, "", rep.Message)
	}
	if ref := toolcontract.CheckOutput(rep.Result); ref != nil {
		return fromRefusal(ref)
	}
	return Outcome{OK: true, Result: rep.Result}
}

// Launch asks the newest room to open an app by reference (name, file, slug, appId or title, resolved as
// the store does) and waits until it is ready with its tools.
func (r *Registry) Launch(ctx context.Context, caller, ref string) (App, Outcome) {
	return r.launch(ctx, caller, ref, false)
}

// Reopen is Launch, except that an app already open loads what ref names now in the window it has (a new
// version of a written app: backend/author), and answers once the new document is ready.
func (r *Registry) Reopen(ctx context.Context, caller, ref string) (App, Outcome) {
	return r.launch(ctx, caller, ref, true)
}

func (r *Registry) launch(ctx context.Context, caller, ref string, fresh bool) (App, Outcome) {
	start := time.Now()
	r.mu.Lock()
	room := r.lastRoom
	r.mu.Unlock()
	var app App
	out := refused(CodeNoRoom, "", "no room is open to launch mini-apps in")
	if room != "" {
		rep, failed, ok := r.send(ctx, Request{Room: room, Op: OpLaunch, Ref: ref, Fresh: fresh})
		switch {
		case !ok:
			out = failed
		case !rep.OK:
			out = refused(orCode(rep.Refused, CodeLaunchFailed), "", rep.Message)
		default:
			out = Outcome{OK: true}
			r.mu.Lock()
			if a := r.apps[rep.AppID]; a != nil {
				app = *a
			} else {
				app = App{AppID: rep.AppID, Room: room}
			}
			r.mu.Unlock()
			res, _ := json.Marshal(app)
			out.Result = res
		}
	}
	r.activity(Activity{Caller: caller, Op: OpLaunch, Ref: ref, Outcome: out, Millis: time.Since(start).Milliseconds()})
	return app, out
}

// Close asks the room that owns an app to close it.
func (r *Registry) Close(ctx context.Context, caller, appID string) Outcome {
	start := time.Now()
	r.mu.Lock()
	app := r.apps[appID]
	r.mu.Unlock()
	out := refused(toolcontract.CodeUnknownTool, "", fmt.Sprintf("no open app %q", appID))
	if app != nil {
		rep, failed, ok := r.send(ctx, Request{Room: app.Room, Op: OpClose, AppID: appID})
		switch {
		case !ok:
			out = failed
		case !rep.OK:
			out = refused(rep.Refused, "", rep.Message)
		default:
			out = Outcome{OK: true}
			r.Unregister(appID)
		}
	}
	r.activity(Activity{Caller: caller, Op: OpClose, AppID: appID, Outcome: out, Millis: time.Since(start).Milliseconds()})
	return out
}

func (r *Registry) activity(a Activity) {
	if r.bus != nil {
		r.bus.Publish(EventActivity, a)
	}
}

// Loggable keeps the activity log small: arguments over 2 KiB are summarised. Callers that log their own
// activity lines (the voice session's host verbs) use it too.
func Loggable(args json.RawMessage) json.RawMessage {
	if len(args) <= 2048 {
		return args
	}
	s, _ := json.Marshal(fmt.Sprintf("(%d bytes of arguments)", len(args)))
	return s
}

func orCode(code, fallback string) string {
	if code == "" {
		return fallback
	}
	return code
}
