package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// collisionEnv is the design's case: a workspace page and a shelf app sharing
// slug, file name and title. legacy: the record has no workspacePath (and the
// bytes and appId are identical to what a proof would need).
func collisionEnv(t *testing.T, recordTitle string) (env, *Store) {
	e := newEnv(t)
	write(t, filepath.Join(e.ws, "collision.html"), page("Collision"))
	write(t, filepath.Join(e.shelf, "collision.html"), page("Collision"))
	writeMeta(t, e.shelf, "collision", map[string]any{"appId": "app_collision", "title": recordTitle, "createdAt": "2024-01-01T00:00:00Z", "updatedAt": "2024-01-01T00:00:00Z"})
	return e, e.open(t)
}

func TestCollisionDeletePageKeepsApp(t *testing.T) {
	e, s := collisionEnv(t, "Collision")
	shelfBefore := tree(t, e.shelf)
	d, err := s.Delete("page_collision")
	removed := d.Removed
	if err != nil {
		t.Fatalf("Delete(page_collision): got error %v, want nil", err)
	}
	if want := []string{filepath.Join(e.ws, "collision.html")}; len(removed) != 1 || removed[0] != want[0] {
		t.Fatalf("removed: got %v, want %v", removed, want)
	}
	sameTree(t, shelfBefore, tree(t, e.shelf))
	list := s.List()
	if hasID(list, "page_collision") || !hasID(list, "app_collision") {
		t.Fatalf("after delete: got %v, want only app_collision", ids(list))
	}
	if got, err := s.Resolve("collision.html"); err != nil || got.AppID != "app_collision" {
		t.Fatalf("Resolve after delete: got %v %v, want app_collision", got.AppID, err)
	}
}

func TestCollisionDeleteAppKeepsPage(t *testing.T) {
	e, s := collisionEnv(t, "Collision")
	wsBefore := tree(t, e.ws)
	// The name means the app, for a lookup and for a delete by name.
	if ref, _ := s.Resolve("collision.html"); ref.AppID != "app_collision" {
		t.Fatalf("Resolve: got %s, want app_collision", ref.AppID)
	}
	d, err := s.DeleteRef("collision.html")
	removed := d.Removed
	if err != nil {
		t.Fatalf("DeleteRef(collision.html): got error %v, want nil", err)
	}
	want := []string{filepath.Join(e.shelf, "collision.html"), filepath.Join(e.shelf, "collision.meta.json")}
	if strings.Join(removed, ",") != strings.Join(want, ",") {
		t.Fatalf("removed: got %v, want %v", removed, want)
	}
	sameTree(t, wsBefore, tree(t, e.ws))
	list := s.List()
	if len(list) != 1 || list[0].AppID != "page_collision" || list[0].Title != "Collision" {
		t.Fatalf("after delete: got\n%s want only page_collision", dump(list))
	}
	// Reopen: the page is still a page.
	if list := e.open(t).List(); len(list) != 1 || list[0].Kind != KindPage {
		t.Fatalf("reopen: got\n%s", dump(list))
	}
}

// The design's legacy case: the record has no workspacePath; the bytes are
// identical and the record's appId is the canonical one. The page keeps its
// own title and id, and saving it is refused with nothing written.
func TestLegacySaveRefusedNothingWritten(t *testing.T) {
	e, s := collisionEnv(t, "Record Title")
	list := s.List()
	if p := byID(t, list, "page_collision"); p.Title != "Collision" || p.Kind != KindPage {
		t.Fatalf("page: got %+v, want its own title Collision", p)
	}
	if a := byID(t, list, "app_collision"); a.Title != "Record Title" || a.Source != SourceShelf {
		t.Fatalf("app: got %+v", a)
	}
	before := tree(t, e.base)
	for _, ref := range []string{"collision.html", "page_collision"} {
		_, err := s.SaveRef(ref)
		wantErr(t, err, ErrNameTaken)
		var nt *NameTakenError
		if !errors.As(err, &nt) {
			t.Fatalf("SaveRef(%q): got %T, want *NameTakenError", ref, err)
		}
		if nt.Owner.AppID != "app_collision" || nt.Name != "collision" {
			t.Fatalf("SaveRef(%q): owner got %s/%s, want app_collision/collision", ref, nt.Owner.AppID, nt.Name)
		}
		if !strings.Contains(err.Error(), "app_collision") || !strings.Contains(err.Error(), `"collision"`) {
			t.Fatalf("message %q does not name the name and the owning app", err)
		}
	}
	sameTree(t, before, tree(t, e.base))
	if p := byID(t, s.List(), "page_collision"); p.Kind != KindPage {
		t.Fatalf("page after refused save: got kind %s, want page", p.Kind)
	}
}

