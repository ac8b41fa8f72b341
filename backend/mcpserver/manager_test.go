package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/mcpdoor"
	"github.com/voicebox/voicebox/backend/mcpproxy"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/registry/registrytest"
	"github.com/voicebox/voicebox/backend/settings"
	"github.com/voicebox/voicebox/backend/verbs"
)

type managed struct {
	dir    string
	st     *settings.Store
	bus    *events.Bus
	reg    *registry.Registry
	room   *registrytest.Room
	m      *Manager
	mu     sync.Mutex
	events []Status
}

func newManaged(t *testing.T, addr string) *managed {
	t.Helper()
	x := &managed{dir: t.TempDir(), bus: events.NewBus()}
	var err error
	if x.st, err = settings.Open(x.dir); err != nil {
		t.Fatal(err)
	}
	x.reg = registry.New(x.bus)
	x.room = newRoom(t, x.bus, x.reg, scoreboard())
	x.m = NewManager(ManagerOptions{
		Registry: x.reg, Settings: x.st, DataDir: x.dir, Addr: addr, Mode: "serve", Version: "test",
		Publish: func(name string, data any) {
			if name == EventStatus {
				x.mu.Lock()
				x.events = append(x.events, data.(Status))
				x.mu.Unlock()
			}
		},
	})
	t.Cleanup(x.m.Close)
	return x
}

func status(t *testing.T, url, token string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

func TestManagerSwitch(t *testing.T) {
	x := newManaged(t, "127.0.0.1:0")
	st, err := x.m.Start(false)
	if err != nil || st.Running || st.Enabled {
		t.Fatalf("off by default: %+v %v", st, err)
	}
	if _, err := os.Stat(mcpdoor.DiscoveryPath(x.dir)); !os.IsNotExist(err) {
		t.Fatalf("discovery file written while off: %v", err)
	}

	st, err = x.m.SetEnabled(true)
	if err != nil || !st.Running || !st.Enabled || st.URL == "" || len(st.Token) < 32 {
		t.Fatalf("switched on: %+v %v", st, err)
	}
	if !x.st.Get().MCPEnabled || x.st.Get().MCPToken != st.Token {
		t.Fatalf("the switch and token were not saved: %+v", x.st.Get())
	}
	fi, err := os.Stat(mcpdoor.DiscoveryPath(x.dir))
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("discovery file mode %v, want 0600", fi.Mode().Perm())
	}
	d, err := mcpdoor.ReadDiscovery(x.dir)
	if err != nil || d.URL != st.URL || d.Token != st.Token || d.PID != os.Getpid() || d.Mode != "serve" {
		t.Fatalf("discovery = %+v (%v), status %+v", d, err, st)
	}
	if code := status(t, st.URL, st.Token); code != 200 {
		t.Fatalf("running server answered %d", code)
	}
	if code := status(t, st.URL, "x"+st.Token[1:]); code != 401 {
		t.Fatalf("wrong token answered %d", code)
	}

	url := st.URL
	st, err = x.m.SetEnabled(false)
	if err != nil || st.Running || st.Enabled {
		t.Fatalf("switched off: %+v %v", st, err)
	}
	if _, err := os.Stat(mcpdoor.DiscoveryPath(x.dir)); !os.IsNotExist(err) {
		t.Fatalf("discovery file left behind: %v", err)
	}
	if code := status(t, url, d.Token); code != 0 {
		t.Fatalf("stopped server still answers %d", code)
	}
	if x.st.Get().MCPEnabled {
		t.Fatal("off was not saved")
	}

	x.mu.Lock()
	evs := append([]Status(nil), x.events...)
	x.mu.Unlock()
	if len(evs) < 3 {
		t.Fatalf("status events: %+v", evs)
	}
	for _, e := range evs {
		if e.Token != "" {
			t.Fatal("a status event carried the token")
		}
	}
}

func TestManagerForcedAndRotate(t *testing.T) {
	x := newManaged(t, "127.0.0.1:0")
	st, err := x.m.Start(true) // --mcp
	if err != nil || !st.Running || !st.Forced || !st.Enabled {
		t.Fatalf("--mcp: %+v %v", st, err)
	}
	if x.st.Get().MCPEnabled {
		t.Fatal("--mcp changed the saved switch")
	}
	old := st.Token
	st, err = x.m.RotateToken()
	if err != nil || !st.Running || st.Token == old {
		t.Fatalf("rotate: %+v %v", st, err)
	}
	if code := status(t, st.URL, old); code != 401 {
		t.Fatalf("old token answered %d after rotation", code)
	}
	if code := status(t, st.URL, st.Token); code != 200 {
		t.Fatalf("new token answered %d", code)
	}
	if d, _ := mcpdoor.ReadDiscovery(x.dir); d.Token != st.Token {
		t.Fatal("discovery file kept the old token")
	}
	x.m.Close()
	if _, err := os.Stat(mcpdoor.DiscoveryPath(x.dir)); !os.IsNotExist(err) {
		t.Fatalf("Close left the discovery file: %v", err)
	}
}

