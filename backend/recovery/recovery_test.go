package recovery

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
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

func TestBlameRule(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events []Event
		want   string
		why    string
		reopen string
	}{
		{
			name: "the app with a call in flight",
			events: []Event{
				launch("r", "a", "A"), ready("r", "a"), launch("r", "b", "B"), ready("r", "b"),
				{Room: "r", Op: OpCall, AppID: "a", Call: "1"},
				{Room: "r", Op: OpFocus, AppID: "b"},
			},
			want: "a", why: "a tool call was in flight", reopen: "b",
		},
		{
			name: "the oldest call in flight wins over a later one",
			events: []Event{
				launch("r", "a", "A"), ready("r", "a"), launch("r", "b", "B"), ready("r", "b"),
				{Room: "r", Op: OpCall, AppID: "b", Call: "1"},
				{Room: "r", Op: OpCall, AppID: "a", Call: "2"},
			},
			want: "b", why: "a tool call was in flight", reopen: "a",
		},
		{
			name: "answered calls do not count",
			events: []Event{
				launch("r", "a", "A"), ready("r", "a"), launch("r", "b", "B"), ready("r", "b"),
				{Room: "r", Op: OpCall, AppID: "a", Call: "1"}, {Room: "r", Op: OpDone, AppID: "a", Call: "1"},
			},
			want: "b", why: "it was the app used last", reopen: "a",
		},
		{
			name: "an app still loading",
			events: []Event{
				launch("r", "a", "A"), launch("r", "b", "B"), ready("r", "b"), {Room: "r", Op: OpFocus, AppID: "b"},
			},
			want: "a", why: "it was loading", reopen: "b",
		},
		{
			name: "a reload counts as loading",
			events: []Event{
				launch("r", "a", "A"), ready("r", "a"), launch("r", "b", "B"), ready("r", "b"),
				{Room: "r", Op: OpReload, AppID: "a"},
			},
			want: "a", why: "it was loading", reopen: "b",
		},
		{
			name: "the app focused last",
			events: []Event{
				launch("r", "a", "A"), ready("r", "a"), launch("r", "b", "B"), ready("r", "b"), {Room: "r", Op: OpFocus, AppID: "a"},
			},
			want: "a", why: "it was the app used last", reopen: "b",
		},
		{
			name: "a closed app is neither blamed nor reopened",
			events: []Event{
				launch("r", "a", "A"), ready("r", "a"), launch("r", "b", "B"), ready("r", "b"),
				{Room: "r", Op: OpCall, AppID: "b", Call: "1"}, {Room: "r", Op: OpClose, AppID: "b"},
			},
			want: "a", why: "it was the app used last", reopen: "",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := New(nil)
			must(t, tr, tc.events...)
			dead := tr.Hang(ReasonHang)
			if len(dead) != 1 || dead[0] != "r" {
				t.Fatalf("dead rooms %v", dead)
			}
			p, err := tr.Take("r2")
			if err != nil {
				t.Fatal(err)
			}
			if !p.Recovered || p.Closed == nil || p.Closed.AppID != tc.want || p.Why != tc.why {
				t.Fatalf("plan %+v, want %s closed (%s)", p, tc.want, tc.why)
			}
			if got := strings.Join(reopenIDs(p), ","); got != tc.reopen {
				t.Fatalf("reopen %q, want %q", got, tc.reopen)
			}
		})
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
	tr.Hang(ReasonHang)
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
	if len(p.Notices) != 2 || p.Notices[0] != "Busy Probe stopped responding and was closed." ||
		!strings.Contains(p.Notices[1], "Reopened 1 app (Other App)") || !strings.Contains(p.Notices[1], "lost") {
		t.Fatalf("notices %q", p.Notices)
	}
	must(t, tr, Event{Room: "r2", Op: OpReopened, Reopened: 1})
	if !log.has("watchdog: room recovered; closed Busy Probe; reopened 1 apps") {
		t.Errorf("log: %q", log.lines)
	}
	if !log.has("watchdog: the reloaded room was told: Busy Probe stopped responding and was closed. Reopened 1 app (Other App).") {
		t.Errorf("log: %q", log.lines)
	}
	if again, _ := tr.Take("r3"); again.Recovered {
		t.Fatal("the plan was handed out twice")
	}
}

// A room that dies while it reopens its plan still owes the apps it had not reopened; the app that was
// loading when it died is blamed.
func TestHangWhileReopening(t *testing.T) {
	tr := New(nil)
	must(t, tr, launch("r1", "a", "A"), ready("r1", "a"), launch("r1", "b", "B"), ready("r1", "b"),
		launch("r1", "c", "C"), ready("r1", "c"), Event{Room: "r1", Op: OpCall, AppID: "a", Call: "1"})
	tr.Hang(ReasonHang)
	p, _ := tr.Take("r2")
	if strings.Join(reopenIDs(p), ",") != "b,c" {
		t.Fatalf("first plan %+v", p)
	}
	must(t, tr, launch("r2", "b", "B")) // b hangs while it loads; c was not reopened yet
	tr.Hang(ReasonHang)
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
	tr.Hang(ReasonHang)
	tr.Hang(ReasonCrash)
	p, _ := tr.Take("r2")
	if p.Closed == nil || p.Closed.AppID != "b" || strings.Join(reopenIDs(p), ",") != "a" {
		t.Fatalf("plan %+v", p)
	}
	if len(p.Notices) != 3 || p.Notices[0] != "B stopped responding and was closed." ||
		p.Notices[1] != "The room's web process crashed and was restarted." || !strings.Contains(p.Notices[2], "Reopened 1 app (A)") {
		t.Fatalf("notices %q", p.Notices)
	}
}

func TestNavigationBlamesNobody(t *testing.T) {
	tr := New(nil)
	must(t, tr, launch("r1", "a", "A"), Event{Room: "r1", Op: OpCall, AppID: "a", Call: "1"})
	tr.Hang(ReasonNavigation)
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
	dead := tr.Hang(ReasonHang)
	if strings.Join(dead, ",") != "r2" {
		t.Fatalf("dead %v", dead)
	}
	p, _ := tr.Take("r3")
	if p.Closed == nil || p.Closed.AppID != "b" || len(p.Reopen) != 0 {
		t.Fatalf("plan %+v", p)
	}
	if p.Notices[0] != "B stopped responding and was closed." || len(p.Notices) != 1 {
		t.Fatalf("notices %q", p.Notices)
	}
}

func TestGoodbyeForgetsTheRoom(t *testing.T) {
	tr := New(nil)
	must(t, tr, launch("r1", "a", "A"), Event{Room: "r1", Op: OpGoodbye})
	if dead := tr.Hang(ReasonHang); len(dead) != 0 {
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
