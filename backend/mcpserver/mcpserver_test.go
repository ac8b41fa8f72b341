package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/mcpdoor"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/registry/registrytest"
	"github.com/voicebox/voicebox/backend/store"
	"github.com/voicebox/voicebox/backend/verbs"
)

const testToken = "0123456789abcdef0123456789abcdef"

// The room is registrytest's double (it answers the registry's requests as frontend/room does, so these
// tests need no browser); these are the apps it runs.
const resetTool = `{"name": "reset", "description": "Set both scores to zero", "parameters": {"type": "object", "properties": {}}}`

const timerTool = `{"name": "start", "description": "Start the countdown", "parameters": {"type": "object", "properties": {"seconds": {"type": "integer", "minimum": 1, "maximum": 3600}}, "required": ["seconds"]}}`

// scoreboard is registrytest's scoreboard (set_score) with a reset tool.
func scoreboard() registrytest.App {
	sb := registrytest.Scoreboard()
	sb.Tools = append(sb.Tools, resetTool)
	return sb
}

// newRoom starts the room double with the timer on its shelf (launch_mini_app opens it by id, slug,
// title or file name; any other reference is refused) and the scoreboard open.
func newRoom(t testing.TB, bus *events.Bus, reg *registry.Registry, open registrytest.App) *registrytest.Room {
	t.Helper()
	room := registrytest.NewRoom(reg, registrytest.App{AppID: "app_timer", Title: "Timer", Slug: "timer", Tools: []string{timerTool}})
	t.Cleanup(room.Stop)
	openInRoom(t, room, open)
	return room
}

// openInRoom opens an app as the room does once it is ready (the person clicked it).
func openInRoom(t testing.TB, room *registrytest.Room, a registrytest.App) {
	t.Helper()
	if err := room.Open(a); err != nil {
		t.Fatal(err)
	}
}

func notes() registrytest.App {
	return registrytest.App{AppID: "app_notes", Title: "Notes", Slug: "notes", Tools: []string{resetTool}}
}

// lastCall is the last call that reached an app in the room.
func lastCall(room *registrytest.Room) registrytest.RoomCall {
	calls := room.Calls()
	if len(calls) == 0 {
		return registrytest.RoomCall{}
	}
	return calls[len(calls)-1]
}

// shelf is a store's catalog: launch_mini_app's list of what it can open.
type shelf []store.Entry

func (s shelf) List() []store.Entry { return s }

func (s shelf) SaveRef(string) (store.Entry, error) { return store.Entry{}, store.ErrNotFound }

type harness struct {
	bus      *events.Bus
	reg      *registry.Registry
	room     *registrytest.Room
	srv      *Server
	hostPort string
	url      string
	conns    atomic.Int64 // connections the server accepted
}

func start(t testing.TB) *harness { return startThrottled(t, 0) }

// startThrottled starts the server with its list changes throttled to one per interval (0: the default).
func startThrottled(t testing.TB, interval time.Duration) *harness {
	t.Helper()
	return startWith(t, interval, nil)
}

// startWith is startThrottled with an OnClients listener (and more options: with changes them).
func startWith(t testing.TB, interval time.Duration, onClients func([]Client), with ...func(*harness, *Options)) *harness {
	t.Helper()
	h := &harness{bus: events.NewBus()}
	h.reg = registry.New(h.bus)
	h.room = newRoom(t, h.bus, h.reg, scoreboard())
	table := exposed.New(h.reg)
	table.Interval = interval
	o := Options{
		Registry: h.reg, Exposed: table, Token: testToken, Version: "test",
		AllowedOrigins: []string{"http://localhost:6274"},
		Library:        shelf{{AppID: "app_timer", Title: "Timer", Kind: store.KindApp, FileName: "timer.html"}},
		OnClients:      onClients,
	}
	for _, f := range with {
		f(h, &o)
	}
	srv, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.hostPort = ln.Addr().String()
	h.url = "http://" + h.hostPort + mcpdoor.Path
	hs := &http.Server{Handler: srv.Handler(h.hostPort), ConnState: func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			h.conns.Add(1)
		}
	}}
	go hs.Serve(ln)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return h
}

type headerRT struct{ h http.Header }

