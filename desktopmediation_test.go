package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voicebox/voicebox/backend/guard"
	"github.com/voicebox/voicebox/backend/sandbox"
)

// A download by navigation the guard refused, or whose bytes the Save refuses, is a failed line in the
// activity log with the reason, and the guard's private folder is gone either way. (The saved case, through
// the native dialog, is tests/desktop TestBlobNavigationThroughTheSaveDialog.)
func TestNavigationDownloadRefusals(t *testing.T) {
	h, _ := testHost(t)
	a := &App{host: h}
	a.navigationDownload(guard.Download{Name: "x.txt", Refused: "needs-gesture", Message: "a download needs the person's click in the app"})

	dir := t.TempDir()
	folder := filepath.Join(dir, "voicebox-download-1")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(folder, "bytes")
	if err := os.WriteFile(big, make([]byte, sandbox.MaxDownloadBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	a.navigationDownload(guard.Download{Path: big, Name: "../big.bin"})
	if _, err := os.Stat(folder); !os.IsNotExist(err) {
		t.Errorf("the guard's folder is still there: %v", err)
	}

	lines := h.Activity.List()
	if len(lines) != 2 {
		t.Fatalf("activity: %+v, want 2 lines", lines)
	}
	for i, want := range []string{`Refused (needs-gesture): a download needs the person's click`, `Not saved: the download is 67108865 bytes, over the limit of 67108864`} {
		l := lines[i]
		if l.What != "download" || !l.Failed || !strings.Contains(string(l.Outcome), want) {
			t.Errorf("line %d: %+v, want a failed download %q", i, l, want)
		}
	}
	if in := string(lines[1].Input); in != `"big.bin"` {
		t.Errorf("the name is %s, want it cleaned to big.bin", in)
	}
}
