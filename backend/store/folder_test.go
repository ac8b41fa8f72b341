package store

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voicebox/voicebox/tests/testfs"
)

// pizzaFiles are a folder app: index.html beside its script, style, data, a second page, a nested file
// and a dotfile.
var pizzaFiles = map[string]string{"index.html": page("Pizza Oven"), "page2.html": page("Pizza Page Two"),
	"script.js": "window.pizza = 1;", "style.css": "body{color:red}", "data.json": `{"slices":8}`,
	"lib/x.js": "export const x = 1;", ".env": "SECRET=1"}

// pizza writes the folder app into dir.
func pizza(t testing.TB, dir string) {
	t.Helper()
	testfs.Files(t, dir, pizzaFiles)
}

func TestFolderAppDiscovery(t *testing.T) {
	e := newEnv(t)
	pizza(t, filepath.Join(e.ws, "pizza"))
	write(t, filepath.Join(e.ws, "notes", "a.html"), page("Note A"))
	write(t, filepath.Join(e.ws, "notes", "b.html"), page("Note B"))
	write(t, filepath.Join(e.ws, "index.html"), page("Top Index"))
	write(t, filepath.Join(e.ws, "deep", "x", "index.html"), page("Too Deep"))
	s := e.open(t)
	list := s.List()
	// The folder app is listed once, by its index.html, named after its folder; its other pages are not.
	p := byID(t, list, "page_pizza")
	if p.Title != "Pizza Oven" || p.FileName != "index.html" || p.WorkspacePath != "pizza/index.html" || p.Folder != filepath.Join(e.ws, "pizza") || p.Kind != KindPage {
		t.Fatalf("folder app entry: %+v", p)
	}
	for _, en := range list {
		if strings.HasPrefix(en.Title, "Pizza Page") || en.Title == "Too Deep" {
			t.Errorf("listed %q (%s): a folder app's own page or a page past depth 1", en.Title, en.WorkspacePath)
		}
	}
	// A folder without index.html holds single pages; a page at the top of the workspace owns nothing.
	for _, id := range []string{"page_a", "page_b", "page_index"} {
		if en := byID(t, list, id); en.Folder != "" {
			t.Errorf("%s owns a folder: %+v", id, en)
		}
	}
	if len(list) != 4 {
		t.Fatalf("%d entries, want 4:\n%s", len(list), dump(list))
	}
	// Lookup by folder name (slug) and by the workspace path.
	for _, ref := range []string{"pizza", "pizza/index.html", "Pizza Oven"} {
		if en, err := s.Resolve(ref); err != nil || en.AppID != "page_pizza" {
			t.Errorf("Resolve(%q) = %s, %v", ref, en.AppID, err)
		}
	}
}

func TestGetAppOpensOnlyItsFolder(t *testing.T) {
	e := newEnv(t)
	pizza(t, filepath.Join(e.ws, "pizza"))
	write(t, filepath.Join(e.ws, "top.html"), page("Top"))
	write(t, filepath.Join(e.ws, "secret.txt"), "the person's file")
	s := e.open(t)
	en, f, err := s.GetApp("pizza")
	if err != nil || f == nil {
		t.Fatalf("GetApp(pizza) = %v, %v", f, err)
	}
	defer f.Close()
	if !strings.Contains(en.HTML, "Pizza Oven") || f.Path() != filepath.Join(e.ws, "pizza") {
		t.Fatalf("entry %q, folder %s", en.HTML, f.Path())
	}
	for rel, want := range map[string]string{"script.js": "window.pizza = 1;", "lib/x.js": "export const x = 1;"} {
		file, size, err := f.Open(rel)
		if err != nil {
			t.Fatalf("Open(%s): %v", rel, err)
		}
		b, _ := io.ReadAll(file)
		file.Close()
		if string(b) != want || size != int64(len(want)) {
			t.Errorf("Open(%s) = %q (%d)", rel, b, size)
		}
	}
	// Live: an edit shows on the next open.
	write(t, filepath.Join(e.ws, "pizza", "script.js"), "window.pizza = 2;")
	if b, _ := f.ReadPage("script.js"); string(b) != "window.pizza = 2;" {
		t.Errorf("edit not seen: %q", b)
	}
	for _, rel := range []string{"../secret.txt", "../top.html", ".env", "lib/../../secret.txt", "lib", "", "/etc/passwd", `..\secret.txt`, "lib/./x.js", "x\x00.js", "C:secret.txt"} {
		if file, _, err := f.Open(rel); !errors.Is(err, ErrNotFound) {
			if file != nil {
				file.Close()
			}
			t.Errorf("Open(%q): %v, want %v", rel, err, ErrNotFound)
		}
	}
	// A single page owns nothing but itself.
	if _, f2, err := s.GetApp("top.html"); err != nil || f2 != nil {
		t.Fatalf("GetApp(top.html) = %v, %v: a top-level page owns no folder", f2, err)
	}
}

