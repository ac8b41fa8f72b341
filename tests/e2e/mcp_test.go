package e2e

// The MCP door end to end: the real `voicebox serve --mcp` binary, its room in headless Chromium with a
// mini-app running in the real sandbox, and real MCP clients calling it: the MCP Inspector's CLI from npm
// (@modelcontextprotocol/inspector-cli, installed into frontend/node_modules by `scripts/deps.sh test`),
// over Streamable HTTP and through `voicebox mcp` over stdio, and the Go SDK's client for list_changed.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/voicebox/voicebox/backend/verbs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/voicebox/voicebox/tests/testbin"
)

type mcpDiscovery struct {
	URL   string `json:"url"`
	Token string `json:"token"`
	PID   int    `json:"pid"`
}

// mcpNeed fails (never skips, unless -short) when chromium, node or the inspector CLI is missing.
func mcpNeed(t *testing.T) (inspector string) {
	t.Helper()
	if testing.Short() {
		t.Skip("the MCP end-to-end test needs Chromium, node and npm packages; skipped in -short mode")
	}
	requireTool(t, "/usr/bin/chromium", "chromium")
	requireTool(t, "node", "nodejs")
	root, err := testbin.Root()
	if err != nil {
		t.Fatal(err)
	}
	inspector = filepath.Join(root, "frontend", "node_modules", "@modelcontextprotocol", "inspector-cli", "build", "index.js")
	if _, err := os.Stat(inspector); err != nil {
		t.Fatalf("the MCP Inspector CLI is missing (%v): run scripts/deps.sh test, or `npm ci --ignore-scripts` in frontend/", err)
	}
	return inspector
}

// startMCPServe runs `voicebox serve --mcp` (its MCP server on a random port too) and checks, once it has
// stopped, that it removed its discovery file.
func startMCPServe(t *testing.T) *server {
	t.Helper()
	t.Setenv("VOICEBOX_MCP_ADDR", "127.0.0.1:0")
	s := startServer(t, "--mcp")
	t.Cleanup(func() { // before startServer's own cleanup, which then has nothing left to do
		s.stop()
		if _, err := os.Stat(filepath.Join(s.data, "mcp.json")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the discovery file outlived `voicebox serve`: %v", err)
		}
	})
	return s
}

func (s *server) discovery(t *testing.T) (mcpDiscovery, error) {
	t.Helper()
	var d mcpDiscovery
	b, err := os.ReadFile(filepath.Join(s.data, "mcp.json"))
	if err != nil {
		return d, err
	}
	return d, json.Unmarshal(b, &d)
}

// mcpInspector runs the MCP Inspector's CLI; target is the server URL, or `-- command args…` for stdio.
func mcpInspector(t *testing.T, script string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{script}, args...)...)
	cmd.Dir = filepath.Dir(script) // it reads its own ../package.json for its client name
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// mcpTarget places the target before the method's options, since --tool-arg takes every word after it. A
// stdio target is "command -- its args…": the command first, its arguments at the very end after "--".
func mcpTarget(target, args []string) []string {
	for i, a := range target {
		if a == "--" {
			out := append(append([]string(nil), target[:i]...), args...)
			return append(out, target[i:]...)
		}
	}
	return append(append([]string(nil), target...), args...)
}

type mcpToolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func (r mcpToolResult) text() string {
	if len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

// mcpInspectCall is `--method tools/call` through the Inspector; it decodes the printed result.
func mcpInspectCall(t *testing.T, script string, target []string, tool string, kv ...string) mcpToolResult {
	t.Helper()
	args := []string{"--method", "tools/call", "--tool-name", tool}
	for _, p := range kv {
		args = append(args, "--tool-arg", p)
	}
	args = mcpTarget(target, args)
	out, errOut, err := mcpInspector(t, script, args...)
	if err != nil {
		t.Fatalf("inspector tools/call %s: %v\nstdout: %s\nstderr: %s", tool, err, out, errOut)
	}
	var r mcpToolResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("inspector printed %q: %v", out, err)
	}
	return r
}

