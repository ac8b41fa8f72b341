package store

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voicebox/voicebox/backend/config"
	"github.com/voicebox/voicebox/backend/trash"
)

// trashEnv is newEnv with the home trash that config resolves from XDG_DATA_HOME, pointed at a temp dir.
func trashEnv(t *testing.T) (env, string) {
	t.Helper()
	e := newEnv(t)
	xdg := filepath.Join(e.base, "xdg")
	p, err := config.Resolve(e.ws, e.data, func(k string) string {
		return map[string]string{"HOME": e.base, "XDG_DATA_HOME": xdg}[k]
	})
	if err != nil || p.Trash != filepath.Join(xdg, "Trash") {
		t.Fatalf("config: Trash %q %v", p.Trash, err)
	}
	return e, p.Trash
}

func (e env) openTrash(t *testing.T, home string) *Store {
	t.Helper()
	r := e.roots()
	r.Trash = home
	s, err := Open(r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// inTrash maps each original path in a can to the name its file has there, checking every .trashinfo.
func inTrash(t *testing.T, can string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, _ := os.ReadDir(filepath.Join(can, "info"))
	for _, en := range entries {
		body := read(t, filepath.Join(can, "info", en.Name()))
		lines := strings.Split(body, "\n")
		if len(lines) < 3 || lines[0] != "[Trash Info]" || !strings.HasPrefix(lines[2], "DeletionDate=") {
			t.Fatalf("%s: %q", en.Name(), body)
		}
		p, err := url.PathUnescape(strings.TrimPrefix(lines[1], "Path="))
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(en.Name(), ".trashinfo")
		if !exists(filepath.Join(can, "files", name)) {
			t.Fatalf("%s has no file in %s/files", en.Name(), can)
		}
		out[p] = name
	}
	return out
}

// A proven workspace app goes to the home trash whole (workspace file, shelf copy, record, each with its
// .trashinfo) and comes back byte-identical, listed as before.
func TestDeleteToTrashAndUndo(t *testing.T) {
	e, home := trashEnv(t)
	wsFile := filepath.Join(e.ws, "sub", "tool.html")
	write(t, wsFile, page("Tool ✓"))
	s := e.openTrash(t, home)
	if _, err := s.SaveRef("tool.html"); err != nil {
		t.Fatal(err)
	}
	shelfHTML, shelfMeta := filepath.Join(e.shelf, "tool.html"), filepath.Join(e.shelf, "tool.meta.json")
	before := map[string]string{wsFile: read(t, wsFile), shelfHTML: read(t, shelfHTML), shelfMeta: read(t, shelfMeta)}
	listed := dump(s.List())

	d, err := s.Delete("app_tool")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(d.Removed, ",") != strings.Join([]string{wsFile, shelfHTML, shelfMeta}, ",") || d.Undo == "" {
		t.Fatalf("deleted: %+v", d)
	}
	got := inTrash(t, home)
	if len(got) != 3 {
		t.Fatalf("in the trash: %v, want the three artifacts", got)
	}
	for i, p := range d.Removed {
		if exists(p) {
			t.Errorf("%s is still in place", p)
		}
		if name := got[p]; name == "" || filepath.Join(home, "files", name) != d.Trashed[i] || read(t, d.Trashed[i]) != before[p] {
			t.Errorf("%s: in the trash as %q (%s), bytes equal %v", p, name, d.Trashed[i], read(t, d.Trashed[i]) == before[p])
		}
	}
	if exists(filepath.Join(e.data, dataTrash)) {
		t.Error("the data folder's trash was made although the home trash took everything")
	}
	if len(s.List()) != 0 {
		t.Fatalf("still listed:\n%s", dump(s.List()))
	}

	restored, err := s.Restore(d.Undo)
	if err != nil || strings.Join(restored, ",") != strings.Join(d.Removed, ",") {
		t.Fatalf("Restore: %v %v", restored, err)
	}
	for p, b := range before {
		if read(t, p) != b {
			t.Errorf("%s came back different", p)
		}
	}
	if n := len(inTrash(t, home)); n != 0 {
		t.Errorf("%d items left in the trash", n)
	}
	if after := dump(s.List()); after != listed {
		t.Fatalf("listed after undo:\n%s want\n%s", after, listed)
	}
	if _, err := s.Restore(d.Undo); !errors.Is(err, trash.ErrGone) {
		t.Fatalf("second undo: %v, want %v", err, trash.ErrGone)
	}
}

// Undo refuses, changing nothing, when the original path holds something new; once it is free again,
// undo works.
func TestUndoRefusedWhenThePathWasReused(t *testing.T) {
	e, home := trashEnv(t)
	p := filepath.Join(e.ws, "notes.html")
	write(t, p, page("Notes"))
	s := e.openTrash(t, home)
	d, err := s.Delete("page_notes")
	if err != nil {
		t.Fatal(err)
	}
	write(t, p, page("New notes"))
	s.Rescan()
	wsBefore, trashBefore := tree(t, e.ws), tree(t, home)
	_, err = s.Restore(d.Undo)
	wantErr(t, err, trash.ErrOccupied)
	sameTree(t, wsBefore, tree(t, e.ws))
	sameTree(t, trashBefore, tree(t, home))
	if byID(t, s.List(), "page_notes").Title != "New notes" {
		t.Fatal("the new page is not the one listed")
	}
	os.Remove(p)
	if _, err := s.Restore(d.Undo); err != nil || read(t, p) != page("Notes") {
		t.Fatalf("undo once the path is free: %v", err)
	}
}

// The design's collision case both ways, through the trash: deleting the page takes only the page and
// deleting the app takes only its shelf copy and record; each undo brings back just that.
func TestCollisionThroughTheTrash(t *testing.T) {
	e, home := trashEnv(t)
	write(t, filepath.Join(e.ws, "collision.html"), page("Collision"))
	write(t, filepath.Join(e.shelf, "collision.html"), page("Collision"))
	writeMeta(t, e.shelf, "collision", map[string]any{"appId": "app_collision", "title": "Collision"})
	s := e.openTrash(t, home)
	listed := dump(s.List())

	shelfBefore := tree(t, e.shelf)
	d, err := s.Delete("page_collision")
	if err != nil || len(d.Removed) != 1 || d.Removed[0] != filepath.Join(e.ws, "collision.html") {
		t.Fatalf("delete page: %+v %v", d, err)
	}
	sameTree(t, shelfBefore, tree(t, e.shelf))
	if _, err := s.Restore(d.Undo); err != nil {
		t.Fatal(err)
	}

	wsBefore := tree(t, e.ws)
	d, err = s.DeleteRef("collision.html") // the name means the app
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(e.shelf, "collision.html"), filepath.Join(e.shelf, "collision.meta.json")}
	if strings.Join(d.Removed, ",") != strings.Join(want, ",") {
		t.Fatalf("delete app: removed %v, want %v", d.Removed, want)
	}
	sameTree(t, wsBefore, tree(t, e.ws))
	if got := inTrash(t, home); len(got) != 2 || got[want[0]] == "" || got[want[1]] == "" {
		t.Fatalf("the app's copy and record must go to the trash together: %v", got)
	}
	if _, err := s.Restore(d.Undo); err != nil {
		t.Fatal(err)
	}
	sameTree(t, shelfBefore, tree(t, e.shelf))
	if after := dump(s.List()); after != listed {
		t.Fatalf("after both undos:\n%s want\n%s", after, listed)
	}
}

// A delete that fails part way puts back what had already moved: the second artifact of a proven app
// (its shelf copy) became a folder behind the store's back, so the workspace file returns.
func TestDeleteFailingPartWayMovesNothing(t *testing.T) {
	e, home := trashEnv(t)
	wsFile := filepath.Join(e.ws, "tool.html")
	write(t, wsFile, page("Tool"))
	s := e.openTrash(t, home)
	if _, err := s.SaveRef("tool.html"); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(e.shelf, "tool.html"))
	mkdir(t, filepath.Join(e.shelf, "tool.html"))
	before := tree(t, e.base)
	_, err := s.Delete("app_tool")
	wantErr(t, err, ErrInvalidName)
	after := tree(t, e.base)
	for k := range after { // the can's empty folders may stay
		if strings.HasPrefix(k, filepath.Join(e.base, "xdg")) && after[k] == "dir" {
			delete(after, k)
		}
	}
	sameTree(t, before, after)
}

