package author_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/author"
	"github.com/voicebox/voicebox/backend/author/codemodel"
	"github.com/voicebox/voicebox/backend/author/codemodel/codemodeltest"
	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/store"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// These tests run builds against the real store (files in t.TempDir), the real registry and the code model
// fakes (codemodeltest, real HTTP). The room is a Go double (testRoom): it cannot run a page's script, so a
// test page says what its script would do in two JSON blocks the double reads when it "opens" the page
// (the tools it registers, the errors it throws); the registry checks the declarations as it does the
// room's. The real room, in real browsers, is tests/e2e's and tests/desktop's (authoring cases).

const key = "sk-test-authoring-0123456789"

// page is a written app as a test's code model answers it: tools are raw declarations, errs uncaught errors.
func page(title string, tools []string, errs ...string) string {
	e, _ := json.Marshal(errs)
	return "<!doctype html>\n<html>\n<head>\n<title>" + title + "</title>\n</head>\n<body>\n<h1>" + title + "</h1>\n" +
		`<script type="application/json" id="test-tools">[` + strings.Join(tools, ",") + "]</script>\n" +
		`<script type="application/json" id="test-errors">` + string(e) + "</script>\n" +
		"<button id=\"start\">Start</button>\n</body>\n</html>\n"
}

func tool(name string) string {
	return fmt.Sprintf(`{"name":%q,"description":"does %s","inputSchema":{"type":"object","properties":{}}}`, name, name)
}

// badTool declares a pattern, which the tool contract refuses (invalid-tool-parameters).
func badTool(name string) string {
	return fmt.Sprintf(`{"name":%q,"description":"d","inputSchema":{"type":"object","properties":{"x":{"type":"string","pattern":"^a"}}}}`, name)
}

var (
	toolsBlock  = regexp.MustCompile(`(?s)<script type="application/json" id="test-tools">(.*?)</script>`)
	errorsBlock = regexp.MustCompile(`(?s)<script type="application/json" id="test-errors">(.*?)</script>`)
)

// testRoom is the room double: it opens a store entry by reading its page from disk, registers the tools
// the page declares with the real registry and reports its errors there, as the room does.
type testRoom struct {
	reg *registry.Registry
	st  *store.Store

	mu      sync.Mutex
	opened  []string // app ids, each launch or reopen
	reopens int
	closed  []string
}

func (r *testRoom) open(ref string) (registry.App, registry.Outcome) {
	e, err := r.st.Get(ref)
	if err != nil {
		return registry.App{}, registry.Outcome{Refused: registry.CodeLaunchFailed, Message: err.Error()}
	}
	var raws []json.RawMessage
	if m := toolsBlock.FindStringSubmatch(e.HTML); m != nil {
		_ = json.Unmarshal([]byte(m[1]), &raws)
	}
	r.reg.Unregister(e.AppID) // a new document: its report starts afresh
	if _, err := r.reg.Register("room-test", e.AppID, e.Title, e.Slug, raws); err != nil {
		return registry.App{}, registry.Outcome{Refused: registry.CodeLaunchFailed, Message: err.Error()}
	}
	var errs []string
	if m := errorsBlock.FindStringSubmatch(e.HTML); m != nil {
		_ = json.Unmarshal([]byte(m[1]), &errs)
	}
	for _, msg := range errs {
		r.reg.Report(e.AppID, registry.Report{Error: &registry.AppError{Kind: "error", Message: msg, Where: "index.html:9:1"}})
	}
	r.mu.Lock()
	r.opened = append(r.opened, e.AppID)
	r.mu.Unlock()
	for _, a := range r.reg.Apps() {
		if a.AppID == e.AppID {
			return a, registry.Outcome{OK: true}
		}
	}
	return registry.App{AppID: e.AppID, Title: e.Title}, registry.Outcome{OK: true}
}

func (r *testRoom) Launch(_ context.Context, _, ref string) (registry.App, registry.Outcome) {
	return r.open(ref)
}

func (r *testRoom) Reopen(_ context.Context, _, ref string) (registry.App, registry.Outcome) {
	r.mu.Lock()
	r.reopens++
	r.mu.Unlock()
	return r.open(ref)
}

func (r *testRoom) Close(_ context.Context, _, appID string) registry.Outcome {
	r.reg.Unregister(appID)
	r.mu.Lock()
	r.closed = append(r.closed, appID)
	r.mu.Unlock()
	return registry.Outcome{OK: true}
}

