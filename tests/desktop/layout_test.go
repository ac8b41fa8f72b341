package desktop

// The room's layout in the real window (issue 15, "How to prove it"): seven mini-apps (one broken), a toast
// from Go (a second launch hands over a file that is not HTML), at 1440×900 and at the window's minimum,
// 760×480, each kept as a screenshot named by scenario and judged by the boxes the room measures
// (tests/layout), which the window reports to the file named by VOICEBOX_LAYOUT_PROBE (the test cannot read
// the window's DOM otherwise). Then what only the desktop has: the menu's accelerators, which Go sends back
// to the room (Ctrl+B hides the Mini-Apps panel, Ctrl+N shows it with the New App field, Ctrl+/ opens Help ›
// Keyboard Shortcuts, Escape closes it).

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/tests/layout"
)

func layoutApp(n int) string {
	return fmt.Sprintf(`<!doctype html><title>App %d</title><p>App number %d.</p><script>
webMcp.registerTool({name: "ping", description: "Answers pong", parameters: {type: "object", properties: {}}, execute() { return "pong"; }});
webMcp.ready();
</script>`, n, n)
}

const brokenApp = `<!doctype html><title>Broken</title><p>Broken.</p><script>
setTimeout(() => { throw new Error("the chart has no data"); }, 50);
webMcp.ready();
</script>`