func TestManagerAdoptsThePrintedToken(t *testing.T) {
	x := newManaged(t, "127.0.0.1:0")
	// `voicebox mcp --print-config=http` ran while the app was up without a token: it wrote one to disk.
	b, err := mcpdoor.ClientConfig(x.dir, mcpdoor.FormHTTP)
	if err != nil {
		t.Fatal(err)
	}
	disk, _ := settings.Open(x.dir)
	printed := disk.Get().MCPToken
	if printed == "" || !strings.Contains(string(b), printed) {
		t.Fatalf("print-config made no token:\n%s", b)
	}
	st, err := x.m.SetEnabled(true)
	if err != nil || st.Token != printed {
		t.Fatalf("the app made its own token %q instead of the printed %q (%v)", st.Token, printed, err)
	}
	// While it runs, print-config prints what the running server answers to.
	b, _ = mcpdoor.ClientConfig(x.dir, mcpdoor.FormHTTP)
	if !strings.Contains(string(b), st.URL) || !strings.Contains(string(b), st.Token) {
		t.Fatalf("print-config while running:\n%s", b)
	}
}

// An address off loopback opens no port (the socket alone serves `voicebox mcp`), and says why.
func TestManagerRefusesNonLoopback(t *testing.T) {
	x := newManaged(t, "0.0.0.0:0")
	st, err := x.m.SetEnabled(true)
	if err != nil || st.URL != "" || !strings.Contains(st.Error, "loopback") {
		t.Fatalf("0.0.0.0: %+v %v", st, err)
	}
	if d, err := mcpdoor.ReadDiscovery(x.dir); err != nil || d.URL != "" {
		t.Fatalf("0.0.0.0: discovery %+v %v", d, err)
	}
}

func TestRemoveDiscoveryKeepsAnotherInstancesFile(t *testing.T) {
	dir := t.TempDir()
	mine := mcpdoor.Discovery{URL: "http://127.0.0.1:1/mcp", Token: testToken, PID: 1}
	theirs := mcpdoor.Discovery{URL: "http://127.0.0.1:2/mcp", Token: testToken, PID: 2}
	if err := mcpdoor.WriteDiscovery(dir, theirs); err != nil {
		t.Fatal(err)
	}
	mcpdoor.RemoveDiscovery(dir, mine)
	if d, err := mcpdoor.ReadDiscovery(dir); err != nil || d.PID != 2 {
		t.Fatalf("another instance's file was removed: %v", err)
	}
	mcpdoor.RemoveDiscovery(dir, theirs)
	if _, err := mcpdoor.ReadDiscovery(dir); err == nil {
		t.Fatal("own file not removed")
	}
}

