package recovery

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

type logBuf struct {
	mu    sync.Mutex
	lines []string
}

func (l *logBuf) logf(f string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(f, a...))
}

func (l *logBuf) has(sub string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func must(t *testing.T, tr *Tracker, evs ...Event) {
	t.Helper()
	for _, e := range evs {
		if err := tr.Track(e); err != nil {
			t.Fatalf("Track(%+v): %v", e, err)
		}
	}
}

func launch(room, id, title string) Event {
	return Event{Room: room, Op: OpLaunch, AppID: id, Title: title, Request: &Request{Ref: id}}
}

func ready(room, id string) Event { return Event{Room: room, Op: OpReady, AppID: id} }

func reopenIDs(p Plan) []string {
	var out []string
	for _, r := range p.Reopen {
		out = append(out, r.AppID)
	}
	return out
}

// clock is a hand-moved clock for the tracker.
type clock struct{ t time.Time }

func (c *clock) now() time.Time       { return c.t }
func (c *clock) pass(d time.Duration) { c.t = c.t.Add(d) }
func newClocked() (*Tracker, *clock) {
	c := &clock{t: time.Unix(1000, 0)}
	tr := New(nil)
	tr.now = c.now
	return tr, c
}
func byWatchdog(room, id, title string) Event {
	e := launch(room, id, title)
	e.By = ByWatchdog
	return e
}

func TestVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name      string
		events    []Event
		closed    string // "" when nobody is closed
		why       string
		reopen    string
		probation bool
	}{
		{
			name:   "the only app open",
			events: []Event{launch("r", "a", "A"), ready("r", "a")},
			closed: "a", why: "it was the only app open", reopen: "",
		},
		{
			name: "the app with a call in flight",
			events: []Event{
				launch("r", "a", "A"), ready("r", "a"), launch("r", "b", "B"), ready("r", "b"),
				{Room: "r", Op: OpCall, AppID: "a", Call: "1"},
				{Room: "r", Op: OpFocus, AppID: "b"},
			},
			closed: "a", why: "a tool call was in flight", reopen: "b",
		},
		{
			name: "the oldest call in flight wins over a later one",
			events: []Event{
				launch("r", "a", "A"), ready("r", "a"), launch("r", "b", "B"), ready("r", "b"),
				{Room: "r", Op: OpCall, AppID: "b", Call: "1"},
				{Room: "r", Op: OpCall, AppID: "a", Call: "2"},
			},
			closed: "b", why: "a tool call was in flight", reopen: "a",
		},
		{
			name: "answered calls are no evidence: nobody is closed, the newest comes back first",
			events: []Event{
				launch("r", "a", "A"), ready("r", "a"), launch("r", "b", "B"), ready("r", "b"),
				{Room: "r", Op: OpCall, AppID: "a", Call: "1"}, {Room: "r", Op: OpDone, AppID: "a", Call: "1"},
			},
			why: "", reopen: "b,a", probation: true,
		},
		{
			name: "loading or focused last is no evidence",
			events: []Event{
				launch("r", "a", "A"), launch("r", "b", "B"), ready("r", "b"), {Room: "r", Op: OpFocus, AppID: "a"},
			},
			why: "", reopen: "b,a", probation: true,
		},
		{
			name: "a closed app is neither judged nor reopened",
			events: []Event{
				launch("r", "a", "A"), ready("r", "a"), launch("r", "b", "B"), ready("r", "b"),
				{Room: "r", Op: OpCall, AppID: "b", Call: "1"}, {Room: "r", Op: OpClose, AppID: "b"},
			},
			closed: "a", why: "it was the only app open", reopen: "",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := New(nil)
			must(t, tr, tc.events...)
			dead := tr.Hang(ReasonHang, 0)
			if len(dead) != 1 || dead[0] != "r" {
				t.Fatalf("dead rooms %v", dead)
			}
			p, err := tr.Take("r2")
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case !p.Recovered:
				t.Fatalf("plan %+v", p)
			case tc.closed == "" && p.Closed != nil:
				t.Fatalf("%s was closed (%s) on no evidence", p.Closed.AppID, p.Why)
			case tc.closed != "" && (p.Closed == nil || p.Closed.AppID != tc.closed || p.Why != tc.why):
				t.Fatalf("plan %+v, want %s closed (%s)", p, tc.closed, tc.why)
			}
			if got := strings.Join(reopenIDs(p), ","); got != tc.reopen {
				t.Fatalf("reopen %q, want %q", got, tc.reopen)
			}
			if (p.ProbationMS > 0) != tc.probation {
				t.Fatalf("probation %d ms, want paced %v", p.ProbationMS, tc.probation)
			}
		})
	}
}