// TestFolderBadFiles: a link out, a link loop, a FIFO and a 1 GiB (sparse) file in an app folder are
// refused by the folder and refuse a save, with nothing written; a FIFO is never waited on.
func TestFolderBadFiles(t *testing.T) {
	e, s, dir, f := openPizza(t)
	bad := map[string]struct {
		make func(p string) error
		open error // what Folder.Open answers
		save error // what a save of the folder answers
	}{
		"out.txt":  {make: func(p string) error { return os.Symlink("../secret.txt", p) }, open: ErrNotFound, save: ErrUnsupportedFile},
		"loop.js":  {make: func(p string) error { return os.Symlink("loop.js", p) }, open: ErrNotFound, save: ErrUnsupportedFile},
		"pipe.js":  {make: mkfifo, open: ErrNotFound, save: ErrUnsupportedFile},
		"huge.bin": {make: func(p string) error { return sparse(p, 1<<30) }, open: ErrTooLarge, save: ErrTooLarge},
	}
	for name, c := range bad {
		p := filepath.Join(dir, name)
		if err := c.make(p); errors.Is(err, errors.ErrUnsupported) {
			continue // no FIFOs on this platform
		} else if err != nil {
			t.Fatal(err)
		}
		file, _, err := f.Open(name)
		if file != nil {
			file.Close()
		}
		wantErr(t, err, c.open)
		before := tree(t, e.data) // (the workspace holds the FIFO and the 1 GiB file: not read here)
		_, err = s.SaveRef("pizza")
		wantErr(t, err, c.save)
		sameTree(t, before, tree(t, e.data))
		os.Remove(p)
	}
	// A link inside the folder is served as its target.
	if err := os.Symlink("lib/x.js", filepath.Join(dir, "alias.js")); err != nil {
		t.Fatal(err)
	}
	if b, err := f.ReadPage("alias.js"); err != nil || string(b) != "export const x = 1;" {
		t.Errorf("link inside the folder: %q, %v", b, err)
	}
}

// openPizza is a workspace with the pizza folder app beside the person's secret.txt, its store, the
// folder's path and the folder opened as for a launch (closed when the test ends).
func openPizza(t *testing.T) (env, *Store, string, *Folder) {
	t.Helper()
	e := newEnv(t)
	dir := filepath.Join(e.ws, "pizza")
	pizza(t, dir)
	write(t, filepath.Join(e.ws, "secret.txt"), "the person's file")
	s := e.open(t)
	_, f, err := s.GetApp("pizza")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return e, s, dir, f
}

func sparse(p string, size int64) error {
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Truncate(size)
}

// TestFolderSwappedForLink: a file that was served is swapped for a link out of the folder;
// the next open refuses it, since the type comes from the open file itself.
func TestFolderSwappedForLink(t *testing.T) {
	e, _, dir, f := openPizza(t)
	if b, err := f.ReadPage("data.json"); err != nil || string(b) != `{"slices":8}` {
		t.Fatalf("before: %q %v", b, err)
	}
	os.Remove(filepath.Join(dir, "data.json"))
	if err := os.Symlink(filepath.Join(e.ws, "secret.txt"), filepath.Join(dir, "data.json")); err != nil {
		t.Fatal(err)
	}
	if b, err := f.ReadPage("data.json"); !errors.Is(err, ErrNotFound) || len(b) != 0 {
		t.Fatalf("after the swap: %q, %v", b, err)
	}
	// The folder itself swapped for a link: the open folder is the one that was launched.
	other := filepath.Join(e.base, "elsewhere")
	write(t, filepath.Join(other, "data.json"), "elsewhere")
	if err := os.Rename(dir, dir+"-moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, dir); err != nil {
		t.Fatal(err)
	}
	if b, err := f.ReadPage("script.js"); err != nil || string(b) != "window.pizza = 1;" {
		t.Fatalf("the launched folder, moved: %q %v", b, err)
	}
	if b, _ := f.ReadPage("data.json"); string(b) == "elsewhere" {
		t.Fatal("a folder swapped for a link was followed")
	}
}

