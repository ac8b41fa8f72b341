// Package recovery is the desktop watchdog's memory. The room, the mini-apps' bridges and their inner
// frames share one web process, so an app that spins (while(true){}) freezes them all and the guard
// (backend/guard) restarts the process and reloads the room. Everything that lived in that process is
// gone; this package remembers, from what the room reported while it still ran, which apps were open and
// which one to blame, and hands the reloaded room a Plan: the apps to open again, the one left closed, and
// the notices that say so.
//
// Who is blamed: the app with the oldest tool call still in flight; else the app whose document was
// loading (launched or reloaded, not ready yet), the most recent one; else the app the person launched or
// brought to the front most recently. Frames cannot be told apart once the process hangs (one thread runs
// them all), so this is a heuristic; a wrong guess costs one more restart, after which the app that hangs
// again while it is being reopened is blamed (the room reopens apps one at a time).
//
// The desktop has one room page at a time: a room that asks for its plan at boot (Take) replaces every
// other room the tracker knew.
package recovery

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Request says how to open an app again: exactly what the room's launch takes.
type Request struct {
	Ref      string `json:"ref,omitempty"`
	Document string `json:"document,omitempty"`
	HTML     string `json:"html,omitempty"`
	Name     string `json:"name,omitempty"`
}

// Ops the room reports.
const (
	OpLaunch   = "launch"   // a frame is being created for the app; Request says how to open it again
	OpReload   = "reload"   // the app's document is loading again (the person reloaded it)
	OpReady    = "ready"    // the app's document is ready
	OpFocus    = "focus"    // the person brought the app to the front or clicked into it
	OpCall     = "call"     // a tool call (Call is its id) was sent to the app
	OpDone     = "done"     // that call was answered, refused or timed out
	OpClose    = "close"    // the app was closed
	OpReopened = "reopened" // after a recovery: the room reopened Reopened apps of its plan (Failed did not open)
	OpGoodbye  = "goodbye"  // the room page is going away on its own (reload, window closing)
)

// Event is one report from the room.
type Event struct {
	Room     string   `json:"room"`
	Op       string   `json:"op"`
	AppID    string   `json:"appId,omitempty"`
	Title    string   `json:"title,omitempty"`
	Request  *Request `json:"request,omitempty"`
	Call     string   `json:"call,omitempty"`
	Reopened int      `json:"reopened,omitempty"`
	Failed   []string `json:"failed,omitempty"`
}

// Reasons a recovery starts (the guard's OnRecovering).
const (
	ReasonHang       = "hang"
	ReasonCrash      = "crash"
	ReasonMemory     = "memory"
	ReasonNavigation = "navigation"
)

// AppRef names an app in a Plan.
type AppRef struct {
	AppID string `json:"appId"`
	Title string `json:"title"`
}

// Reopen is an app the reloaded room opens again.
type Reopen struct {
	AppID   string  `json:"appId"`
	Title   string  `json:"title"`
	Request Request `json:"request"`
}

// Plan is what the reloaded room is told at boot. Recovered is false when there was no recovery.
type Plan struct {
	Recovered bool     `json:"recovered"`
	Reason    string   `json:"reason,omitempty"`
	Closed    *AppRef  `json:"closed,omitempty"`
	Why       string   `json:"why,omitempty"` // why Closed was chosen
	Reopen    []Reopen `json:"reopen"`
	Notices   []string `json:"notices"`
}

// Limits on what the tracker keeps (the room is trusted, but a bug must not grow memory without bound).
const (
	maxRooms       = 8
	maxAppsPerRoom = 128
	maxCallsPerApp = 256
	maxIDLen       = 256
	maxTitleLen    = 512
	maxHTMLBytes   = 16 << 20
	maxDead        = 64
)

// ErrBadEvent refuses a malformed report.
var ErrBadEvent = errors.New("bad-request")

type app struct {
	id, title string
	req       Request
	launched  uint64 // seq of the last launch or reload
	active    uint64 // seq of the last launch, reload or focus
	ready     bool
	calls     map[string]uint64 // call id → seq
	carried   bool              // owed by an earlier plan, never opened in the dead process: not to blame
}

type room struct {
	apps map[string]*app
	seen uint64
}

type pending struct {
	plan  Plan
	since time.Time // when the hang (or crash) was noticed
}

// Tracker is safe for concurrent use.
type Tracker struct {
	logf func(format string, args ...any)
	now  func() time.Time

	mu    sync.Mutex
	seq   uint64
	rooms map[string]*room
	dead  map[string]uint64   // rooms torn down by a recovery: their late reports are dropped
	plan  *pending            // computed at the hang, not taken by a room yet
	given map[string]*pending // room → the plan it took, until it reports reopened
}

// New returns an empty tracker that logs through logf (nil: no log).
func New(logf func(format string, args ...any)) *Tracker {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &Tracker{logf: logf, now: time.Now, rooms: map[string]*room{}, dead: map[string]uint64{}, given: map[string]*pending{}}
}

func bad(msg string) error { return fmt.Errorf("%w: %s", ErrBadEvent, msg) }