// notBlamed fails if a notice says an innocent app stopped responding or was closed.
func notBlamed(t *testing.T, p Plan, titles ...string) {
	t.Helper()
	for _, n := range p.Notices {
		for _, title := range titles {
			if strings.Contains(n, title+" stopped responding") || strings.Contains(n, title+" was closed") || strings.Contains(n, "so "+title) {
				t.Errorf("a notice blames %s: %q", title, n)
			}
		}
	}
}

// hangAfter lets d pass (an app spinning, then the guard's wait), declares the room hung, and returns the
// plan its reload, room, takes.
func hangAfter(tr *Tracker, c *clock, d time.Duration, room string) Plan {
	c.pass(d)
	tr.Hang(ReasonHang, 0)
	p, _ := tr.Take(room)
	return p
}

// reopen plays the room reopening its plan one at a time (Probation after each ready) and returns the
// room, with the clock at the last app's ready.
func reopenPaced(t *testing.T, tr *Tracker, c *clock, room string, p Plan, n int) {
	t.Helper()
	for i, ro := range p.Reopen[:n] {
		if i > 0 {
			c.pass(time.Duration(p.ProbationMS) * time.Millisecond)
		}
		must(t, tr, byWatchdog(room, ro.AppID, ro.Title))
		c.pass(300 * time.Millisecond)
		must(t, tr, ready(room, ro.AppID))
	}
}

// The attack of issue 14 §3: Spinner opens first and spins 4 s after another app is open. The first hang
// is unexplained, so nobody is closed; the apps come back newest first, one at a time, and Spinner,
// last, stops the room again after the two others ran together: it is closed, they come back at once.
func TestSpinnerThatWaitsForOthers(t *testing.T) {
	tr, c := newClocked()
	must(t, tr, launch("r1", "s", "Spinner"), ready("r1", "s"), launch("r1", "a", "Notes"), ready("r1", "a"),
		launch("r1", "b", "Todo"), ready("r1", "b"))
	p := hangAfter(tr, c, 6*time.Second, "r2")
	if p.Closed != nil || strings.Join(reopenIDs(p), ",") != "b,a,s" || p.ProbationMS != int(Probation.Milliseconds()) {
		t.Fatalf("first plan %+v", p)
	}
	notBlamed(t, p, "Spinner", "Notes", "Todo")
	if !strings.Contains(p.Notices[0], "cannot tell which app") {
		t.Errorf("notice %q does not say the watchdog does not know", p.Notices[0])
	}
	reopenPaced(t, tr, c, "r2", p, 3)
	p = hangAfter(tr, c, 6*time.Second, "r3") // 4 s, then the guard's 2 s
	if p.Closed == nil || p.Closed.AppID != "s" || strings.Join(reopenIDs(p), ",") != "b,a" || p.ProbationMS != 0 {
		t.Fatalf("second plan %+v", p)
	}
	notBlamed(t, p, "Notes", "Todo")
	if !strings.Contains(p.Notices[0], "Spinner was being reopened, after Todo and Notes had run together without trouble, so Spinner was closed") {
		t.Errorf("notice %q", p.Notices[0])
	}
	if why := tr.MayLaunch("s", ByModel); why == "" {
		t.Error("a model may reopen the app the watchdog closed")
	}
}

