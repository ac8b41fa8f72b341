package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestSlugify(t *testing.T) {
	cases := []struct{ in, want string }{
		{"collision.html", "collision"},
		{"Collision.HTML", "collision"},
		{"My Great App!", "my-great-app"},
		{"  --a__b--  ", "a-b"},
		{"page_foo", "page-foo"},
		{"Über Rechner", "ber-rechner"},
		{"日本", ""},
		{"", ""},
		{strings.Repeat("ab-", 40), strings.TrimRight(strings.Repeat("ab-", 40)[:64], "-")},
		{"v1.2.html", "v1-2"},
	}
	for _, c := range cases {
		if got := Slugify(c.in); got != c.want {
			t.Errorf("Slugify(%q): got %q, want %q", c.in, got, c.want)
		}
	}
	if a, b := SlugOf("日本"), SlugOf("中国"); a == b || !strings.HasPrefix(a, "x-") {
		t.Errorf("SlugOf fallbacks: got %q and %q, want distinct x- slugs", a, b)
	}
}

// Every title the store hands out is neutral for display, cut on a character boundary: a page's, a file
// name standing in for one, a shelf record's (issue 11: titles with bidi overrides).
func TestTitlesAreNeutralForDisplay(t *testing.T) {
	if got := TitleOf("<p>no title", "report\u202Efdp.html"); got != "reportfdp" {
		t.Errorf("TitleOf fallback = %q", got)
	}
	rec, err := parseMeta([]byte(`{"appId":"app_x","title":"Shelf \u202e\u0007App"}`))
	if err != nil || rec.Title != "Shelf App" {
		t.Errorf("record title = %q, %v", rec.Title, err)
	}
	long := TitleOf("<title>"+strings.Repeat("日", 200)+"</title>", "x.html")
	if !utf8.ValidString(long) || len(long) > maxTitleBytes || !strings.HasPrefix(strings.Repeat("日", 200), long) {
		t.Errorf("long title cut badly: %d bytes, valid %v", len(long), utf8.ValidString(long))
	}
}

