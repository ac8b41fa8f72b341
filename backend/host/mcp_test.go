package host

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/config"
	"github.com/voicebox/voicebox/backend/httpapi"
	"github.com/voicebox/voicebox/backend/mcpdoor"
	"github.com/voicebox/voicebox/backend/verbs"
)

func newTestHost(t *testing.T) *Host {
	t.Helper()
	t.Setenv(mcpdoor.EnvAddr, "127.0.0.1:0")
	root := t.TempDir()
	p := config.Paths{Workspace: filepath.Join(root, "ws"), Data: filepath.Join(root, "data")}
	if err := os.MkdirAll(p.Workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.Workspace, "board.html"), []byte("<!doctype html><title>Board</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := New(p, Options{SandboxHost: "127.0.0.1", RoomOrigin: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.StopMCP)
	t.Cleanup(h.Close)
	return h
}

const testSecret = "host-test-secret"

// serveRoom is the Host's room over real HTTP, as `voicebox serve` serves it (room files are not needed).
func serveRoom(t *testing.T, h *Host) *httptest.Server {
	t.Helper()
	var handler http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	var err error
	if handler, err = h.Handler(strings.TrimPrefix(srv.URL, "http://"), testSecret, fstest.MapFS{}); err != nil {
		t.Fatal(err)
	}
	return srv
}

// do calls a room method by name (POST /api/call/<name> with its argument array) with the secret.
func do(t *testing.T, srv *httptest.Server, name, args string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+httpapi.CallPrefix+name, strings.NewReader(args))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+testSecret)
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

func TestMCPMethodsAndSwitch(t *testing.T) {
	h := newTestHost(t)
	h.StartMCP(false, "serve", "test")
	srv := serveRoom(t, h)

	code, st := do(t, srv, "MCPService.Status", `[]`)
	if code != 200 || st["enabled"] != false || st["running"] != false {
		t.Fatalf("off by default: %d %v", code, st)
	}
	if code, _ := do(t, srv, "MCPService.SetEnabled", `[]`); code != 400 {
		t.Fatalf("no argument: %d", code)
	}
	code, st = do(t, srv, "MCPService.SetEnabled", `[true]`)
	if code != 200 || st["running"] != true || !strings.HasPrefix(st["url"].(string), "http://127.0.0.1:") {
		t.Fatalf("switch on: %d %v", code, st)
	}
	disc := mcpdoor.DiscoveryPath(h.Paths.Data)
	if _, err := os.Stat(disc); err != nil {
		t.Fatalf("no discovery file: %v", err)
	}
	if !h.Settings.Get().MCPEnabled {
		t.Fatal("the switch was not saved in the shared settings")
	}
	config := func(method string) (int, string) {
		req, _ := http.NewRequest("POST", srv.URL+httpapi.CallPrefix+method, strings.NewReader(`[]`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+testSecret)
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var cfg string
		_ = json.NewDecoder(res.Body).Decode(&cfg)
		return res.StatusCode, cfg
	}
	// The client config is the stdio form, which holds no credential; the HTTP form, asked for by name,
	// holds the URL and the token.
	if code, cfg := config("MCPService.ClientConfig"); code != 200 || !strings.Contains(cfg, `"mcpServers"`) || !strings.Contains(cfg, `"mcp"`) ||
		strings.Contains(cfg, st["url"].(string)) || strings.Contains(cfg, st["token"].(string)) {
		t.Fatalf("client config: %d %v", code, cfg)
	}
	// VOICEBOX_MCP_ADDR=127.0.0.1:0 takes a new port at each start: no URL a client could keep.
	if code, body := do(t, srv, "MCPService.HTTPClientConfig", `[]`); code != 400 || !strings.Contains(body["message"].(string), "no fixed port") {
		t.Fatalf("the HTTP config without a fixed port: %d %v", code, body)
	}
	// VOICEBOX_MCP_ADDR decides the port for this run: Settings cannot.
	if code, body := do(t, srv, "MCPService.SetPort", `[9999]`); code != 400 || !strings.Contains(body["message"].(string), mcpdoor.EnvAddr) {
		t.Fatalf("SetPort under %s: %d %v", mcpdoor.EnvAddr, code, body)
	}
	old := st["token"]
	code, st = do(t, srv, "MCPService.RotateToken", `[]`)
	if code != 200 || st["token"] == old || st["running"] != true {
		t.Fatalf("rotate: %d %v", code, st)
	}
	h.StopMCP()
	if _, err := os.Stat(disc); !os.IsNotExist(err) {
		t.Fatalf("StopMCP left the discovery file: %v", err)
	}
}

func TestMCPForcedAndCatalog(t *testing.T) {
	h := newTestHost(t)
	h.StartMCP(true, "desktop", "test") // --mcp
	st := h.MCP.Status()
	if !st.Running || !st.Forced || h.Settings.Get().MCPEnabled {
		t.Fatalf("--mcp: %+v (saved switch %v)", st, h.Settings.Get().MCPEnabled)
	}
	d, err := mcpdoor.ReadDiscovery(h.Paths.Data)
	if err != nil || d.Mode != "desktop" || d.URL != st.URL {
		t.Fatalf("discovery %+v: %v", d, err)
	}
	// list_mini_apps offers the store's catalog to MCP clients.
	cs := connectMCP(t, st.URL, st.Token)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: verbs.List})
	if err != nil || res.IsError {
		t.Fatalf("list_mini_apps: %v %+v", err, res)
	}
	var listed verbs.Listing
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &listed); err != nil {
		t.Fatal(err)
	}
	if cat := listed.Available; len(cat) != 1 || cat[0].Title != "Board" || cat[0].Kind != "page" || cat[0].FileName != "board.html" {
		t.Fatalf("catalog = %+v", cat)
	}
}

// connectMCP connects an MCP client to the running server at url with its bearer token.
func connectMCP(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1, HTTPClient: &http.Client{Transport: &mcpdoor.BearerTransport{Token: token}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host-test", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// The voice session and the MCP door name tools from the one table the host made: a newcomer with a taken
// slug gets the suffix in both, whichever door looked first.
func TestDoorsShareOneExposedTable(t *testing.T) {
	h := newTestHost(t)
	if h.Exposed == nil {
		t.Fatal("no exposed table")
	}
	echo := []json.RawMessage{json.RawMessage(`{"name":"echo","description":"","parameters":{"type":"object"}}`)}
	h.Registry.Register("room", "page_echo", "Echo", "echo", echo)
	if got := h.Exposed.Snapshot().Name("page_echo", "echo"); got != "echo__echo" {
		t.Fatalf("first holder: %q", got)
	}
	h.Registry.Register("room", "app_echo", "Echo", "echo", echo)
	h.StartMCP(true, "serve", "test")
	st := h.MCP.Status()
	tools, err := connectMCP(t, st.URL, st.Token).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == "echo__echo" && !strings.Contains(tl.Description, "page_echo") {
			t.Fatalf("the MCP door gave echo__echo to another app: %s", tl.Description)
		}
	}
}