// pipes connects a Go SDK client to RunStdio over in-memory pipes, as a client launching
// `voicebox mcp` would over stdin/stdout.
func pipes(t *testing.T, dataDir, clientName string, opts *mcp.ClientOptions) (*mcp.ClientSession, *syncBuffer) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stderr := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- mcpproxy.RunStdio(ctx, mcpproxy.ProxyOptions{DataDir: dataDir, Version: "test", In: inR, Out: outW, Stderr: stderr})
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: "9.9"}, opts)
	cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ccancel()
	cs, err := client.Connect(cctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect to voicebox mcp: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("RunStdio did not return")
		}
	})
	return cs, stderr
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestStdioForwardsToTheRunningApp(t *testing.T) {
	x := newManaged(t, "127.0.0.1:0")
	if _, err := x.m.SetEnabled(true); err != nil {
		t.Fatal(err)
	}
	acts, cancel := x.bus.Subscribe(64)
	defer cancel()
	changed := make(chan struct{}, 16)
	cs, _ := pipes(t, x.dir, "claude-ai", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	tools := toolNames(t, cs)
	for _, want := range []string{"scoreboard__set_score", "scoreboard__reset", verbs.Launch, verbs.List, verbs.Close} {
		if tools[want] == nil {
			t.Fatalf("stdio tools/list lacks %s: %v", want, keys(tools))
		}
	}
	raw := json.RawMessage(`{"team":"away","points":2}`)
	res := call(t, cs, "scoreboard__set_score", raw)
	if res.IsError || text(t, res) != `{"ok":true,"currentScore":2}` {
		t.Fatalf("call through stdio: %s", text(t, res))
	}
	if got := lastCall(x.room); string(got.Args) != string(raw) {
		t.Fatalf("room got args %s, want %s unchanged", got.Args, raw)
	}
	if r := refusedWith(t, call(t, cs, "scoreboard__set_score", map[string]any{"team": "nobody", "points": 1})); r.Refused != "invalid-argument-enum" || r.Path != "/team" {
		t.Fatalf("refusal through stdio: %+v", r)
	}
	deadline := time.After(5 * time.Second)
	for found := false; !found; {
		select {
		case ev := <-acts:
			if a, ok := ev.Data.(registry.Activity); ok && ev.Name == registry.EventActivity {
				if a.Caller != "mcp:claude-ai" {
					t.Fatalf("stdio call logged as %q, want the real client", a.Caller)
				}
				found = true
			}
		case <-deadline:
			t.Fatal("no activity for the stdio call")
		}
	}
	if c := x.m.Status().Clients; len(c) != 1 || c[0].Name != "claude-ai" || c[0].Version != "9.9" {
		t.Fatalf("connected clients: %+v", c)
	}

	for len(changed) > 0 {
		<-changed
	}
	openInRoom(t, x.room, notes())
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("list_changed did not reach the stdio client")
	}
	for i := 0; toolNames(t, cs)["notes__reset"] == nil; i++ {
		if i == 100 {
			t.Fatalf("notes__reset never listed over stdio: %v", keys(toolNames(t, cs)))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStdioWithoutARunningApp(t *testing.T) {
	dir := t.TempDir()
	cs, stderr := pipes(t, dir, "cursor", nil)
	_, err := cs.ListTools(ctx(t), nil)
	if err == nil || !strings.Contains(err.Error(), "no Voicebox") || !strings.Contains(err.Error(), "serve --mcp") {
		t.Fatalf("tools/list with nothing running: %v", err)
	}
	_, err = cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "scoreboard__reset", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "no Voicebox") {
		t.Fatalf("tools/call with nothing running: %v", err)
	}
	if !strings.Contains(stderr.String(), "voicebox mcp: no Voicebox with MCP turned on is running") {
		t.Fatalf("stderr = %q", stderr.String())
	}

	// A stale discovery file (the app died without removing it) is explained too.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + ln.Addr().String() + mcpdoor.Path
	ln.Close()
	if err := mcpdoor.WriteDiscovery(dir, mcpdoor.Discovery{URL: dead, Token: testToken, PID: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx(t), nil); err == nil || !strings.Contains(err.Error(), "does not answer") {
		t.Fatalf("stale discovery file: %v", err)
	}
	os.Remove(mcpdoor.DiscoveryPath(dir))

	// Voicebox starts later on the same data folder: the next request finds it, no client restart.
	st, _ := settings.Open(dir)
	bus := events.NewBus()
	reg := registry.New(bus)
	newRoom(t, bus, reg, registrytest.Scoreboard())
	m := NewManager(ManagerOptions{Registry: reg, Settings: st, DataDir: dir, Addr: "127.0.0.1:0"})
	defer m.Close()
	if _, err := m.Start(true); err != nil {
		t.Fatal(err)
	}
	if toolNames(t, cs)["scoreboard__set_score"] == nil {
		t.Fatal("the proxy did not find Voicebox once it started")
	}
}

// tools/list through `voicebox mcp` asks the running Voicebox, not only the mirror that list_changed keeps:
// the moment Voicebox lists an app's tools, a client of the forwarder sees them too (list_changed comes 10 ms
// later at the soonest: a client that lists right after opening an app saw the old list).
func TestStdioListsWhatVoiceboxListsNow(t *testing.T) {
	x := newManaged(t, "127.0.0.1:0")
	if _, err := x.m.SetEnabled(true); err != nil {
		t.Fatal(err)
	}
	cs, _ := pipes(t, x.dir, "lister", nil)
	if toolNames(t, cs)["notes__reset"] != nil {
		t.Fatal("notes is listed before it opened")
	}
	d, err := mcpdoor.ReadDiscovery(x.dir)
	if err != nil {
		t.Fatal(err)
	}
	up, err := mcp.NewClient(&mcp.Implementation{Name: "direct", Version: "0"}, nil).Connect(ctx(t),
		&mcp.StreamableClientTransport{Endpoint: d.URL, HTTPClient: &http.Client{Transport: &mcpdoor.BearerTransport{Token: d.Token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	openInRoom(t, x.room, notes())
	for i := 0; toolNames(t, up)["notes__reset"] == nil; i++ {
		if i == 5000 {
			t.Fatal("Voicebox never listed notes__reset")
		}
	}
	if got := toolNames(t, cs); got["notes__reset"] == nil {
		t.Fatalf("Voicebox lists notes__reset, `voicebox mcp` does not yet: %v", keys(got))
	}
}