func TestPromotionAndResave(t *testing.T) {
	e := newEnv(t)
	wsFile := filepath.Join(e.ws, "sub", "tool.html")
	write(t, wsFile, page("Tool &amp; Co"))
	s := e.open(t)
	if got := byID(t, s.List(), "page_tool"); got.Kind != KindPage {
		t.Fatalf("before save: got kind %s, want page", got.Kind)
	}
	start := time.Now().UTC().Add(-time.Second)
	saved, err := s.SaveRef("tool.html")
	if err != nil {
		t.Fatalf("SaveRef: got error %v, want nil", err)
	}
	if saved.AppID != "app_tool" || saved.Kind != KindApp || saved.Source != SourceWorkspace || saved.StoragePath != wsFile || saved.Title != "Tool & Co" || saved.WorkspacePath != "sub/tool.html" {
		t.Fatalf("saved: got %+v", saved)
	}
	if got := read(t, filepath.Join(e.shelf, "tool.html")); got != page("Tool &amp; Co") {
		t.Fatalf("shelf copy: got %q", got)
	}
	m := readMetaMap(t, filepath.Join(e.shelf, "tool.meta.json"))
	for k, want := range map[string]string{"appId": "app_tool", "title": "Tool & Co", "workspacePath": "sub/tool.html", "workspaceRoot": e.ws} {
		if m[k] != want {
			t.Errorf("meta %s: got %v, want %v", k, m[k], want)
		}
	}
	created, err1 := time.Parse(time.RFC3339Nano, m["createdAt"].(string))
	updated, err2 := time.Parse(time.RFC3339Nano, m["updatedAt"].(string))
	if err1 != nil || err2 != nil || created.Before(start) || !updated.Equal(created) {
		t.Fatalf("meta times: got created=%v updated=%v (%v %v)", m["createdAt"], m["updatedAt"], err1, err2)
	}

	// Next discovery (a fresh store): one entry, the app, listed once.
	list := e.open(t).List()
	if len(list) != 1 || list[0].AppID != "app_tool" || list[0].Source != SourceWorkspace || list[0].Kind != KindApp {
		t.Fatalf("rediscovery: got\n%s", dump(list))
	}

	// Re-save after an edit: content and title follow, createdAt kept.
	time.Sleep(5 * time.Millisecond)
	write(t, wsFile, page("Tool v2"))
	for _, ref := range []string{"app_tool", "sub/tool.html"} {
		re, err := s.SaveRef(ref)
		if err != nil {
			t.Fatalf("re-save %q: got error %v, want nil", ref, err)
		}
		if re.AppID != "app_tool" || re.Title != "Tool v2" || !re.CreatedAt.Equal(created) || !re.UpdatedAt.After(updated) {
			t.Fatalf("re-save %q: got %+v (created %v, updated %v)", ref, re, created, updated)
		}
		updated = re.UpdatedAt
	}
	if got := read(t, filepath.Join(e.shelf, "tool.html")); got != page("Tool v2") {
		t.Fatalf("shelf copy after re-save: got %q", got)
	}
	m2 := readMetaMap(t, filepath.Join(e.shelf, "tool.meta.json"))
	if m2["createdAt"] != m["createdAt"] || m2["updatedAt"] == m["updatedAt"] {
		t.Fatalf("meta after re-save: got %v, before %v", m2, m)
	}

	// Deleting the proven app removes the workspace file and both shelf files.
	d, err := s.Delete("app_tool")
	removed := d.Removed
	if err != nil || len(removed) != 3 {
		t.Fatalf("Delete(app_tool): got %v %v, want 3 paths", removed, err)
	}
	for _, p := range []string{wsFile, filepath.Join(e.shelf, "tool.html"), filepath.Join(e.shelf, "tool.meta.json")} {
		if exists(p) {
			t.Errorf("%s still exists", p)
		}
	}
	if len(s.List()) != 0 {
		t.Fatalf("after delete: got\n%s", dump(s.List()))
	}
}

