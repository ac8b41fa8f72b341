package desktop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSeveralFilesOpenAsSeveralApps: `voicebox a.html b.html c.html` opens all three as mini-apps, and a
// second launch with two more files hands both over (issue 15, broken #2). On main only the last file of
// each opened; the others were only listed under Opened Files.
func TestSeveralFilesOpenAsSeveralApps(t *testing.T) {
	s := startSession(t)
	b := newBox(t, s, nil)
	dir := t.TempDir()
	page := func(title string) string {
		p := filepath.Join(dir, strings.ToLower(strings.ReplaceAll(title, " ", "-"))+".html")
		html := "<!doctype html><title>" + title + "</title><script>webMcp.registerTool({name: 'hello', description: 'Says hello', " +
			"parameters: {type: 'object'}, execute: () => 'hello'}); webMcp.ready();</script>"
		if err := os.WriteFile(p, []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	b.start(t, nil, page("First File"), page("Second File"), page("Third File"))
	s.window(t, b.app)
	cs := b.mcpClient(t)
	have := func(titles ...string) func([]openApp) bool {
		return func(apps []openApp) bool {
			for _, title := range titles {
				if a, ok := findApp(apps, title); !ok || len(a.Tools) != 1 {
					return false
				}
			}
			return len(apps) == len(titles)
		}
	}
	waitOpen(t, cs, 30*time.Second, "three apps from the command line", have("First File", "Second File", "Third File"))

	second := s.start(t, "--workspace", b.workspace, "--data", b.data, page("Fourth File"), page("Fifth File"))
	select {
	case <-second.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the second launch did not hand over and exit")
	}
	waitOpen(t, cs, 30*time.Second, "the two handed-over files open too",
		have("First File", "Second File", "Third File", "Fourth File", "Fifth File"))
}
