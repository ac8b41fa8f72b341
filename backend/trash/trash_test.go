package trash

import (
	"bytes"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/tests/testfs"
)

// open opens a folder for Move and Restore, closed when the test ends.
func open(t *testing.T, dir string) *os.File {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// write and read are the shared file steps (tests/testfs).
var (
	write = testfs.Write
	read  = testfs.Read
)

func gone(p string) bool {
	_, err := os.Lstat(p)
	return errors.Is(err, os.ErrNotExist)
}

// trashInfo reads a .trashinfo as the specification lays it out and returns its decoded Path and date.
func trashInfo(t *testing.T, p string) (string, time.Time) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(read(t, p), "\n"), "\n")
	if len(lines) != 3 || lines[0] != "[Trash Info]" || !strings.HasPrefix(lines[1], "Path=") || !strings.HasPrefix(lines[2], "DeletionDate=") {
		t.Fatalf("%s is not a .trashinfo: %q", p, lines)
	}
	raw := strings.TrimPrefix(lines[1], "Path=")
	for _, c := range raw {
		if c == ' ' || c > 0x7e {
			t.Fatalf("Path %q is not percent-encoded", raw)
		}
	}
	path, err := url.PathUnescape(raw)
	if err != nil {
		t.Fatalf("Path %q: %v", raw, err)
	}
	when, err := time.ParseInLocation("2006-01-02T15:04:05", strings.TrimPrefix(lines[2], "DeletionDate="), time.Local)
	if err != nil {
		t.Fatalf("DeletionDate: %v", err)
	}
	return path, when
}

func TestMoveToHomeTrashAndBack(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "xdg", "Trash") // made on first use
	src := filepath.Join(base, "my work")
	name := "Score board ✓ 100%.html"
	write(t, filepath.Join(src, name), "<title>v1</title>")
	b := Bins{Home: home, Fallback: filepath.Join(base, "data", "trash")}

	before := time.Now().Truncate(time.Second)
	it, err := b.Move(open(t, src), src, name)
	if err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	if want := filepath.Join(home, "files", name); it.Trashed != want || it.Original != filepath.Join(src, name) || it.Dir {
		t.Fatalf("item %+v, want it in %s", it, want)
	}
	if !gone(filepath.Join(src, name)) || read(t, it.Trashed) != "<title>v1</title>" {
		t.Fatal("the file did not move into the home trash intact")
	}
	if it.Info() != filepath.Join(home, "info", name+".trashinfo") {
		t.Fatalf("info at %s", it.Info())
	}
	path, when := trashInfo(t, it.Info())
	if path != filepath.Join(src, name) {
		t.Fatalf("Path %q, want the absolute original %q", path, filepath.Join(src, name))
	}
	if when.Before(before) || when.After(after) {
		t.Fatalf("DeletionDate %v not between %v and %v", when, before, after)
	}
	if raw := read(t, it.Info()); !strings.Contains(raw, "Score%20board%20%E2%9C%93%20100%25.html") {
		t.Fatalf("Path not escaped as the specification asks: %q", raw)
	}
	for _, sub := range []string{"files", "info"} {
		if fi, err := os.Stat(filepath.Join(home, sub)); err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v %v, want a 0700 folder", sub, fi.Mode(), err)
		}
	}
	if _, err := os.Stat(b.Fallback); err == nil {
		t.Fatal("the fallback can was made although the home trash took the file")
	}

	if err := Restore([]Target{{Dir: open(t, src), Item: it}}); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(src, name)) != "<title>v1</title>" || !gone(it.Trashed) || !gone(it.Info()) {
		t.Fatal("restore did not put the file back and clear the can")
	}
	if err := Restore([]Target{{Dir: open(t, src), Item: it}}); !errors.Is(err, ErrGone) {
		t.Fatalf("second restore: %v, want %v", err, ErrGone)
	}
}

func TestSameNameTwiceAndFolders(t *testing.T) {
	base := t.TempDir()
	b := Bins{Home: filepath.Join(base, "Trash")}
	one, two := filepath.Join(base, "one"), filepath.Join(base, "two")
	write(t, filepath.Join(one, "a.html"), "one")
	write(t, filepath.Join(two, "a.html"), "two")
	write(t, filepath.Join(two, "app", "index.html"), "index")
	write(t, filepath.Join(two, "app", "img", "x.svg"), "<svg/>")

	i1, err1 := b.Move(open(t, one), one, "a.html")
	i2, err2 := b.Move(open(t, two), two, "a.html")
	i3, err3 := b.Move(open(t, two), two, "app")
	if err1 != nil || err2 != nil || err3 != nil {
		t.Fatal(err1, err2, err3)
	}
	if filepath.Base(i1.Trashed) != "a.html" || filepath.Base(i2.Trashed) != "a.2.html" {
		t.Fatalf("names in the can: %s, %s", i1.Trashed, i2.Trashed)
	}
	if p, _ := trashInfo(t, i2.Info()); p != filepath.Join(two, "a.html") || read(t, i2.Trashed) != "two" {
		t.Fatalf("second a.html: Path %s, content %q", p, read(t, i2.Trashed))
	}
	if !i3.Dir || read(t, filepath.Join(i3.Trashed, "img", "x.svg")) != "<svg/>" || !gone(filepath.Join(two, "app")) {
		t.Fatalf("the folder did not move whole: %+v", i3)
	}
	if err := Restore([]Target{{open(t, two), i3}, {open(t, two), i2}}); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(two, "app", "index.html")) != "index" || read(t, filepath.Join(two, "a.html")) != "two" || read(t, i1.Trashed) != "one" {
		t.Fatal("restore mixed up the items")
	}
}