func (r *testRoom) Apps() []registry.App               { return r.reg.Apps() }
func (r *testRoom) HasRoom() bool                      { return r.reg.HasRoom() }
func (r *testRoom) HealthOf(id string) registry.Health { return r.reg.HealthOf(id) }

// rig is one Voicebox's worth of authoring: data and workspace folders, the store, the room double, a fake
// code model and the Service.
type rig struct {
	data, ws string
	st       *store.Store
	room     *testRoom
	fake     *codemodeltest.Server
	svc      *author.Service
	bus      *events.Bus
	noKey    bool
}

func newRig(t *testing.T, provider string) *rig {
	t.Helper()
	base := t.TempDir()
	r := &rig{data: filepath.Join(base, "data"), ws: filepath.Join(base, "ws"), bus: events.NewBus()}
	for _, d := range []string{r.data, r.ws} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Open(store.Roots{Workspace: r.ws, Data: r.data})
	if err != nil {
		t.Fatal(err)
	}
	r.st = st
	r.room = &testRoom{reg: registry.New(r.bus), st: st}
	if err := r.room.reg.Hello("room-test"); err != nil {
		t.Fatal(err)
	}
	if provider == codemodel.ProviderGemini {
		r.fake = codemodeltest.NewGemini(t)
	} else {
		r.fake = codemodeltest.NewOpenAI(t)
	}
	r.fake.Key = key
	ws, err := author.OpenWorkshop(r.data)
	if err != nil {
		t.Fatal(err)
	}
	r.svc = author.New(author.Config{
		Workshop: ws, Room: r.room, Library: st,
		Model: func() (codemodel.Client, error) {
			k := key
			if r.noKey {
				k = ""
			}
			return codemodel.New(codemodel.Config{Provider: provider, Key: k, BaseURL: r.fake.URL,
				Backoff: func(int) time.Duration { return time.Millisecond }})
		},
		CDNHosts:    func() []string { return []string{"cdn.example.org"} },
		Bus:         r.bus,
		CheckWindow: 10 * time.Millisecond, // the double reports everything at once
	})
	t.Cleanup(r.svc.Close)
	return r
}

func (r *rig) wait(t *testing.T, st author.Started) author.Final {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return r.svc.Wait(ctx, st.Job)
}

