package main

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"golang.org/x/net/html"

	"github.com/voicebox/voicebox/backend/documents"
	"github.com/voicebox/voicebox/backend/httpapi"
	"github.com/voicebox/voicebox/backend/recovery"
	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/frontend"
)

// The room's boot data holds a launch for each opened file, made for the page's own id (so the page's
// goodbye revokes it), only where mini-app frames may be made, and never one the launch rule refuses.
func TestRoomBootPreparesTheOpenedFiles(t *testing.T) {
	h, p := testHost(t)
	page := filepath.Join(p.Workspace, "hello.html")
	if err := os.WriteFile(page, []byte("<!doctype html><title>Hello</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	docs := h.OpenFiles("", []string{page})
	if len(docs) != 1 {
		t.Fatalf("opened %d files", len(docs))
	}
	channel, err := listenRoomChannel()
	if err != nil {
		t.Fatal(err)
	}
	defer channel.ln.Close()
	a := &App{host: h, channel: channel}

	// No guard in force (as in this test process): frames may not be made, so nothing is prepared.
	if b := a.roomBoot(); b.Config.Guard || len(b.Launches) != 0 || len(b.Opened) != 1 {
		t.Fatalf("without a guard: guard %v, %d launches, %d opened", b.Config.Guard, len(b.Launches), len(b.Opened))
	}

	a.guard.unsafe = true // Config.Guard true, as with the guard in force
	b := a.roomBoot()
	if !regexp.MustCompile(`^room-[0-9a-f]{32}$`).MatchString(b.RoomID) {
		t.Fatalf("room id %q", b.RoomID)
	}
	if want := httpapi.ChannelURL(channel.ln.Addr().String(), channel.secret, b.RoomID); b.Channel != want {
		t.Errorf("the page's channel is %q, want %q (its own room's key)", b.Channel, want)
	}
	info, ok := b.Launches[docs[0].ID]
	if !ok || len(b.Launches) != 1 {
		t.Fatalf("launches %+v, want one for %s", b.Launches, docs[0].ID)
	}
	l, ok := h.Sandbox.Lookup(info.LaunchID)
	if !ok || l.Room != b.RoomID || info.AppID != "doc_hello" || info.BridgeURL == "" {
		t.Fatalf("launch %+v (live %v, room %q), want doc_hello for room %s", info, ok, l.Room, b.RoomID)
	}
	if n := h.Sandbox.RevokeRoom(b.RoomID); n != 1 {
		t.Errorf("the page's goodbye revoked %d launches, want 1", n)
	}
	if again := a.roomBoot(); again.RoomID == b.RoomID {
		t.Error("two pages got the same id")
	}

	// The watchdog's rule refuses a booting room the app: no launch is prepared for it.
	h.SandboxService.SetLaunchRule(func(appID, by string) string {
		if by == "boot" {
			return "the watchdog closed it"
		}
		return ""
	})
	if b := a.roomBoot(); len(b.Launches) != 0 || len(b.Opened) != 1 {
		t.Fatalf("under the rule: %d launches, %d opened", len(b.Launches), len(b.Opened))
	}
}

// The app whose frame the room's document brings is the watchdog's to judge from the moment the document is
// served: when it spins at once, before the room's scripts can report it, the restart closes it (it was the
// only app open) and the reloaded room's boot does not open it again. On the code before, the watchdog knew
// no app, closed nothing, and the next room opened it again (a second restart).
func TestBootWindowsAppIsTheWatchdogsAtOnce(t *testing.T) {
	h, p := testHost(t)
	page := filepath.Join(p.Workspace, "loop.html")
	if err := os.WriteFile(page, []byte("<!doctype html><title>Loop</title><script>while(true){}</script>"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.OpenFiles("", []string{page})
	channel, err := listenRoomChannel()
	if err != nil {
		t.Fatal(err)
	}
	defer channel.ln.Close()
	a := &App{host: h, channel: channel}
	a.guard.unsafe = true // Config.Guard true, as with the guard in force
	a.guard.tracker = recovery.New(t.Logf)
	h.SandboxService.SetLaunchRule(a.mayLaunch)

	b := a.roomBoot()
	if _, l, ok := bootLaunch(b); !ok || l.AppID != "doc_loop" {
		t.Fatalf("boot launch %+v (%v), want doc_loop's", l, ok)
	}
	if dead := a.guard.tracker.Hang(recovery.ReasonHang, 0); len(dead) != 1 || dead[0] != b.RoomID {
		t.Fatalf("rooms that died: %q, want the served room %s", dead, b.RoomID)
	}
	again := a.roomBoot()
	plan, err := a.guard.tracker.Take(again.RoomID)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Closed == nil || plan.Closed.AppID != "doc_loop" {
		t.Fatalf("the plan closed %+v (%s), want doc_loop: it was the only app open", plan.Closed, plan.Why)
	}
	if len(again.Launches) != 0 || bootWindow(again) != "" {
		t.Fatalf("the reloaded room's boot opens Loop again: %+v", again.Launches)
	}
}

// bootPage serves the room's document as the window gets it, with boot's data, and parses it.
func bootPage(t *testing.T, boot roomBoot) *html.Node {
	t.Helper()
	rec := httptest.NewRecorder()
	roomHandler(t, boot).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://wails.localhost/", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /: %d", rec.Code)
	}
	doc, err := html.Parse(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// find returns the elements below n that match.
func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && match(c) {
			out = append(out, c)
		}
		out = append(out, find(c, match)...)
	}
	return out
}

func attr(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

func byID(id string) func(*html.Node) bool {
	return func(n *html.Node) bool { v, _ := attr(n, "id"); return v == id }
}

func tagged(tag string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == tag }
}

// The room's document carries the first app's window, its bridge frame in the stage, only when the room
// will open a launch: the first opened file that has one. Its title cannot end the attribute, whatever the
// file calls itself, and the frame has exactly the attributes the room gives its frames.
func TestRoomDocumentCarriesTheFirstLaunchsFrame(t *testing.T) {
	hostile := `Evil"><script>parent.pwned=1</script><iframe src="http://127.0.0.1:1/x` + "' onload='x"
	const url = "http://127.0.0.1:41234/bridge/00ff?x=\"><script>y</script>"
	docs := []documents.Doc{{ID: "doc-refused"}, {ID: "doc-first"}, {ID: "doc-second"}}
	boot := roomBoot{Opened: docs, Launches: map[string]services.LaunchInfo{
		"doc-first":  {Title: hostile, BridgeURL: url},
		"doc-second": {Title: "Second", BridgeURL: "http://127.0.0.1:41234/bridge/0202"},
	}}

	for name, b := range map[string]roomBoot{
		"no boot data (voicebox serve's page)":                         {},
		"files but no launch (no guard, or the watchdog refused them)": {Opened: docs},
	} {
		page := bootPage(t, b)
		if got := find(page, byID("voicebox-boot-window")); len(got) != 0 {
			t.Errorf("%s: the document carries a boot window", name)
		}
		if got := find(page, tagged("iframe")); len(got) != 0 {
			t.Errorf("%s: the document carries %d frames", name, len(got))
		}
	}

	page := bootPage(t, boot)
	stage := find(page, byID("mini-app-container"))
	if len(stage) != 1 {
		t.Fatalf("%d stages", len(stage))
	}
	wins := find(stage[0], byID("voicebox-boot-window"))
	if len(wins) != 1 {
		t.Fatalf("the stage holds %d boot windows, want 1", len(wins))
	}
	frames := find(page, tagged("iframe"))
	if len(frames) != 1 {
		t.Fatalf("the document carries %d frames, want 1 (the hostile title made one?)", len(frames))
	}
	if s := find(stage[0], tagged("script")); len(s) != 0 {
		t.Fatalf("the title or the URL ended the frame's markup: %d scripts in the stage", len(s))
	}
	f := frames[0]
	if p := f.Parent; p == nil || p.Parent != wins[0] {
		t.Fatal("the frame is not in the boot window's body")
	}
	want := map[string]string{"title": hostile, "src": url}
	for _, a := range bootFrame {
		want[a.name] = a.value
	}
	if len(f.Attr) != len(want) {
		t.Errorf("the frame has attributes %v, want exactly %v", f.Attr, want)
	}
	for k, v := range want {
		if got, _ := attr(f, k); got != v {
			t.Errorf("frame %s = %q, want %q", k, got, v)
		}
	}
}

// The boot window's frame has the attributes the room gives every bridge frame (registry.js, bridgeFrame):
// the room adopts no frame that differs, so a change on one side only would cost every start its head start.
func TestBootFrameIsTheRoomsBridgeFrame(t *testing.T) {
	src, err := fs.ReadFile(frontend.Room(), "src/registry.js")
	if err != nil {
		t.Fatal(err)
	}
	table := regexp.MustCompile(`(?s)const bridgeFrame = \{\n(.*?)\n\};`).FindSubmatch(src)
	if table == nil {
		t.Fatal("registry.js has no bridgeFrame table")
	}
	js := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^\s*(\w+): "([^"]*)",`).FindAllSubmatch(table[1], -1) {
		js[string(m[1])] = string(m[2])
	}
	goSide := map[string]string{}
	for _, a := range bootFrame {
		goSide[a.name] = a.value
	}
	if len(js) == 0 || !reflect.DeepEqual(js, goSide) {
		t.Fatalf("registry.js bridgeFrame %v, desktopboot.go bootFrame %v", js, goSide)
	}
}