// Without a home trash (Roots.Trash ""), deletes go to <Data>/trash, laid out the same way; a folder
// (what a folder app's shelf copy is) moves whole when asked for one, and only then.
func TestDataFolderTrashAndFolders(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.ws, "a.html"), page("A"))
	write(t, filepath.Join(e.shelf, "kit", "index.html"), page("Kit"))
	s := e.open(t)
	d, err := s.Delete("page_a")
	if err != nil {
		t.Fatal(err)
	}
	can := filepath.Join(e.data, dataTrash)
	if got := inTrash(t, can); got[filepath.Join(e.ws, "a.html")] != "a.html" {
		t.Fatalf("data folder's trash: %v", got)
	}
	if _, err := s.Restore(d.Undo); err != nil || read(t, filepath.Join(e.ws, "a.html")) != page("A") {
		t.Fatalf("undo: %v", err)
	}

	s.opMu.Lock()
	defer s.opMu.Unlock()
	if _, _, err := s.trashInRoot(e.shelf, "kit", false); !errors.Is(err, ErrInvalidName) {
		t.Fatalf("a folder where a file was expected: %v, want %v", err, ErrInvalidName)
	}
	m, ok, err := s.trashInRoot(e.shelf, "kit", true)
	if err != nil || !ok || !m.item.Dir || exists(filepath.Join(e.shelf, "kit")) || read(t, filepath.Join(m.item.Trashed, "index.html")) != page("Kit") {
		t.Fatalf("folder to the trash: %+v %v %v", m, ok, err)
	}
	if _, err := putBack([]trashed{m}); err != nil || read(t, filepath.Join(e.shelf, "kit", "index.html")) != page("Kit") {
		t.Fatalf("folder back: %v", err)
	}
}