func TestFolderSaveDeleteOwnership(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.ws, "pizza")
	pizza(t, dir)
	write(t, filepath.Join(e.ws, "pasta.html"), page("Pasta"))
	s := e.open(t)
	saved, err := s.SaveRef("pizza")
	if err != nil {
		t.Fatal(err)
	}
	copyDir := filepath.Join(e.shelf, "pizza")
	if saved.AppID != "app_pizza" || saved.Kind != KindApp || saved.Source != SourceWorkspace || saved.Folder != dir {
		t.Fatalf("saved: %+v", saved)
	}
	// The copy is what the app may load: no dotfiles; the record names the workspace page.
	want := maps.Clone(pizzaFiles)
	delete(want, ".env")
	got := tree(t, copyDir)
	delete(got, copyDir)
	delete(got, filepath.Join(copyDir, "lib"))
	if len(got) != len(want) {
		t.Errorf("copy holds %v", got)
	}
	for rel, content := range want {
		if p := filepath.Join(copyDir, filepath.FromSlash(rel)); got[p] != "file:"+content {
			t.Errorf("copy of %s: %q", rel, got[p])
		}
	}
	if m := readMetaMap(t, filepath.Join(e.shelf, "pizza.meta.json")); m["workspacePath"] != "pizza/index.html" || m["appId"] != "app_pizza" {
		t.Errorf("record %v", m)
	}
	list := s.List()
	if len(list) != 2 || byID(t, list, "app_pizza").Folder != dir {
		t.Fatalf("after the save (listed once, as the proven workspace app):\n%s", dump(list))
	}
	noTemps(t, e.shelf)

	// Re-save: the copy follows the folder, replaced in one step.
	write(t, filepath.Join(dir, "script.js"), "window.pizza = 2;")
	os.Remove(filepath.Join(dir, "page2.html"))
	if _, err := s.SaveRef("pizza"); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(copyDir, "script.js")) != "window.pizza = 2;" || exists(filepath.Join(copyDir, "page2.html")) {
		t.Errorf("re-save did not replace the copy: %v", tree(t, copyDir))
	}
	noTemps(t, e.shelf)

	// Another page whose name would take the folder app's shelf name is refused, nothing written.
	write(t, filepath.Join(e.ws, "other", "pizza.html"), page("Other Pizza"))
	s.Rescan()
	before := tree(t, e.base)
	_, err = s.SaveRef("other/pizza.html")
	wantErr(t, err, ErrNameTaken)
	var taken *NameTakenError
	if !errors.As(err, &taken) || taken.Owner.AppID != "app_pizza" {
		t.Fatalf("owner: %v", err)
	}
	sameTree(t, before, tree(t, e.base))

	// Deleting the page that shares the slug touches no shelf artifact; deleting the app removes its copy
	// and record and its own workspace page, never the rest of the person's folder.
	if _, err := s.Delete("page_pizza"); err != nil {
		t.Fatal(err)
	}
	if !exists(copyDir) || !exists(filepath.Join(e.shelf, "pizza.meta.json")) {
		t.Fatal("deleting a page removed the shelf app")
	}
	removed, err := s.Delete("app_pizza")
	if err != nil {
		t.Fatal(err)
	}
	if exists(copyDir) || exists(filepath.Join(e.shelf, "pizza.meta.json")) || exists(filepath.Join(dir, "index.html")) {
		t.Fatalf("delete left artifacts (removed %v)", removed)
	}
	if !exists(filepath.Join(dir, "script.js")) || !exists(filepath.Join(e.ws, "pasta.html")) {
		t.Fatal("delete removed what the app does not own")
	}
	noTemps(t, e.shelf)
}

// TestShelfFolderApp: a folder app's copy on the shelf is an app by itself (listed once), a stray folder
// under a name holds that name, and <name>.html beside <name>/ keeps the name.
func TestShelfFolderApp(t *testing.T) {
	e := newEnv(t)
	pizza(t, filepath.Join(e.shelf, "oven"))
	writeMeta(t, e.shelf, "oven", map[string]any{"appId": "app_oven", "title": "The Oven"})
	write(t, filepath.Join(e.shelf, "stray", "notes.txt"), "no index here")
	pizza(t, filepath.Join(e.shelf, "twin"))
	write(t, filepath.Join(e.shelf, "twin.html"), page("Twin File"))
	write(t, filepath.Join(e.ws, "stray.html"), page("Stray"))
	s := e.open(t)
	list := s.List()
	oven := byID(t, list, "app_oven")
	if oven.Title != "The Oven" || oven.Source != SourceShelf || oven.Folder != filepath.Join(e.shelf, "oven") {
		t.Fatalf("shelf folder app: %+v", oven)
	}
	if twin := byID(t, list, "app_twin"); twin.Folder != "" || twin.Title != "Twin File" {
		t.Fatalf("twin: %+v", twin)
	}
	if len(list) != 3 {
		t.Fatalf("entries:\n%s", dump(list))
	}
	before := tree(t, e.base)
	_, err := s.SaveRef("stray.html")
	wantErr(t, err, ErrNameTaken)
	sameTree(t, before, tree(t, e.base))
	removed, err := s.Delete("app_oven")
	if err != nil || len(removed.Removed) != 2 || exists(filepath.Join(e.shelf, "oven")) || !exists(filepath.Join(e.shelf, "twin")) {
		t.Fatalf("delete: %v %v", removed, err)
	}
}