func (rt headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range rt.h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

func (h *harness) connect(t testing.TB, name string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.2.3"}, opts)
	tr := &mcp.StreamableClientTransport{Endpoint: h.url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: headerRT{http.Header{"Authorization": {"Bearer " + testToken}}}}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func toolNames(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(ctx(t), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	out := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl
	}
	return out
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("want one content item, got %d", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, not text", res.Content[0])
	}
	return tc.Text
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

type refusal struct {
	Refused string `json:"refused"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

func refusedWith(t *testing.T, res *mcp.CallToolResult) refusal {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a tool error, got %s", text(t, res))
	}
	var r refusal
	if err := json.Unmarshal([]byte(text(t, res)), &r); err != nil || r.Refused == "" {
		t.Fatalf("tool error is not a structured refusal: %q (%v)", text(t, res), err)
	}
	return r
}

func TestListShowsAppToolsAndVerbs(t *testing.T) {
	h := start(t)
	cs := h.connect(t, "list-test", nil)
	tools := toolNames(t, cs)
	for _, want := range []string{"scoreboard__set_score", "scoreboard__reset", verbs.Launch, verbs.List, verbs.Close} {
		if tools[want] == nil {
			t.Errorf("tools/list lacks %s; has %v", want, keys(tools))
		}
	}
	if want := 2 + len(verbs.For(verbs.MCP)); len(tools) != want {
		t.Errorf("want %d tools, got %v", want, keys(tools))
	}
	st := tools["scoreboard__set_score"]
	if !strings.Contains(st.Description, `"Scoreboard"`) || !strings.Contains(st.Description, "Add points to a team") {
		t.Errorf("description does not name the app: %q", st.Description)
	}
	schema, _ := json.Marshal(st.InputSchema)
	if !bytes.Contains(schema, []byte(`"enum":["home","away"]`)) || !bytes.Contains(schema, []byte(`"type":"object"`)) {
		t.Errorf("input schema is not the declared one: %s", schema)
	}
	if cs.InitializeResult().ServerInfo.Name != "voicebox" {
		t.Errorf("serverInfo = %+v", cs.InitializeResult().ServerInfo)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestCallReachesTheAppWithRawArgumentsAndIsLogged(t *testing.T) {
	h := start(t)
	acts, cancel := h.bus.Subscribe(64)
	defer cancel()
	cs := h.connect(t, "Claude Desktop", nil)
	// Key order team-then-points: a decode/encode through a map would sort them.
	raw := json.RawMessage(`{"team":"home","points":3}`)
	res := call(t, cs, "scoreboard__set_score", raw)
	if res.IsError {
		t.Fatalf("call failed: %s", text(t, res))
	}
	var out struct {
		OK           bool    `json:"ok"`
		CurrentScore float64 `json:"currentScore"`
	}
	if err := json.Unmarshal([]byte(text(t, res)), &out); err != nil || !out.OK || out.CurrentScore != 3 {
		t.Fatalf("result = %s (%v)", text(t, res), err)
	}
	got := lastCall(h.room)
	if got.AppID != "app_scoreboard" || got.Tool != "set_score" || string(got.Args) != string(raw) {
		t.Fatalf("room got %+v args %s, want set_score on app_scoreboard with %s", got, got.Args, raw)
	}
	res = call(t, cs, "scoreboard__set_score", map[string]any{"team": "home", "points": 4})
	if text(t, res) != `{"ok":true,"currentScore":7}` {
		t.Fatalf("second call = %s", text(t, res))
	}
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev := <-acts:
			a, ok := ev.Data.(registry.Activity)
			if ev.Name != registry.EventActivity || !ok {
				continue
			}
			if a.Caller != "mcp:Claude Desktop" || a.Tool != "set_score" || !a.Outcome.OK {
				t.Fatalf("activity = %+v", a)
			}
			return
		case <-deadline:
			t.Fatal("no activity event for the call")
		}
	}
}

func TestRefusalIsAToolErrorAndNothingIsDispatched(t *testing.T) {
	h := start(t)
	cs := h.connect(t, "refusal-test", nil)
	cases := []struct {
		args       string
		code, path string
	}{
		{`{"team":"visitors","points":1}`, "invalid-argument-enum", "/team"},
		{`{"team":"home"}`, "missing-argument", "/points"},
		{`{"team":"home","points":"3"}`, "invalid-argument-type", "/points"},
		{`{"team":"home","points":1,"__proto__":{}}`, "invalid-argument", ""},
		{`[1,2]`, "invalid-tool-arguments", ""},
	}
	for _, c := range cases {
		res := call(t, cs, "scoreboard__set_score", json.RawMessage(c.args))
		r := refusedWith(t, res)
		if r.Refused != c.code || (c.path != "" && r.Path != c.path) || r.Message == "" {
			t.Errorf("%s: refusal = %+v, want %s at %q", c.args, r, c.code, c.path)
		}
	}
	big := `{"team":"home","points":1,"pad":"` + strings.Repeat("x", 70000) + `"}`
	if r := refusedWith(t, call(t, cs, "scoreboard__set_score", json.RawMessage(big))); r.Refused != "invalid-tool-arguments" {
		t.Errorf("oversized arguments: %+v", r)
	}
	if n := len(h.room.Calls()); n != 0 {
		t.Fatalf("%d refused calls reached the app", n)
	}
	if r := refusedWith(t, call(t, cs, "nope__missing", map[string]any{})); r.Refused != "unknown-tool" {
		t.Errorf("unknown tool: %+v", r)
	}
	if r := refusedWith(t, call(t, cs, verbs.Launch, map[string]any{"ref": 7})); r.Refused != "invalid-argument-type" || r.Path != "/ref" {
		t.Errorf("verb arguments are not validated: %+v", r)
	}
}

func TestOutputCapAndTimeout(t *testing.T) {
	h := start(t)
	cs := h.connect(t, "bounds-test", nil)
	h.room.Oversize(70000)
	if r := refusedWith(t, call(t, cs, "scoreboard__reset", map[string]any{})); r.Refused != "output-over-budget" {
		t.Errorf("oversized output: %+v", r)
	}
	h.room.Oversize(0)
	h.room.Hang(true)
	start := time.Now()
	r := refusedWith(t, call(t, cs, "scoreboard__reset", map[string]any{}))
	if r.Refused != "tool-timeout" || !strings.Contains(r.Message, "5000ms") {
		t.Errorf("silent app: %+v", r)
	}
	// A timer never fires early, so the lower bound holds under any load; how long after 5 s the answer
	// came is only logged (a loaded machine is slow, not wrong).
	if d := time.Since(start); d < 4900*time.Millisecond {
		t.Errorf("timeout after %v, want the full 5s", d)
	} else {
		t.Logf("timeout answered after %v", d.Round(time.Millisecond))
	}
}

func TestListChangedWhenAppsOpenAndClose(t *testing.T) {
	h := start(t)
	changed := make(chan struct{}, 16)
	cs := h.connect(t, "watcher", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	if toolNames(t, cs)["timer__start"] != nil {
		t.Fatal("timer listed before it opened")
	}
	drain := func() {
		for len(changed) > 0 {
			<-changed
		}
	}
	// waitChanged waits for a list_changed, then for tools/list to agree with what it announced
	// (a notification of an earlier change may still have been in flight).
	waitChanged := func(what string, listed func(map[string]*mcp.Tool) bool) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(5 * time.Second):
			t.Fatalf("no notifications/tools/list_changed after %s", what)
		}
		for i := 0; !listed(toolNames(t, cs)); i++ {
			if i == 100 {
				t.Fatalf("tools/list never reflected %s: %v", what, keys(toolNames(t, cs)))
			}
			time.Sleep(20 * time.Millisecond)
		}
		drain()
	}
	has := func(name string) func(map[string]*mcp.Tool) bool {
		return func(m map[string]*mcp.Tool) bool { return m[name] != nil }
	}
	lacks := func(name string) func(map[string]*mcp.Tool) bool {
		return func(m map[string]*mcp.Tool) bool { return m[name] == nil }
	}
	// The app opens through the host verb, as an MCP client would do it.
	res := call(t, cs, verbs.Launch, map[string]any{"ref": "timer"})
	if res.IsError {
		t.Fatalf("launch: %s", text(t, res))
	}
	var app verbs.OpenApp[string]
	if err := json.Unmarshal([]byte(text(t, res)), &app); err != nil || app.AppID != "app_timer" || !slices.Equal(app.Tools, []string{"timer__start"}) {
		t.Fatalf("launch result %s (%v)", text(t, res), err)
	}
	waitChanged("launch", has("timer__start"))
	if r := call(t, cs, "timer__start", map[string]any{"seconds": 10}); r.IsError {
		t.Fatalf("timer call: %s", text(t, r))
	}
	if r := refusedWith(t, call(t, cs, "timer__start", map[string]any{"seconds": 0})); r.Refused != "invalid-argument-range" {
		t.Fatalf("range: %+v", r)
	}

	// list_mini_apps shows both open apps and the catalog.
	var listed struct {
		Open      []verbs.OpenApp[string] `json:"open"`
		Available []verbs.CatalogEntry    `json:"available"`
	}
	if err := json.Unmarshal([]byte(text(t, call(t, cs, verbs.List, nil))), &listed); err != nil || len(listed.Open) != 2 || len(listed.Available) != 1 {
		t.Fatalf("list_mini_apps = %+v (%v)", listed, err)
	}

	// An app the room opens by itself (the person clicked it) is announced too.
	drain()
	openInRoom(t, h.room, notes())
	waitChanged("an app opened in the room", has("notes__reset"))

	drain()
	if r := call(t, cs, verbs.Close, map[string]any{"appId": "Timer"}); r.IsError {
		t.Fatalf("close: %s", text(t, r))
	}
	waitChanged("close", lacks("timer__start"))
	if r := refusedWith(t, call(t, cs, "timer__start", map[string]any{"seconds": 5})); r.Refused != "unknown-tool" {
		t.Fatalf("call to a closed app: %+v", r)
	}
	drain()
	h.reg.Goodbye(h.room.ID) // the room page went away: every app closes
	waitChanged("room gone", lacks("scoreboard__set_score"))
	if got := keys(toolNames(t, cs)); !slices.Equal(got, []string{verbs.Close, verbs.Create, verbs.Edit, verbs.Launch, verbs.List, verbs.Revert, verbs.Write}) {
		t.Fatalf("after the room left: %v", got)
	}
	if r := refusedWith(t, call(t, cs, verbs.Launch, map[string]any{"ref": "timer"})); r.Refused != registry.CodeNoRoom {
		t.Fatalf("launch with no room: %+v", r)
	}
}

// Every call changes its client's count, and each notice reaches the room: the notices are throttled, and
// the last one always comes (the count the room shows ends right).
func TestClientNoticesAreThrottledNotLost(t *testing.T) {
	var mu sync.Mutex
	var notices [][]Client
	h := startWith(t, 0, func(c []Client) { mu.Lock(); notices = append(notices, c); mu.Unlock() })
	cs := h.connect(t, "Cursor", nil)
	const calls = 200
	var wg sync.WaitGroup
	for w := 0; w < 20; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < calls/20; i++ {
				if _, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "scoreboard__reset", Arguments: map[string]any{}}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	last := func() (int, []Client) {
		mu.Lock()
		defer mu.Unlock()
		if len(notices) == 0 {
			return 0, nil
		}
		return len(notices), notices[len(notices)-1]
	}
	for i := 0; i < 100; i++ {
		if _, l := last(); len(l) == 1 && l[0].Calls == calls {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	n, l := last()
	if len(l) != 1 || l[0].Calls != calls {
		t.Fatalf("the last notice shows %+v, not the client with %d calls", l, calls)
	}
	if n >= calls {
		t.Fatalf("%d notices for %d calls: one per call", n, calls)
	}
}

// A client with many calls in flight (`voicebox mcp` forwards all its client's calls on one) keeps its
// connections: BearerTransport pools more than http.DefaultTransport's 2 idle connections per host, which
// would dial anew for most calls.
func TestBearerTransportKeepsItsConnections(t *testing.T) {
	h := start(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "forwarder", Version: "1"}, nil)
	cs, err := client.Connect(ctx(t), &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: &http.Client{Transport: &mcpdoor.BearerTransport{Token: testToken}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const inFlight, rounds = 20, 10
	var wg sync.WaitGroup
	for w := 0; w < inFlight; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				if _, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "scoreboard__reset", Arguments: map[string]any{}}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	// About one connection per call in flight, and the session's own (net/http may dial for a waiting call
	// and then give it one that came free); without the pool, about one per two calls.
	if n := h.conns.Load(); n > 2*inFlight {
		t.Fatalf("%d connections for %d calls, %d in flight: calls dial anew", n, inFlight*rounds, inFlight)
	}
}

func TestClientsAreTracked(t *testing.T) {
	h := start(t)
	cs := h.connect(t, "Cursor", nil)
	var cl []Client
	for i := 0; i < 50; i++ {
		if cl = h.srv.Clients(); len(cl) == 1 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(cl) != 1 || cl[0].Name != "Cursor" || cl[0].Version != "1.2.3" || cl[0].Session == "" {
		t.Fatalf("clients = %+v", cl)
	}
	call(t, cs, "scoreboard__reset", map[string]any{})
	if c := h.srv.Clients(); c[0].Calls != 1 || c[0].LastCall.IsZero() {
		t.Fatalf("call not counted: %+v", c)
	}
	cs.Close()
	for i := 0; i < 100 && len(h.srv.Clients()) > 0; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if c := h.srv.Clients(); len(c) != 0 {
		t.Fatalf("client still listed after it closed: %+v", c)
	}
}

// post sends a raw initialize request with the given headers.
func (h *harness) post(t *testing.T, hdr map[string]string) *http.Response {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	req, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

func TestDoor(t *testing.T) {
	h := start(t)
	good := "Bearer " + testToken
	_, port, _ := net.SplitHostPort(h.hostPort)
	cases := []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"right token", map[string]string{"Authorization": good}, 200},
		{"lower-case scheme", map[string]string{"Authorization": "bearer " + testToken}, 200},
		{"localhost host", map[string]string{"Authorization": good, "Host": "localhost:" + port}, 200},
		{"no token", nil, 401},
		{"wrong token", map[string]string{"Authorization": "Bearer " + strings.Repeat("0", len(testToken))}, 401},
		{"token prefix", map[string]string{"Authorization": "Bearer " + testToken[:10]}, 401},
		{"basic auth", map[string]string{"Authorization": "Basic " + testToken}, 401},
		{"foreign origin", map[string]string{"Authorization": good, "Origin": "https://evil.example"}, 403},
		{"null origin (sandboxed app)", map[string]string{"Authorization": good, "Origin": "null"}, 403},
		{"loopback origin not allowed", map[string]string{"Authorization": good, "Origin": "http://127.0.0.1:8787"}, 403},
		{"foreign origin without token", map[string]string{"Origin": "https://evil.example"}, 403},
		{"allowed origin", map[string]string{"Authorization": good, "Origin": "http://localhost:6274"}, 200},
		{"rebinding host", map[string]string{"Authorization": good, "Host": "evil.example:" + port}, 403},
		{"other port", map[string]string{"Authorization": good, "Host": "127.0.0.1:1"}, 403},
		{"cross-site fetch", map[string]string{"Authorization": good, "Sec-Fetch-Site": "cross-site"}, 403},
	}
	for _, c := range cases {
		res := h.post(t, c.hdr)
		if res.StatusCode != c.want {
			t.Errorf("%s: status %d, want %d", c.name, res.StatusCode, c.want)
		}
		if c.want == 401 && !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: 401 without WWW-Authenticate: Bearer", c.name)
		}
	}
	// The SDK client sees the refusals too.
	client := mcp.NewClient(&mcp.Implementation{Name: "intruder", Version: "0"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: h.url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: headerRT{http.Header{"Authorization": {"Bearer wrong-token-wrong-token"}}}}}
	if _, err := client.Connect(ctx(t), tr, nil); err == nil || !strings.Contains(err.Error(), "401") && !strings.Contains(strings.ToLower(err.Error()), "unauthorized") {
		t.Fatalf("connect with a wrong token: %v", err)
	}
	tr = &mcp.StreamableClientTransport{Endpoint: h.url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: headerRT{http.Header{"Authorization": {good}, "Origin": {"https://evil.example"}}}}}
	if _, err := client.Connect(ctx(t), tr, nil); err == nil || !strings.Contains(err.Error(), "403") && !strings.Contains(strings.ToLower(err.Error()), "forbidden") {
		t.Fatalf("connect from a foreign origin: %v", err)
	}
	if len(h.srv.Clients()) != 0 {
		t.Fatalf("refused clients were recorded: %+v", h.srv.Clients())
	}
}

func TestAddToolRefusesNonObjectSchemas(t *testing.T) {
	h := start(t)
	for _, schema := range []string{`{"type":"string"}`, `null`, `[]`, `{"properties":{}}`} {
		err := h.srv.addTool(&mcp.Tool{Name: "bad", InputSchema: json.RawMessage(schema)}, nil)
		if err == nil {
			t.Errorf("schema %s was handed to the SDK", schema)
		}
	}
	// And a panic inside the SDK is an error, not a crash.
	if err := h.srv.addTool(&mcp.Tool{Name: "nil-schema"}, nil); err == nil {
		t.Error("a tool with no schema was accepted")
	}
}

func TestNewNeedsRegistryAndToken(t *testing.T) {
	if _, err := New(Options{Token: testToken}); err == nil {
		t.Error("no registry accepted")
	}
	if _, err := New(Options{Registry: registry.New(events.NewBus()), Token: "short"}); err == nil {
		t.Error("short token accepted")
	}
}