func TestSaveRefWorkspaceEntryWins(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.ws, "game.html"), page("Game page"))
	write(t, filepath.Join(e.shelf, "game.html"), page("Game app"))
	writeMeta(t, e.shelf, "game", map[string]any{"appId": "app_game", "title": "Game", "workspacePath": "elsewhere/game.html"})
	s := e.open(t)
	// Resolve means the app, but saving "game.html" means the workspace file.
	if r, _ := s.Resolve("game.html"); r.AppID != "app_game" {
		t.Fatalf("Resolve: got %s, want app_game", r.AppID)
	}
	_, err := s.SaveRef("game.html")
	wantErr(t, err, ErrNameTaken)
	// Saving the app by its id re-saves it.
	before := readMetaMap(t, filepath.Join(e.shelf, "game.meta.json"))
	re, err := s.SaveRef("app_game")
	if err != nil || re.AppID != "app_game" || re.Source != SourceShelf {
		t.Fatalf("SaveRef(app_game): got %+v %v", re, err)
	}
	after := readMetaMap(t, filepath.Join(e.shelf, "game.meta.json"))
	if after["workspacePath"] != "elsewhere/game.html" || after["appId"] != "app_game" || after["updatedAt"] == before["updatedAt"] {
		t.Fatalf("meta after re-save: got %v", after)
	}
	if got := read(t, filepath.Join(e.shelf, "game.html")); got != page("Game app") {
		t.Fatalf("shelf html changed: %q", got)
	}
}

func TestDeleteSandboxPage(t *testing.T) {
	e := newEnv(t)
	p := filepath.Join(e.sandboxes, "box", "x", "viz.html")
	write(t, p, page("Viz"))
	write(t, filepath.Join(e.shelf, "viz.html"), page("Viz app"))
	s := e.open(t)
	d, err := s.Delete("page_viz")
	removed := d.Removed
	if err != nil || len(removed) != 1 || removed[0] != p {
		t.Fatalf("Delete(page_viz): got %v %v, want [%s]", removed, err, p)
	}
	if !exists(filepath.Join(e.shelf, "viz.html")) || exists(p) {
		t.Fatalf("wrong artifacts removed")
	}
}

func TestSaveSandboxPage(t *testing.T) {
	e := newEnv(t)
	sb := filepath.Join(e.sandboxes, "box", "viz.html")
	write(t, sb, page("Viz"))
	s := e.open(t)
	saved, err := s.SaveRef("viz.html")
	if err != nil || saved.AppID != "app_viz" || saved.Source != SourceShelf {
		t.Fatalf("SaveRef sandbox: got %+v %v", saved, err)
	}
	list := s.List()
	if byID(t, list, "page_viz").Source != SourceSandbox {
		t.Fatalf("sandbox page must stay a page: %s", dump(list))
	}
	// The same sandbox page saved again updates its own app.
	write(t, sb, page("Viz 2"))
	re, err := s.SaveRef("page_viz")
	if err != nil || re.AppID != "app_viz" || !re.CreatedAt.Equal(saved.CreatedAt) {
		t.Fatalf("re-save sandbox: got %+v %v", re, err)
	}
	if got := read(t, filepath.Join(e.shelf, "viz.html")); got != page("Viz 2") {
		t.Fatalf("shelf copy: got %q", got)
	}
	// Another sandbox's page with the same name is refused.
	write(t, filepath.Join(e.sandboxes, "other", "viz.html"), page("Other viz"))
	s.Rescan()
	_, err = s.SaveRef("Other viz")
	wantErr(t, err, ErrNameTaken)
}