// A batch comes back all or nothing: one occupied path refuses the whole batch and changes nothing.
func TestRestoreRefusedWhenThePathIsTakenAgain(t *testing.T) {
	base := t.TempDir()
	b := Bins{Home: filepath.Join(base, "Trash")}
	src := filepath.Join(base, "src")
	write(t, filepath.Join(src, "x.html"), "x")
	write(t, filepath.Join(src, "x.meta.json"), "{}")
	dir := open(t, src)
	a, err := b.Move(dir, src, "x.html")
	if err != nil {
		t.Fatal(err)
	}
	m, err := b.Move(dir, src, "x.meta.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, occupant := range []func(p string) error{
		func(p string) error { return os.WriteFile(p, []byte("new"), 0o644) },
		func(p string) error { return os.Symlink("nowhere", p) }, // a dangling link counts too
	} {
		if err := occupant(filepath.Join(src, "x.html")); err != nil {
			t.Fatal(err)
		}
		err = Restore([]Target{{dir, m}, {dir, a}})
		if !errors.Is(err, ErrOccupied) || !strings.HasPrefix(err.Error(), "restore-path-taken: ") {
			t.Fatalf("restore over an occupied path: %v, want %v", err, ErrOccupied)
		}
		if !gone(filepath.Join(src, "x.meta.json")) || read(t, a.Trashed) != "x" || read(t, m.Trashed) != "{}" || gone(a.Info()) || gone(m.Info()) {
			t.Fatal("a refused restore changed something")
		}
		os.Remove(filepath.Join(src, "x.html"))
	}
	if err := Restore([]Target{{dir, m}, {dir, a}}); err != nil {
		t.Fatalf("restore once the path is free: %v", err)
	}
}

// An item the can no longer holds (emptied, then the name reused by another delete) is never restored
// in its place.
func TestRestoreChecksIdentity(t *testing.T) {
	base := t.TempDir()
	b := Bins{Home: filepath.Join(base, "Trash")}
	src := filepath.Join(base, "src")
	write(t, filepath.Join(src, "x.html"), "mine")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(src, "x.html"), old, old)
	dir := open(t, src)
	it, err := b.Move(dir, src, "x.html")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(it.Trashed)
	write(t, it.Trashed, "same") // most likely the same inode number, and the same size
	if err := Restore([]Target{{dir, it}}); !errors.Is(err, ErrGone) {
		t.Fatalf("restore of a replaced item: %v, want %v", err, ErrGone)
	}
	if !gone(filepath.Join(src, "x.html")) || read(t, it.Trashed) != "same" {
		t.Fatal("the refused restore moved something")
	}
}

// Without a home trash only the fallback can is used; with neither, nothing moves.
func TestFallbackOnlyAndNone(t *testing.T) {
	base := t.TempDir()
	src := filepath.Join(base, "src")
	write(t, filepath.Join(src, "x.html"), "x")
	it, err := Bins{Fallback: filepath.Join(base, "data", "trash")}.Move(open(t, src), src, "x.html")
	if err != nil || it.Trashed != filepath.Join(base, "data", "trash", "files", "x.html") {
		t.Fatalf("fallback: %+v %v", it, err)
	}
	write(t, filepath.Join(src, "y.html"), "y")
	_, err = Bins{}.Move(open(t, src), src, "y.html")
	if !errors.Is(err, ErrUnavailable) || read(t, filepath.Join(src, "y.html")) != "y" {
		t.Fatalf("no can: %v, want %v and the file in place", err, ErrUnavailable)
	}
	if _, err := (Bins{Fallback: filepath.Join(base, "t")}).Move(open(t, src), src, "../y.html"); err == nil {
		t.Fatal("a path with a separator was accepted as a name")
	}
}

