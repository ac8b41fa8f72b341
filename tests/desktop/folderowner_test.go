package desktop

// Which opened page owns the files beside it (issue 28, finding 5). Before, an index.html opened from
// ~/Downloads (the command line, a drop, File › Open File…) was served the files beside it, so a page that
// guessed their names read the person's bank statement and tax return and handed them to any MCP client.
// Now only a folder the person made an app owns its files: one in the workspace, or one opened as a folder
// (here named on the command line, as a drop or File › Open Folder as App… does); an index.html opened
// from anywhere else owns nothing but itself.

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/tests/testfs"
)

// peekPage is a page that reads the files it names beside it: their text, or how it was refused.
func peekPage(title string) string {
	return `<!doctype html><html><head><meta charset="utf-8"><title>` + title + `</title></head><body><h1>` + title + `</h1>
<script>
webMcp.registerTool({
  name: "peek", description: "Read files beside the page",
  parameters: { type: "object", properties: { names: { type: "array", items: { type: "string" } } }, required: ["names"] },
  execute: async ({ names }) => {
    const out = {};
    for (const n of names) {
      try { const r = await fetch(n); out[n] = r.ok ? await r.text() : "status " + r.status; } catch (e) { out[n] = "refused"; }
    }
    return out;
  },
});
webMcp.ready();
</script></body></html>`
}

func TestOnlyAFolderMadeAnAppOwnsItsFiles(t *testing.T) {
	s := startSession(t)
	b := newBox(t, s, map[string]string{
		"recipes/index.html": peekPage("Workspace Folder"),
		"recipes/menu.txt":   "soup of the day",
	})
	elsewhere := t.TempDir()
	downloads, game := filepath.Join(elsewhere, "Downloads"), filepath.Join(elsewhere, "Projects", "game")
	testfs.Files(t, downloads, map[string]string{
		"index.html":          peekPage("Downloaded Page"),
		"bank-statement.csv":  "date,amount\n2026-01-02,-1200.00\n",
		"tax-return-2025.txt": "taxable income: 71,000",
	})
	testfs.Files(t, game, map[string]string{"index.html": peekPage("Folder Game"), "level.json": `{"level":1}`})
	b.start(t, nil, filepath.Join(downloads, "index.html"), game)
	s.window(t, b.app)
	cs := b.mcpClient(t)
	launchApp(t, cs, "recipes")
	var open []openApp
	wait := func(titles ...string) {
		t.Helper()
		open = waitOpen(t, cs, 30*time.Second, strings.Join(titles, " and ")+" open", func(a []openApp) bool {
			for _, title := range titles {
				if app, ok := findApp(a, title); !ok || len(app.Tools) != 1 {
					return false
				}
			}
			return true
		})
	}
	wait("Downloaded Page", "Workspace Folder")
	peek := func(title string, names ...string) map[string]string {
		t.Helper()
		app, _ := findApp(open, title)
		text, refused := toolText(t, cs, 20*time.Second, toolNamed(t, app, "peek"), map[string]any{"names": names})
		var out map[string]string
		if refused || json.Unmarshal([]byte(text), &out) != nil {
			t.Fatalf("%s peek: %s (refused %v)", title, text, refused)
		}
		t.Logf("%s read %v", title, out)
		return out
	}

	// The page from Downloads: nothing beside it, whatever names it guesses. (A single page is served its
	// own file as a frame only, so the answer is a refusal, not a 404.)
	for name, got := range peek("Downloaded Page", "bank-statement.csv", "tax-return-2025.txt") {
		if got != "refused" && !strings.HasPrefix(got, "status 4") {
			t.Errorf("the page opened from Downloads read %s: %q", name, got)
		}
	}
	// A folder opened as a folder, and a folder app in the workspace: their own files.
	wait("Folder Game")
	if got := peek("Folder Game", "level.json")["level.json"]; got != `{"level":1}` {
		t.Errorf("the folder opened as an app cannot read its own level.json: %q", got)
	}
	if got := peek("Workspace Folder", "menu.txt")["menu.txt"]; got != "soup of the day" {
		t.Errorf("the workspace's folder app cannot read its own menu.txt: %q", got)
	}
	if !strings.Contains(b.output(), "opened "+filepath.Join(game, "index.html")) {
		t.Errorf("no log line for the folder opened as an app")
	}
}
