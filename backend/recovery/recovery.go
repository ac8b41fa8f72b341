// Package recovery is the desktop watchdog's memory. The room, the mini-apps' bridges and their inner
// frames share one web process, so an app that spins (while(true){}) freezes them all and the guard
// (backend/guard) restarts the process and reloads the room. Everything that lived in that process is
// gone; this package remembers, from what the room reported while it still ran, which apps were open and
// what the evidence says about them, and hands the reloaded room a Plan: the apps to open again (all at
// once, or one at a time on probation), the one closed, and notices that say what is known and no more.
//
// Frames cannot be told apart once the process hangs (one thread runs them all), and an app can see how
// many frames the room holds, so it can wait for another app and spin then. The watchdog therefore closes
// an app only on evidence (verdict.go): it was the only app open; or it was running a tool call; or it
// stopped the room while it was being reopened after other apps had run together without trouble. Without
// evidence nobody is closed: the apps come back one at a time, newest first and the most suspect last, so
// that the next hang has a newcomer to judge. After MaxHangs within Window the watchdog stops reopening
// and asks the person. An app it closed stays closed, whatever asks to open it, until the person opens it
// (MayLaunch).
//
// A web process that crashed or ran out of memory (and one that stopped answering while it held
// HeavyMemory or more: filling memory makes the engine stall before it dies) is judged by stricter rules
// (issue 28): memory adds up over time, so an app can fill it slowly or late and the crash comes while
// another app loads or works. Timing and calls are no evidence then; only "it was the only app open" is.
// The apps come back at once after the first such failure, and after the second within Window the
// watchdog reopens nothing: it tells the person what it saw (which app was opened last, which were
// loading, the memory just before) and offers each app to reopen (Plan.Offer).
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
	OpFocus    = "focus"    // the person brought the app to the front (accepted; the watchdog does not guess from it)
	OpCall     = "call"     // a tool call (Call is its id) was sent to the app: CallStarted
	OpDone     = "done"     // that call was answered, refused or timed out: CallDone
	OpClose    = "close"    // the app was closed
	OpReopened = "reopened" // after a recovery: the room reopened Reopened apps of its plan (Failed did not open)
	OpGoodbye  = "goodbye"  // the room page is going away on its own (reload, window closing)
)

// Who asked for a launch (Event.By, MayLaunch).
const (
	ByPerson   = "person"   // the person: the tray, a file they opened, dropped or handed over, automation
	ByModel    = "model"    // a model or an MCP client (launch_mini_app)
	ByWatchdog = "watchdog" // the recovery plan
	ByBoot     = "boot"     // a room that boots opens the files of its opened-files list
)

// Event is one report from the room.
type Event struct {
	Room     string   `json:"room"`
	Op       string   `json:"op"`
	AppID    string   `json:"appId,omitempty"`
	Title    string   `json:"title,omitempty"`
	Request  *Request `json:"request,omitempty"`
	By       string   `json:"by,omitempty"` // with OpLaunch: who asked ("" is the person)
	Call     string   `json:"call,omitempty"`
	Reopened int      `json:"reopened,omitempty"`
	Failed   []string `json:"failed,omitempty"`
}

// CallFeed is how tool calls reach the watchdog: from the room's Track reports (OpCall, OpDone), or from
// Go's registry, which dispatches every call. Tracker implements it.
type CallFeed interface {
	CallStarted(room, appID, call string)
	CallDone(room, appID, call string)
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
	Why       string   `json:"why,omitempty"` // the evidence against Closed
	Reopen    []Reopen `json:"reopen"`
	// Offer: apps the watchdog did not reopen itself, for the person to reopen one by one (the room puts a
	// button for each on the last notice).
	Offer []Reopen `json:"offer,omitempty"`
	// ProbationMS > 0: reopen one at a time, waiting this long after each app is ready before the next.
	ProbationMS int `json:"probationMs,omitempty"`
	// MemoryBytes is what the web process held in RAM just before it failed (0: not known).
	MemoryBytes int64    `json:"memoryBytes,omitempty"`
	Notices     []string `json:"notices"`
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
	maxRemembered  = 1024 // apps held or seen
)