func TestMCPEndToEnd(t *testing.T) {
	script := mcpNeed(t)
	s := startMCPServe(t)
	var d mcpDiscovery
	for i := 0; ; i++ {
		var err error
		if d, err = s.discovery(t); err == nil {
			break
		}
		if i == 100 {
			t.Fatalf("no discovery file from `voicebox serve --mcp`: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if fi, err := os.Stat(filepath.Join(s.data, "mcp.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("discovery file: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	if !strings.HasPrefix(d.URL, "http://127.0.0.1:") || len(d.Token) < 32 || d.PID != s.cmd.Process.Pid {
		t.Fatalf("discovery = %+v", d)
	}
	httpTarget := []string{d.URL, "--transport", "http", "--header", "Authorization: Bearer " + d.Token}

	// The room, in a browser, with the sandbox: what a person watches. eval and waitFor take an expression.
	p := openChromium(t, s.url)
	eval := func(out any, expr string) {
		t.Helper()
		eval(t, p, out, "return (%s);", expr)
	}
	waitFor := func(what, expr string) {
		t.Helper()
		waitTrue(t, p, 15*time.Second, 100*time.Millisecond, what, "return ("+expr+");")
	}
	waitFor("itself", `document.body.dataset.ready === "true" && document.body.dataset.mcp === "on"`)
	var shownURL string
	eval(&shownURL, `document.getElementById("mcp-url").value`)
	if shownURL != d.URL {
		t.Fatalf("Settings › MCP shows %q, the server runs at %q", shownURL, d.URL)
	}
	// Settings › MCP's client config is the stdio form (no token); the HTTP form waits behind its own
	// disclosure, with its warning (issue 28, finding 3).
	var shown struct {
		Config      string `json:"config"`
		HTTPOpen    bool   `json:"httpOpen"`
		HTTPWarning string `json:"httpWarning"`
	}
	eval(nil, `document.getElementById("mcp-config-show").click()`)
	waitFor("the client config shown", `!document.getElementById("mcp-config").hidden`)
	eval(&shown, `{config: document.getElementById("mcp-config").textContent, httpOpen: document.getElementById("mcp-http").open,
		httpWarning: document.getElementById("mcp-http-warning").textContent}`)
	if !strings.Contains(shown.Config, `"mcp"`) || strings.Contains(shown.Config, d.Token) || strings.Contains(shown.Config, "voicebox-http") ||
		shown.HTTPOpen || !strings.Contains(shown.HTTPWarning, "receives it") {
		t.Fatalf("Settings › MCP: %+v", shown)
	}
	eval(nil, `document.getElementById("mcp-config-show").click()`)

	// A Go SDK client watches for list_changed through the whole test.
	changed := make(chan struct{}, 32)
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-watcher", Version: "1.0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cctx, ccancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer ccancel()
	watcher, err := client.Connect(cctx, &mcp.StreamableClientTransport{Endpoint: d.URL, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: mcpBearer(d.Token)}}, nil)
	if err != nil {
		t.Fatalf("Go SDK client: %v", err)
	}
	defer watcher.Close()
	waitChanged := func(what string) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatalf("no notifications/tools/list_changed after %s", what)
		}
	}
	listNames := func() map[string]string {
		t.Helper()
		res, err := watcher.ListTools(cctx, nil)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		out := map[string]string{}
		for _, tl := range res.Tools {
			out[tl.Name] = tl.Description
		}
		return out
	}
	if n := listNames(); len(n) != len(verbs.For(verbs.MCP)) || n["launch_mini_app"] == "" || n["write_mini_app"] == "" {
		t.Fatalf("before any app opened, tools/list = %v", n)
	}
	waitFor("the watcher as a connected client", `!!document.querySelector('#mcp-clients li[data-client="e2e-watcher"]')`)

	// 1. The Inspector opens the app: the room launches it in the sandbox and its tools appear.
	res := mcpInspectCall(t, script, httpTarget, "launch_mini_app", "ref=scoreboard.html")
	if res.IsError {
		var log string
		eval(&log, `[...document.querySelectorAll("#activity-log li, #notices .notice")].map((n) => n.textContent).join("\n")`)
		t.Fatalf("launch_mini_app: %s\nthe room says:\n%s", res.text(), log)
	}
	var app struct {
		AppID string   `json:"appId"`
		Title string   `json:"title"`
		Tools []string `json:"tools"`
	}
	if err := json.Unmarshal([]byte(res.text()), &app); err != nil || app.Title != "Scoreboard" || len(app.Tools) != 2 {
		t.Fatalf("launch result %s (%v)", res.text(), err)
	}
	setScore, readBoard := "", ""
	for _, n := range app.Tools {
		switch {
		case strings.HasSuffix(n, "__set_score"):
			setScore = n
		case strings.HasSuffix(n, "__read_board"):
			readBoard = n
		}
	}
	if setScore == "" || readBoard == "" {
		t.Fatalf("launched app's tools: %v", app.Tools)
	}
	waitChanged("launch_mini_app")
	waitFor("the app's window", `document.querySelectorAll("iframe.mini-app-bridge").length === 1`)

	out, errOut, err := mcpInspector(t, script, mcpTarget(httpTarget, []string{"--method", "tools/list"})...)
	if err != nil {
		t.Fatalf("inspector tools/list: %v\n%s", err, errOut)
	}
	var listed struct {
		Tools []struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &listed); err != nil {
		t.Fatalf("tools/list printed %q: %v", out, err)
	}
	found := false
	for _, tl := range listed.Tools {
		if tl.Name == setScore {
			found = true
			if !strings.Contains(tl.Description, `"Scoreboard"`) || tl.InputSchema["type"] != "object" {
				t.Fatalf("%s as listed: %+v", setScore, tl)
			}
		}
	}
	if !found || len(listed.Tools) != 2+len(verbs.For(verbs.MCP)) {
		t.Fatalf("Inspector's tools/list: %s", out)
	}

	// 2. The Inspector calls the app's tool over Streamable HTTP: the scoreboard in the browser changes.
	res = mcpInspectCall(t, script, httpTarget, setScore, "team=home", "points=3")
	if res.IsError || res.text() != `{"ok":true,"currentScore":3}` {
		t.Fatalf("%s: %+v", setScore, res)
	}
	res = mcpInspectCall(t, script, httpTarget, readBoard)
	if res.text() != `{"home":"3","away":"0","seen":"1"}` {
		t.Fatalf("the app's DOM after the call: %s", res.text())
	}
	waitFor("the Inspector's call in the activity log",
		`[...document.querySelectorAll("#activity-log li")].some((li) => li.textContent.includes("mcp:inspector-cli") && li.textContent.includes("set_score"))`)

	// 3. A refusal: Go's validator answers with the tool contract's code and nothing reaches the app.
	res = mcpInspectCall(t, script, httpTarget, setScore, "team=visitors", "points=1")
	var ref struct{ Refused, Path, Message string }
	if err := json.Unmarshal([]byte(res.text()), &ref); err != nil || !res.IsError || ref.Refused != "invalid-argument-enum" || ref.Path != "/team" {
		t.Fatalf("refusal: %+v (%v)", res, err)
	}
	// (The Inspector coerces --tool-arg values to the declared types, so this one comes from the Go client.)
	tr, err := watcher.CallTool(cctx, &mcp.CallToolParams{Name: setScore, Arguments: json.RawMessage(`{"team":"home","points":"3"}`)})
	if err != nil || !tr.IsError || len(tr.Content) != 1 {
		t.Fatalf("type refusal: %v %+v", err, tr)
	}
	if err := json.Unmarshal([]byte(tr.Content[0].(*mcp.TextContent).Text), &ref); err != nil || ref.Refused != "invalid-argument-type" || ref.Path != "/points" {
		t.Fatalf("type refusal: %+v (%v)", ref, err)
	}
	if res = mcpInspectCall(t, script, httpTarget, readBoard); res.text() != `{"home":"3","away":"0","seen":"1"}` {
		t.Fatalf("a refused call changed the app: %s", res.text())
	}

	// 4. Clients that only launch commands: the Inspector over stdio through `voicebox mcp`.
	stdio := []string{s.bin, "--", "mcp", "--data", s.data}
	res = mcpInspectCall(t, script, stdio, setScore, "team=away", "points=2")
	if res.IsError || res.text() != `{"ok":true,"currentScore":2}` {
		t.Fatalf("%s over stdio: %+v", setScore, res)
	}
	if res = mcpInspectCall(t, script, stdio, readBoard); res.text() != `{"home":"3","away":"2","seen":"2"}` {
		t.Fatalf("the app's DOM after the stdio call: %s", res.text())
	}

	// 5. The door: wrong token 401, foreign Origin 403, a rebinding Host 403; no token, no Origin.
	for _, c := range []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"wrong token", map[string]string{"Authorization": "Bearer " + strings.Repeat("f", 64)}, 401},
		{"no token", nil, 401},
		{"foreign origin", map[string]string{"Authorization": "Bearer " + d.Token, "Origin": "https://evil.example"}, 403},
		{"the room's own origin", map[string]string{"Authorization": "Bearer " + d.Token, "Origin": s.url}, 403},
		{"rebinding host", map[string]string{"Authorization": "Bearer " + d.Token, "Host": "evil.example:" + mcpPort(d.URL)}, 403},
	} {
		if got := mcpRawInitialize(t, d.URL, c.hdr); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	out, errOut, err = mcpInspector(t, script, d.URL, "--transport", "http", "--header", "Authorization: Bearer nope-nope-nope", "--method", "tools/list")
	if err == nil || !strings.Contains(out+errOut, "401") && !strings.Contains(out+errOut, "unauthorized") {
		t.Fatalf("the Inspector with a wrong token: %v\n%s%s", err, out, errOut)
	}

	// 6. close_mini_app: the window goes, the tools go, list_changed says so.
	for len(changed) > 0 {
		<-changed
	}
	cr, err := watcher.CallTool(cctx, &mcp.CallToolParams{Name: "close_mini_app", Arguments: map[string]any{"appId": app.AppID}})
	if err != nil || cr.IsError {
		t.Fatalf("close_mini_app: %v %+v", err, cr)
	}
	waitChanged("close_mini_app")
	if n := listNames(); n[setScore] != "" {
		t.Fatalf("%s still listed after close", setScore)
	}
	waitFor("the app's window gone", `document.querySelectorAll("iframe.mini-app-bridge").length === 0`)

	// 6b. A launch has its own bound (15 s), not a tool call's (5 s): an app that takes 5.5 s to become
	// ready opens, and the answer says so (before, Go answered tool-timeout at 5 s and the app opened anyway).
	start := time.Now()
	lr, err := watcher.CallTool(cctx, &mcp.CallToolParams{Name: "launch_mini_app", Arguments: map[string]any{"ref": "slow-ready.html"}})
	if err != nil || lr.IsError || !strings.Contains(lr.Content[0].(*mcp.TextContent).Text, "__ping") {
		t.Fatalf("slow launch: %v %+v", err, lr)
	}
	if took := time.Since(start); took < 5500*time.Millisecond {
		t.Fatalf("the slow app was ready after %v: it is not slow enough to show the bound", took)
	}
	var slow struct{ AppID string }
	_ = json.Unmarshal([]byte(lr.Content[0].(*mcp.TextContent).Text), &slow)
	if cr, err := watcher.CallTool(cctx, &mcp.CallToolParams{Name: "close_mini_app", Arguments: map[string]any{"appId": slow.AppID}}); err != nil || cr.IsError {
		t.Fatalf("close the slow app: %v %+v", err, cr)
	}

	// 7. The switch in Settings › MCP stops the server at runtime and starts it again.
	eval(nil, `document.getElementById("mcp-enabled").click()`)
	waitFor("MCP off", `document.body.dataset.mcp === "off"`)
	if _, err := s.discovery(t); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("discovery file after switching off: %v", err)
	}
	if got := mcpRawInitialize(t, d.URL, map[string]string{"Authorization": "Bearer " + d.Token}); got != 0 {
		t.Fatalf("switched-off server still answers %d", got)
	}
	out, errOut, err = mcpInspector(t, script, mcpTarget(stdio, []string{"--method", "tools/list"})...)
	if err == nil || !strings.Contains(out+errOut, "no Voicebox with MCP turned on") {
		t.Fatalf("`voicebox mcp` with MCP off: %v\n%s%s", err, out, errOut)
	}
	eval(nil, `document.getElementById("mcp-enabled").click()`)
	waitFor("MCP on again", `document.body.dataset.mcp === "on"`)
	d2, err := s.discovery(t)
	if err != nil {
		t.Fatalf("no discovery file after switching on: %v", err)
	}
	out, errOut, err = mcpInspector(t, script, mcpTarget(stdio, []string{"--method", "tools/list"})...)
	if err != nil || !strings.Contains(out, "launch_mini_app") {
		t.Fatalf("`voicebox mcp` after switching on again (%s): %v\n%s%s", d2.URL, err, out, errOut)
	}
}

