package desktop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDropOpensTheFile drags an .html file from another X client (a real XDND drag, as from a file
// manager) onto the window: the app opens it, and the room stays the room (WebKit's own handling of the
// drop would navigate the window to the file; the guard refuses that).
func TestDropOpensTheFile(t *testing.T) {
	s := startSession(t)
	need(t, map[string]string{"gcc": "build-essential", "pkg-config": "pkg-config"})
	src := filepath.Join(t.TempDir(), "dragsrc")
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", "gtk+-3.0").Output()
	if err != nil {
		t.Fatalf("pkg-config gtk+-3.0: %v (apt-get install libgtk-3-dev)", err)
	}
	build := exec.Command("gcc", append([]string{"-o", src, filepath.Join("testdata", "dragsrc.c")}, strings.Fields(string(flags))...)...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the drag source: %v\n%s", err, out)
	}

	ws, data, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	page := filepath.Join(elsewhere, "dropped.html")
	if err := os.WriteFile(page, []byte("<!doctype html><title>Dropped</title><script>webMcp.ready()</script><h1>dropped</h1>"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := s.start(t, "--workspace", ws, "--data", data)
	win := s.window(t, a)

	drag := exec.Command(src, "file://"+page)
	drag.Env = s.env
	if err := drag.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { drag.Process.Kill(); drag.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		if out, _ := s.run(t, 5*time.Second, "xdotool", "search", "--onlyvisible", "--name", "^dragsrc$"); strings.TrimSpace(out) != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the drag source window never showed")
		}
		time.Sleep(200 * time.Millisecond)
	}

	// Press on the source, move in steps (GTK starts a drag after a few pixels), release over the room. A
	// loaded machine can lose the gesture itself (GTK sees the release before the drag began), so it is
	// made again, up to three times, while no drop has been handled; any handled drop ends the wait.
	args := []string{"mousemove", "60", "60", "mousedown", "1", "sleep", "0.3"}
	for i := 1; i <= 20; i++ {
		args = append(args, "mousemove", fmt.Sprint(60+i*29), fmt.Sprint(60+i*22), "sleep", "0.05")
	}
	args = append(args, "sleep", "0.5", "mouseup", "1")
	want := "opened " + page
	for try := 1; !strings.Contains(a.output(), want); try++ {
		if try > 3 {
			t.Fatalf("the drop was not handled after 3 drags; want a line %q", want)
		}
		if out, err := s.run(t, 20*time.Second, "xdotool", args...); err != nil {
			t.Fatalf("xdotool drag: %v %s", err, out)
		}
		a.waitLog(t, want, 15*time.Second)
	}
	select {
	case <-a.done:
		t.Fatalf("voicebox exited after the drop: %v", a.err)
	case <-time.After(time.Second):
	}
	// The window is still there and still the room (GTK adds a 1×1 helper window during a drag; ignore it).
	if st := s.windowState(t, win); !strings.Contains(st, `name="Voicebox" visible=true`) || !strings.Contains(st, "1280x820") {
		t.Fatalf("window after the drop: %s (screen: %s)", st, s.keepScreenshot(t, "drop.png"))
	}
	if n := colours(s.screenshot(t)); n <= 40 {
		t.Fatalf("screenshot after the drop has %d colours, want the room still rendered", n)
	}
}

// TestDragInsideAnAppOpensNothing drags a card inside a mini-app (issue 14 §2): the app put a file://
// address of its choosing on the drag, and the pointer never leaves the app. Only a drag from another
// application is the person's file drop; this one must open nothing.
func TestDragInsideAnAppOpensNothing(t *testing.T) {
	s := startSession(t)
	b := newBox(t, s, nil)
	statement := filepath.Join(t.TempDir(), "statement.html")
	if err := os.WriteFile(statement, []byte("<!doctype html><title>Statement</title><script>webMcp.ready()</script>"), 0o644); err != nil {
		t.Fatal(err)
	}
	tmpl, err := os.ReadFile(filepath.Join("testdata", "kanban.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := strings.ReplaceAll(string(tmpl), "__FILE_URI__", "file://"+statement)
	if err := os.WriteFile(filepath.Join(b.workspace, "kanban.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	b.start(t, nil)
	s.window(t, b.app)
	cs := b.mcpClient(t)
	board := launchApp(t, cs, "kanban.html")

	var at pt
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, ok := findColour(s.screenshot(t), 0, 255, 255)
		if ok {
			at = p
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the board is not on the screen (%s)", s.keepScreenshot(t, "kanban.png"))
		}
		time.Sleep(200 * time.Millisecond)
	}
	// A press hands the board the keyboard and the pointer (a press on an app that has neither does not
	// reach it); then the drag: press on the card, move in steps, release 60 px lower, still on the card.
	// A loaded machine can lose the gesture (no drag starts), so it is made again, up to three times, until
	// the board saw its card dropped; every attempt counts for the checks below.
	x, y := at.x, at.y-40
	args := []string{"mousemove", fmt.Sprint(x), fmt.Sprint(y), "click", "1", "sleep", "0.5", "mousedown", "1", "sleep", "0.3"}
	for i := 1; i <= 12; i++ {
		args = append(args, "mousemove", fmt.Sprint(x+i), fmt.Sprint(y+i*5), "sleep", "0.05")
	}
	args = append(args, "sleep", "0.5", "mouseup", "1", "sleep", "1")
	var text string
	for try := 1; try <= 3 && !strings.Contains(text, `"drops":1`); try++ {
		if out, err := s.run(t, 30*time.Second, "xdotool", args...); err != nil {
			t.Fatalf("xdotool drag: %v %s", err, out)
		}
		var refused bool
		text, refused = toolText(t, cs, 10*time.Second, toolNamed(t, board, "drops"), map[string]any{})
		t.Logf("the board says after drag %d: %s (refused %v)", try, text, refused)
	}
	if !strings.Contains(text, `"drops":1`) {
		t.Errorf("the board saw no drop of its own card (%s): the drag did not happen, so the test shows nothing", s.keepScreenshot(t, "kanban-drag.png"))
	}
	if !strings.Contains(b.output(), "guard: ignored a drop of a drag that started in the window") {
		t.Error("no log line that the guard ignored the drop (did the drop reach GTK?)")
	}
	if strings.Contains(b.output(), "opened "+statement) {
		t.Errorf("a drag inside the app opened %s as the person's file", statement)
	}
	if _, open := findApp(openApps(t, cs), "Statement"); open {
		t.Error("the dragged file was launched as a mini-app")
	}
}