// The same app opened last: it comes back first, alone, and spins once the next app is back. Either of
// the two could have waited for the other, so neither is closed; they come back apart, and the spinner,
// last after two apps that ran together, is closed.
func TestSpinnerOpenedLastIsSeparated(t *testing.T) {
	tr, c := newClocked()
	must(t, tr, launch("r1", "a", "Notes"), ready("r1", "a"), launch("r1", "b", "Todo"), ready("r1", "b"),
		launch("r1", "s", "Spinner"), ready("r1", "s"))
	p := hangAfter(tr, c, 6*time.Second, "r2")
	if strings.Join(reopenIDs(p), ",") != "s,b,a" {
		t.Fatalf("first plan %+v", p)
	}
	reopenPaced(t, tr, c, "r2", p, 2) // Spinner alone, then Todo: Spinner spins
	p = hangAfter(tr, c, 6*time.Second, "r3")
	if p.Closed != nil || strings.Join(reopenIDs(p), ",") != "a,b,s" || p.ProbationMS == 0 {
		t.Fatalf("second plan %+v", p)
	}
	notBlamed(t, p, "Spinner", "Notes", "Todo")
	if !strings.Contains(p.Notices[0], "cannot tell which of the two") {
		t.Errorf("notice %q", p.Notices[0])
	}
	reopenPaced(t, tr, c, "r3", p, 3)
	p = hangAfter(tr, c, 6*time.Second, "r4")
	if p.Closed == nil || p.Closed.AppID != "s" || strings.Join(reopenIDs(p), ",") != "a,b" {
		t.Fatalf("third plan %+v", p)
	}
	notBlamed(t, p, "Notes", "Todo")
}

// An app that spins on its own is alone when it comes back first: it is closed then.
func TestSpinnerAloneWhileReopening(t *testing.T) {
	tr, c := newClocked()
	must(t, tr, launch("r1", "o", "Other"), ready("r1", "o"), launch("r1", "l", "Late"), ready("r1", "l"))
	p := hangAfter(tr, c, 3*time.Second, "r2")
	reopenPaced(t, tr, c, "r2", p, 1)
	p = hangAfter(tr, c, 3*time.Second, "r3")
	if p.Closed == nil || p.Closed.AppID != "l" || strings.Join(reopenIDs(p), ",") != "o" || p.ProbationMS != 0 {
		t.Fatalf("plan %+v", p)
	}
	if p.Notices[0] != "Late stopped responding and was closed: it was the only app open." {
		t.Errorf("notice %q", p.Notices[0])
	}
}

// After MaxHangs within Window the watchdog reopens nothing and asks; what it closed stays closed until
// the person opens it.
func TestStopsAndAsks(t *testing.T) {
	tr, c := newClocked()
	for i := 1; i <= MaxHangs; i++ {
		room := fmt.Sprint("r", i)
		tr.Take(room)
		must(t, tr, launch(room, "a", "A"), ready(room, "a"), launch(room, "b", "B"), ready(room, "b"))
		c.pass(20 * time.Second)
		tr.Hang(ReasonHang, 0)
	}
	p, _ := tr.Take("last")
	if len(p.Reopen) != 0 || p.Closed != nil || len(p.Notices) != 2 || !strings.Contains(p.Notices[1], "stopped reopening apps: B and A stay closed") &&
		!strings.Contains(p.Notices[1], "stopped reopening apps: A and B stay closed") {
		t.Fatalf("plan %+v", p)
	}
	for _, by := range []string{ByModel, ByBoot, ByWatchdog} {
		if tr.MayLaunch("a", by) == "" {
			t.Errorf("%s may reopen A", by)
		}
	}
	if why := tr.MayLaunch("a", ByPerson); why != "" {
		t.Errorf("the person may not open A: %s", why)
	}
	must(t, tr, launch("last", "a", "A")) // the person opens it
	if why := tr.MayLaunch("a", ByModel); why != "" {
		t.Errorf("A is still held after the person opened it: %s", why)
	}
	// A hang long after is a new story.
	c.pass(Window + time.Second)
	tr.Hang(ReasonHang, 0)
	if p, _ := tr.Take("later"); p.Closed == nil || p.Closed.AppID != "a" {
		t.Fatalf("plan after the window %+v", p)
	}
}

// A room that boots opens a file of its opened-files list only if no room opened it before: after
// a restart, the plan decides.
func TestBootDoesNotReopenWhatARoomOpened(t *testing.T) {
	tr := New(nil)
	if why := tr.MayLaunch("page_loop", ByBoot); why != "" {
		t.Fatalf("the first room may not open its file: %s", why)
	}
	must(t, tr, Event{Room: "r1", Op: OpLaunch, AppID: "page_loop", Title: "Loop", By: ByBoot, Request: &Request{Document: "d1"}})
	tr.Hang(ReasonHang, 0)
	tr.Take("r2")
	for _, by := range []string{ByBoot, ByModel} {
		if why := tr.MayLaunch("page_loop", by); why == "" {
			t.Errorf("%s may reopen the file the watchdog closed", by)
		}
	}
	if why := tr.MayLaunch("page_other", ByBoot); why != "" {
		t.Errorf("a file no room opened: %s", why)
	}
}