func TestSaveHTML(t *testing.T) {
	e := newEnv(t)
	s := e.open(t)
	if exists(e.shelf) {
		t.Fatalf("shelf exists before the first save")
	}
	got, err := s.SaveHTML("Room Page", page("Room &lt;1&gt;"))
	if err != nil || got.AppID != "app_room-page" || got.Title != "Room <1>" || got.Source != SourceShelf || got.Kind != KindApp {
		t.Fatalf("SaveHTML: got %+v %v", got, err)
	}
	m := readMetaMap(t, filepath.Join(e.shelf, "room-page.meta.json"))
	if m["appId"] != "app_room-page" || m["title"] != "Room <1>" || m["workspacePath"] != nil || m["createdAt"] == nil || m["updatedAt"] == nil {
		t.Fatalf("meta: got %v", m)
	}
	if g, err := s.Get("app_room-page"); err != nil || g.HTML != page("Room &lt;1&gt;") {
		t.Fatalf("Get: got %v %q", err, g.HTML)
	}
	before := tree(t, e.base)
	_, err = s.SaveHTML("room page.html", "<p>other</p>")
	wantErr(t, err, ErrNameTaken)
	var nt *NameTakenError
	if !errors.As(err, &nt) || nt.Owner.AppID != "app_room-page" {
		t.Fatalf("owner: got %v", err)
	}
	sameTree(t, before, tree(t, e.base))

	// A shelf name held by something discovery does not list (a folder, a
	// link) is refused too, and nothing is written.
	mkdir(t, filepath.Join(e.shelf, "odd.html"))
	if err := os.Symlink(filepath.Join(e.base, "nowhere"), filepath.Join(e.shelf, "dangling.html")); err != nil {
		t.Fatal(err)
	}
	before = tree(t, e.base)
	for _, n := range []string{"odd", "dangling"} {
		_, err = s.SaveHTML(n, "<p>x</p>")
		wantErr(t, err, ErrNameTaken)
	}
	sameTree(t, before, tree(t, e.base))

	// No title: the name is the title.
	got, err = s.SaveHTML("plain", "<p>x</p>")
	if err != nil || got.Title != "plain" {
		t.Fatalf("SaveHTML plain: got %+v %v", got, err)
	}
	_, err = s.SaveHTML("big", strings.Repeat("x", MaxHTMLBytes+1))
	wantErr(t, err, ErrTooLarge)
}

func TestInvalidNamesTouchNothing(t *testing.T) {
	e := newEnv(t)
	outside := filepath.Join(e.base, "outside.html")
	write(t, outside, page("Outside"))
	write(t, filepath.Join(e.ws, "in.html"), page("Inside"))
	s := e.open(t)
	before := tree(t, e.base)
	names := []struct {
		name string
		want error
	}{
		{"", ErrInvalidName},
		{"   ", ErrInvalidName},
		{"..", ErrOutsideRoot},
		{"../outside", ErrOutsideRoot},
		{"a/b", ErrInvalidName},
		{`a\b`, ErrInvalidName},
		{"/etc/passwd", ErrOutsideRoot},
		{"x\x00y", ErrInvalidName},
		{"日本", ErrInvalidName},
	}
	for _, n := range names {
		_, err := s.SaveHTML(n.name, "<p>x</p>")
		if !errors.Is(err, n.want) {
			t.Errorf("SaveHTML(%q): got %v, want %v", n.name, err, n.want)
		}
	}
	refs := []struct {
		ref  string
		want error
	}{
		{"../outside.html", ErrOutsideRoot},
		{"sub/../../outside.html", ErrOutsideRoot},
		{outside, ErrOutsideRoot},
		{"/etc/passwd", ErrOutsideRoot},
		{`..\outside.html`, ErrOutsideRoot},
		{"in.html\x00", ErrInvalidName},
		{"", ErrInvalidName},
	}
	for _, r := range refs {
		if _, err := s.Resolve(r.ref); !errors.Is(err, r.want) {
			t.Errorf("Resolve(%q): got %v, want %v", r.ref, err, r.want)
		}
		if _, err := s.Get(r.ref); !errors.Is(err, r.want) {
			t.Errorf("Get(%q): got %v, want %v", r.ref, err, r.want)
		}
		if _, err := s.SaveRef(r.ref); !errors.Is(err, r.want) {
			t.Errorf("SaveRef(%q): got %v, want %v", r.ref, err, r.want)
		}
	}
	for _, id := range []string{"../outside.html", outside, "page_in\x00", "", "page_nope"} {
		if _, err := s.Delete(id); err == nil {
			t.Errorf("Delete(%q): got nil error", id)
		}
	}
	sameTree(t, before, tree(t, e.base))
}

