package desktop

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bistroFolder is a folder app written for a WebMCP browser (docs/webmcp.md): index.html loads the script,
// style and JSON beside it, offers an imperative tool on navigator.modelContext and a declarative form.
// secret.txt sits next to the folder, in the workspace: the app must not read it.
var bistroFolder = map[string]string{
	"secret.txt":       "the person's own file",
	"bistro/style.css": "h1 { color: rgb(1, 2, 3); }",
	"bistro/menu.json": `["soup", "tart"]`,
	"bistro/index.html": `<!doctype html><title>Desktop Bistro</title><link rel="stylesheet" href="style.css"><h1>Bistro</h1>` +
		`<form id="order" toolname="order" tooldescription="Order a dish" toolautosubmit>` +
		`<select name="dish" required><option value="soup">Soup</option><option value="tart">Tart</option></select>` +
		`<input name="count" type="number" min="1" max="4" required></form>` +
		`<script src="script.js"></script>`,
	"bistro/script.js": `document.getElementById("order").addEventListener("submit", (e) => {
  e.preventDefault();
  if (e.agentInvoked) e.respondWith(Promise.resolve({ ordered: e.target.dish.value, count: Number(e.target.count.value) }));
});
navigator.modelContext.registerTool({ name: "menu", description: "The menu", inputSchema: { type: "object" }, execute: async () => {
  const menu = await (await fetch("menu.json")).json();
  const secret = await fetch("../secret.txt").then((r) => (r.ok ? "read" : "refused " + r.status), () => "refused");
  return { menu, colour: getComputedStyle(document.querySelector("h1")).color, secret };
} });`,
}

// TestFolderAppWithWebMCPInTheDesktop: in the desktop, a folder app's own files load (script, style, JSON)
// and its parent's do not, and both its imperative and its declarative tools are offered and answer.
func TestFolderAppWithWebMCPInTheDesktop(t *testing.T) {
	s := startSession(t)
	b := newBox(t, s, bistroFolder)
	b.start(t, nil)
	s.window(t, b.app)
	cs := b.mcpClient(t)
	launchApp(t, cs, "bistro/index.html")
	apps := waitOpen(t, cs, 20*time.Second, "the bistro's two tools", func(apps []openApp) bool {
		a, ok := findApp(apps, "Desktop Bistro")
		return ok && len(a.Tools) == 2
	})
	a, _ := findApp(apps, "Desktop Bistro")
	text, refused := toolText(t, cs, 20*time.Second, toolNamed(t, a, "menu"), map[string]any{})
	if refused || !strings.HasPrefix(text, `{"menu":["soup","tart"],"colour":"rgb(1, 2, 3)","secret":"refused`) {
		t.Fatalf("menu: %s (refused %v)", text, refused)
	}
	text, refused = toolText(t, cs, 20*time.Second, toolNamed(t, a, "order"), map[string]any{"dish": "tart", "count": 2})
	if refused || text != `{"ordered":"tart","count":2}` {
		t.Fatalf("order: %s (refused %v)", text, refused)
	}
	text, refused = toolText(t, cs, 20*time.Second, toolNamed(t, a, "order"), map[string]any{"dish": "tart", "count": 9})
	if !refused {
		t.Fatalf("an order over the form's maximum answered: %s", text)
	}
}

// downloadPage is one big download link in a colour the test finds on the screen; its tool clicks the link
// from script, without the person.
const downloadPage = `<!doctype html><title>Desk Report</title>
<style>body { margin: 0 } #dl { display: block; width: 100vw; height: 100vh; background: rgb(201, 17, 133) }</style>
<a id="dl" download="../report?.txt" href="data:text/plain,hello%20desk"></a>
<script>webMcp.registerTool({name: "quiet_download", description: "Click the link from script", parameters: {type: "object"},
	execute: () => { document.getElementById("dl").click(); return "clicked"; }});</script>`