func (e *Event) check() error {
	if e.Room == "" || len(e.Room) > 128 {
		return bad("a room id is required")
	}
	switch e.Op {
	case OpReopened, OpGoodbye:
		return nil
	case OpLaunch, OpReload, OpReady, OpFocus, OpCall, OpDone, OpClose:
	default:
		return bad(fmt.Sprintf("unknown op %q", e.Op))
	}
	if e.AppID == "" || len(e.AppID) > maxIDLen {
		return bad("an appId is required")
	}
	if len(e.Title) > maxTitleLen {
		e.Title = e.Title[:maxTitleLen]
	}
	if (e.Op == OpCall || e.Op == OpDone) && (e.Call == "" || len(e.Call) > maxIDLen) {
		return bad("a call id is required")
	}
	if e.Op == OpLaunch {
		r := e.Request
		if r == nil {
			return bad("a launch needs its request")
		}
		n := 0
		for _, s := range []string{r.Ref, r.Document, r.HTML} {
			if s != "" {
				n++
			}
		}
		if n != 1 || len(r.Ref) > 512 || len(r.Document) > maxIDLen || len(r.Name) > 512 || len(r.HTML) > maxHTMLBytes {
			return bad(`a launch request has exactly one of "ref", "document" or "html"`)
		}
	}
	return nil
}

// Track records one report of the room.
func (t *Tracker) Track(e Event) error {
	if err := e.check(); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, gone := t.dead[e.Room]; gone {
		return nil // a late report from a room the watchdog tore down
	}
	t.seq++
	seq := t.seq
	switch e.Op {
	case OpGoodbye:
		delete(t.rooms, e.Room)
		delete(t.given, e.Room)
		return nil
	case OpReopened:
		t.reopened(e)
		return nil
	}
	r := t.room(e.Room)
	if r == nil {
		return nil
	}
	r.seen = seq
	a := r.apps[e.AppID]
	switch e.Op {
	case OpLaunch, OpReload:
		if a == nil {
			if e.Op == OpReload || len(r.apps) >= maxAppsPerRoom {
				return nil
			}
			a = &app{id: e.AppID, calls: map[string]uint64{}}
			r.apps[e.AppID] = a
		}
		if e.Title != "" {
			a.title = e.Title
		}
		if e.Request != nil {
			a.req = *e.Request
		}
		a.launched, a.active, a.ready = seq, seq, false
	case OpReady:
		if a != nil {
			a.ready = true
		}
	case OpFocus:
		if a != nil {
			a.active = seq
		}
	case OpCall:
		if a != nil && len(a.calls) < maxCallsPerApp {
			a.calls[e.Call] = seq
		}
	case OpDone:
		if a != nil {
			delete(a.calls, e.Call)
		}
	case OpClose:
		delete(r.apps, e.AppID)
	}
	return nil
}

// room returns the room's record, creating it (nil when there are too many rooms).
func (t *Tracker) room(id string) *room {
	if r := t.rooms[id]; r != nil {
		return r
	}
	if len(t.rooms) >= maxRooms {
		return nil
	}
	r := &room{apps: map[string]*app{}}
	t.rooms[id] = r
	return r
}

func (t *Tracker) reopened(e Event) {
	p := t.given[e.Room]
	if p == nil {
		return
	}
	delete(t.given, e.Room)
	closed := "nothing"
	if p.plan.Closed != nil {
		closed = p.plan.Closed.Title
	}
	line := fmt.Sprintf("watchdog: room recovered; closed %s; reopened %d apps (%.1f s after the restart began)",
		closed, e.Reopened, t.now().Sub(p.since).Seconds())
	if len(e.Failed) > 0 {
		line += fmt.Sprintf("; could not reopen %s", strings.Join(limit(e.Failed, 8), ", "))
	}
	t.logf("%s", line)
}