// The specification's checks on a top directory's cans, on real folders: an administrator's sticky
// .Trash gets a per-user folder; a .Trash that is not sticky or is a link is never used; a planted
// .Trash-$uid link is refused.
func TestTopCanChecks(t *testing.T) {
	uid := strconv.Itoa(os.Getuid())
	t.Run("sticky .Trash", func(t *testing.T) {
		top := t.TempDir()
		if err := os.Mkdir(filepath.Join(top, ".Trash"), 0o777); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(top, ".Trash"), 0o777|os.ModeSticky)
		c, err := topCan(top)
		if err != nil || c.dir != filepath.Join(top, ".Trash", uid) || c.top != top {
			t.Fatalf("got %+v %v", c, err)
		}
	})
	t.Run("not sticky", func(t *testing.T) {
		top := t.TempDir()
		os.Mkdir(filepath.Join(top, ".Trash"), 0o777)
		c, err := topCan(top)
		if err != nil || c.dir != filepath.Join(top, ".Trash-"+uid) || !gone(filepath.Join(top, ".Trash", uid)) {
			t.Fatalf("got %+v %v", c, err)
		}
	})
	t.Run("linked .Trash", func(t *testing.T) {
		top, elsewhere := t.TempDir(), t.TempDir()
		os.Chmod(elsewhere, 0o777|os.ModeSticky)
		os.Symlink(elsewhere, filepath.Join(top, ".Trash"))
		c, err := topCan(top)
		if err != nil || c.dir != filepath.Join(top, ".Trash-"+uid) || !gone(filepath.Join(elsewhere, uid)) {
			t.Fatalf("got %+v %v", c, err)
		}
	})
	t.Run("planted .Trash-uid link", func(t *testing.T) {
		top, elsewhere := t.TempDir(), t.TempDir()
		os.Symlink(elsewhere, filepath.Join(top, ".Trash-"+uid))
		if c, err := topCan(top); !errors.Is(err, errNotHere) {
			t.Fatalf("got %+v %v, want the link refused", c, err)
		}
		if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
			t.Fatalf("wrote through the link: %v", entries)
		}
	})
}

func TestNamesInTheCan(t *testing.T) {
	long := strings.Repeat("é", 130) + ".html" // 265 bytes
	for _, c := range []struct {
		name string
		i    int
		want string
	}{
		{"a.html", 1, "a.html"}, {"a.html", 2, "a.2.html"}, {"x.meta.json", 3, "x.meta.3.json"},
		{"app", 2, "app.2"}, {".hidden", 2, ".hidden.2"},
	} {
		if got := nameInCan(c.name, c.i); got != c.want {
			t.Errorf("nameInCan(%q, %d) = %q, want %q", c.name, c.i, got, c.want)
		}
	}
	for _, i := range []int{1, 12} {
		got := nameInCan(long, i)
		if len(got)+len(infoSuffix) > nameMax || !strings.HasSuffix(got, ".html") || !bytes.Equal([]byte(got), []byte(strings.ToValidUTF8(got, "?"))) {
			t.Errorf("nameInCan(long, %d) = %q (%d bytes)", i, got, len(got))
		}
	}
	if got := escapePath("/a b/ü%#?.html"); got != "/a%20b/%C3%BC%25%23%3F.html" {
		t.Errorf("escapePath: %s", got)
	}
}

// GLib's own trash (gio trash, what GNOME's Files uses) is the reference: the same file trashed by it
// and by Move gets the same name in the can and the same Path line, also on a name collision.
func TestSameCanLayoutAsGLib(t *testing.T) {
	gio, err := exec.LookPath("gio")
	if err != nil {
		t.Skip("gio (Debian package libglib2.0-bin) is not installed: no reference to compare with")
	}
	base := t.TempDir()
	src := filepath.Join(base, "my pages")
	names := []string{"Score board ✓ 100%.html", "Score board ✓ 100%.html", "a#b?c.html"}
	lines := func(can string) []string {
		var out []string
		entries, _ := os.ReadDir(filepath.Join(can, "info"))
		for _, e := range entries {
			body := read(t, filepath.Join(can, "info", e.Name()))
			out = append(out, e.Name()+" "+strings.Split(body, "\n")[1])
			if !exists(filepath.Join(can, "files", strings.TrimSuffix(e.Name(), infoSuffix))) {
				t.Errorf("%s has no file", e.Name())
			}
		}
		return out
	}
	theirs := filepath.Join(base, "gio")
	for _, n := range names {
		write(t, filepath.Join(src, n), "x")
		cmd := exec.Command(gio, "trash", filepath.Join(src, n))
		cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+theirs, "HOME="+base)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gio trash: %v %s", err, out)
		}
	}
	ours := Bins{Home: filepath.Join(base, "ours", "Trash")}
	for _, n := range names {
		write(t, filepath.Join(src, n), "x")
		if _, err := ours.Move(open(t, src), src, n); err != nil {
			t.Fatal(err)
		}
	}
	g, o := lines(filepath.Join(theirs, "Trash")), lines(ours.Home)
	if strings.Join(g, "\n") != strings.Join(o, "\n") || len(o) != 3 {
		t.Fatalf("GLib's can:\n%s\nours:\n%s", strings.Join(g, "\n"), strings.Join(o, "\n"))
	}
}

func exists(p string) bool { return !gone(p) }
