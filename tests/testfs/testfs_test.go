package testfs

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// A tree holds every kind of entry without opening a FIFO; Changes names what was added, removed and
// changed, and nothing when the trees are the same.
func TestTreeAndChanges(t *testing.T) {
	dir := t.TempDir()
	Write(t, filepath.Join(dir, "a", "page.html"), "one")
	if err := os.Symlink("page.html", filepath.Join(dir, "a", "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := Tree(t, dir, filepath.Join(dir, "missing"))
	if before[dir] != "dir" || before[filepath.Join(dir, "a", "page.html")] != "file:one" ||
		before[filepath.Join(dir, "a", "link")] != "link:page.html" || before[filepath.Join(dir, "pipe")] == "" || len(before) != 5 {
		t.Fatalf("tree %q", before)
	}
	if c := Changes(before, Tree(t, dir)); len(c) != 0 {
		t.Fatalf("no change, yet %q", c)
	}
	Write(t, filepath.Join(dir, "a", "page.html"), "two")
	Write(t, filepath.Join(dir, "b.html"), "new")
	os.Remove(filepath.Join(dir, "pipe"))
	want := []string{"added " + filepath.Join(dir, "b.html"), "changed " + filepath.Join(dir, "a", "page.html"), "removed " + filepath.Join(dir, "pipe")}
	if got := Changes(before, Tree(t, dir)); !slices.Equal(got, want) {
		t.Fatalf("changes %q, want %q", got, want)
	}
	if Read(t, filepath.Join(dir, "b.html")) != "new" {
		t.Fatal("Read did not return what Write wrote")
	}
	Files(t, dir, map[string]string{"c/d/e.txt": "deep", "f.txt": "flat"})
	if Read(t, filepath.Join(dir, "c", "d", "e.txt")) != "deep" || Read(t, filepath.Join(dir, "f.txt")) != "flat" {
		t.Fatal("Files did not write its files under dir")
	}
}
