package desktop

// A delayed memory bomb (issue 28, finding 7). Slow Bomb loads, says it is ready, and 6 s later (past the
// watchdog's 5 s probation) fills memory until the web process gives out; Notes is innocent. Every app
// shares the one web process, so each failure costs every app its state. The binary before issue 28 judged
// each failure as an ordinary hang: it reopened the apps one at a time, again and again (the red team saw
// 4 failures in 50 s), until the bomb's failure fell in Notes' probation twice and Notes was closed as the
// culprit. Now nothing that happens beside other apps is evidence when memory is what ran out: nobody is
// closed, the apps come back once, after the second failure nothing comes back, the person is told what
// was seen (which app was opened last, which was loading, how much memory the web process held), and
// reopens what they trust from the notice.

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/tests/layout"
)

func TestDelayedMemoryBombClosesNobodyAndStopsAtTheSecondFailure(t *testing.T) {
	s := startSession(t)
	b := newBox(t, s, testdata(t, "notes.html", "bomb.html"))
	report := filepath.Join(t.TempDir(), "layout.json")
	b.start(t, []string{"VOICEBOX_LAYOUT_PROBE=" + report})
	win := s.window(t, b.app)
	cs := b.mcpClient(t)
	launchApp(t, cs, "notes.html")
	launchApp(t, cs, "bomb.html")

	const restarted = "guard: watchdog: the room stopped answering; restarting the web process"
	restarts := func() int {
		out := b.output()
		return strings.Count(out, restarted) + strings.Count(out, "the web process crashed; restarting") +
			strings.Count(out, "exceeded its memory limit; restarting")
	}
	const stopped = "will reopen 0 apps; offering 2 to the person"
	if _, ok := b.waitLog(t, stopped, 150*time.Second); !ok {
		s.keepScreenshot(t, "memorybomb.png")
		t.Fatalf("the watchdog did not stop reopening after the second failure (%d restarts; closed as guilty: %v)\n%s",
			restarts(), regexp.MustCompile(`closing (Notes|Slow Bomb) \(`).FindAllString(b.output(), -1), watchdogLines(b.output()))
	}
	if _, ok := b.waitLog(t, "reopen the ones you trust, one at a time", 30*time.Second); !ok {
		t.Fatalf("the reloaded room was not told\n%s", watchdogLines(b.output()))
	}
	out := b.output()
	t.Logf("%s", watchdogLines(out))
	if n := restarts(); n != 2 {
		t.Errorf("%d restarts before the watchdog stopped, want 2", n)
	}
	for _, innocent := range []string{"closing Notes", "Notes was closed", "so Notes"} {
		if strings.Contains(out, innocent) {
			t.Errorf("Notes was blamed (%q)", innocent)
		}
	}
	// What the person is told: the facts, and that nobody was judged.
	told := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "watchdog: the reloaded room was told:") {
			told = l
		}
	}
	for _, want := range []string{"Voicebox cannot tell which app did it, so it closed none", "What Voicebox saw: ", "was opened last",
		"had been open", "stopped reopening apps and closed none as guilty", "Notes and Slow Bomb stay closed"} {
		if !strings.Contains(told, want) {
			t.Errorf("the last notice does not say %q: %s", want, told)
		}
	}
	if !regexp.MustCompile(`holding \d+(\.\d)? GB of memory`).MatchString(told) {
		t.Errorf("the last notice does not say how much memory the web process held: %s", told)
	}

	// Nothing comes back on its own, and a model cannot bring the bomb back.
	if _, ok := b.waitLog(t, "watchdog: room recovered; closed nothing; reopened 0 apps", 30*time.Second); !ok {
		t.Fatalf("the reloaded room did not report its plan done\n%s", watchdogLines(b.output()))
	}
	if open := openApps(t, cs); len(open) != 0 {
		t.Errorf("open after the watchdog stopped: %+v", open)
	}
	if text, refused := toolText(t, cs, 30*time.Second, "launch_mini_app", map[string]any{"ref": "bomb.html"}); !refused || !strings.Contains(text, "stays closed") {
		t.Errorf("a model reopened Slow Bomb: %s (refused %v)", text, refused)
	}

	// The person reopens Notes with the notice's button; Slow Bomb stays closed.
	r := readReport(t, s, report, "the notice's Reopen Notes button", func(r layout.Report) bool {
		_, ok := control(r, "#watchdog-reopen-page_notes")
		return ok
	})
	button, _ := control(r, "#watchdog-reopen-page_notes")
	p := pointer{t: t, s: s, win: win}
	p.press(inWindow(t, s, win, r, button.Box))
	apps := waitOpen(t, cs, 30*time.Second, "Notes reopened by the person", func(a []openApp) bool {
		_, ok := findApp(a, "Notes")
		return ok
	})
	if _, bomb := findApp(apps, "Slow Bomb"); bomb || len(apps) != 1 {
		t.Errorf("open after the person reopened Notes: %+v", apps)
	}
	if n := restarts(); n != 2 {
		t.Errorf("%d restarts in all, want 2", n)
	}
	if !b.running() {
		t.Fatalf("voicebox exited: %v", b.err)
	}
}

// watchdogLines are the log's watchdog lines, for a failure's message.
func watchdogLines(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "watchdog") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// control finds a control of the layout report whose name contains sub.
func control(r layout.Report, sub string) (layout.Control, bool) {
	for _, c := range r.Controls {
		if strings.Contains(c.Name, sub) {
			return c, true
		}
	}
	return layout.Control{}, false
}

// inWindow turns the centre of a box of the room's viewport into window coordinates: the web view fills
// the window's client area below the menu bar.
func inWindow(t *testing.T, s *session, win string, r layout.Report, b layout.Box) pt {
	t.Helper()
	geo, err := s.run(t, 5*time.Second, "xdotool", "getwindowgeometry", "--shell", win)
	if err != nil {
		t.Fatalf("getwindowgeometry: %v %s", err, geo)
	}
	height := 0
	for _, l := range strings.Fields(geo) {
		if v, ok := strings.CutPrefix(l, "HEIGHT="); ok {
			height, _ = strconv.Atoi(v)
		}
	}
	return pt{b.X + b.W/2, height - r.Viewport.H + b.Y + b.H/2}
}