func TestPlanIsTakenOnceAndLogged(t *testing.T) {
	var log logBuf
	tr := New(log.logf)
	if p, _ := tr.Take("r1"); p.Recovered {
		t.Fatal("a plan before any recovery")
	}
	must(t, tr, launch("r1", "other", "Other App"), ready("r1", "other"),
		launch("r1", "busy", "Busy Probe"), ready("r1", "busy"),
		Event{Room: "r1", Op: OpCall, AppID: "busy", Call: "7"})
	tr.Hang(ReasonHang, 0)
	if !log.has("watchdog: the room stopped responding; closing Busy Probe (a tool call was in flight); will reopen 1 apps: Other App") {
		t.Errorf("log: %q", log.lines)
	}
	// Late reports from the dead room are ignored.
	must(t, tr, launch("r1", "late", "Late"))
	p, err := tr.Take("r2")
	if err != nil {
		t.Fatal(err)
	}
	if p.Reason != ReasonHang || p.Closed.Title != "Busy Probe" || len(p.Reopen) != 1 || p.Reopen[0].Request.Ref != "other" {
		t.Fatalf("plan %+v", p)
	}
	if len(p.Notices) != 2 || p.Notices[0] != "The room stopped responding while Busy Probe was running a tool call, so Busy Probe was closed." ||
		!strings.Contains(p.Notices[1], "Reopened 1 app (Other App)") || !strings.Contains(p.Notices[1], "lost") {
		t.Fatalf("notices %q", p.Notices)
	}
	must(t, tr, Event{Room: "r2", Op: OpReopened, Reopened: 1})
	if !log.has("watchdog: room recovered; closed Busy Probe; reopened 1 apps") {
		t.Errorf("log: %q", log.lines)
	}
	if !log.has("watchdog: the reloaded room was told: The room stopped responding while Busy Probe was running a tool call, so Busy Probe was closed. Reopened 1 app (Other App).") {
		t.Errorf("log: %q", log.lines)
	}
	if again, _ := tr.Take("r3"); again.Recovered {
		t.Fatal("the plan was handed out twice")
	}
}

// A room that dies while it reopens its plan still owes the apps it had not reopened; the app it had
// reopened, alone, is the one closed.
func TestHangWhileReopening(t *testing.T) {
	tr := New(nil)
	must(t, tr, launch("r1", "a", "A"), ready("r1", "a"), launch("r1", "b", "B"), ready("r1", "b"),
		launch("r1", "c", "C"), ready("r1", "c"), Event{Room: "r1", Op: OpCall, AppID: "a", Call: "1"})
	tr.Hang(ReasonHang, 0)
	p, _ := tr.Take("r2")
	if strings.Join(reopenIDs(p), ",") != "b,c" {
		t.Fatalf("first plan %+v", p)
	}
	must(t, tr, launch("r2", "b", "B")) // b hangs while it loads; c was not reopened yet
	tr.Hang(ReasonHang, 0)
	p, _ = tr.Take("r3")
	if p.Closed == nil || p.Closed.AppID != "b" || strings.Join(reopenIDs(p), ",") != "c" {
		t.Fatalf("second plan %+v", p)
	}
}

// A second restart before any room took the plan keeps the first plan's apps and its notice.
func TestUntakenPlanCarriesOver(t *testing.T) {
	tr := New(nil)
	must(t, tr, launch("r1", "a", "A"), ready("r1", "a"), launch("r1", "b", "B"), ready("r1", "b"),
		Event{Room: "r1", Op: OpCall, AppID: "b", Call: "1"})
	tr.Hang(ReasonHang, 0)
	tr.Hang(ReasonCrash, 0)
	p, _ := tr.Take("r2")
	if p.Closed == nil || p.Closed.AppID != "b" || strings.Join(reopenIDs(p), ",") != "a" {
		t.Fatalf("plan %+v", p)
	}
	if len(p.Notices) != 3 || p.Notices[0] != "The room stopped responding while B was running a tool call, so B was closed." ||
		p.Notices[1] != "The room's web process crashed and was restarted." || !strings.Contains(p.Notices[2], "Reopened 1 app (A)") {
		t.Fatalf("notices %q", p.Notices)
	}
}

