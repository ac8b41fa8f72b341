package desktop

// The IPC guard in the real binary: a hostile page opened with `voicebox FILE.html` runs as a mini-app in
// the sandbox and, from its inner frame, posts raw Wails IPC (bound methods with destructive arguments, a
// forged file drop, an URL to open, window operations, an event for Go's listeners, quit) and tries the
// frames around it. With the guard nothing of it may arrive; with the guard switched off
// (VOICEBOX_UNSAFE_NO_GUARD=1) the same page must visibly get through, which shows that the test sees a
// leak when there is one.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/tests/testfs"
)

type hostileReport struct {
	Handler     string            `json:"handler"`
	WailsInvoke string            `json:"wailsInvoke"`
	GoBindings  string            `json:"goBindings"`
	Flag        string            `json:"flag"`
	Attempts    map[string]string `json:"attempts"`
}

func TestHostileMiniAppCannotReachIPC(t *testing.T) {
	t.Run("guarded", func(t *testing.T) {
		t.Parallel()
		hostileRun(t, false)
	})
	t.Run("unguarded-leak-is-visible", func(t *testing.T) {
		t.Parallel()
		hostileRun(t, true)
	})
}

func hostileRun(t *testing.T, unguarded bool) {
	s := startSession(t)
	b := newBox(t, s, map[string]string{"notes.html": "<!doctype html><title>Workspace Notes</title><p>notes"})
	// A real app on the shelf for StoreService.Delete to aim at.
	shelf := filepath.Join(b.data, "mini-apps")
	if err := os.MkdirAll(shelf, 0o755); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(shelf, "keepme.html")
	if err := os.WriteFile(keep, []byte("<!doctype html><title>Keep Me</title><p>keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	dropped := filepath.Join(outside, "secret-drop.html")
	if err := os.WriteFile(dropped, []byte("<!doctype html><title>Secret</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	tmpl, err := os.ReadFile(filepath.Join("testdata", "hostile.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := strings.NewReplacer("__SHELF_ID__", "app_keepme", "__DROP_PATH__", dropped).Replace(string(tmpl))
	hostile := filepath.Join(outside, "hostile.html")
	if err := os.WriteFile(hostile, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}

	var env []string
	if unguarded {
		env = append(env, "VOICEBOX_UNSAFE_NO_GUARD=1")
	}
	b.start(t, env, hostile)
	win := s.window(t, b.app)
	cs := b.mcpClient(t)
	apps := waitOpen(t, cs, 30*time.Second, "the hostile page open as a mini-app", func(a []openApp) bool {
		_, ok := findApp(a, "Hostile IPC")
		return ok
	})
	h, _ := findApp(apps, "Hostile IPC")
	if unguarded {
		if _, ok := b.waitLog(t, "the desktop guard is OFF", time.Second); !ok {
			t.Error("no loud warning that the guard is off")
		}
	} else if _, ok := b.waitLog(t, "guard: active: IPC confined to wails://wails", time.Second); !ok {
		t.Error("the guard did not report itself active")
	}

	time.Sleep(300 * time.Millisecond) // let startup writes settle
	before := testfs.Tree(t, b.workspace, b.data, outside)
	if _, ok := before[keep]; !ok {
		t.Fatalf("snapshot lacks the shelf app: %v", before)
	}
	stateBefore := s.windowState(t, win)

	text, refused := toolText(t, cs, 10*time.Second, toolNamed(t, h, "attack"), map[string]any{})
	var rep hostileReport
	if refused || json.Unmarshal([]byte(text), &rep) != nil {
		t.Fatalf("attack: %s (refused %v)", text, refused)
	}
	t.Logf("the hostile page saw: handler=%s WailsInvoke=%s go=%s flag=%s", rep.Handler, rep.WailsInvoke, rep.GoBindings, rep.Flag)
	for k, v := range rep.Attempts {
		t.Logf("  %-26s %s", k, v)
	}

	if unguarded {
		assertLeaks(t, b, s, win, cs, rep, stateBefore, before, keep, dropped)
		return
	}

	// Guarded: the inner frame has no handler, nothing reached Go, nothing changed.
	if rep.Handler != "absent" || rep.WailsInvoke != "undefined" || rep.GoBindings != "undefined" {
		t.Errorf("the inner frame sees IPC: %+v", rep)
	}
	for k, v := range rep.Attempts {
		switch {
		case strings.HasPrefix(k, "post:") && v != "no-handler":
			t.Errorf("%s: %s", k, v)
		case (strings.HasPrefix(k, "top.") || strings.HasPrefix(k, "parent.")) && k != "top.location" && k != "parent.location" && v != "blocked:SecurityError":
			t.Errorf("%s: %s, want blocked:SecurityError", k, v)
		case k == "window.open" && v != "null":
			t.Errorf("window.open gave %s", v)
		}
	}
	time.Sleep(3500 * time.Millisecond) // past the page's delayed "Q"
	if !b.running() {
		t.Fatalf("voicebox exited: %v", b.err)
	}
	if d := testfs.Changes(before, testfs.Tree(t, b.workspace, b.data, outside)); len(d) > 0 {
		t.Errorf("files changed: %q", d)
	}
	out := b.output()
	for _, bad := range []string{"opened " + dropped, "drag and drop", "hostile-open"} {
		if strings.Contains(out, bad) {
			t.Errorf("the log shows %q", bad)
		}
	}
	if o := b.opened(); len(o) > 0 {
		t.Errorf("the xdg-open shim was called: %q", o)
	}
	if st := s.windowState(t, win); st != stateBefore {
		t.Errorf("window changed:\n before %s\n after  %s", stateBefore, st)
	}
	open := openApps(t, cs)
	if _, ok := findApp(open, "Forged By Hostile"); ok {
		t.Errorf("a forged app reached Go's registry: %+v", open)
	}
	// The room still works: the page answers a second call through it.
	if text, refused := toolText(t, cs, 10*time.Second, toolNamed(t, h, "report"), map[string]any{}); refused || !strings.Contains(text, `"handler":"absent"`) {
		t.Errorf("report after the attack: %s (refused %v)", text, refused)
	}
	if t.Failed() {
		s.keepScreenshot(t, "hostile-guarded.png")
	}
}

// assertLeaks checks that, without the guard, the same attack visibly got through.
func assertLeaks(t *testing.T, b *box, s *session, win string, cs *mcp.ClientSession, rep hostileReport, stateBefore string, before map[string]string, keep, dropped string) {
	t.Helper()
	if rep.Handler != "present" || rep.Attempts["post:delete-shelf-app"] != "posted" {
		t.Errorf("without the guard the inner frame should have the handler: %+v", rep)
	}
	// Before the page's delayed "Q": the window and Go's registry.
	time.Sleep(800 * time.Millisecond)
	if st := s.windowState(t, win); st == stateBefore {
		t.Errorf("window unchanged (%s): the window operations did not show", st)
	} else {
		t.Logf("window before: %s\nwindow after:  %s", stateBefore, st)
	}
	if _, ok := findApp(openApps(t, cs), "Forged By Hostile"); !ok {
		t.Error("RegistryService.Register from the frame did not reach Go's registry")
	}
	// Then the process quits on the page's "Q".
	select {
	case <-b.done:
	case <-time.After(15 * time.Second):
		t.Error("voicebox still runs: the page's Q did not arrive")
	}
	after := testfs.Tree(t, b.workspace, b.data, filepath.Dir(dropped))
	d := testfs.Changes(before, after)
	t.Logf("files: %q", d)
	if !slices.Contains(d, "removed "+keep) {
		t.Errorf("StoreService.Delete did not remove %s", keep)
	}
	if !slices.Contains(d, "added "+filepath.Join(b.data, "mini-apps", "pwned.html")) {
		t.Error("StoreService.Save did not write pwned.html")
	}
	if !slices.Contains(d, "changed "+filepath.Join(b.data, "settings.json")) {
		t.Error("SettingsService.Update / MCPService.SetEnabled did not change settings.json")
	}
	out := b.output()
	if !strings.Contains(out, "opened "+dropped) {
		t.Errorf("the forged drop was not handled (no %q in the log)", "opened "+dropped)
	}
	if !slices.Contains(b.opened(), "https://example.com/hostile-open") {
		t.Errorf("BO did not reach xdg-open: %q", b.opened())
	}
}