func (r *rig) pagePath(slug string) string {
	return filepath.Join(r.data, store.WrittenAppsDir, slug, "index.html")
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func result(t *testing.T, out registry.Outcome) map[string]any {
	t.Helper()
	if !out.OK {
		t.Fatalf("outcome refused %s: %s", out.Refused, out.Message)
	}
	var m map[string]any
	if err := json.Unmarshal(out.Result, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// A description becomes a working app: streamed, written as version 1 in the Voicebox-owned sandbox home,
// opened, its tools registered; the code model was asked with the shipped prompt (CDN hosts, edit format).
func TestCreateWritesOpensAndChecks(t *testing.T) {
	for _, provider := range []string{codemodel.ProviderOpenAI, codemodel.ProviderGemini} {
		t.Run(provider, func(t *testing.T) {
			r := newRig(t, provider)
			html := page("Chess clock", []string{tool("start"), tool("pause"), tool("get_state")})
			r.fake.Queue(codemodeltest.Text("```html\n", html[:len(html)/2], html[len(html)/2:], "\n```\nEnjoy!"))
			st, err := r.svc.Create("voice:"+provider, "make me a chess clock with two players and a pause button", "")
			if err != nil {
				t.Fatal(err)
			}
			if st.Status != "building" || st.Slug != "chess-clock" || st.Name != "Chess clock" {
				t.Fatalf("started %+v, want building chess-clock", st)
			}
			f := r.wait(t, st)
			res := result(t, f.Outcome)
			if res["status"] != "ready" || f.Version != 1 || len(f.Problems) != 0 {
				t.Fatalf("final %+v (%s)", f, f.Outcome.Result)
			}
			if got := strings.Join(f.App.Tools, ","); got != "start,pause,get_state" {
				t.Fatalf("tools %q", got)
			}
			if got := readFile(t, r.pagePath("chess-clock")); got != html {
				t.Fatalf("page on disk is not the answer's document:\n%s", got)
			}
			reqs := r.fake.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			q := reqs[0]
			for _, want := range []string{"navigator.modelContext.registerTool", "cdn.example.org", "SEARCH", "400 px", "prefers-color-scheme"} {
				if !strings.Contains(q.System, want) {
					t.Errorf("system prompt lacks %q", want)
				}
			}
			if len(q.Messages) != 1 || !strings.Contains(q.Messages[0].Text, "chess clock with two players") {
				t.Fatalf("messages %+v", q.Messages)
			}
			v, _ := r.svc.View(st.Job)
			if v.State != author.StateDone || v.Round != 1 || v.TokensOut == 0 || v.Provider != provider {
				t.Fatalf("view %+v", v)
			}
		})
	}
}

// A first answer whose tool the contract refuses goes back to the model with the exact refusal; the repair
// is written as version 2 and works. The versions list says which version failed its check and why.
func TestRepairRoundSendsTheRefusalBack(t *testing.T) {
	r := newRig(t, codemodel.ProviderOpenAI)
	r.fake.Queue(
		codemodeltest.Text(page("Tip calculator", []string{badTool("split"), tool("get_state")})),
		codemodeltest.Text(page("Tip calculator", []string{tool("split"), tool("get_state")})),
	)
	st, err := r.svc.Create("you", "a tip calculator", "Tip calculator")
	if err != nil {
		t.Fatal(err)
	}
	f := r.wait(t, st)
	if !f.Outcome.OK || len(f.Problems) != 0 || f.Version != 2 {
		t.Fatalf("final %+v %s", f, f.Outcome.Message)
	}
	reqs := r.fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1].Text
	if !strings.Contains(last, `"split"`) || !strings.Contains(last, toolcontract.CodeInvalidToolParameters) {
		t.Fatalf("the repair request does not carry the refusal:\n%s", last)
	}
	vs, err := r.svc.Versions(st.Slug)
	if err != nil || len(vs) != 2 {
		t.Fatalf("versions %+v %v", vs, err)
	}
	if vs[0].Outcome != author.OutcomeOK || vs[1].Outcome != author.OutcomeCheckFailed || !strings.Contains(vs[1].Reason, "split") {
		t.Fatalf("versions' outcomes %+v", vs)
	}
}

// After two repairs the last version stays open and the answer says honestly what does not work.
func TestRepairsAreBoundedAndTheTruthIsTold(t *testing.T) {
	r := newRig(t, codemodel.ProviderOpenAI)
	broken := page("Counter", []string{tool("inc")}, "TypeError: x is undefined")
	r.fake.Queue(codemodeltest.Text(broken), codemodeltest.Text(broken+"<!-- 2 -->"), codemodeltest.Text(broken+"<!-- 3 -->"))
	st, _ := r.svc.Create("you", "a counter", "")
	f := r.wait(t, st)
	res := result(t, f.Outcome)
	if res["status"] != author.StatusProblems || f.Version != 3 || !strings.Contains(fmt.Sprint(f.Problems), "x is undefined") {
		t.Fatalf("final %+v %s", f, f.Outcome.Result)
	}
	if n := len(r.fake.Requests()); n != 1+author.MaxRepairs {
		t.Fatalf("%d requests, want %d", n, 1+author.MaxRepairs)
	}
	if r.fake.Pending() != 0 {
		t.Fatal("answers left unasked")
	}
}

// An edit answered with search/replace blocks changes the written app in place (a new version, reopened in
// its window), and revert brings the previous version back.
func TestEditByBlocksThenRevert(t *testing.T) {
	r := newRig(t, codemodel.ProviderOpenAI)
	v1 := page("Chess clock", []string{tool("start"), tool("get_state")})
	r.fake.Queue(codemodeltest.Text(v1))
	st, _ := r.svc.Create("you", "a chess clock", "")
	if f := r.wait(t, st); !f.Outcome.OK {
		t.Fatal(f.Outcome.Message)
	}
	r.fake.Queue(codemodeltest.Text("Here you go:\n```\n<<<<<<< SEARCH\n<button id=\"start\">Start</button>\n=======\n<button id=\"start\" style=\"font-size:2em\">Start</button>\n>>>>>>> REPLACE\n```\n"))
	ed, err := r.svc.Edit("you", "Chess clock", "make the buttons bigger")
	if err != nil {
		t.Fatal(err)
	}
	if ed.Slug != st.Slug {
		t.Fatalf("the edit writes %q, want the app's own %q", ed.Slug, st.Slug)
	}
	f := r.wait(t, ed)
	if !f.Outcome.OK || f.Version != 2 {
		t.Fatalf("edit: %+v %s", f, f.Outcome.Message)
	}
	now := readFile(t, r.pagePath(st.Slug))
	if !strings.Contains(now, "font-size:2em") || strings.Replace(now, ` style="font-size:2em"`, "", 1) != v1 {
		t.Fatalf("the page is not v1 with the one change:\n%s", now)
	}
	edit := r.fake.Requests()[1].Messages[0].Text
	if !strings.Contains(edit, v1) || !strings.Contains(edit, "make the buttons bigger") {
		t.Fatalf("the edit request lacks the page or the change:\n%s", edit)
	}
	if r.room.reopens < 2 {
		t.Fatalf("%d reopens: the edit was not loaded where the app is", r.room.reopens)
	}
	rv := r.svc.Revert(context.Background(), "you", "chess-clock")
	if !rv.Outcome.OK || rv.Version != 3 {
		t.Fatalf("revert: %+v %s", rv, rv.Outcome.Message)
	}
	if got := readFile(t, r.pagePath(st.Slug)); got != v1 {
		t.Fatalf("after revert the page is not v1:\n%s", got)
	}
}

// A block that does not match goes back with the page's nearby lines; the retry applies.
func TestBlockThatDoesNotMatchIsRetried(t *testing.T) {
	r := newRig(t, codemodel.ProviderOpenAI)
	r.fake.Queue(codemodeltest.Text(page("Timer", []string{tool("start")})))
	st, _ := r.svc.Create("you", "a timer", "")
	r.wait(t, st)
	r.fake.Queue(
		codemodeltest.Text("<<<<<<< SEARCH\n<button id=\"go\">Go</button>\n=======\n<button id=\"go\">Go!</button>\n>>>>>>> REPLACE\n"),
		codemodeltest.Text("<<<<<<< SEARCH\n<button id=\"start\">Start</button>\n=======\n<button id=\"start\">Go!</button>\n>>>>>>> REPLACE\n"),
	)
	ed, _ := r.svc.Edit("you", st.Slug, "rename the button Go!")
	f := r.wait(t, ed)
	if !f.Outcome.OK || f.Version != 2 || !strings.Contains(readFile(t, r.pagePath(st.Slug)), "Go!") {
		t.Fatalf("%+v %s", f, f.Outcome.Message)
	}
	retry := r.fake.Requests()[2].Messages
	last := retry[len(retry)-1].Text
	if !strings.Contains(last, `<button id="start">Start</button>`) {
		t.Fatalf("the retry does not show the page's actual lines:\n%s", last)
	}
}

// An edit that changes nothing is never done.
func TestEditThatChangesNothingFails(t *testing.T) {
	r := newRig(t, codemodel.ProviderOpenAI)
	v1 := page("Timer", []string{tool("start")})
	r.fake.Queue(codemodeltest.Text(v1))
	st, _ := r.svc.Create("you", "a timer", "")
	r.wait(t, st)
	same := "<<<<<<< SEARCH\n<h1>Timer</h1>\n=======\n<h1>Timer</h1>\n>>>>>>> REPLACE\n"
	r.fake.Queue(codemodeltest.Text(same), codemodeltest.Text(same), codemodeltest.Text(v1))
	ed, _ := r.svc.Edit("you", st.Slug, "nothing really")
	f := r.wait(t, ed)
	if f.Outcome.OK || f.Outcome.Refused != author.CodeNoChange {
		t.Fatalf("want %s, got %+v", author.CodeNoChange, f.Outcome)
	}
	if vs, _ := r.svc.Versions(st.Slug); len(vs) != 1 {
		t.Fatalf("%d versions: an edit that changed nothing wrote one", len(vs))
	}
}

// Failures write nothing: a truncated answer, a blocked one, a refused key (its text never carries the key).
func TestFailuresWriteNothing(t *testing.T) {
	cases := []struct {
		answer codemodeltest.Answer
		code   string
	}{
		{codemodeltest.Truncated("<!doctype html><html><body><script>"), codemodel.CodeTruncated},
		{codemodeltest.Blocked(""), codemodel.CodeBlocked},
		{codemodeltest.Status(401, "Incorrect API key provided: "+key), codemodel.CodeKeyRefused},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			r := newRig(t, codemodel.ProviderOpenAI)
			r.fake.Queue(c.answer)
			st, err := r.svc.Create("you", "a clock", "")
			if err != nil {
				t.Fatal(err)
			}
			f := r.wait(t, st)
			if f.Outcome.OK || f.Outcome.Refused != c.code {
				t.Fatalf("want %s, got %+v", c.code, f.Outcome)
			}
			if strings.Contains(f.Outcome.Message, key[8:]) {
				t.Fatalf("the message carries the key: %s", f.Outcome.Message)
			}
			assertNothingWritten(t, r)
			if v, _ := r.svc.View(st.Job); v.State != author.StateFailed {
				t.Fatalf("state %s", v.State)
			}
		})
	}
}

