package e2e

import (
	"strings"
	"testing"
	"time"
)

// caseBlobNavigation: a page that saves by navigating its own frame to a blob: URL (`location =
// URL.createObjectURL(blob)`), in a browser (docs/webmcp.md, "What the room does for a page"). The
// bridge's frame-src refuses the navigation there (the desktop's guard makes it a download instead,
// tests/desktop TestBlobNavigationThroughTheSaveDialog); the person is told why nothing was saved and
// what works, and the app works afterwards: Chromium replaced its document with an error page, which the
// bridge replaces with the app again; WebKit kept the document, and it must keep it (the person's work is
// in it). The person tries twice: WebKit fires the frame's load event for a refused navigation, before or
// after the app's hello by chance, and a bridge that takes that load for a new document forgets the app's
// tools (or reloads it) on the first or the second try, whichever order the engine chose.
func caseBlobNavigation(t *testing.T, p page, chromium bool) {
	const refused = "tried to save a file by opening it (a blob: URL)"
	app := launch(t, p, "blobnav.html")
	id := app.AppID
	waitTools(t, p, id, "load_id,rect")
	before := callTool(t, p, id, "load_id", map[string]any{})
	wantOK(t, "load_id", before, "")
	for try := 1; try <= 2; try++ {
		if try == 2 && chromium {
			loadIDAfter(t, p, id, before, chromium) // the app again, after the error page
		}
		clickInApp(t, p, id, "#save")
		for deadline := time.Now().Add(10 * time.Second); strings.Count(notices(t, p, id), refused) < try; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: try %d: no notice; the notices are:\n%s", p.name(), try, notices(t, p, id))
			}
		}
	}
	after := loadIDAfter(t, p, id, before, chromium)
	stayed := string(after.Result) == string(before.Result)
	if !chromium && !stayed {
		t.Fatalf("%s: the app was reloaded (load id %s, was %s): the person's work in it is lost", p.name(), after.Result, before.Result)
	}
	t.Logf("%s: the app's document %s (load id %s, was %s)", p.name(),
		map[bool]string{true: "stayed", false: "was reloaded"}[stayed], after.Result, before.Result)
}

// loadIDAfter waits for the app to answer load_id again, from a new document where Chromium showed its
// error page.
func loadIDAfter(t *testing.T, p page, id string, before outcome, chromium bool) outcome {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		after := callTool(t, p, id, "load_id", map[string]any{})
		if after.OK && (!chromium || string(after.Result) != string(before.Result)) {
			return after
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the app does not answer after its blob: navigation was refused: %+v", p.name(), after)
		}
	}
}