func TestReadWorkspaceFile(t *testing.T) {
	e := newEnv(t)
	secret := filepath.Join(e.base, "secret.txt")
	write(t, secret, "secret")
	write(t, filepath.Join(e.ws, "sub", "notes.md"), "notes")
	if err := os.Symlink(secret, filepath.Join(e.ws, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(e.base, filepath.Join(e.ws, "up")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub/notes.md", filepath.Join(e.ws, "alias.md")); err != nil {
		t.Fatal(err)
	}
	s := e.open(t)
	ok := []string{"sub/notes.md", filepath.Join(e.ws, "sub", "notes.md"), "alias.md", `sub\notes.md`}
	for _, p := range ok {
		if filepath.Separator != '\\' && strings.Contains(p, `\`) {
			p = strings.ReplaceAll(p, `\`, "/")
		}
		b, err := s.ReadWorkspaceFile(p)
		if err != nil || string(b) != "notes" {
			t.Errorf("ReadWorkspaceFile(%q): got %q %v, want notes", p, b, err)
		}
	}
	bad := []string{"../secret.txt", secret, "leak.txt", "up/secret.txt", "sub/../../secret.txt"}
	for _, p := range bad {
		b, err := s.ReadWorkspaceFile(p)
		if !errors.Is(err, ErrOutsideRoot) || b != nil {
			t.Errorf("ReadWorkspaceFile(%q): got %q %v, want %v", p, b, err, ErrOutsideRoot)
		}
	}
	if _, err := s.ReadWorkspaceFile("missing.txt"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing: got %v, want %v", err, ErrNotFound)
	}
	if _, err := s.ReadWorkspaceFile("a\x00b"); !errors.Is(err, ErrInvalidName) {
		t.Errorf("NUL: got %v, want %v", err, ErrInvalidName)
	}
}

func TestSymlinks(t *testing.T) {
	e := newEnv(t)
	outsideDir := filepath.Join(e.base, "outside")
	outsideFile := filepath.Join(outsideDir, "victim.html")
	write(t, outsideFile, page("Victim"))
	write(t, filepath.Join(e.ws, "real.html"), page("Real"))
	write(t, filepath.Join(e.ws, "swap.html"), page("Swap before"))
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(outsideFile, filepath.Join(e.ws, "out.html")))
	must(os.Symlink("real.html", filepath.Join(e.ws, "in.html")))
	must(os.Symlink(outsideDir, filepath.Join(e.ws, "linkdir")))
	must(os.Symlink(filepath.Join(e.ws), filepath.Join(e.ws, "loop")))
	mkdir(t, e.shelf)
	must(os.Symlink(outsideFile, filepath.Join(e.shelf, "evil.html")))
	mkdir(t, e.sandboxes)
	must(os.Symlink(outsideDir, filepath.Join(e.sandboxes, "linkedhome")))
	s := e.open(t)
	list := s.List()
	want := []string{"page_in", "page_real", "page_swap"}
	if got := ids(list); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("listed: got %v, want %v", got, want)
	}
	if g, err := s.Get("page_in"); err != nil || g.HTML != page("Real") || g.Title != "Real" {
		t.Fatalf("Get(page_in): got %v %+v", err, g)
	}

	// Replace a listed file by a link pointing out: never read through it.
	must(os.Remove(filepath.Join(e.ws, "swap.html")))
	must(os.Symlink(outsideFile, filepath.Join(e.ws, "swap.html")))
	if _, err := s.Get("page_swap"); !errors.Is(err, ErrOutsideRoot) {
		t.Fatalf("Get through swapped link: got %v, want %v", err, ErrOutsideRoot)
	}
	// Deleting removes the links, never the targets.
	for _, id := range []string{"page_swap", "page_in"} {
		d, err := s.Delete(id)
		removed := d.Removed
		if err != nil || len(removed) != 1 {
			t.Fatalf("Delete(%s): got %v %v", id, removed, err)
		}
		if fi, err := os.Lstat(removed[0]); err == nil {
			t.Fatalf("%s: link still there (%v)", removed[0], fi.Mode())
		}
	}
	if read(t, outsideFile) != page("Victim") || read(t, filepath.Join(e.ws, "real.html")) != page("Real") {
		t.Fatalf("a link target was touched")
	}
	if exists(filepath.Join(e.ws, "out.html")) != true {
		t.Fatalf("unlisted link out.html was removed")
	}

	// Saving a file swapped for an outside link: refused (the refreshed
	// discovery no longer lists it, or the read is refused), nothing written.
	write(t, filepath.Join(e.ws, "swap2.html"), page("Swap2"))
	s.Rescan()
	byID(t, s.List(), "page_swap2")
	must(os.Remove(filepath.Join(e.ws, "swap2.html")))
	must(os.Symlink(outsideFile, filepath.Join(e.ws, "swap2.html")))
	before := tree(t, e.base)
	if _, err := s.SaveRef("swap2.html"); !errors.Is(err, ErrOutsideRoot) && !errors.Is(err, ErrNotFound) {
		t.Fatalf("SaveRef through swapped link: got %v, want %v or %v", err, ErrOutsideRoot, ErrNotFound)
	}
	sameTree(t, before, tree(t, e.base))
	// And the lower layer refuses the read itself.
	if _, err := readInRoot(e.ws, "swap2.html"); !errors.Is(err, ErrOutsideRoot) {
		t.Fatalf("readInRoot through link: got %v, want %v", err, ErrOutsideRoot)
	}
	if _, _, err := s.trashInRoot(e.ws, "linkdir/victim.html", false); !errors.Is(err, ErrOutsideRoot) {
		t.Fatalf("trashInRoot through linked folder: got %v, want %v", err, ErrOutsideRoot)
	}
	if _, _, err := s.trashInRoot(e.ws, "linkdir", true); !errors.Is(err, ErrInvalidName) {
		t.Fatalf("trashInRoot of a link as a folder: got %v, want %v", err, ErrInvalidName)
	}
	if read(t, outsideFile) != page("Victim") {
		t.Fatalf("target touched")
	}
}

func TestGetTooLarge(t *testing.T) {
	e := newEnv(t)
	big := filepath.Join(e.ws, "big.html")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("<title>Big</title>")
	f.Truncate(MaxHTMLBytes + 1)
	f.Close()
	s := e.open(t)
	if en := byID(t, s.List(), "page_big"); en.Title != "Big" || en.SizeBytes != MaxHTMLBytes+1 {
		t.Fatalf("listed: got %+v", en)
	}
	_, err = s.Get("page_big")
	wantErr(t, err, ErrTooLarge)
	_, err = s.SaveRef("big.html")
	wantErr(t, err, ErrTooLarge)
	if exists(e.shelf) {
		t.Fatalf("shelf created by a refused save")
	}
}

func TestDeleteStaleRecordTouchesNothing(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.shelf, "x.html"), page("X"))
	writeMeta(t, e.shelf, "x", map[string]any{"appId": "app_x", "title": "X"})
	s := e.open(t)
	// Another app takes the name behind the store's back.
	writeMeta(t, e.shelf, "x", map[string]any{"appId": "app_someone-else", "title": "Else"})
	before := tree(t, e.base)
	_, err := s.Delete("app_x")
	wantErr(t, err, ErrNotFound)
	sameTree(t, before, tree(t, e.base))
	_, err = s.Delete("app_x")
	wantErr(t, err, ErrNotFound)
}

func TestOpenWithMissingFolders(t *testing.T) {
	base := t.TempDir()
	s, err := Open(Roots{Workspace: filepath.Join(base, "nope"), Data: filepath.Join(base, "data"), SandboxRoots: []string{filepath.Join(base, "x")}})
	if err != nil {
		t.Fatalf("Open: got %v, want nil", err)
	}
	if len(s.List()) != 0 {
		t.Fatalf("List: got %v", s.List())
	}
	if _, err := s.SaveHTML("first", page("First")); err != nil {
		t.Fatalf("first save: got %v", err)
	}
	if !exists(filepath.Join(base, "data", "mini-apps", "first.html")) {
		t.Fatalf("shelf not created lazily")
	}
	if en := s.List(); len(en) != 1 || en[0].AppID != "app_first" {
		t.Fatalf("List after save: got %v", ids(en))
	}
	if err := s.SetWorkspace(filepath.Join(base, "still-nope")); err == nil {
		t.Fatalf("SetWorkspace(missing): got nil, want an error")
	}
	noData, _ := Open(Roots{Workspace: base})
	_, err = noData.SaveHTML("x", "<p>")
	wantErr(t, err, ErrNoShelf)
}

func TestSetWorkspace(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.ws, "one.html"), page("One"))
	other := e.otherWorkspace(t, map[string]string{"two.html": "Two"})
	s := e.open(t)
	if err := s.SetWorkspace(other); err != nil {
		t.Fatal(err)
	}
	if s.Workspace() != other {
		t.Fatalf("Workspace: got %s, want %s", s.Workspace(), other)
	}
	if got := ids(s.List()); strings.Join(got, ",") != "page_two" {
		t.Fatalf("after switch: got %v, want [page_two]", got)
	}
	if _, err := s.ReadWorkspaceFile("two.html"); err != nil {
		t.Fatalf("ReadWorkspaceFile in new workspace: %v", err)
	}
	if err := s.SetWorkspace(""); err != nil || len(s.List()) != 0 {
		t.Fatalf("close workspace: got %v %v", err, ids(s.List()))
	}
}

// A promoted page's proof does not follow the relative path into another
// workspace: the other folder's file stays a page and cannot be deleted
// through the app.
func TestProofDoesNotFollowIntoAnotherWorkspace(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.ws, "index.html"), page("Mine"))
	other := e.otherWorkspace(t, map[string]string{"index.html": "Theirs"})
	s := e.open(t)
	if _, err := s.SaveRef("index.html"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetWorkspace(other); err != nil {
		t.Fatal(err)
	}
	list := s.List()
	if byID(t, list, "page_index").Kind != KindPage || byID(t, list, "app_index").Source != SourceShelf {
		t.Fatalf("got\n%s", dump(list))
	}
	if _, err := s.Delete("app_index"); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(other, "index.html")) != page("Theirs") || read(t, filepath.Join(e.ws, "index.html")) != page("Mine") {
		t.Fatalf("deleting the shelf app touched a workspace file")
	}
}

// An orphan record (its .html missing, as a crash before the commit point
// leaves it) does not hold the name: the next save takes it and replaces it.
func TestOrphanRecordDoesNotHoldName(t *testing.T) {
	e := newEnv(t)
	writeMeta(t, e.shelf, "calc", map[string]any{"appId": "app_calc", "title": "Half saved", "workspacePath": "other.html"})
	write(t, filepath.Join(e.ws, "calc.html"), page("Calc"))
	s := e.open(t)
	got, err := s.SaveRef("calc.html")
	if err != nil || got.AppID != "app_calc" || got.Source != SourceWorkspace || got.Title != "Calc" {
		t.Fatalf("SaveRef over an orphan record: got %+v %v", got, err)
	}
	if m := readMetaMap(t, filepath.Join(e.shelf, "calc.meta.json")); m["workspacePath"] != "calc.html" || m["title"] != "Calc" {
		t.Fatalf("record not replaced: %v", m)
	}
}

// A record is written in one form (times as RFC 3339 strings, empty places left out) and reads back whole.
func TestRecordEncoding(t *testing.T) {
	at := time.Date(2024, 1, 2, 3, 4, 5, 500_000_000, time.UTC)
	m := &metaRec{metaNames: metaNames{AppID: "app_x", Title: "X", WorkspacePath: "x.html"}, CreatedAt: at.Add(-time.Hour), UpdatedAt: at}
	want := "{\n  \"appId\": \"app_x\",\n  \"title\": \"X\",\n  \"workspacePath\": \"x.html\",\n" +
		"  \"createdAt\": \"2024-01-02T02:04:05.5Z\",\n  \"updatedAt\": \"2024-01-02T03:04:05.5Z\"\n}\n"
	b := encodeMeta(m)
	if string(b) != want {
		t.Fatalf("encoded\n%s\nwant\n%s", b, want)
	}
	back, err := parseMeta(b)
	if err != nil || *back != *m {
		t.Fatalf("read back %+v (%v), want %+v", back, err, m)
	}
}
