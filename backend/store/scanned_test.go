package store

import (
	"fmt"
	"path/filepath"
	"testing"
)

// Scanned says which folders are walked and how deep, as the walk does it: a workspace page one folder
// down is listed, two folders down is not (the tray says so where such a page would be expected).
func TestScannedSaysWhatIsWalked(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.ws, "a", "one.html"), "<title>One</title>")
	write(t, filepath.Join(e.ws, "a", "b", "two.html"), "<title>Two</title>")
	extra := filepath.Join(e.base, "homes")
	s := e.open(t, extra)
	got := fmt.Sprint(s.Scanned())
	written := filepath.Join(filepath.Dir(e.sandboxes), WrittenAppsDir)
	want := fmt.Sprint([]ScannedRoot{{"shelf", e.shelf, 0}, {"sandbox", e.sandboxes, 2}, {"sandbox", written, 2}, {"sandbox", extra, 2}, {"workspace", e.ws, 1}})
	if got != want {
		t.Fatalf("Scanned() = %s, want %s", got, want)
	}
	titles := map[string]bool{}
	for _, en := range s.List() {
		titles[en.Title] = true
	}
	if !titles["One"] || titles["Two"] {
		t.Fatalf("listed %v: want One (depth 1) and not Two (depth 2)", titles)
	}
	other := e.otherWorkspace(t, nil)
	if err := s.SetWorkspace(other); err != nil {
		t.Fatal(err)
	}
	if r := s.Scanned(); r[len(r)-1].Path != other {
		t.Fatalf("after SetWorkspace: %v", r)
	}
}