// assertNothingWritten: no page in the written apps' home, no version.
func assertNothingWritten(t *testing.T, r *rig) {
	t.Helper()
	root := filepath.Join(r.data, store.WrittenAppsDir)
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("written: %s", p)
		}
		return nil
	})
	if len(r.room.opened) != 0 {
		t.Errorf("opened %v", r.room.opened)
	}
}

// Cancel aborts the code model's request (the fake sees the client go) and nothing is written.
func TestCancelAbortsTheRequest(t *testing.T) {
	r := newRig(t, codemodel.ProviderOpenAI)
	r.fake.Queue(codemodeltest.Hang("<!doctype html><html><body>"))
	st, _ := r.svc.Create("you", "a clock", "")
	select {
	case <-r.fake.Waiting():
	case <-time.After(30 * time.Second):
		t.Fatal("the request never reached the fake")
	}
	if err := r.svc.Cancel(st.Job); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.fake.Gone():
	case <-time.After(30 * time.Second):
		t.Fatal("the fake never saw the request go: it was not aborted")
	}
	f := r.wait(t, st)
	if f.Outcome.Refused != toolcontract.CodeCancelled {
		t.Fatalf("want cancelled, got %+v", f.Outcome)
	}
	assertNothingWritten(t, r)
}

// No key: a refusal at once, with the code the room turns into "add a key in Settings".
func TestNoKeyIsRefusedAtOnce(t *testing.T) {
	r := newRig(t, codemodel.ProviderOpenAI)
	r.noKey = true
	_, err := r.svc.Create("you", "a clock", "")
	if out := author.Outcome(err); out.Refused != codemodel.CodeNoCodeModel {
		t.Fatalf("want %s, got %+v", codemodel.CodeNoCodeModel, out)
	}
	if len(r.fake.Requests()) != 0 {
		t.Fatal("the code model was asked")
	}
}