func limit(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Hang is called when a recovery starts (reason: ReasonHang, ReasonCrash, ReasonMemory or
// ReasonNavigation), before the room is reloaded. It decides whom to blame and what to reopen, and returns
// the rooms that died with the web process: their requests and launch tokens are void.
func (t *Tracker) Hang(reason string) (dead []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seq++
	var apps []*app
	for id, r := range t.rooms {
		dead = append(dead, id)
		for _, a := range r.apps {
			apps = append(apps, a)
		}
		// A room that died while reopening its plan still owes the apps it had not reopened yet.
		if p := t.given[id]; p != nil {
			for _, ro := range p.plan.Reopen {
				if r.apps[ro.AppID] == nil {
					apps = append(apps, &app{id: ro.AppID, title: ro.Title, req: ro.Request, carried: true})
				}
			}
		}
	}
	prev := t.plan // a plan no room took (the reloaded room died before it asked) carries over too
	if prev != nil {
		for _, ro := range prev.plan.Reopen {
			apps = append(apps, &app{id: ro.AppID, title: ro.Title, req: ro.Request, carried: true})
		}
	}
	sort.Strings(dead)
	for _, id := range dead {
		t.dead[id] = t.seq
		delete(t.rooms, id)
		delete(t.given, id)
	}
	t.trimDead()

	var culprit *app
	why := ""
	if reason != ReasonNavigation {
		culprit, why = blame(apps)
	}
	plan := Plan{Recovered: true, Reason: reason, Reopen: []Reopen{}}
	seen := map[string]bool{}
	if culprit != nil {
		plan.Closed = &AppRef{AppID: culprit.id, Title: culprit.title}
		plan.Why = why
		seen[culprit.id] = true
	}
	// Reopen in the order they were launched (carried-over apps keep their place at the front).
	sort.SliceStable(apps, func(i, j int) bool { return apps[i].launched < apps[j].launched })
	for _, a := range apps {
		if seen[a.id] {
			continue
		}
		seen[a.id] = true
		plan.Reopen = append(plan.Reopen, Reopen{AppID: a.id, Title: a.title, Request: a.req})
	}
	plan.Notices = notices(reason, plan)
	since := t.now()
	if prev != nil {
		// The app the earlier restart closed stays closed, and the person has not been told yet.
		since = prev.since
		if prev.plan.Closed != nil {
			plan.Notices = append([]string{prev.plan.Notices[0]}, plan.Notices...)
			if plan.Closed == nil {
				plan.Closed, plan.Why = prev.plan.Closed, prev.plan.Why
			}
		}
	}
	t.plan = &pending{plan: plan, since: since}

	closed := "nothing to close"
	if plan.Closed != nil {
		closed = fmt.Sprintf("closing %s (%s)", plan.Closed.Title, why)
	}
	titles := make([]string, 0, len(plan.Reopen))
	for _, ro := range plan.Reopen {
		titles = append(titles, ro.Title)
	}
	t.logf("watchdog: %s; %s; will reopen %d apps%s", describe(reason), closed, len(plan.Reopen), list(titles))
	return dead
}

func (t *Tracker) trimDead() {
	for len(t.dead) > maxDead {
		var oldest string
		var at uint64
		for id, s := range t.dead {
			if oldest == "" || s < at {
				oldest, at = id, s
			}
		}
		delete(t.dead, oldest)
	}
}

func list(titles []string) string {
	if len(titles) == 0 {
		return ""
	}
	return ": " + strings.Join(limit(titles, 8), ", ")
}

func describe(reason string) string {
	switch reason {
	case ReasonHang:
		return "the room stopped responding"
	case ReasonCrash:
		return "the room's web process crashed"
	case ReasonMemory:
		return "the room's web process ran out of memory"
	case ReasonNavigation:
		return "the room was navigated away"
	}
	return "the room was restarted (" + reason + ")"
}

// blame applies the rule in the package comment.
func blame(all []*app) (*app, string) {
	var apps []*app
	for _, a := range all {
		if !a.carried {
			apps = append(apps, a)
		}
	}
	var best *app
	var bestCall uint64
	for _, a := range apps {
		for _, s := range a.calls {
			if best == nil || s < bestCall {
				best, bestCall = a, s
			}
		}
	}
	if best != nil {
		return best, "a tool call was in flight"
	}
	for _, a := range apps {
		if !a.ready && (best == nil || a.launched > best.launched) {
			best = a
		}
	}
	if best != nil {
		return best, "it was loading"
	}
	for _, a := range apps {
		if best == nil || a.active > best.active {
			best = a
		}
	}
	if best != nil {
		return best, "it was the app used last"
	}
	return nil, ""
}

func notices(reason string, p Plan) []string {
	var out []string
	switch {
	case p.Closed != nil && reason == ReasonHang:
		out = append(out, fmt.Sprintf("%s stopped responding and was closed.", p.Closed.Title))
	case p.Closed != nil:
		out = append(out, fmt.Sprintf("%s; %s was closed as the likely cause.", capitalize(describe(reason)), p.Closed.Title))
	default:
		out = append(out, capitalize(describe(reason))+" and was restarted.")
	}
	if n := len(p.Reopen); n > 0 {
		titles := make([]string, 0, n)
		for _, r := range p.Reopen {
			titles = append(titles, r.Title)
		}
		apps := "app"
		if n > 1 {
			apps = "apps"
		}
		out = append(out, fmt.Sprintf("Reopened %d %s (%s). They started over: what they held in memory was lost with the restart.",
			n, apps, strings.Join(limit(titles, 8), ", ")))
	}
	return out
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Take hands the pending plan to the room that boots (once; later rooms get Recovered false) and makes it
// the only room the tracker knows.
func (t *Tracker) Take(roomID string) (Plan, error) {
	if roomID == "" || len(roomID) > 128 {
		return Plan{}, bad("a room id is required")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for id := range t.rooms {
		if id != roomID {
			delete(t.rooms, id)
			delete(t.given, id)
		}
	}
	if _, gone := t.dead[roomID]; gone {
		return Plan{Reopen: []Reopen{}, Notices: []string{}}, nil
	}
	t.room(roomID)
	p := t.plan
	if p == nil {
		return Plan{Reopen: []Reopen{}, Notices: []string{}}, nil
	}
	t.plan = nil
	t.given[roomID] = p
	t.logf("watchdog: the reloaded room was told: %s", strings.Join(p.plan.Notices, " "))
	return p.plan, nil
}
