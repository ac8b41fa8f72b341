package e2e

import (
	"testing"
	"time"
)

// caseBlobNavigation: a page that saves by navigating its own frame to a blob: URL (`location =
// URL.createObjectURL(blob)`), in a browser (docs/webmcp.md, "What the room does for a page"). The
// bridge's frame-src refuses the navigation there (the desktop's guard makes it a download instead,
// tests/desktop TestBlobNavigationThroughTheSaveDialog); the person is told why nothing was saved and
// what works, and the app works afterwards: Chromium replaced its document with an error page, which the
// bridge replaces with the app again; WebKit kept the document.
func caseBlobNavigation(t *testing.T, p page, chromium bool) {
	app := launch(t, p, "blobnav.html")
	id := app.AppID
	waitTools(t, p, id, "load_id,rect")
	before := callTool(t, p, id, "load_id", map[string]any{})
	wantOK(t, "load_id", before, "")
	clickInApp(t, p, id, "#save")
	waitNotice(t, p, id, "tried to save a file by opening it (a blob: URL)")
	var after outcome
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		after = callTool(t, p, id, "load_id", map[string]any{})
		if after.OK && (!chromium || string(after.Result) != string(before.Result)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the app does not answer after its blob: navigation was refused: %+v", p.name(), after)
		}
	}
	// Chromium: the error page came and went, so the answer is a new document's.
	t.Logf("%s: the app's document %s (load id %s, was %s)", p.name(),
		map[bool]string{true: "stayed", false: "was reloaded"}[string(after.Result) == string(before.Result)], after.Result, before.Result)
}