// Two creates at once build side by side, each into its own slug ("a second chess clock gets its own").
func TestTwoCreatesAtOnce(t *testing.T) {
	r := newRig(t, codemodel.ProviderOpenAI)
	r.fake.Queue(codemodeltest.Text(page("Chess clock", []string{tool("start")})), codemodeltest.Text(page("Chess clock", []string{tool("start")})))
	a, err1 := r.svc.Create("you", "a chess clock", "")
	b, err2 := r.svc.Create("you", "a chess clock", "")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	fa, fb := r.wait(t, a), r.wait(t, b)
	if !fa.Outcome.OK || !fb.Outcome.OK || a.Slug == b.Slug || fa.App.AppID == fb.App.AppID {
		t.Fatalf("%+v %+v / %+v %+v", a, fa, b, fb)
	}
}

// Editing a workspace page writes an edited copy in the sandbox home; the person's file is untouched, and the
// copy takes the original's place in the room.
func TestEditingAWorkspacePageWritesACopy(t *testing.T) {
	r := newRig(t, codemodel.ProviderOpenAI)
	orig := page("Notes", []string{tool("add_note")})
	src := filepath.Join(r.ws, "notes.html")
	if err := os.WriteFile(src, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	before := sha256.Sum256([]byte(orig))
	if err := r.st.Rescan(); err != nil {
		t.Fatal(err)
	}
	opened, out := r.room.Launch(context.Background(), "you", "notes.html")
	if !out.OK {
		t.Fatal(out.Message)
	}
	r.fake.Queue(codemodeltest.Text("<<<<<<< SEARCH\n<h1>Notes</h1>\n=======\n<h1>My notes</h1>\n>>>>>>> REPLACE\n"))
	ed, err := r.svc.Edit("you", "Notes", "call it My notes")
	if err != nil {
		t.Fatal(err)
	}
	f := r.wait(t, ed)
	if !f.Outcome.OK {
		t.Fatal(f.Outcome.Message)
	}
	if sha256.Sum256([]byte(readFile(t, src))) != before {
		t.Fatal("the workspace file changed")
	}
	if got := readFile(t, r.pagePath(ed.Slug)); !strings.Contains(got, "<h1>My notes</h1>") {
		t.Fatalf("the copy lacks the change:\n%s", got)
	}
	if len(r.room.closed) != 1 || r.room.closed[0] != opened.AppID || f.App.AppID == opened.AppID {
		t.Fatalf("closed %v, copy %s: the copy did not take the original's place", r.room.closed, f.App.AppID)
	}
	vs, _ := r.svc.Versions(ed.Slug)
	if len(vs) != 2 || vs[1].Source != author.SourceCopy {
		t.Fatalf("versions %+v: want the copy, then the edit", vs)
	}
}

// write_mini_app: a page an MCP client wrote opens and is checked; the same name again is a new version of it;
// a page that is not a document is refused and nothing is written.
func TestWriteFromAnMCPClient(t *testing.T) {
	r := newRig(t, codemodel.ProviderOpenAI)
	ctx := context.Background()
	f := r.svc.Write(ctx, "mcp:claude", "Dice", page("Dice", []string{tool("roll")}))
	if !f.Outcome.OK || f.Version != 1 || strings.Join(f.App.Tools, ",") != "roll" {
		t.Fatalf("%+v %s", f, f.Outcome.Message)
	}
	f2 := r.svc.Write(ctx, "mcp:claude", "Dice", page("Dice", []string{badTool("roll")}))
	res := result(t, f2.Outcome)
	if f2.Version != 2 || res["status"] != author.StatusProblems || !strings.Contains(fmt.Sprint(f2.Problems), toolcontract.CodeInvalidToolParameters) {
		t.Fatalf("%+v %s", f2, f2.Outcome.Result)
	}
	bad := r.svc.Write(ctx, "mcp:claude", "Other", "just some text")
	if bad.Outcome.OK || bad.Outcome.Refused != author.CodeNotHTML {
		t.Fatalf("%+v", bad.Outcome)
	}
	if _, err := os.Stat(filepath.Join(r.data, store.WrittenAppsDir, "other")); !os.IsNotExist(err) {
		t.Fatalf("a refused page left a home: %v", err)
	}
	if len(r.fake.Requests()) != 0 {
		t.Fatal("write asked the code model")
	}
}

// No room to open the app in: refused at once, before the code model is asked (its answer would be lost).
func TestNoRoomIsRefusedAtOnce(t *testing.T) {
	r := newRig(t, codemodel.ProviderOpenAI)
	r.room.reg.Goodbye("room-test")
	_, err := r.svc.Create("voice:openai", "a clock", "")
	if out := author.Outcome(err); out.Refused != registry.CodeNoRoom {
		t.Fatalf("want %s, got %+v", registry.CodeNoRoom, out)
	}
	if len(r.fake.Requests()) != 0 {
		t.Fatal("the code model was asked")
	}
	assertNothingWritten(t, r)
}

// A description over 4,000 characters is refused invalid-tool-arguments (the verbs say the bound in words),
// before anything is asked or written.
func TestDescriptionOverTheBound(t *testing.T) {
	r := newRig(t, codemodel.ProviderOpenAI)
	_, err := r.svc.Create("voice:openai", strings.Repeat("a", author.MaxDescription+1), "")
	if out := author.Outcome(err); out.Refused != toolcontract.CodeInvalidToolArguments || out.Path != "/description" {
		t.Fatalf("want %s at /description, got %+v", toolcontract.CodeInvalidToolArguments, out)
	}
	if len(r.fake.Requests()) != 0 {
		t.Fatal("the refused description reached the code model")
	}
	r.fake.Queue(codemodeltest.Text(page("Aaa", []string{tool("a")})))
	st, err := r.svc.Create("voice:openai", strings.Repeat("a", author.MaxDescription), "Aaa")
	if err != nil {
		t.Fatalf("a description of exactly the bound: %v", err)
	}
	if f := r.wait(t, st); !f.Outcome.OK {
		t.Fatalf("a description of exactly the bound: %+v", f.Outcome)
	}
}