// TestHugeFolder: 100,000 files in a folder. The scan reads a bounded number of entries (the listing is
// cut at maxDirEntries, yet an app folder is still known by its index.html) and a save is refused after
// reading at most MaxFolderFiles entries, with nothing written.
func TestHugeFolder(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.ws, "huge")
	// Hard links: real entries, cheap to make (a new target every 50,000: ext4 allows 65,000 links).
	name := func(i int) string { return filepath.Join(dir, fmt.Sprintf("p%06d.html", i)) }
	for i := 0; i < 100000; i++ {
		if i%50000 == 0 {
			write(t, name(i), "")
		} else if err := os.Link(name(i-i%50000), name(i)); err != nil {
			t.Fatal(err)
		}
	}
	s := e.open(t)
	if n := len(s.List()); n != maxDirEntries {
		t.Fatalf("%d pages listed from a folder of 100,000, want the bound %d", n, maxDirEntries)
	}
	write(t, filepath.Join(dir, FolderEntry), page("Huge"))
	s.Rescan()
	list := s.List()
	if len(list) != 1 || list[0].Folder != dir {
		t.Fatalf("an app folder past the bound: %d entries, first %+v", len(list), list[0])
	}
	before := tree(t, e.data)
	_, err := s.SaveRef("huge")
	wantErr(t, err, ErrFolderTooLarge)
	sameTree(t, before, tree(t, e.data))
}

func TestFolderBounds(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.ws, "big")
	write(t, filepath.Join(dir, FolderEntry), page("Big"))
	// Three files of 30 MiB (sparse): each under the per-file bound, together over MaxFolderBytes.
	for i := 0; i < 3; i++ {
		if err := sparse(filepath.Join(dir, fmt.Sprintf("blob%d.bin", i)), 30<<20); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(e.ws, "deep", FolderEntry), page("Deep"))
	write(t, filepath.Join(e.ws, "deep", strings.Repeat("d/", maxFolderDepth+1)+"x.js"), "x")
	s := e.open(t)
	for _, ref := range []string{"big", "deep"} {
		before := tree(t, e.data)
		_, err := s.SaveRef(ref)
		wantErr(t, err, ErrFolderTooLarge)
		sameTree(t, before, tree(t, e.data))
	}
}

func TestDocumentFolder(t *testing.T) {
	e := newEnv(t)
	app := filepath.Join(e.base, "demo")
	pizza(t, app)
	write(t, filepath.Join(e.base, "loose.html"), page("Loose"))
	s := e.open(t)
	f, err := s.DocumentFolder(filepath.Join(app, "index.html"), true)
	if err != nil || f == nil || f.Path() != app {
		t.Fatalf("a folder opened as an app: %v %v", f, err)
	}
	// Saved with its folder; the same name again is refused with nothing written.
	saved, err := s.SaveFolder("demo", f)
	if err != nil || saved.AppID != "app_demo" || saved.Folder != filepath.Join(e.shelf, "demo") || saved.Title != "Pizza Oven" {
		t.Fatalf("SaveFolder: %+v %v", saved, err)
	}
	if read(t, filepath.Join(e.shelf, "demo", "lib", "x.js")) != "export const x = 1;" || exists(filepath.Join(e.shelf, "demo", ".env")) {
		t.Errorf("copy: %v", tree(t, filepath.Join(e.shelf, "demo")))
	}
	before := tree(t, e.base)
	_, err = s.SaveFolder("Demo", f)
	wantErr(t, err, ErrNameTaken)
	sameTree(t, before, tree(t, e.base))
	f.Close()
	// Not index.html, the home folder, a file system root, a folder over the bounds: nothing but itself,
	// even opened as a folder.
	t.Setenv("HOME", e.base)
	write(t, filepath.Join(e.base, "index.html"), page("Home Index"))
	write(t, filepath.Join(app, "big", "index.html"), page("Big"))
	if err := sparse(filepath.Join(app, "big", "blob.bin"), MaxFolderFileBytes+1); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(e.base, "loose.html"), filepath.Join(e.base, "index.html"), "/index.html", filepath.Join(app, "big", "index.html")} {
		if f, err := s.DocumentFolder(p, true); f != nil || err != nil {
			t.Errorf("DocumentFolder(%s) = %v, %v: want nothing but itself", p, f, err)
		}
	}
}