func TestNavigationBlamesNobody(t *testing.T) {
	tr := New(nil)
	must(t, tr, launch("r1", "a", "A"), Event{Room: "r1", Op: OpCall, AppID: "a", Call: "1"})
	tr.Hang(ReasonNavigation, 0)
	p, _ := tr.Take("r2")
	if p.Closed != nil || strings.Join(reopenIDs(p), ",") != "a" {
		t.Fatalf("plan %+v", p)
	}
}

// A room that boots replaces the others (a normal reload), so a later hang does not reopen the apps of a
// page that is long gone.
func TestBootForgetsOtherRooms(t *testing.T) {
	tr := New(nil)
	must(t, tr, launch("r1", "a", "A"), ready("r1", "a"))
	tr.Take("r2")
	must(t, tr, launch("r2", "b", "B"), ready("r2", "b"))
	dead := tr.Hang(ReasonHang, 0)
	if strings.Join(dead, ",") != "r2" {
		t.Fatalf("dead %v", dead)
	}
	p, _ := tr.Take("r3")
	if p.Closed == nil || p.Closed.AppID != "b" || len(p.Reopen) != 0 {
		t.Fatalf("plan %+v", p)
	}
	if p.Notices[0] != "B stopped responding and was closed: it was the only app open." || len(p.Notices) != 1 {
		t.Fatalf("notices %q", p.Notices)
	}
}

func TestGoodbyeForgetsTheRoom(t *testing.T) {
	tr := New(nil)
	must(t, tr, launch("r1", "a", "A"), Event{Room: "r1", Op: OpGoodbye})
	if dead := tr.Hang(ReasonHang, 0); len(dead) != 0 {
		t.Fatalf("dead %v", dead)
	}
	p, _ := tr.Take("r2")
	if p.Closed != nil || len(p.Reopen) != 0 || p.Notices[0] != "The room stopped responding and was restarted." {
		t.Fatalf("plan %+v", p)
	}
}

func TestTrackRefusesMalformedReports(t *testing.T) {
	tr := New(nil)
	for _, e := range []Event{
		{},
		{Room: "r", Op: "explode", AppID: "a"},
		{Room: "r", Op: OpLaunch, AppID: "a"},
		{Room: "r", Op: OpLaunch, AppID: "a", Request: &Request{}},
		{Room: "r", Op: OpLaunch, AppID: "a", Request: &Request{Ref: "x", Document: "y"}},
		{Room: "r", Op: OpCall, AppID: "a"},
		{Room: "r", Op: OpFocus},
		{Room: "r", Op: OpLaunch, AppID: "a", Request: &Request{Ref: "x"}, By: "someone"},
		{Room: strings.Repeat("r", 200), Op: OpGoodbye},
	} {
		if err := tr.Track(e); !errors.Is(err, ErrBadEvent) {
			t.Errorf("Track(%+v) = %v, want ErrBadEvent", e, err)
		}
	}
	if _, err := tr.Take(""); !errors.Is(err, ErrBadEvent) {
		t.Errorf("Take(\"\") = %v", err)
	}
}

