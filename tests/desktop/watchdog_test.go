package desktop

// The watchdog in the real binary. The room, the bridges and every mini-app share one web process, so an
// app that spins freezes them all: the guard must notice within two seconds, restart the process and
// reload the room, and the room must come back with the other apps reopened (their memory gone, as the
// notice says) and the offending one left closed with its own notice, closed on evidence only (issue 14
// §3, backend/recovery). A tool call that was in flight is refused to its caller.

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func testdata(t *testing.T, names ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = string(b)
	}
	return out
}

func count(t *testing.T, cs *mcp.ClientSession, tool string) int {
	t.Helper()
	return askJSON[struct {
		Count int `json:"count"`
	}](t, cs, tool).Count
}

// openPages starts the desktop in s over a workspace of the named testdata pages, waits for its window
// and connects an MCP client.
func openPages(t *testing.T, s *session, pages ...string) (*box, *mcp.ClientSession) {
	t.Helper()
	b := newBox(t, s, testdata(t, pages...))
	b.start(t, nil)
	s.window(t, b.app)
	return b, b.mcpClient(t)
}

var reloadedRE = regexp.MustCompile(`room reloaded (\d+) ms after the recovery started`)

func TestWatchdogRecoversFromAHungApp(t *testing.T) {
	t.Parallel()
	s := startSession(t)
	b, cs := openPages(t, s, "other.html", "busy.html", "late.html")

	other := launchApp(t, cs, "other.html")
	countTool := toolNamed(t, other, "count")
	count(t, cs, countTool)
	if n := count(t, cs, countTool); n != 2 {
		t.Fatalf("count = %d, want 2", n)
	}
	busy := launchApp(t, cs, "busy.html")

	// 1. A tool call that never returns: the app with the call in flight is blamed.
	type outcome struct {
		text    string
		refused bool
		after   time.Duration
	}
	spun := make(chan outcome, 1)
	start := time.Now()
	go func() {
		text, refused := toolText(t, cs, 15*time.Second, toolNamed(t, busy, "spin"), map[string]any{})
		spun <- outcome{text, refused, time.Since(start)}
	}()
	recoveredAt, ok := b.waitLog(t, "watchdog: room recovered; closed Busy Probe; reopened 1 apps", 15*time.Second)
	if !ok {
		s.keepScreenshot(t, "watchdog-hang.png")
		t.Fatal("no log line \"watchdog: room recovered; closed Busy Probe; reopened 1 apps\"")
	}
	took := recoveredAt.Sub(start)
	reload := "?"
	if m := reloadedRE.FindStringSubmatch(b.output()); m != nil {
		reload = m[1] + " ms"
	}
	t.Logf("recovered (Other App reopened and ready) %v after the spinning call started; the room itself reloaded %s after the hang was detected", took.Round(10*time.Millisecond), reload)
	for _, want := range []string{
		"guard: watchdog: the room stopped answering; restarting the web process",
		"watchdog: the room stopped responding; closing Busy Probe (a tool call was in flight); will reopen 1 apps: Other App",
		"watchdog: the reloaded room was told: The room stopped responding while Busy Probe was running a tool call, so Busy Probe was closed. Reopened 1 app (Other App). They started over",
		"watchdog: the room is back (guard active: true)",
	} {
		if !strings.Contains(b.output(), want) {
			t.Errorf("no log line %q", want)
		}
	}
	select {
	case o := <-spun:
		t.Logf("the spinning call was answered after %v: %s", o.after.Round(10*time.Millisecond), o.text)
		if !o.refused || !strings.Contains(o.text, `"refused":"room-reloaded"`) {
			t.Errorf("the call in flight got %s (refused %v), want a room-reloaded refusal", o.text, o.refused)
		}
	case <-time.After(5 * time.Second):
		t.Error("the call in flight was never answered")
	}
	open := openApps(t, cs)
	if _, ok := findApp(open, "Busy Probe"); ok {
		t.Errorf("Busy Probe is open again: %+v", open)
	}
	reopened, ok := findApp(open, "Other App")
	if !ok {
		t.Fatalf("Other App was not reopened: %+v", open)
	}
	if n := count(t, cs, toolNamed(t, reopened, "count")); n != 1 {
		t.Errorf("Other App counts %d after the restart, want 1 (it started over)", n)
	}
	if os.Getenv("VOICEBOX_SCREENSHOTS") != "" {
		time.Sleep(time.Second) // the reloaded room's notices and the reopened app on screen
		s.keepScreenshot(t, "watchdog-recovered.png")
	}

	// 2. An app that spins on its own, with no call in flight: nothing says which of the two it is, so
	// nobody is closed and they come back one at a time, the newest first; alone, it spins again.
	launchApp(t, cs, "late.html")
	if _, ok := b.waitLog(t, "watchdog: room recovered; closed Late Spinner; reopened 1 apps", 30*time.Second); !ok {
		s.keepScreenshot(t, "watchdog-late.png")
		t.Fatal("no log line \"watchdog: room recovered; closed Late Spinner; reopened 1 apps\"")
	}
	for _, want := range []string{
		"watchdog: the room stopped responding; closing nothing (cannot tell which of Other App and Late Spinner); will reopen 2 apps one at a time: Late Spinner, Other App",
		"watchdog: the room stopped responding; closing Late Spinner (it was the only app open)",
		"Late Spinner stopped responding and was closed: it was the only app open.",
	} {
		if !strings.Contains(b.output(), want) {
			t.Errorf("no log line %q", want)
		}
	}
	waitOpen(t, cs, 5*time.Second, "Other App open alone", func(a []openApp) bool {
		_, ok := findApp(a, "Other App")
		return ok && len(a) == 1
	})
	if !b.running() {
		t.Fatalf("voicebox exited: %v", b.err)
	}
}

