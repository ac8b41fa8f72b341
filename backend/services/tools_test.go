package services

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/voicebox/voicebox/backend/documents"
	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/registry/registrytest"
	"github.com/voicebox/voicebox/backend/sandbox"
	"github.com/voicebox/voicebox/backend/store"
	"github.com/voicebox/voicebox/backend/toolcontract"
	"github.com/voicebox/voicebox/tests/testfs"
)

// Pages opened from outside the store are named by the store's one slug and title rule (issue 12 §3):
// ".htm" is not a suffix it drops, entities are decoded, and a long title is cut on a character boundary.
func TestPrepareNamesPagesAsTheStoreDoes(t *testing.T) {
	sb := sandbox.New(sandbox.Options{RoomOrigin: "http://127.0.0.1:1"}, "localhost:2")
	s := NewSandboxService(sb, nil, nil)
	long := strings.Repeat("é", 300)
	for _, c := range []struct{ name, html, slug, title string }{
		{"x.htm", "<title>A &amp; B</title>", "x-htm", "A & B"},
		{"My Game.html", "<p>no title", "my-game", "My Game"},
		{"日本.html", "<title>" + long + "</title>", store.SlugOf("日本.html"), ""},
	} {
		info, err := s.Prepare(LaunchRequest{HTML: c.html, Name: c.name})
		if err != nil {
			t.Fatal(err)
		}
		if info.Slug != c.slug || info.AppID != "local_"+c.slug || c.title != "" && info.Title != c.title {
			t.Errorf("%s: slug %q, id %q, title %q", c.name, info.Slug, info.AppID, info.Title)
		}
		if !utf8.ValidString(info.Title) || info.Title != store.TitleOf(c.html, c.name) {
			t.Errorf("%s: title %q is not the store's", c.name, info.Title)
		}
	}
}

func TestRegistryService(t *testing.T) {
	reg := registry.New(events.NewBus())
	sb := sandbox.New(sandbox.Options{RoomOrigin: "http://127.0.0.1:1"}, "localhost:2")
	s := NewRegistryService(exposed.New(reg), sb)
	if err := s.Hello(""); err == nil {
		t.Error("empty room accepted")
	}
	if _, err := s.Register("r", "", "", "", nil); err == nil {
		t.Error("empty appId accepted")
	}
	v, err := s.Register("r", "app_a", "A", "a", []json.RawMessage{
		json.RawMessage(`{"name":"t","description":"","parameters":{"type":"object"}}`),
		json.RawMessage(`{"name":"t","description":"","parameters":{"type":"object"}}`),
	})
	if err != nil || len(v) != 2 || !v[0].OK || v[1].Refused != "duplicate-tool" {
		t.Fatalf("verdicts %+v %v", v, err)
	}
	l := sb.Add(sandbox.Launch{Room: "r", AppID: "app_a"})
	if err := s.Goodbye("r"); err != nil {
		t.Fatal(err)
	}
	if apps, _ := s.Apps(); len(apps) != 0 {
		t.Errorf("apps after goodbye: %+v", apps)
	}
	if _, ok := sb.Lookup(l.Token); ok {
		t.Error("token survived goodbye")
	}
	if o, _ := s.Call("app_a", "t", nil); o.Refused != "unknown-tool" {
		t.Errorf("call after goodbye: %+v", o)
	}
	var nilBox *SandboxService
	if _, err := nilBox.Prepare(LaunchRequest{HTML: "x"}); err == nil {
		t.Error("prepare without a sandbox")
	}
}