// ErrBadEvent refuses a malformed report.
var ErrBadEvent = errors.New("bad-request")

type app struct {
	id, title  string
	req        Request
	launched   uint64    // seq of the last launch or reload
	launchedAt time.Time // when
	readyAt    time.Time // when it last became ready; zero while it loads
	calls      map[string]uint64
	probation  bool // reopened one at a time by a plan: the newcomer if the room stops before readyAt+Probation
	carried    bool // owed by an earlier plan, never opened in the dead process: not to judge
}

type room struct {
	apps   map[string]*app
	pacing bool // its plan reopens one at a time: the watchdog's launches are on probation
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
	hist  history
}

// New returns an empty tracker that logs through logf (nil: no log).
func New(logf func(format string, args ...any)) *Tracker {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &Tracker{logf: logf, now: time.Now, rooms: map[string]*room{}, dead: map[string]uint64{},
		given: map[string]*pending{}, hist: newHistory()}
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
	switch e.By {
	case "", ByPerson, ByModel, ByWatchdog, ByBoot:
	default:
		return bad(fmt.Sprintf("unknown launcher %q", e.By))
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
	switch e.Op {
	case OpCall:
		t.CallStarted(e.Room, e.AppID, e.Call)
		return nil
	case OpDone:
		t.CallDone(e.Room, e.AppID, e.Call)
		return nil
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
		a.launched, a.launchedAt, a.readyAt = seq, t.now(), time.Time{}
		if e.Op == OpLaunch {
			a.probation = r.pacing && e.By == ByWatchdog
			t.hist.launched(e.AppID, e.By)
		}
	case OpReady:
		if a != nil {
			a.readyAt = t.now()
		}
	case OpClose:
		delete(r.apps, e.AppID)
	}
	return nil
}

// CallStarted notes a tool call sent to an app: an app that has one in flight when the room stops is the
// one that was running.
func (t *Tracker) CallStarted(roomID, appID, call string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, gone := t.dead[roomID]; gone {
		return
	}
	t.seq++
	if r := t.rooms[roomID]; r != nil {
		if a := r.apps[appID]; a != nil && len(a.calls) < maxCallsPerApp {
			a.calls[call] = t.seq
		}
	}
}

// CallDone notes that the call was answered, refused or timed out.
func (t *Tracker) CallDone(roomID, appID, call string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r := t.rooms[roomID]; r != nil {
		if a := r.apps[appID]; a != nil {
			delete(a.calls, call)
		}
	}
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
// ReasonNavigation), before the room is reloaded, with what the web process held in RAM just before
// (memoryBytes; 0 when not known). It judges the apps of the dead process, plans what to reopen, and
// returns the rooms that died with the web process: their requests and launch tokens are void.
func (t *Tracker) Hang(reason string, memoryBytes int64) (dead []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seq++
	now := t.now()
	var alive, carried []*app
	var offered []Reopen // apps an earlier plan left to the person, not reopened yet: still theirs to choose
	for id, r := range t.rooms {
		dead = append(dead, id)
		for _, a := range r.apps {
			alive = append(alive, a)
		}
		// A room that died while reopening its plan still owes the apps it had not reopened yet.
		if p := t.given[id]; p != nil {
			for _, ro := range p.plan.Reopen {
				if r.apps[ro.AppID] == nil {
					carried = append(carried, &app{id: ro.AppID, title: ro.Title, req: ro.Request, carried: true})
				}
			}
			for _, ro := range p.plan.Offer {
				if r.apps[ro.AppID] == nil {
					offered = append(offered, ro)
				}
			}
		}
	}
	prev := t.plan // a plan no room took (the reloaded room died before it asked) carries over too
	if prev != nil {
		for _, ro := range prev.plan.Reopen {
			carried = append(carried, &app{id: ro.AppID, title: ro.Title, req: ro.Request, carried: true})
		}
		offered = append(offered, prev.plan.Offer...)
	}
	sort.Strings(dead)
	sort.SliceStable(alive, func(i, j int) bool { return alive[i].launched < alive[j].launched })
	for _, id := range dead {
		t.dead[id] = t.seq
		delete(t.rooms, id)
		delete(t.given, id)
	}
	t.trimDead()

	r := restart{reason: reason, memory: max(memoryBytes, 0)}
	r.failed = reason == ReasonCrash || reason == ReasonMemory || (reason == ReasonHang && r.memory >= HeavyMemory)
	v := verdict{}
	if reason != ReasonNavigation {
		v = judge(alive, now, r.failed)
	}
	plan := t.hist.plan(r, v, alive, carried, now)
	plan.Offer = stillOffered(plan, offered)
	since := now
	if prev != nil {
		// What the earlier restart closed stays closed, and the person has not been told yet.
		since = prev.since
		if prev.plan.Closed != nil {
			plan.Notices = append([]string{prev.plan.Notices[0]}, plan.Notices...)
			if plan.Closed == nil {
				plan.Closed, plan.Why = prev.plan.Closed, prev.plan.Why
			}
		}
	}
	t.plan = &pending{plan: plan, since: since}

	closed := "closing nothing (" + v.short(alive) + ")"
	if plan.Closed != nil {
		closed = fmt.Sprintf("closing %s (%s)", plan.Closed.Title, plan.Why)
	}
	how := ""
	if plan.ProbationMS > 0 {
		how = " one at a time"
	}
	offers := ""
	if len(plan.Offer) > 0 {
		offers = fmt.Sprintf("; offering %d to the person%s", len(plan.Offer), list(reopenTitles(plan.Offer)))
	}
	memory := ""
	if m := memoryText(r.memory); m != "" && r.failed {
		memory = " (its web process held " + m + ")"
	}
	t.logf("watchdog: %s%s; %s; will reopen %d apps%s%s%s", describe(reason), memory, closed, len(plan.Reopen), how,
		list(reopenTitles(plan.Reopen)), offers)
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

// stillOffered adds to the plan's offer what an earlier plan offered and this one neither reopens, offers
// nor closes.
func stillOffered(p Plan, earlier []Reopen) []Reopen {
	taken := map[string]bool{}
	for _, ro := range append(append([]Reopen(nil), p.Reopen...), p.Offer...) {
		taken[ro.AppID] = true
	}
	if p.Closed != nil {
		taken[p.Closed.AppID] = true
	}
	out := p.Offer
	for _, ro := range earlier {
		if !taken[ro.AppID] {
			taken[ro.AppID] = true
			out = append(out, ro)
		}
	}
	return out
}

func reopenTitles(rs []Reopen) []string {
	titles := make([]string, 0, len(rs))
	for _, ro := range rs {
		titles = append(titles, ro.Title)
	}
	return titles
}

func list(titles []string) string {
	if len(titles) == 0 {
		return ""
	}
	return ": " + strings.Join(limit(titles, 8), ", ")
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
	r := t.room(roomID)
	p := t.plan
	if p == nil {
		return Plan{Reopen: []Reopen{}, Notices: []string{}}, nil
	}
	t.plan = nil
	t.given[roomID] = p
	if r != nil {
		r.pacing = p.plan.ProbationMS > 0
	}
	t.logf("watchdog: the reloaded room was told: %s", strings.Join(p.plan.Notices, " "))
	return p.plan, nil
}

// MayLaunch says why an app must not open now ("" when it may): an app the watchdog closed opens again
// only when the person opens it, and a room that boots does not reopen, from its opened-files list, what
// an earlier room already opened (the plan decides that).
func (t *Tracker) MayLaunch(appID, by string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.hist.mayLaunch(appID, by)
}