func TestExtractTitle(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "<title>Hello</title>", "Hello"},
		{"entities", "<title>Tom &amp; Jerry &lt;3 &#x263A;</title>", "Tom & Jerry <3 ☺"},
		{"whitespace", "<title>\n  Two\t\tWords  \n</title>", "Two Words"},
		{"upper", "<HEAD><TITLE>Upper</TITLE></HEAD>", "Upper"},
		{"attrs", `<title id="t" >Attr</title>`, "Attr"},
		{"not titles tag", "<titles>no</titles><title>yes</title>", "yes"},
		{"unclosed", "<title>never closed", ""},
		{"none", "<html><body>x</body></html>", ""},
		{"empty", "<title>   </title>", ""},
		{"first wins", "<title>one</title><title>two</title>", "one"},
		{"long", "<title>" + strings.Repeat("é", 300) + "</title>", strings.Repeat("é", 128)},
		{"bidi override", "<title>Invoice \u202Egpj.exe</title>", "Invoice gpj.exe"},
		{"bidi as entities", "<title>a&#x202E;b&#8207;c&#x2066;d</title>", "abcd"},
		{"controls", "<title>bell\x07 esc\x1b[31m del\x7f</title>", "bell esc[31m del"},
		{"only hidden characters", "<title>\u202E\u200F</title>", ""},
	}
	for _, c := range cases {
		if got := extractTitle([]byte(c.in)); got != c.want {
			t.Errorf("%s: extractTitle: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestDiscoveryRoots checks roots, depth limits, file filters and the fields
// of each kind of entry.
func TestDiscoveryRoots(t *testing.T) {
	e := newEnv(t)
	extra := filepath.Join(e.base, "extra")
	files := map[string]string{
		filepath.Join(e.ws, "a.html"):                                page("A root page"),
		filepath.Join(e.ws, "sub", "b.html"):                         page("B sub page"),
		filepath.Join(e.ws, "sub", "deep", "c.html"):                 page("C too deep"),
		filepath.Join(e.ws, ".hidden.html"):                          page("hidden"),
		filepath.Join(e.ws, ".git", "x.html"):                        page("in hidden dir"),
		filepath.Join(e.ws, "notes.txt"):                             "not html",
		filepath.Join(e.ws, "UPPER.HTML"):                            "<p>no title</p>",
		filepath.Join(e.sandboxes, "loose.html"):                     page("not in a home"),
		filepath.Join(e.sandboxes, "alpha", "p.html"):                page("P level1"),
		filepath.Join(e.sandboxes, "alpha", "x", "q.html"):           page("Q level2"),
		filepath.Join(e.sandboxes, "alpha", "x", "y", "r.html"):      page("R level3"),
		filepath.Join(e.sandboxes, "alpha", "x", "y", "z", "s.html"): page("S too deep"),
		filepath.Join(extra, "beta", "t.html"):                       page("T extra root"),
		filepath.Join(e.shelf, "tool.html"):                          page("Tool html title"),
	}
	for p, c := range files {
		write(t, p, c)
	}
	writeMeta(t, e.shelf, "tool", map[string]any{"appId": "app_tool", "title": "Tool", "createdAt": "2024-01-02T03:04:05Z", "updatedAt": "2024-02-03T04:05:06Z"})
	s := e.open(t, extra)
	list := s.List()

	want := map[string]struct {
		kind    Kind
		src     Source
		sandbox string
		title   string
		wsPath  string
		path    string
	}{
		"app_tool":   {KindApp, SourceShelf, "", "Tool", "", filepath.Join(e.shelf, "tool.html")},
		"page_a":     {KindPage, SourceWorkspace, "", "A root page", "a.html", filepath.Join(e.ws, "a.html")},
		"page_b":     {KindPage, SourceWorkspace, "", "B sub page", "sub/b.html", filepath.Join(e.ws, "sub", "b.html")},
		"page_upper": {KindPage, SourceWorkspace, "", "UPPER", "UPPER.HTML", filepath.Join(e.ws, "UPPER.HTML")},
		"page_p":     {KindPage, SourceSandbox, "alpha", "P level1", "", filepath.Join(e.sandboxes, "alpha", "p.html")},
		"page_q":     {KindPage, SourceSandbox, "alpha", "Q level2", "", filepath.Join(e.sandboxes, "alpha", "x", "q.html")},
		"page_r":     {KindPage, SourceSandbox, "alpha", "R level3", "", filepath.Join(e.sandboxes, "alpha", "x", "y", "r.html")},
		"page_t":     {KindPage, SourceSandbox, "beta", "T extra root", "", filepath.Join(extra, "beta", "t.html")},
	}
	if len(list) != len(want) {
		t.Fatalf("got %d entries, want %d:\n%s", len(list), len(want), dump(list))
	}
	for id, w := range want {
		got := byID(t, list, id)
		if got.Kind != w.kind || got.Source != w.src || got.Sandbox != w.sandbox || got.Title != w.title || got.WorkspacePath != w.wsPath || got.StoragePath != w.path {
			t.Errorf("%s: got %+v, want %+v", id, got, w)
		}
		if got.HTML != "" {
			t.Errorf("%s: List carries HTML", id)
		}
		fi, _ := os.Stat(w.path)
		if got.SizeBytes != fi.Size() {
			t.Errorf("%s: sizeBytes got %d, want %d", id, got.SizeBytes, fi.Size())
		}
		if got.FileName != filepath.Base(w.path) {
			t.Errorf("%s: fileName got %q, want %q", id, got.FileName, filepath.Base(w.path))
		}
		if got.CreatedAt.IsZero() || got.UpdatedAt.IsZero() || got.CreatedAt.After(got.UpdatedAt) {
			t.Errorf("%s: times created=%v updated=%v", id, got.CreatedAt, got.UpdatedAt)
		}
	}
	tool := byID(t, list, "app_tool")
	if wantC := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC); !tool.CreatedAt.Equal(wantC) {
		t.Errorf("app_tool createdAt: got %v, want %v", tool.CreatedAt, wantC)
	}
	if list[0].Kind != KindApp {
		t.Errorf("List order: got first %s, want the app first", list[0].AppID)
	}
	for i := 2; i < len(list); i++ { // pages sorted by title
		if strings.ToLower(list[i-1].Title) > strings.ToLower(list[i].Title) {
			t.Errorf("List order: %q before %q", list[i-1].Title, list[i].Title)
		}
	}
}

// TestClassificationAndProof covers the kind and proof rules (the package comment, "Kind, proof and identity").
func TestClassificationAndProof(t *testing.T) {
	type want struct {
		id, kind, src, title, path string
	}
	cases := []struct {
		name   string
		setup  func(t *testing.T, e env)
		want   []want
		absent []string
	}{
		{
			name: "record with workspacePath proves the workspace file",
			setup: func(t *testing.T, e env) {
				write(t, filepath.Join(e.ws, "sub", "calc.html"), page("Calc file"))
				write(t, filepath.Join(e.shelf, "calc.html"), page("Calc file"))
				writeMeta(t, e.shelf, "calc", map[string]any{"appId": "app_calc", "title": "Calculator", "workspacePath": "sub/calc.html", "workspaceRoot": e.ws})
			},
			want: []want{{"app_calc", "app", "workspace", "Calculator", "ws/sub/calc.html"}},
		},
		{
			name: "node record without workspaceRoot still proves by workspacePath",
			setup: func(t *testing.T, e env) {
				write(t, filepath.Join(e.ws, "calc.html"), page("Calc file"))
				write(t, filepath.Join(e.shelf, "calc.html"), page("Calc file"))
				writeMeta(t, e.shelf, "calc", map[string]any{"appId": "app_calc", "title": "Calculator", "workspacePath": "calc.html"})
			},
			want: []want{{"app_calc", "app", "workspace", "Calculator", "ws/calc.html"}},
		},
		{
			name: "workspacePath naming another file proves nothing",
			setup: func(t *testing.T, e env) {
				write(t, filepath.Join(e.ws, "sub", "calc.html"), page("Calc file"))
				write(t, filepath.Join(e.shelf, "calc.html"), page("Shelf calc"))
				writeMeta(t, e.shelf, "calc", map[string]any{"appId": "app_calc", "title": "Calculator", "workspacePath": "calc.html"})
			},
			want: []want{
				{"app_calc", "app", "shelf", "Calculator", "data/mini-apps/calc.html"},
				{"page_calc", "page", "workspace", "Calc file", "ws/sub/calc.html"},
			},
		},
		{
			name: "record from another workspace proves nothing",
			setup: func(t *testing.T, e env) {
				write(t, filepath.Join(e.ws, "calc.html"), page("Calc file"))
				write(t, filepath.Join(e.shelf, "calc.html"), page("Shelf calc"))
				writeMeta(t, e.shelf, "calc", map[string]any{"appId": "app_calc", "title": "Calculator", "workspacePath": "calc.html", "workspaceRoot": filepath.Join(e.base, "elsewhere")})
			},
			want: []want{
				{"app_calc", "app", "shelf", "Calculator", "data/mini-apps/calc.html"},
				{"page_calc", "page", "workspace", "Calc file", "ws/calc.html"},
			},
		},
		{
			name: "legacy record (no workspacePath), identical bytes and appId",
			setup: func(t *testing.T, e env) {
				write(t, filepath.Join(e.ws, "collision.html"), page("Collision"))
				write(t, filepath.Join(e.shelf, "collision.html"), page("Collision"))
				writeMeta(t, e.shelf, "collision", map[string]any{"appId": "app_collision", "title": "Record Title"})
			},
			want: []want{
				{"app_collision", "app", "shelf", "Record Title", "data/mini-apps/collision.html"},
				{"page_collision", "page", "workspace", "Collision", "ws/collision.html"},
			},
		},
		{
			name: "shelf html without record is an app; record without html is ignored; temp files ignored",
			setup: func(t *testing.T, e env) {
				write(t, filepath.Join(e.shelf, "bare.html"), page("Bare"))
				writeMeta(t, e.shelf, "orphan", map[string]any{"appId": "app_orphan", "title": "Orphan", "workspacePath": "orphan.html"})
				write(t, filepath.Join(e.ws, "orphan.html"), page("Orphan page"))
				write(t, filepath.Join(e.shelf, ".bare.html.tmp-0123456789ab"), "<half")
				write(t, filepath.Join(e.shelf, "junk.html.tmp"), "<half")
			},
			want: []want{
				{"app_bare", "app", "shelf", "Bare", "data/mini-apps/bare.html"},
				{"page_orphan", "page", "workspace", "Orphan page", "ws/orphan.html"},
			},
			absent: []string{"app_orphan"},
		},
		{
			name: "corrupt record: still an app, title from its html",
			setup: func(t *testing.T, e env) {
				write(t, filepath.Join(e.shelf, "broken.html"), page("Broken html"))
				write(t, filepath.Join(e.shelf, "broken.meta.json"), `{"appId": "app_broken", "tit`)
			},
			want: []want{{"app_broken", "app", "shelf", "Broken html", "data/mini-apps/broken.html"}},
		},
		{
			name: "sandbox file stays a page even with a shelf app of the same name",
			setup: func(t *testing.T, e env) {
				write(t, filepath.Join(e.sandboxes, "s1", "game.html"), page("Game"))
				write(t, filepath.Join(e.shelf, "game.html"), page("Game"))
			},
			want: []want{
				{"app_game", "app", "shelf", "Game", "data/mini-apps/game.html"},
				{"page_game", "page", "sandbox", "Game", "data/sandboxes/s1/game.html"},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			c.setup(t, e)
			list := e.open(t).List()
			if len(list) != len(c.want) {
				t.Fatalf("got %d entries, want %d:\n%s", len(list), len(c.want), dump(list))
			}
			for _, w := range c.want {
				got := byID(t, list, w.id)
				gotPath, _ := filepath.Rel(e.base, got.StoragePath)
				if string(got.Kind) != w.kind || string(got.Source) != w.src || got.Title != w.title || filepath.ToSlash(gotPath) != w.path {
					t.Errorf("%s: got kind=%s src=%s title=%q path=%s, want kind=%s src=%s title=%q path=%s",
						w.id, got.Kind, got.Source, got.Title, gotPath, w.kind, w.src, w.title, w.path)
				}
			}
			for _, id := range c.absent {
				if hasID(list, id) {
					t.Errorf("%s: listed, want absent", id)
				}
			}
		})
	}
}

// TestIDsUnique: same slug in many places gets distinct, deterministic ids.
func TestIDsUnique(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.ws, "a.html"), page("root a"))
	write(t, filepath.Join(e.ws, "a-2.html"), page("real a-2"))
	write(t, filepath.Join(e.ws, "sub", "a.html"), page("sub a"))
	write(t, filepath.Join(e.sandboxes, "alpha", "a.html"), page("alpha a"))
	write(t, filepath.Join(e.sandboxes, "beta", "A.html"), page("beta a"))
	write(t, filepath.Join(e.shelf, "a.html"), page("shelf a"))
	write(t, filepath.Join(e.shelf, "A b.html"), page("shelf a b"))
	write(t, filepath.Join(e.shelf, "a-b.html"), page("shelf a-b"))
	want := map[string]string{
		"app_a":     "shelf a",
		"app_a-b":   "shelf a b", // "A b.html" sorts before "a-b.html"
		"app_a-b-2": "shelf a-b",
		"page_a":    "root a",
		"page_a-2":  "real a-2",
		"page_a-3":  "sub a",
		"page_a-4":  "alpha a",
		"page_a-5":  "beta a",
	}
	for round := 0; round < 3; round++ {
		list := e.open(t).List()
		if len(list) != len(want) {
			t.Fatalf("got %d entries, want %d:\n%s", len(list), len(want), dump(list))
		}
		seen := map[string]bool{}
		for _, en := range list {
			if seen[en.AppID] {
				t.Fatalf("duplicate id %s", en.AppID)
			}
			seen[en.AppID] = true
			if want[en.AppID] != en.Title {
				t.Errorf("round %d: %s has title %q, want %q", round, en.AppID, en.Title, want[en.AppID])
			}
		}
	}
}