type mcpBearer string

func (b mcpBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

func mcpPort(u string) string {
	hp := strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/mcp")
	_, p, _ := net.SplitHostPort(hp)
	return p
}

// mcpRawInitialize POSTs an initialize request; 0 means nothing answered.
func mcpRawInitialize(t *testing.T, url string, hdr map[string]string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return 0
	}
	res.Body.Close()
	return res.StatusCode
}

// The MCP door with its port taken, end to end (issue 28, finding 3): `voicebox serve --mcp` with
// VOICEBOX_MCP_ADDR on a port another program holds opens no other port, says so in Settings' status, and
// `voicebox mcp` (the stdio form, which `--print-config` prints) still reaches it through its socket; the
// program on the port hears no token. No browser: the host verbs answer without a room.
func TestMCPTakenPort(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end tests are skipped in -short mode")
	}
	var mu sync.Mutex
	var heard []string
	sq := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		heard = append(heard, r.Header.Get("Authorization"))
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer sq.Close()
	taken := strings.TrimPrefix(sq.URL, "http://")
	t.Setenv("VOICEBOX_MCP_ADDR", taken)
	s := startServer(t, "--mcp")
	var st struct {
		Running bool   `json:"running"`
		URL     string `json:"url"`
		Socket  string `json:"socket"`
		Error   string `json:"error"`
	}
	if code := s.call(t, &st, "MCPService.Status"); code != 200 || !st.Running || st.URL != "" || st.Socket == "" ||
		!strings.Contains(st.Error, "port "+mcpPort(sq.URL+"/mcp")+" is in use by another program") {
		t.Fatalf("MCP with its port taken: %d %+v", code, st)
	}
	d, err := s.discovery(t)
	if err != nil || d.URL != "" {
		t.Fatalf("discovery file: %+v %v", d, err)
	}

	// The printed config: the stdio form, no token; the HTTP form is refused while the port is another's.
	out, err := exec.Command(s.bin, "mcp", "--print-config", "--data", s.data).Output()
	if err != nil || !strings.Contains(string(out), `"mcp"`) || strings.Contains(string(out), d.Token) || strings.Contains(string(out), "http") {
		t.Fatalf("--print-config: %v\n%s", err, out)
	}
	var errOut bytes.Buffer
	cmd := exec.Command(s.bin, "mcp", "--print-config=http", "--data", s.data)
	cmd.Stderr = &errOut
	if out, err := cmd.Output(); err == nil || strings.Contains(string(out), d.Token) || !strings.Contains(errOut.String(), "in use by another program") {
		t.Fatalf("--print-config=http with the port taken: %v\n%s%s", err, out, errOut.String())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-stdio", Version: "1"}, nil).Connect(ctx,
		&mcp.CommandTransport{Command: exec.Command(s.bin, "mcp", "--data", s.data)}, nil)
	if err != nil {
		t.Fatalf("voicebox mcp: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_mini_apps", Arguments: map[string]any{}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "scoreboard") {
		t.Fatalf("list_mini_apps over stdio with the port taken: %v %+v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(heard) != 0 {
		t.Fatalf("the program on the port heard %q", heard)
	}
}