// readReport waits for a report that satisfies ok and returns it.
func readReport(t *testing.T, s *session, path string, what string, ok func(layout.Report) bool) layout.Report {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var r layout.Report
	for {
		raw, err := os.ReadFile(path)
		if err == nil && json.Unmarshal(raw, &r) == nil && ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("no layout report with %s (last: %+v, screen: %s)", what, r, s.keepScreenshot(t, "layout-timeout.png"))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// shootWindow keeps a screenshot of the window (its client area, the menu bar included), once the screen
// has stopped changing. Under Xvfb with no window manager, a web view that grew paints its new size only
// when something happens in it: the pointer moves onto the top bar's logo first.
func shootWindow(t *testing.T, s *session, win, path string) {
	t.Helper()
	for _, x := range []string{"6", "8"} {
		s.run(t, 10*time.Second, "xdotool", "mousemove", "--window", win, x, "60")
	}
	last := ""
	for i := 0; i < 25; i++ {
		var b strings.Builder
		img := s.screenshot(t)
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y += 7 {
			for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 7 {
				r, g, bl, _ := img.At(x, y).RGBA()
				fmt.Fprintf(&b, "%x%x%x", r>>12, g>>12, bl>>12)
			}
		}
		if b.String() == last {
			break
		}
		last = b.String()
		time.Sleep(200 * time.Millisecond)
	}
	geo, err := s.run(t, 5*time.Second, "xdotool", "getwindowgeometry", "--shell", win)
	if err != nil {
		t.Fatalf("getwindowgeometry: %v %s", err, geo)
	}
	v := map[string]string{}
	for _, l := range strings.Fields(geo) {
		if k, x, ok := strings.Cut(l, "="); ok {
			v[k] = x
		}
	}
	crop := fmt.Sprintf("%sx%s+%s+%s", v["WIDTH"], v["HEIGHT"], v["X"], v["Y"])
	if out, err := s.run(t, 10*time.Second, "import", "-window", "root", "-crop", crop, "+repage", path); err != nil {
		t.Logf("screenshot %s: %v %s", path, err, out)
	}
	t.Logf("screenshot %s", path)
}

func TestLayoutInTheWindow(t *testing.T) {
	s := startSessionSized(t, 1600, 1000)
	files := map[string]string{"notes.txt": "not a page", "broken.html": brokenApp}
	for i := 1; i <= 6; i++ {
		files[fmt.Sprintf("app%d.html", i)] = layoutApp(i)
	}
	b := newBox(t, s, files)
	report := filepath.Join(t.TempDir(), "layout.json")
	b.start(t, []string{"VOICEBOX_LAYOUT_PROBE=" + report})
	win := s.window(t, b.app)
	// Grown after it showed, the window paints its new area only as things in it change (Xvfb, no window
	// manager): it grows before the apps open.
	if out, err := s.run(t, 10*time.Second, "xdotool", "windowsize", "--sync", win, "1440", "900"); err != nil {
		t.Fatalf("xdotool windowsize: %v %s", err, out)
	}
	readReport(t, s, report, "a 1440px wide room", func(r layout.Report) bool { return r.Viewport.W == 1440 })
	cs := b.mcpClient(t)
	for i := 1; i <= 6; i++ {
		launchApp(t, cs, fmt.Sprintf("app%d.html", i))
	}
	launchApp(t, cs, "broken.html")
	// A second launch hands over a file that is not a page: Go refuses it with a notice, a toast here.
	second := s.start(t, "--workspace", b.workspace, "--data", b.data, filepath.Join(b.workspace, "notes.txt"))
	select {
	case <-second.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the second launch did not hand over and exit")
	}
	dir := layout.ShotDir(t.TempDir)
	for _, size := range []struct{ w, h, minW, minH int }{{1440, 900, 700, 600}, {760, 480, 400, 300}} {
		if out, err := s.run(t, 10*time.Second, "xdotool", "windowsize", "--sync", win, strconv.Itoa(size.w), strconv.Itoa(size.h)); err != nil {
			t.Fatalf("xdotool windowsize: %v %s", err, out)
		}
		r := readReport(t, s, report, fmt.Sprintf("a %dpx wide room, 7 windows and a toast", size.w), func(r layout.Report) bool {
			return r.Viewport.W == size.w && len(r.Windows) == 7 && len(r.Toasts) >= 1
		})
		shot := layout.ShotName(dir, "desktop", "seven-apps-toast", size.w, size.h)
		shootWindow(t, s, win, shot)
		if bad := layout.Check(r, layout.Want{MinStageW: size.minW, MinStageH: size.minH, Windows: 7, Toasts: 1}); len(bad) > 0 {
			t.Errorf("at %dx%d (%s):\n  %s", size.w, size.h, shot, strings.Join(bad, "\n  "))
		}
		var toast string
		for _, x := range r.Toasts {
			toast += x.Text
		}
		if !strings.Contains(toast, "Only .html pages open as mini-apps.") || strings.Contains(toast, "not-html") {
			t.Errorf("the toasts say %q, want the human sentence for not-html", toast)
		}
	}

	// The menu's accelerators: Go hears them, the room acts.
	key := func(k string) {
		t.Helper()
		if out, err := s.run(t, 10*time.Second, "xdotool", "windowfocus", "--sync", win, "key", "--clearmodifiers", k); err != nil {
			t.Fatalf("xdotool key %s: %v %s", k, err, out)
		}
	}
	sidebarShown := func(r layout.Report) bool { return r.Sidebar != nil }
	before := sidebarShown(readReport(t, s, report, "the room at its minimum", func(r layout.Report) bool { return r.Viewport.W == 760 }))
	key("ctrl+b")
	readReport(t, s, report, "the Mini-Apps panel toggled by Ctrl+B", func(r layout.Report) bool { return sidebarShown(r) != before })
	// File › New App… (Ctrl+N) shows the Mini-Apps panel, where its field is, when it is hidden.
	if !before {
		key("ctrl+b")
		readReport(t, s, report, "the Mini-Apps panel hidden again by Ctrl+B", func(r layout.Report) bool { return !sidebarShown(r) })
	}
	key("ctrl+n")
	readReport(t, s, report, "the Mini-Apps panel shown by Ctrl+N (New App…)", sidebarShown)
	key("ctrl+slash")
	readReport(t, s, report, "Help › Keyboard Shortcuts open after Ctrl+/", func(r layout.Report) bool {
		return strings.Contains(strings.Join(r.Dialogs, ","), "shortcuts-dialog")
	})
	shootWindow(t, s, win, layout.ShotName(dir, "desktop", "shortcuts-dialog", 760, 480))
	key("Escape")
	readReport(t, s, report, "the shortcuts closed by Escape", func(r layout.Report) bool { return len(r.Dialogs) == 0 })
}

// A file opened on the command line opens in the window the room's document brought, its frame loading
// while the room's modules did (desktopboot.go): the room adopts that frame, gives it its title bar and its
// place, and makes no second frame for the same app.
func TestFirstAppOpensInTheFrameTheDocumentBrought(t *testing.T) {
	s := startSession(t)
	b := newBox(t, s, map[string]string{"app1.html": layoutApp(1)})
	report := filepath.Join(t.TempDir(), "layout.json")
	b.start(t, []string{"VOICEBOX_LAYOUT_PROBE=" + report}, filepath.Join(b.workspace, "app1.html"))
	s.window(t, b.app)
	cs := b.mcpClient(t)
	waitOpen(t, cs, 30*time.Second, "App 1 ready", func(apps []openApp) bool { a, ok := findApp(apps, "App 1"); return ok && len(a.Tools) == 1 })
	r := readReport(t, s, report, "one window", func(r layout.Report) bool { return len(r.Windows) == 1 && r.Container != nil })
	if r.Frames != 1 {
		t.Errorf("the room holds %d frames for one app, want 1 (the document's own, adopted)", r.Frames)
	}
	w := r.Windows[0]
	if w.Box.X-r.Container.X != 20 || w.Box.Y-r.Container.Y != 16 || len(r.Closers) != 1 {
		t.Errorf("the adopted window is at %+v in %+v with %d close buttons, want placement.js' first slot and its title bar", w.Box, *r.Container, len(r.Closers))
	}
}
