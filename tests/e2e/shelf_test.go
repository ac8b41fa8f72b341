package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The File Viewer through a page's life in the room (issue 15, broken flows 1 and 3), with the room's own
// buttons: saved to the shelf, the viewer shows the app it became (kind, source, both Save buttons off) and
// the toast names its title; deleted through the in-room confirmation (Escape and Cancel keep it, Enter
// confirms), its three files are in the Trash; Undo brings them back byte-identical. New token asks
// through the same confirmation.

const scoreboardPage = "<!doctype html><title>Scoreboard</title><script>webMcp.ready()</script><p>0 : 0"

type viewerState struct {
	Title    string `json:"title"`
	Meta     string `json:"meta"`
	FileSave bool   `json:"fileSave"` // enabled
	TopSave  bool   `json:"topSave"`
	SaveText string `json:"saveText"`
	Delete   bool   `json:"delete"` // shown
	Notices  string `json:"notices"`
}

const readViewer = `
	const $ = (id) => document.getElementById(id);
	return {title: $("file-title").textContent, meta: $("file-meta").textContent,
		fileSave: !$("file-save").disabled, topSave: !$("save-page").disabled, saveText: $("file-save").textContent,
		delete: !$("file-delete").hidden, notices: $("notices").textContent};`

func caseViewerSaveDeleteUndo(t *testing.T, p page, s *server) {
	file := filepath.Join(s.workspace, "scoreboard.html")
	if err := os.WriteFile(file, []byte(scoreboardPage), 0o644); err != nil {
		t.Fatal(err)
	}
	row := `document.querySelector('#page-list button[data-app-id="page_scoreboard"]')`
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the new page in the list", "return !!"+row+";")
	eval(t, p, nil, "%s.click();", row)
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the viewer on the page",
		`return document.getElementById("file-meta").textContent.startsWith("page · workspace");`)
	var v viewerState
	eval(t, p, &v, readViewer)
	if !v.FileSave || !v.TopSave || v.SaveText != "Save to Shelf" {
		t.Fatalf("a page in the viewer: %+v, want both Save buttons on", v)
	}

	// Save to Shelf: the viewer follows the entry.
	eval(t, p, nil, `document.getElementById("file-save").click();`)
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the viewer to show the saved app",
		`return document.getElementById("file-meta").textContent.startsWith("app · workspace");`)
	eval(t, p, &v, readViewer)
	if v.FileSave || v.TopSave || v.SaveText != "On the Shelf" || v.Title != "Scoreboard" || !v.Delete {
		t.Fatalf("after Save to Shelf: %+v, want the app with both Save buttons off", v)
	}
	if !strings.Contains(v.Notices, "Saved “Scoreboard” to the shelf.") || strings.Contains(v.Notices, "app_scoreboard") {
		t.Fatalf("the toast says %q, want the title and no internal id", v.Notices)
	}
	shelf := filepath.Join(s.data, "mini-apps")
	originals := map[string]string{file: scoreboardPage,
		filepath.Join(shelf, "scoreboard.html"): scoreboardPage, filepath.Join(shelf, "scoreboard.meta.json"): ""}
	for path := range originals {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("after the save: %v", err)
		}
		originals[path] = string(b)
	}

	// Delete: the room asks in a dialog of its own. Escape and Cancel keep everything.
	type dialogState struct {
		Open    bool   `json:"open"`
		Title   string `json:"title"`
		OK      string `json:"ok"`
		Focused string `json:"focused"`
	}
	const readDialog = `const d = document.getElementById("confirm-dialog");
		return d ? {open: d.open, title: document.getElementById("confirm-title").textContent,
			ok: document.getElementById("confirm-ok").textContent, focused: document.activeElement.id} : {open: false};`
	var d dialogState
	for _, dismiss := range []string{
		`document.getElementById("confirm-dialog").dispatchEvent(new KeyboardEvent("keydown", {key: "Escape", bubbles: true}));`,
		`document.getElementById("confirm-cancel").click();`,
	} {
		eval(t, p, nil, `document.getElementById("file-delete").click();`)
		waitTrue(t, p, 5*time.Second, 50*time.Millisecond, "the confirmation", `const d = document.getElementById("confirm-dialog"); return !!d && d.open;`)
		eval(t, p, &d, readDialog)
		if d.Title != "Move “Scoreboard” to the Trash?" || d.OK != "Move to Trash" || d.Focused != "confirm-ok" {
			t.Fatalf("confirmation: %+v", d)
		}
		// Tab and Shift+Tab stay inside.
		var ring []string
		eval(t, p, &ring, `const d = document.getElementById("confirm-dialog"), out = [];
			for (const shiftKey of [false, false, true]) {
				d.dispatchEvent(new KeyboardEvent("keydown", {key: "Tab", shiftKey, bubbles: true, cancelable: true}));
				out.push(document.activeElement.id);
			}
			return out;`)
		if strings.Join(ring, ",") != "confirm-cancel,confirm-ok,confirm-cancel" {
			t.Fatalf("Tab in the confirmation went %v", ring)
		}
		eval(t, p, nil, "%s", dismiss)
		eval(t, p, &d, readDialog)
		if d.Open {
			t.Fatalf("still open after %s", dismiss)
		}
	}
	for path, want := range originals {
		if b, err := os.ReadFile(path); err != nil || string(b) != want {
			t.Fatalf("a dismissed confirmation changed %s (%v)", path, err)
		}
	}

	// Enter confirms: the three files go to the Trash, each with its .trashinfo.
	eval(t, p, nil, `document.getElementById("file-delete").click();`)
	waitTrue(t, p, 5*time.Second, 50*time.Millisecond, "the confirmation", `const d = document.getElementById("confirm-dialog"); return !!d && d.open;`)
	eval(t, p, nil, `document.getElementById("confirm-dialog").dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", bubbles: true}));`)
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the Undo toast", `return !!document.getElementById("undo-toast");`)
	infos, _ := filepath.Glob(filepath.Join(s.trash(), "info", "*.trashinfo"))
	var paths []string
	for _, info := range infos {
		b, _ := os.ReadFile(info)
		paths = append(paths, string(b))
	}
	for path := range originals {
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s is still in place", path)
		}
		if !strings.Contains(strings.Join(paths, ""), "\nPath="+path+"\n") {
			t.Errorf("no .trashinfo names %s: %q", path, paths)
		}
	}
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the page gone from the list", "return !"+row+";")

	// Undo: everything back, byte for byte, and listed as the app again.
	eval(t, p, nil, `document.getElementById("undo-delete").click();`)
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the toast to go", `return !document.getElementById("undo-toast");`)
	for path, want := range originals {
		if b, err := os.ReadFile(path); err != nil || string(b) != want {
			t.Errorf("%s after Undo: %v, equal %v", path, err, string(b) == want)
		}
	}
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the app back in the tray",
		`return [...document.querySelectorAll("#sqeh-actions .bubble")].some((b) => b.dataset.appId === "app_scoreboard");`)

	// New token asks through the same confirmation, over the Settings dialog: Cancel keeps the token,
	// the named button makes a new one.
	var before, after struct {
		Token string `json:"token"`
	}
	s.call(t, &before, "MCPService.Status")
	for _, answer := range []string{"confirm-cancel", "confirm-ok"} {
		eval(t, p, nil, `document.getElementById("open-settings").click();
			for (let i = 0; i < 100 && !document.getElementById("mcp-token-rotate")?.isConnected; i++) await new Promise((r) => setTimeout(r, 50));
			document.getElementById("mcp-token-rotate").click();`)
		waitTrue(t, p, 5*time.Second, 50*time.Millisecond, "the New token confirmation",
			`const d = document.getElementById("confirm-dialog"); return !!d && d.open && document.getElementById("settings-dialog").open && document.getElementById("confirm-ok").textContent === "Make New Token";`)
		eval(t, p, nil, `document.getElementById(%s).click();`, js(answer))
		if answer == "confirm-cancel" {
			s.call(t, &after, "MCPService.Status")
			if after.Token != before.Token { // "" while MCP has never been on: New token makes the first one
				t.Fatalf("Cancel changed the token (%q → %q)", before.Token, after.Token)
			}
		}
		eval(t, p, nil, `document.getElementById("settings-dialog").close();`)
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.call(t, &after, "MCPService.Status"); after.Token == before.Token; s.call(t, &after, "MCPService.Status") {
		if time.Now().After(deadline) {
			t.Fatal("Make New Token did not change the token")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Leave the server as the other cases expect it.
	var gone struct {
		Undo string `json:"undo"`
	}
	if st := s.call(t, &gone, "StoreService.Delete", "app_scoreboard"); st != 200 || gone.Undo == "" {
		t.Fatalf("clean-up delete: %d", st)
	}
}

// trash is the server's home trash ($XDG_DATA_HOME/Trash, set by startServer).
func (s *server) trash() string {
	return filepath.Join(filepath.Dir(s.workspace), ".local", "share", "Trash")
}