func TestBounded(t *testing.T) {
	tr := New(nil)
	for i := 0; i < maxRooms+5; i++ {
		for j := 0; j < 3; j++ {
			must(t, tr, launch(fmt.Sprint("r", i), fmt.Sprint("a", j), "A"))
		}
	}
	for j := 0; j < maxAppsPerRoom+10; j++ {
		must(t, tr, launch("r0", fmt.Sprint("x", j), "X"))
	}
	for c := 0; c < maxCallsPerApp+10; c++ {
		must(t, tr, Event{Room: "r0", Op: OpCall, AppID: "a0", Call: fmt.Sprint(c)})
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(tr.rooms) != maxRooms || len(tr.rooms["r0"].apps) != maxAppsPerRoom || len(tr.rooms["r0"].apps["a0"].calls) != maxCallsPerApp {
		t.Fatalf("rooms %d apps %d calls %d", len(tr.rooms), len(tr.rooms["r0"].apps), len(tr.rooms["r0"].apps["a0"].calls))
	}
}

// bombRound plays one life of room, in which Notes and Slow Bomb are open (reopened at once by the
// watchdog when p says so) and the web process fails 6 s after they are ready, past the 5 s probation:
// Slow Bomb fills memory late (issue 28, finding 7). The next room, room+"'", takes the plan.
func bombRound(t *testing.T, tr *Tracker, c *clock, room string, p Plan, reason string, memory int64) Plan {
	t.Helper()
	if p.Recovered {
		for _, ro := range p.Reopen {
			must(t, tr, byWatchdog(room, ro.AppID, ro.Title))
		}
		c.pass(400 * time.Millisecond)
		for _, ro := range p.Reopen {
			must(t, tr, ready(room, ro.AppID))
		}
	}
	c.pass(6 * time.Second)
	tr.Hang(reason, memory)
	next, _ := tr.Take(room + "'")
	return next
}

// A web process that fails while two apps are open (a crash, memory, or a hang while it held
// HeavyMemory) closes neither: timing is no evidence when memory fills up. The apps come back at once,
// and after the second failure within Window nothing comes back: the person is told what was seen and
// offered each app, which a model cannot reopen meanwhile.
func TestMemoryFailuresCloseNobodyAndStopAtTheSecond(t *testing.T) {
	for _, f := range []struct {
		reason string
		memory int64
	}{{ReasonMemory, 0}, {ReasonCrash, 3_100_000_000}, {ReasonHang, 2_600_000_000}} {
		t.Run(f.reason, func(t *testing.T) {
			var log logBuf
			tr, c := newClocked()
			tr.logf = log.logf
			must(t, tr, launch("r1", "notes", "Notes"), ready("r1", "notes"))
			c.pass(20 * time.Second)
			must(t, tr, launch("r1", "bomb", "Slow Bomb"), ready("r1", "bomb"),
				Event{Room: "r1", Op: OpCall, AppID: "notes", Call: "1"}) // Notes is working when the bomb goes off
			p := bombRound(t, tr, c, "r1", Plan{}, f.reason, f.memory)
			if p.Closed != nil || p.ProbationMS != 0 || strings.Join(reopenIDs(p), ",") != "notes,bomb" || len(p.Offer) != 0 {
				t.Fatalf("first plan %+v", p)
			}
			notBlamed(t, p, "Notes", "Slow Bomb")
			if !strings.Contains(p.Notices[0], "cannot tell which app did it, so it closed none") ||
				!strings.Contains(p.Notices[0], "What Voicebox saw: Slow Bomb was opened last, 6 s before; Notes had been open 26 s.") {
				t.Errorf("first notice %q", p.Notices[0])
			}
			if f.memory > 0 && !strings.Contains(p.Notices[0], "holding "+memoryText(f.memory)+" of memory") {
				t.Errorf("first notice %q does not say what the web process held", p.Notices[0])
			}
			if !strings.Contains(p.Notices[1], "Reopened 2 apps (Notes, Slow Bomb)") || !strings.Contains(p.Notices[1], "will reopen nothing and ask you") {
				t.Errorf("second notice %q", p.Notices[1])
			}
			p = bombRound(t, tr, c, "r1'", p, f.reason, f.memory)
			if p.Closed != nil || len(p.Reopen) != 0 || p.ProbationMS != 0 {
				t.Fatalf("second plan %+v", p)
			}
			if len(p.Offer) != 2 || p.Offer[0].AppID != "notes" || p.Offer[1].AppID != "bomb" || p.Offer[0].Request.Ref != "notes" {
				t.Fatalf("offer %+v", p.Offer)
			}
			notBlamed(t, p, "Notes", "Slow Bomb")
			if len(p.Notices) != 2 || !strings.Contains(p.Notices[1], "failed 2 times within 3 minutes, so Voicebox stopped reopening apps and closed none as guilty") ||
				!strings.Contains(p.Notices[1], "Notes and Slow Bomb stay closed") {
				t.Errorf("notices %q", p.Notices)
			}
			if !log.has("will reopen 0 apps; offering 2 to the person: Notes, Slow Bomb") {
				t.Errorf("log %q", log.lines)
			}
			for _, id := range []string{"notes", "bomb"} {
				if tr.MayLaunch(id, ByModel) == "" || tr.MayLaunch(id, ByBoot) == "" {
					t.Errorf("%s may be reopened by a model or a booting room before the person chose", id)
				}
				if why := tr.MayLaunch(id, ByPerson); why != "" {
					t.Errorf("the person may not reopen %s: %s", id, why)
				}
			}
			must(t, tr, launch("r1''", "notes", "Notes")) // the person reopens Notes from the notice
			if why := tr.MayLaunch("notes", ByModel); why != "" {
				t.Errorf("Notes is still held after the person reopened it: %s", why)
			}
		})
	}
}

// The control: the same rounds judged by the hang rules (a hang while the web process held little) pace
// the apps and, three rounds on, close Notes, which only ever came back beside the bomb: what a delayed
// memory bomb got before issue 28, when a failure was judged as a hang. A spinner that waits past the
// probation can still do this (docs/sandbox.md, "Known limits"); memory cannot.
func TestDelayedBombJudgedAsAHangBlamesTheOther(t *testing.T) {
	tr, c := newClocked()
	must(t, tr, launch("r1", "notes", "Notes"), ready("r1", "notes"), launch("r1", "bomb", "Slow Bomb"), ready("r1", "bomb"))
	c.pass(6 * time.Second)
	tr.Hang(ReasonHang, 200_000_000)
	p, _ := tr.Take("r2")
	closed := ""
	for round := 2; round <= 4 && closed == ""; round++ {
		if p.ProbationMS == 0 {
			t.Fatalf("round %d: plan %+v is not paced", round, p)
		}
		room := fmt.Sprint("r", round)
		// One at a time; the bomb fills memory 6 s after it is ready, while the next app is on probation.
		var bombReady time.Time
		for i, ro := range p.Reopen {
			if i > 0 {
				c.pass(time.Duration(p.ProbationMS) * time.Millisecond)
			}
			must(t, tr, byWatchdog(room, ro.AppID, ro.Title))
			c.pass(300 * time.Millisecond)
			must(t, tr, ready(room, ro.AppID))
			if ro.AppID == "bomb" {
				bombReady = c.t
			}
			if !bombReady.IsZero() && c.t.Sub(bombReady) >= 5*time.Second {
				break
			}
		}
		c.t = bombReady.Add(6*time.Second + 2*time.Second)
		tr.Hang(ReasonHang, 200_000_000)
		p, _ = tr.Take(fmt.Sprint("r", round+1))
		if p.Closed != nil {
			closed = p.Closed.AppID
		}
	}
	if closed != "notes" {
		t.Fatalf("judged as hangs, the rounds closed %q, want notes (the control of the failure rules)", closed)
	}
}

// A failure while one app is open is evidence, as a hang is: it is closed, and nothing else is offered.
func TestMemoryFailureAloneClosesIt(t *testing.T) {
	tr := New(nil)
	must(t, tr, launch("r1", "bomb", "Slow Bomb"), ready("r1", "bomb"))
	tr.Hang(ReasonMemory, 3_000_000_000)
	p, _ := tr.Take("r2")
	if p.Closed == nil || p.Closed.AppID != "bomb" || p.Why != "it was the only app open" || len(p.Reopen) != 0 || len(p.Offer) != 0 {
		t.Fatalf("plan %+v", p)
	}
	if p.Notices[0] != "The room's web process ran out of memory, holding 3.0 GB of memory, while Slow Bomb was the only app open, so Slow Bomb was closed." {
		t.Errorf("notice %q", p.Notices[0])
	}
}

// Failures further apart than Window are unrelated: the second reopens the apps again.
func TestFailuresOutsideTheWindowReopen(t *testing.T) {
	tr, c := newClocked()
	must(t, tr, launch("r1", "a", "A"), ready("r1", "a"), launch("r1", "b", "B"), ready("r1", "b"))
	p := bombRound(t, tr, c, "r1", Plan{}, ReasonCrash, 0)
	c.pass(Window)
	p = bombRound(t, tr, c, "r1'", p, ReasonCrash, 0)
	if len(p.Reopen) != 2 || len(p.Offer) != 0 {
		t.Fatalf("plan %+v", p)
	}
}

// The apps offered to the person stay offered when the web process fails again before a room took the
// plan, and are never reopened by the watchdog itself.
func TestOfferCarriesOver(t *testing.T) {
	tr, c := newClocked()
	must(t, tr, launch("r1", "a", "A"), ready("r1", "a"), launch("r1", "b", "B"), ready("r1", "b"))
	p := bombRound(t, tr, c, "r1", Plan{}, ReasonCrash, 0)
	bombRound(t, tr, c, "r1'", p, ReasonCrash, 0)
	// The plan of the second failure was taken by r1''; that room dies before the person chose anything.
	c.pass(time.Second)
	tr.Hang(ReasonHang, 0)
	p, _ = tr.Take("r3")
	if len(p.Reopen) != 0 || len(p.Offer) != 2 {
		t.Fatalf("plan %+v", p)
	}
}