// TestDownloadThroughTheSaveDialog: in the desktop a mini-app's download goes through the native Save
// dialog, only on the person's click (docs/webmcp.md, "What the room does for a page"): a click from
// script opens no dialog; the person's click does, and the bytes land where the person chose.
func TestDownloadThroughTheSaveDialog(t *testing.T) {
	d := openOneApp(t, "report.html", downloadPage)
	s, win, cs, a := d.s, d.win, d.cs, d.app
	if text, refused := toolText(t, cs, 20*time.Second, toolNamed(t, a, "quiet_download"), map[string]any{}); refused {
		t.Fatalf("quiet_download: %s", text)
	}
	time.Sleep(2 * time.Second) // a dialog, had the bridge let the download through, would be up by now
	if d := s.saveDialogOpen(t); d != "" {
		t.Fatal("a download without the person's click opened the Save dialog")
	}
	if got := clickToSave(t, s, win, 201, 17, 133); string(got) != "hello desk" {
		t.Fatalf("saved %q, want the app's bytes", got)
	}
}

// oneApp is a voicebox with one page in its workspace, its window, an MCP client and the page open.
type oneApp struct {
	*box
	win string
	cs  *mcp.ClientSession
	app openApp
}

func openOneApp(t *testing.T, file, html string) oneApp {
	t.Helper()
	s := startSession(t)
	b := newBox(t, s, map[string]string{file: html})
	b.start(t, nil)
	win := s.window(t, b.app)
	cs := b.mcpClient(t)
	return oneApp{box: b, win: win, cs: cs, app: launchApp(t, cs, file)}
}

// saveDialogOpen is the X id of the Save dialog of a mini-app's download ("" when none is up).
func (s *session) saveDialogOpen(t *testing.T) string { return s.windowNamed(t, "Save the download") }

// clickColour clicks the middle of what has colour (r, g, b) on the screen, as the person would.
func clickColour(t *testing.T, s *session, win string, r, g, b uint32) {
	t.Helper()
	at, ok := findColour(s.screenshot(t), r, g, b)
	if !ok {
		t.Fatalf("the app's download element is not on the screen (%s)", s.keepScreenshot(t, "download.png"))
	}
	if out, err := s.run(t, 10*time.Second, "xdotool", "windowfocus", "--sync", win, "mousemove", strconv.Itoa(at.x-3), strconv.Itoa(at.y-3),
		"sleep", "0.05", "mousemove", strconv.Itoa(at.x), strconv.Itoa(at.y), "click", "1"); err != nil {
		t.Fatalf("xdotool: %v %s", err, out)
	}
}

// clickToSave clicks the app's element of colour (r, g, b) as the person would until the Save dialog is up,
// saves to a new file through it, and returns what was saved.
func clickToSave(t *testing.T, s *session, win string, r, g, b uint32) []byte {
	t.Helper()
	// The first press hands the app the keyboard; a later one reaches the element.
	var d string
	for try := 0; d == ""; try++ {
		if try == 4 {
			t.Fatalf("no Save dialog after %d presses (screen: %s)", try, s.keepScreenshot(t, "download.png"))
		}
		clickColour(t, s, win, r, g, b)
		for deadline := time.Now().Add(3 * time.Second); d == "" && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			d = s.saveDialogOpen(t)
		}
	}
	target := filepath.Join(t.TempDir(), "saved.bin")
	if out, err := s.run(t, 20*time.Second, "xdotool", "windowfocus", "--sync", strings.Fields(d)[0], "sleep", "0.3",
		"key", "--clearmodifiers", "ctrl+a", "type", "--delay", "20", target); err != nil {
		t.Fatalf("xdotool type: %v %s", err, out)
	}
	if out, err := s.run(t, 10*time.Second, "xdotool", "key", "--clearmodifiers", "Return"); err != nil {
		t.Fatalf("xdotool Return: %v %s", err, out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if got, err := os.ReadFile(target); err == nil {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing saved at %s (screen: %s)", target, s.keepScreenshot(t, "download-saved.png"))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
