package desktop

// Delete and New token in the real window (issue 15, broken flow 1). Both asked window.confirm(), which the
// desktop's WebKit answers "no" without showing anything, so neither did anything. Now the room asks in a
// dialog of its own: the test presses the File Viewer's Delete, sees the confirmation, confirms with Enter,
// finds the page in the freedesktop.org Trash ($XDG_DATA_HOME/Trash, with its .trashinfo), presses Undo and
// gets it back byte-identical; then New token in Settings: Escape keeps the token, Enter makes a new one and
// the MCP server refuses the old one.
//
// Where things are is measured from the room's layout at 1280×820 with one page in the workspace and an
// empty shelf (as keyboard_test.go and mic_test.go do); every step waits for what it caused to show on the
// screen or on disk, and keeps screenshots (VOICEBOX_SCREENSHOTS).

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var (
	trashAtPage     = pt{44, 480}  // the Pages list's first row (below New App, the filter and the first-run card)
	trashAtDelete   = pt{846, 135} // the File Viewer's Delete
	trashAtDialog   = pt{640, 440} // the middle of the window, where a confirmation shows
	trashAtUndo     = pt{571, 785} // the Undo toast's button, at the foot of the stage ("“Scores” moved to the Trash.")
	trashAtSettings = pt{1222, 50} // the top bar's Settings
	trashAtNewToken = pt{899, 722} // Settings › MCP › New token (below the voice and code models)

	controlBox = pt{300, 60} // the screen around a place that clickShowing watches: a button, a toast
)

const scoresPage = "<!doctype html><title>Scores</title><p>home 3 : 1 away"

// clickShowing clicks at w and waits for the screen around watch to change; it clicks again (the room
// may not have drawn the target yet) up to three times.
func (p pointer) clickShowing(w, watch pt, what string) {
	p.t.Helper()
	before := p.look(watch, controlBox)
	for try := 0; try < 3; try++ {
		p.press(w)
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if p.look(watch, controlBox) != before {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	shot := "missing-" + strings.Join(strings.Fields(what), "-") + ".png"
	p.t.Fatalf("%s did not show (screen: %s)", what, p.s.keepScreenshot(p.t, shot))
}

// waitFor polls cond (files on disk) for up to 15 s.
func waitFor(t *testing.T, what string, s *session, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s (screen: %s)", what, s.keepScreenshot(t, "trash-timeout.png"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestDeleteToTrashAndNewTokenThroughTheRoom(t *testing.T) {
	s := startSession(t)
	b := newBox(t, s, map[string]string{"scores.html": scoresPage})
	b.start(t, nil)
	win := s.window(t, b.app)
	home := ""
	for _, kv := range s.env {
		if v, ok := strings.CutPrefix(kv, "XDG_DATA_HOME="); ok {
			home = v
		}
	}
	can := filepath.Join(home, "Trash")
	p := pointer{t: t, s: s, win: win}
	deadline := time.Now().Add(20 * time.Second)
	for colours(s.screenshot(t)) <= 40 {
		if time.Now().After(deadline) {
			t.Fatal("the room never rendered")
		}
		time.Sleep(300 * time.Millisecond)
	}

	t.Run("delete to the Trash, then Undo", func(t *testing.T) {
		p.t = t
		page := filepath.Join(b.workspace, "scores.html")
		p.clickShowing(trashAtPage, trashAtDelete, "the File Viewer on the page")
		p.clickShowing(trashAtDelete, trashAtDialog, "the confirmation after Delete")
		s.keepScreenshot(t, "trash-confirm.png")
		viewer := p.look(trashAtUndo, controlBox)
		p.key("Return")
		trashed, info := filepath.Join(can, "files", "scores.html"), filepath.Join(can, "info", "scores.html.trashinfo")
		waitFor(t, "the page never reached the Trash", s, func() bool {
			_, err1 := os.Stat(trashed)
			_, err2 := os.Stat(page)
			return err1 == nil && os.IsNotExist(err2)
		})
		raw, err := os.ReadFile(info)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(raw), "\n")
		orig, _ := url.PathUnescape(strings.TrimPrefix(lines[1], "Path="))
		if lines[0] != "[Trash Info]" || orig != page || !strings.HasPrefix(lines[2], "DeletionDate=") {
			t.Fatalf(".trashinfo: %q", raw)
		}
		if got, _ := os.ReadFile(trashed); string(got) != scoresPage {
			t.Fatalf("in the Trash: %q", got)
		}
		// The room closes the viewer and shows the toast in one go, after Go answered.
		waitFor(t, "no Undo toast", s, func() bool { return p.look(trashAtUndo, controlBox) != viewer })
		s.keepScreenshot(t, "trash-undo-toast.png")
		p.clickShowing(trashAtUndo, trashAtUndo, "the Undo toast going away")
		waitFor(t, "Undo did not bring the page back", s, func() bool {
			got, err := os.ReadFile(page)
			return err == nil && string(got) == scoresPage
		})
		for _, f := range []string{trashed, info} {
			if _, err := os.Stat(f); !os.IsNotExist(err) {
				t.Errorf("%s is still in the Trash (%v)", f, err)
			}
		}
		s.keepScreenshot(t, "trash-restored.png")
	})

	t.Run("New token", func(t *testing.T) {
		p.t = t
		token := func() (string, string) {
			var d struct{ URL, Token string }
			raw, _ := os.ReadFile(filepath.Join(b.data, "mcp.json"))
			json.Unmarshal(raw, &d)
			return d.URL, d.Token
		}
		_, old := token()
		if old == "" {
			t.Fatal("no MCP token in mcp.json")
		}
		p.clickShowing(trashAtSettings, trashAtNewToken, "Settings")
		p.clickShowing(trashAtNewToken, trashAtDialog, "the confirmation after New token")
		s.keepScreenshot(t, "token-confirm.png")
		shown := p.look(trashAtDialog, controlBox)
		p.key("Escape")
		waitFor(t, "Escape did not close the confirmation", s, func() bool { return p.look(trashAtDialog, controlBox) != shown })
		if _, now := token(); now != old {
			t.Fatal("Escape made a new token")
		}
		p.clickShowing(trashAtNewToken, trashAtDialog, "the confirmation after New token, again")
		p.key("Return")
		waitFor(t, "Enter did not make a new token", s, func() bool { _, now := token(); return now != "" && now != old })
		status := func(mcpURL, tok string) int {
			req, _ := http.NewRequest("POST", mcpURL, strings.NewReader(`{}`))
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			return res.StatusCode
		}
		mcpURL, fresh := token() // the server may listen anew
		if st := status(mcpURL, old); st != http.StatusUnauthorized {
			t.Errorf("the old token still gets %d, want 401", st)
		}
		if st := status(mcpURL, fresh); st == http.StatusUnauthorized {
			t.Errorf("the new token is refused")
		}
	})
}