// TestWatchdogFindsTheAppThatWaitsForOthers is the attack of issue 14 §3: Sly Spinner opens first and
// spins 4 s after another app is open, when the app opened last looks guilty. Within two recoveries it
// must be closed, the two others open, and no notice may blame them.
func TestWatchdogFindsTheAppThatWaitsForOthers(t *testing.T) {
	t.Parallel()
	s := startSession(t)
	b, cs := openPages(t, s, "waiter.html", "other.html", "notes.html")
	launchApp(t, cs, "waiter.html")
	launchApp(t, cs, "other.html")
	launchApp(t, cs, "notes.html")
	_, found := b.waitLog(t, "watchdog: room recovered; closed Sly Spinner; reopened 2 apps", 90*time.Second)
	if !found {
		t.Errorf("no log line \"watchdog: room recovered; closed Sly Spinner; reopened 2 apps\" (%s)", s.keepScreenshot(t, "watchdog-waiter.png"))
	}
	out := b.output()
	if n := strings.Count(out, "guard: watchdog: the room stopped answering"); n > 2 {
		t.Errorf("%d recoveries, want at most 2", n)
	}
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, "watchdog: the reloaded room was told:") {
			continue
		}
		t.Logf("%s", line)
		for _, innocent := range []string{"Other App", "Notes"} {
			for _, blame := range []string{innocent + " stopped responding", innocent + " was closed", "so " + innocent} {
				if strings.Contains(line, blame) {
					t.Errorf("a notice blames %s: %s", innocent, line)
				}
			}
		}
	}
	if !found {
		return
	}
	waitOpen(t, cs, 10*time.Second, "Other App and Notes open, Sly Spinner closed", func(a []openApp) bool {
		_, other := findApp(a, "Other App")
		_, notes := findApp(a, "Notes")
		_, sly := findApp(a, "Sly Spinner")
		return other && notes && !sly && len(a) == 2
	})
	// It stays closed: a model asking for it again is refused until the person opens it.
	if text, refused := toolText(t, cs, 30*time.Second, "launch_mini_app", map[string]any{"ref": "waiter.html"}); !refused || !strings.Contains(text, "stays closed") {
		t.Errorf("launch_mini_app(waiter.html) after the watchdog closed it: %s (refused %v)", text, refused)
	}
}

// TestWatchdogLoopOpenedOnTheCommandLine: `voicebox loop.html` with while(true){} at load. The room
// restarts once, loop.html is closed with a notice that says so, and the reloaded room's opened-files
// list does not open it again (on main it did, every ~3 s).
func TestWatchdogLoopOpenedOnTheCommandLine(t *testing.T) {
	t.Parallel()
	s := startSession(t)
	b := newBox(t, s, nil)
	loop := filepath.Join(t.TempDir(), "loop.html")
	if err := os.WriteFile(loop, []byte(testdata(t, "loop.html")["loop.html"]), 0o644); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	b.start(t, nil, loop)
	s.window(t, b.app)
	cs := b.mcpClient(t)
	if _, ok := b.waitLog(t, "watchdog: the reloaded room was told: Loop stopped responding and was closed", 30*time.Second); !ok {
		s.keepScreenshot(t, "watchdog-loop.png")
		t.Fatal("no notice that Loop stopped responding and was closed")
	}
	// Watch the reloaded room until 30 s after the start (issue 14's run; a room that opened Loop again
	// restarted every ~3 s before), and at least 10 s after the notice.
	time.Sleep(max(10*time.Second, time.Until(started.Add(30*time.Second))))
	if n := strings.Count(b.output(), "guard: watchdog: the room stopped answering"); n != 1 {
		t.Errorf("the room restarted %d times, want once", n)
	}
	if want := "Loop stopped responding and was closed: it was the only app open."; !strings.Contains(b.output(), want) {
		t.Errorf("no notice %q", want)
	}
	if _, open := findApp(openApps(t, cs), "Loop"); open {
		t.Error("Loop is open again")
	}
	if !b.running() {
		t.Fatalf("voicebox exited: %v", b.err)
	}
}