// Prepare launches a folder app with its folder (a store entry; an opened index.html in the workspace, or
// whose folder the person opened as an app) and every other page as a single page under its own name: an
// index.html opened from Downloads among them (issue 28, finding 5).
func TestPrepareFolderApps(t *testing.T) {
	ws, elsewhere := t.TempDir(), t.TempDir()
	testfs.Files(t, ws, map[string]string{"pizza/index.html": "<title>Pizza</title>", "pizza/script.js": "1", "top.html": "<title>Top</title>"})
	downloads, project := filepath.Join(elsewhere, "Downloads"), filepath.Join(elsewhere, "project")
	testfs.Files(t, downloads, map[string]string{"index.html": "<p>no title", "bank-statement.csv": "1"})
	testfs.Files(t, project, map[string]string{"index.html": "<p>no title", "game.js": "1"})
	st, err := store.Open(store.Roots{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	docs := documents.NewTable()
	opened, errs := docs.Open(ws, []string{"pizza/index.html", "top.html", filepath.Join(downloads, "index.html"), project})
	if len(errs) != 0 || len(opened) != 4 || opened[2].Folder || !opened[3].Folder {
		t.Fatalf("opened %+v %v", opened, errs)
	}
	sb := sandbox.New(sandbox.Options{RoomOrigin: "http://127.0.0.1:1"}, "localhost:2")
	s := NewSandboxService(sb, st, docs)
	for _, c := range []struct {
		req    LaunchRequest
		folder string
		entry  string
		slug   string
		title  string
	}{
		{LaunchRequest{Ref: "pizza"}, filepath.Join(ws, "pizza"), "index.html", "pizza", "Pizza"},
		{LaunchRequest{Ref: "top.html"}, "", "top.html", "top", "Top"},
		{LaunchRequest{Document: opened[0].ID}, filepath.Join(ws, "pizza"), "index.html", "pizza", "Pizza"},
		{LaunchRequest{Document: opened[1].ID}, "", "top.html", "top", "Top"},
		{LaunchRequest{Document: opened[2].ID}, "", "index.html", "index", "index"},
		{LaunchRequest{Document: opened[3].ID}, project, "index.html", "project", "project"}, // named after its folder
		{LaunchRequest{HTML: "<p>x", Name: `..\..\evil.html`}, "", "evil.html", "evil", `..\..\evil`},
	} {
		info, err := s.Prepare(c.req)
		if err != nil {
			t.Fatalf("%+v: %v", c.req, err)
		}
		l, _ := sb.Lookup(info.LaunchID)
		folder := ""
		if l.Folder != nil {
			folder = l.Folder.Path()
		}
		if folder != c.folder || l.Entry != c.entry || info.Slug != c.slug || info.Title != c.title {
			t.Errorf("%+v: folder %q entry %q slug %q title %q, want %q %q %q %q", c.req, folder, l.Entry, info.Slug, info.Title, c.folder, c.entry, c.slug, c.title)
		}
		sb.Revoke(info.LaunchID)
	}
}

func TestDescribeFolderRefusals(t *testing.T) {
	for err, want := range map[error]int{store.ErrFolderTooLarge: 413, store.ErrUnsupportedFile: 400, store.ErrNotAppFolder: 400} {
		status, body := Describe(fmt.Errorf("%w: pizza", err))
		if status != want || body.Code != err.Error() {
			t.Errorf("Describe(%v) = %d %+v", err, status, body)
		}
	}
}

// The Tool Console cancels a call by its ticket: the call is refused `cancelled` at once, and the room
// that took it is told to cancel it (the registry's cancel op). A cancel that overtakes its call cancels
// the call when it arrives.
func TestConsoleCallCancels(t *testing.T) {
	reg := registry.New(events.NewBus())
	room := registrytest.NewRoom(reg)
	defer room.Stop()
	if err := room.Open(registrytest.Scoreboard()); err != nil {
		t.Fatal(err)
	}
	room.Hang(true)
	s := NewRegistryService(exposed.New(reg), nil)
	done := make(chan registry.Outcome, 1)
	go func() {
		o, _ := s.ConsoleCall("t1", "app_scoreboard", "set_score", json.RawMessage(`{"team":"home","points":1}`))
		done <- o
	}()
	for len(room.Calls()) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := s.ConsoleCall("t1", "app_scoreboard", "set_score", nil); err == nil {
		t.Error("a second call with a running ticket was accepted")
	}
	if err := s.CancelCall("t1"); err != nil {
		t.Fatal(err)
	}
	if o := <-done; o.Refused != toolcontract.CodeCancelled {
		t.Fatalf("cancelled call: %+v, want %s", o, toolcontract.CodeCancelled)
	}
	for len(room.Cancels()) == 0 {
		time.Sleep(5 * time.Millisecond) // the room hears of it (a test that never sees it times out)
	}

	if err := s.CancelCall("t2"); err != nil {
		t.Fatal(err)
	}
	if o, _ := s.ConsoleCall("t2", "app_scoreboard", "set_score", json.RawMessage(`{"team":"home","points":1}`)); o.Refused != toolcontract.CodeCancelled {
		t.Fatalf("a call whose cancel came first: %+v", o)
	}
	for _, bad := range []string{"", strings.Repeat("x", 65)} {
		if err := s.CancelCall(bad); err == nil {
			t.Errorf("ticket %q accepted", bad)
		}
	}
}

// The room's functionDeclarations name tools as voice and MCP do: the app that took a name first keeps it.
// Here app_z took "shared__t", then app_a (same slug, earlier in id order) came; a fresh naming would give
// app_a the plain name, so the room would show a name that calls another app.
func TestFunctionDeclarationsUseTheExposedNames(t *testing.T) {
	reg := registry.New(events.NewBus())
	exp := exposed.New(reg)
	s := NewRegistryService(exp, nil)
	tool := []json.RawMessage{json.RawMessage(`{"name":"t","description":"","parameters":{"type":"object"}}`)}
	if _, err := s.Register("r", "app_z", "Z", "shared", tool); err != nil {
		t.Fatal(err)
	}
	exp.Snapshot() // a caller (voice, MCP) learns the names now
	if _, err := s.Register("r", "app_a", "A", "shared", tool); err != nil {
		t.Fatal(err)
	}
	snap := exp.Snapshot()
	for _, provider := range []string{toolcontract.ProviderOpenAI, toolcontract.ProviderGemini} {
		d, err := s.FunctionDeclarations(provider)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Exposed) != 2 || len(d.Declarations) != 2 {
			t.Fatalf("%s: %d names, %d declarations", provider, len(d.Exposed), len(d.Declarations))
		}
		for name, e := range d.Exposed {
			if got := snap.Name(e.AppID, e.Tool); got != name {
				t.Errorf("%s: the room calls %s's tool %q, voice and MCP %q", provider, e.AppID, name, got)
			}
		}
		if d.Exposed["shared__t"].AppID != "app_z" {
			t.Errorf("%s: shared__t is %+v, want app_z's (it had it first)", provider, d.Exposed["shared__t"])
		}
	}
}

// The desktop's launch rule (the watchdog's MayLaunch) answers in the launch call itself: Prepare hands it
// the app and who asks, and refuses with launch-failed and the rule's reason; without a rule, or when the
// rule has nothing against it, the same request opens.
func TestPrepareAppliesTheLaunchRule(t *testing.T) {
	sb := sandbox.New(sandbox.Options{RoomOrigin: "http://127.0.0.1:1"}, "localhost:2")
	s := NewSandboxService(sb, nil, nil)
	req := LaunchRequest{HTML: "<title>Loop</title>", Name: "loop.html", By: "boot"}
	if _, err := s.Prepare(req); err != nil {
		t.Fatalf("no rule: %v", err)
	}
	var asked []string
	s.SetLaunchRule(func(appID, by string) string {
		asked = append(asked, appID+" "+by)
		if by == "boot" {
			return "it was open before"
		}
		return ""
	})
	_, err := s.Prepare(req)
	if err == nil {
		t.Fatal("the rule's refusal was ignored")
	}
	if _, body := Describe(err); body.Code != registry.CodeLaunchFailed || body.Message != "Loop stays closed: it was open before." {
		t.Errorf("refusal %+v", body)
	}
	req.By = "person"
	if _, err := s.Prepare(req); err != nil {
		t.Errorf("the rule allowed it, Prepare refused: %v", err)
	}
	if want := []string{"local_loop boot", "local_loop person"}; fmt.Sprint(asked) != fmt.Sprint(want) {
		t.Errorf("the rule was asked %q, want %q", asked, want)
	}
}