// An index.html the person opened owns its folder only where they made the folder an app: opened as a
// folder, or below the workspace, the shelf or a sandbox root. From Downloads (issue 28, finding 5: the
// page read bank-statement.csv beside it by guessing its name) it owns nothing but itself, also through
// a link in the workspace that leads there.
func TestDocumentFolderOwnership(t *testing.T) {
	e := newEnv(t)
	extra := filepath.Join(e.base, "homes")
	downloads := filepath.Join(e.base, "Downloads")
	testfs.Files(t, downloads, map[string]string{"index.html": page("Downloaded"), "bank-statement.csv": "date,amount\n"})
	type owns struct{ asFile, asFolder bool }
	places := map[string]owns{ // the index.html's folder → whether it owns it, opened as a file or as a folder
		filepath.Join(e.ws, "pizza"):                     {true, true},
		filepath.Join(e.ws, "pizza", "deeper"):           {true, true},
		filepath.Join(e.shelf, "demo"):                   {true, true},
		filepath.Join(e.sandboxes, "home1"):              {true, true},
		filepath.Join(e.data, WrittenAppsDir, "written"): {true, true},
		filepath.Join(extra, "home2", "sub"):             {true, true},
		downloads:                                        {false, true},
		filepath.Join(e.base, "Desktop", "game"):         {false, true},
		// The workspace itself: its files are other apps' and the person's; as a folder, it holds a link
		// that leaves it, which no app folder may.
		e.ws: {false, false},
	}
	for dir := range places {
		if dir != downloads {
			pizza(t, dir)
		}
	}
	if err := os.Symlink(downloads, filepath.Join(e.ws, "dl")); err != nil {
		t.Fatal(err)
	}
	places[filepath.Join(e.ws, "dl")] = owns{false, true}
	s := e.open(t, extra)
	for dir, o := range places {
		for _, asFolder := range []bool{false, true} {
			f, err := s.DocumentFolder(filepath.Join(dir, FolderEntry), asFolder)
			if err != nil {
				t.Fatalf("DocumentFolder(%s, %v): %v", dir, asFolder, err)
			}
			want := o.asFile
			if asFolder {
				want = o.asFolder
			}
			if (f != nil) != want {
				t.Errorf("DocumentFolder(%s, asFolder %v) owns its folder: %v, want %v", dir, asFolder, f != nil, want)
			}
			if f == nil {
				continue
			}
			if dir == downloads {
				// Opened as a folder on purpose, the folder is the app's: its files are served.
				file, _, err := f.Open("bank-statement.csv")
				if err != nil {
					t.Errorf("the folder opened as an app cannot serve its own file: %v", err)
				} else {
					file.Close()
				}
			}
			f.Close()
		}
	}
}

func TestCheckAppFolder(t *testing.T) {
	e := newEnv(t)
	t.Setenv("HOME", e.base)
	write(t, filepath.Join(e.base, "index.html"), page("Home Index"))
	write(t, filepath.Join(e.base, "loose", "a.html"), page("Loose"))
	pizza(t, filepath.Join(e.base, "app"))
	write(t, filepath.Join(e.base, "big", "index.html"), page("Big"))
	if err := sparse(filepath.Join(e.base, "big", "blob.bin"), MaxFolderFileBytes+1); err != nil {
		t.Fatal(err)
	}
	mkdir(t, filepath.Join(e.base, "dirindex", "index.html"))
	for dir, want := range map[string]error{
		filepath.Join(e.base, "app"):      nil,
		filepath.Join(e.base, "loose"):    ErrNotAppFolder,
		filepath.Join(e.base, "dirindex"): ErrNotAppFolder,
		e.base:                            ErrNotAppFolder, // home
		"/":                               ErrNotAppFolder,
		filepath.Join(e.base, "big"):      ErrTooLarge,
	} {
		if err := CheckAppFolder(dir); !errors.Is(err, want) && !(want == nil && err == nil) {
			t.Errorf("CheckAppFolder(%s) = %v, want %v", dir, err, want)
		}
	}
}

func noTemps(t testing.TB, dir string) {
	t.Helper()
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		if strings.HasPrefix(de.Name(), ".") {
			t.Errorf("temporary %s left in %s", de.Name(), dir)
		}
	}
}