// TestLookupOrder: the first step that matches decides; apps outrank pages.
func TestLookupOrder(t *testing.T) {
	e := newEnv(t)
	// collision: a page and an app sharing slug, file name and title.
	write(t, filepath.Join(e.ws, "collision.html"), page("Collision"))
	write(t, filepath.Join(e.shelf, "collision.html"), page("Collision"))
	writeMeta(t, e.shelf, "collision", map[string]any{"appId": "app_collision", "title": "Collision"})
	// a page whose file name is the title of an app: step 2 beats step 4.
	write(t, filepath.Join(e.ws, "notes.html"), page("Page Notes"))
	write(t, filepath.Join(e.shelf, "other.html"), page("notes.html"))
	// a page named like an app id: step 1 beats step 2.
	write(t, filepath.Join(e.ws, "app_other.html"), page("Tricky"))
	// a page only reachable by title and slug.
	write(t, filepath.Join(e.ws, "sub", "weird name.html"), page("My Fancy Page"))
	// a page in a sandbox and one in the workspace with the same name: workspace first.
	write(t, filepath.Join(e.sandboxes, "box", "dup.html"), page("Dup sandbox"))
	write(t, filepath.Join(e.ws, "dup.html"), page("Dup workspace"))
	s := e.open(t)
	cases := []struct{ ref, wantID string }{
		{"collision.html", "app_collision"},
		{"collision", "app_collision"},
		{"COLLISION", "app_collision"},
		{"Collision", "app_collision"},
		{"app_collision", "app_collision"},
		{"page_collision", "page_collision"},
		{"notes.html", "page_notes"}, // file name (page) beats title (app)
		{"app_other", "app_other"},   // exact id beats file/slug
		{"app_other.html", "page_app-other"},
		{"my fancy page", "page_weird-name"},
		{"MY FANCY PAGE", "page_weird-name"},
		{"weird name.html", "page_weird-name"},
		{"sub/weird name.html", "page_weird-name"},
		{"Weird Name", "page_weird-name"},
		{"dup.html", "page_dup"},
		{"Dup sandbox", "page_dup-2"},
	}
	for _, c := range cases {
		got, err := s.Resolve(c.ref)
		if err != nil {
			t.Errorf("Resolve(%q): got error %v, want %s", c.ref, err, c.wantID)
			continue
		}
		if got.AppID != c.wantID {
			t.Errorf("Resolve(%q): got %v, want %v", c.ref, got.AppID, c.wantID)
		}
	}
	if dup := byID(t, s.List(), "page_dup"); dup.Source != SourceWorkspace {
		t.Errorf("page_dup: got source %s, want workspace", dup.Source)
	}
	_, err := s.Resolve("nothing-like-this")
	wantErr(t, err, ErrNotFound)

	g, err := s.Get("collision.html")
	if err != nil || g.AppID != "app_collision" || g.HTML != page("Collision") {
		t.Fatalf("Get(collision.html): got %v %q, want app_collision with its html", err, g.AppID)
	}
	g, err = s.Get("page_collision")
	if err != nil || g.HTML != page("Collision") || g.StoragePath != filepath.Join(e.ws, "collision.html") {
		t.Fatalf("Get(page_collision): got %v %+v", err, g)
	}
}

// A folder that is itself a root is walked once, as that root: a workspace
// that contains the shelf does not list the shelf files as pages.
func TestOverlappingRoots(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.shelf, "tool.html"), page("Tool"))
	write(t, filepath.Join(e.sandboxes, "box", "p.html"), page("P"))
	write(t, filepath.Join(e.data, "top.html"), page("Top"))
	s, err := Open(Roots{Workspace: e.data, Data: e.data, SandboxRoots: []string{e.sandboxes, e.sandboxes}})
	if err != nil {
		t.Fatal(err)
	}
	list := s.List()
	want := "app_tool,page_p,page_top"
	if got := strings.Join(ids(list), ","); got != want {
		t.Fatalf("got %s, want %s:\n%s", got, want, dump(list))
	}
	if byID(t, list, "page_p").Source != SourceSandbox || byID(t, list, "app_tool").Source != SourceShelf {
		t.Fatalf("wrong sources:\n%s", dump(list))
	}
}