// A folder app's shelf copy (the folder <base>/) and its record go to the trash together, by one rename
// each, and come back together, every file of the folder byte-identical.
func TestFolderAppThroughTheTrash(t *testing.T) {
	e, home := trashEnv(t)
	pizza(t, filepath.Join(e.shelf, "oven"))
	writeMeta(t, e.shelf, "oven", map[string]any{"appId": "app_oven", "title": "The Oven"})
	s := e.openTrash(t, home)
	shelfBefore, listed := tree(t, e.shelf), dump(s.List())
	d, err := s.Delete("app_oven")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(e.shelf, "oven"), filepath.Join(e.shelf, "oven.meta.json")}
	if strings.Join(d.Removed, ",") != strings.Join(want, ",") || exists(want[0]) || exists(want[1]) {
		t.Fatalf("removed %v, want %v", d.Removed, want)
	}
	if fi, err := os.Stat(d.Trashed[0]); err != nil || !fi.IsDir() {
		t.Fatalf("the folder in the trash: %v %v", fi, err)
	}
	if hasID(s.List(), "app_oven") {
		t.Fatal("still listed")
	}
	if _, err := s.Restore(d.Undo); err != nil {
		t.Fatal(err)
	}
	sameTree(t, shelfBefore, tree(t, e.shelf))
	if after := dump(s.List()); after != listed {
		t.Fatalf("after undo:\n%s want\n%s", after, listed)
	}
}
