//go:build linux

package trash

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// otherFS mounts a small tmpfs of the test's own (root may; it is unmounted at the end): a second
// filesystem beside t.TempDir, where the home trash of these tests lives.
func otherFS(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=8m,mode=0755"); err != nil {
		t.Skipf("these cases need a second filesystem and mounting a tmpfs was refused (%v); run as root", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// A file on another filesystem than the home trash goes to that filesystem's own can at its top
// directory (never copied across), with Path relative to the top; it comes back from there.
func TestOtherFilesystemUsesItsTopCan(t *testing.T) {
	mnt := otherFS(t)
	home := filepath.Join(t.TempDir(), "Trash")
	src := filepath.Join(mnt, "ws", "sub")
	write(t, filepath.Join(src, "far.html"), "far")
	b := Bins{Home: home, Fallback: filepath.Join(t.TempDir(), "data", "trash")}
	it, err := b.Move(open(t, src), src, "far.html")
	if err != nil {
		t.Fatal(err)
	}
	can := filepath.Join(mnt, ".Trash-"+strconv.Itoa(os.Getuid()))
	if it.Trashed != filepath.Join(can, "files", "far.html") {
		t.Fatalf("moved to %s, want the top directory's can %s", it.Trashed, can)
	}
	if p, _ := trashInfo(t, it.Info()); p != "ws/sub/far.html" {
		t.Fatalf("Path %q, want it relative to the top directory", p)
	}
	if fi, err := os.Lstat(can); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("%s: %v %v, want a 0700 folder", can, fi.Mode(), err)
	}
	if _, err := os.Stat(home); err == nil {
		t.Fatal("the home trash was made for a file it cannot take")
	}
	if err := Restore([]Target{{open(t, src), it}}); err != nil || read(t, filepath.Join(src, "far.html")) != "far" {
		t.Fatalf("restore: %v", err)
	}
}

// When the top directory's can is unsafe (a planted link), the data folder's can takes the file if it
// is on the same filesystem; if it is not, nothing moves.
func TestOtherFilesystemFallback(t *testing.T) {
	mnt := otherFS(t)
	home := filepath.Join(t.TempDir(), "Trash")
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(mnt, ".Trash-"+strconv.Itoa(os.Getuid()))); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(mnt, "ws")
	write(t, filepath.Join(src, "a.html"), "a")

	_, err := Bins{Home: home, Fallback: filepath.Join(t.TempDir(), "trash")}.Move(open(t, src), src, "a.html")
	if !errors.Is(err, ErrUnavailable) || read(t, filepath.Join(src, "a.html")) != "a" {
		t.Fatalf("no can on the file's filesystem: %v, want %v with the file in place", err, ErrUnavailable)
	}
	fallback := filepath.Join(mnt, "data", "trash")
	it, err := Bins{Home: home, Fallback: fallback}.Move(open(t, src), src, "a.html")
	if err != nil || it.Trashed != filepath.Join(fallback, "files", "a.html") {
		t.Fatalf("fallback on the same filesystem: %+v %v", it, err)
	}
	if p, _ := trashInfo(t, it.Info()); p != filepath.Join(src, "a.html") {
		t.Fatalf("Path %q, want absolute", p)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Fatalf("wrote through the planted link: %v", entries)
	}
}
