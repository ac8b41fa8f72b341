package desktop

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// blobPage saves by navigating its own frame to a blob: URL, the way many pages do without a link: the
// person's click on the coloured page runs the next of `location = url`, `location.replace(url)` and a
// blob over the download bound. Its tools: "quiet_blob" navigates from script (no person), "foreign_blob"
// to a blob: URL of another origin, "load_id" says which document answers.
const blobPage = `<!doctype html><title>Blob Saver</title>
<style>body { margin: 0; height: 100vh; background: rgb(23, 181, 97) }</style>
<script>
const loadId = String(Math.random());
const bytes = () => new Blob([new Uint8Array([0, 1, 2, 254, 255, 13, 10]), "blob ✓ saved"], {type: "application/octet-stream"});
const saves = [
  () => { location = URL.createObjectURL(bytes()); },
  () => { location.replace(URL.createObjectURL(new Blob(["replaced"]))); },
  () => { location.href = URL.createObjectURL(new Blob([new Uint8Array(` + maxDownload + ` + 1)])); },
];
let next = 0;
document.addEventListener("click", () => saves[next++ % saves.length]());
webMcp.registerTool({name: "quiet_blob", description: "Navigate to a blob: URL from script", parameters: {type: "object"},
  execute: () => { location = URL.createObjectURL(bytes()); return "navigated"; }});
webMcp.registerTool({name: "foreign_blob", description: "Navigate to another origin's blob: URL", parameters: {type: "object"},
  execute: () => { location = "blob:http://127.0.0.1:9/5b1f0a39-0000-4000-8000-000000000000"; return "navigated"; }});
webMcp.registerTool({name: "load_id", description: "Which document answers", parameters: {type: "object"}, execute: () => loadId});
</script>`

// maxDownload is sandbox.MaxDownloadBytes, as the page's script writes it.
const maxDownload = "64 * 1024 * 1024"

// TestBlobNavigationThroughTheSaveDialog: in the desktop a mini-app that navigates its frame to one of its
// blob: URLs gets the Save dialog, as a download link does (docs/webmcp.md, "What the room does for a page"):
// the guard makes the navigation a download (backend/guard/blobdownload.c). The saved file holds the blob's
// exact bytes and the app's document stays (its tools answer, from the same document). No dialog without
// the person's click, for a blob: URL of another origin, or past the download bound.
func TestBlobNavigationThroughTheSaveDialog(t *testing.T) {
	d := openOneApp(t, "saver.html", blobPage)
	s, b, win, cs, a := d.s, d.box, d.win, d.cs, d.app
	loadID := func() string {
		t.Helper()
		text, refused := toolText(t, cs, 20*time.Second, toolNamed(t, a, "load_id"), map[string]any{})
		if refused {
			t.Fatalf("load_id after the download: %s (the app's document is gone)", text)
		}
		return text
	}
	first := loadID()
	sameDocument := func(after string) {
		t.Helper()
		if got := loadID(); got != first {
			t.Fatalf("after %s the app answered from another document (%s, was %s)", after, got, first)
		}
	}
	refusedWith := func(what, line string) {
		t.Helper()
		if _, ok := b.waitLog(t, line, 10*time.Second); !ok {
			t.Fatalf("%s: the guard did not refuse it (%q not in the log)", what, line)
		}
		if d := s.saveDialogOpen(t); d != "" {
			t.Fatalf("%s opened the Save dialog", what)
		}
	}
	want := append([]byte{0, 1, 2, 254, 255, 13, 10}, "blob ✓ saved"...)
	if got := clickToSave(t, s, win, 23, 181, 97); !bytes.Equal(got, want) {
		t.Fatalf("location = blob: saved %q, want the blob's bytes %q", got, want)
	}
	sameDocument("the download")
	if got := clickToSave(t, s, win, 23, 181, 97); string(got) != "replaced" {
		t.Fatalf("location.replace(blob:) saved %q", got)
	}
	for _, tool := range []string{"quiet_blob", "foreign_blob"} {
		if text, refused := toolText(t, cs, 20*time.Second, toolNamed(t, a, tool), map[string]any{}); refused {
			t.Fatalf("%s: %s", tool, text)
		}
	}
	refusedWith("a navigation without the person", "Refused (needs-gesture)")
	// Another origin's blob: URL: WebKit refuses the navigation before the guard's policy (measured), and
	// the guard would refuse it too (download-refused). Either way nothing is downloaded.
	time.Sleep(2 * time.Second)
	if n := strings.Count(b.output(), "download by navigation: "); n != 3 || s.saveDialogOpen(t) != "" {
		t.Fatalf("another origin's blob: URL was downloaded (%d downloads logged)", n)
	}

	clickColour(t, s, win, 23, 181, 97)
	refusedWith("a blob over the bound", "Refused (download-too-large)")
	sameDocument("the refusals")
	if n := strings.Count(b.output(), "download by navigation: "); n != 4 {
		t.Fatalf("%d downloads by navigation logged, want 4 (a quiet one refused, 2 saved, 1 too large)", n)
	}
}
