package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/mcpclient"
	"github.com/voicebox/voicebox/backend/mcpclient/mcpclienttest"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// startBudget adds the stdio test server as "budget" to a started Manager and waits until it is ready.
func startBudget(t *testing.T, tune func(*mcpclient.Options)) (m *mcpclient.Manager, record string) {
	t.Helper()
	m, dir := newManager(t, tune)
	m.Start()
	srv, record, _ := stdioServer(dir, mcpclienttest.ModeNormal)
	if err := m.Add("budget", srv); err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, "budget", "ready", ready)
	return m, record
}

func requests(t *testing.T, record, method string) []mcpclienttest.Request {
	t.Helper()
	var out []mcpclienttest.Request
	for _, l := range lines(t, record) {
		var r mcpclienttest.Request
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("record line %q: %v", l, err)
		}
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// The client negotiates the MCP Apps extension in initialize, as the server received it.
func checkUIExtension(t *testing.T, params json.RawMessage) {
	t.Helper()
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
		Capabilities    struct {
			Extensions map[string]struct {
				MIMETypes []string `json:"mimeTypes"`
			} `json:"extensions"`
		} `json:"capabilities"`
		ClientInfo struct{ Name string } `json:"clientInfo"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		t.Fatal(err)
	}
	ext, ok := p.Capabilities.Extensions[mcpclient.UIExtension]
	if !ok || !reflect.DeepEqual(ext.MIMETypes, []string{"text/html;profile=mcp-app"}) {
		t.Fatalf("initialize did not carry the ui extension with the mcp-app type: %s", params)
	}
	if p.ProtocolVersion != mcpclient.ProtocolVersion || p.ClientInfo.Name != "voicebox" {
		t.Fatalf("initialize: version %q, client %q", p.ProtocolVersion, p.ClientInfo.Name)
	}
}

func TestStdioServerNegotiatesTheUIExtensionAndListsItsTools(t *testing.T) {
	m, record := startBudget(t, nil)
	inits := requests(t, record, "initialize")
	if len(inits) != 1 {
		t.Fatalf("%d initialize requests, want 1", len(inits))
	}
	checkUIExtension(t, inits[0].Params)

	st, _ := m.Status("budget")
	if st.ServerName != "budget-test" || st.ServerVersion != "1.2.3" || st.Starts != 1 || st.Config.Transport != mcpclient.TransportStdio {
		t.Fatalf("status: %+v", st)
	}
	if !strings.Contains(st.Stderr, "budget-test: serving on stdio") {
		t.Fatalf("stderr tail lacks the server's line: %q", st.Stderr)
	}
	tools := map[string]mcpclient.ToolStatus{}
	for _, tl := range st.Tools {
		tools[tl.Name] = tl
	}
	want := map[string]struct {
		vis []string
		uri string
		bad bool
	}{
		"get-budget-data": {[]string{"model", "app"}, mcpclienttest.ViewURI, false},
		"refresh-budget":  {[]string{"app"}, mcpclienttest.ViewURI, false},
		"say_hello":       {[]string{"model"}, "", false},
		"legacy_view":     {[]string{"model", "app"}, mcpclienttest.BlobURI, false}, // the deprecated flat key
		"broken_schema":   {[]string{"model", "app"}, "", true},
	}
	for name, w := range want {
		got, ok := tools[name]
		switch {
		case !ok:
			t.Errorf("%s is not listed", name)
		case !reflect.DeepEqual(got.Visibility, w.vis) || got.ResourceURI != w.uri || (got.Problem != "") != w.bad:
			t.Errorf("%s: %+v, want visibility %v, view %q, problem %v", name, got, w.vis, w.uri, w.bad)
		}
	}
	if p := tools["broken_schema"].Problem; !strings.Contains(p, "schemas.invalid") {
		t.Errorf("broken_schema's problem does not say which reference failed: %q", p)
	}
	if u := tools["get-budget-data"].Unchecked; !reflect.DeepEqual(u, []string{"/properties/email/pattern"}) {
		t.Errorf("unchecked patterns: %v", u)
	}
}

func TestOnlyModelToolsReachTheModelUnderTheirNames(t *testing.T) {
	m, _ := startBudget(t, nil)
	var names []string
	snap := m.Snapshot()
	for _, tl := range m.ModelTools() {
		names = append(names, snap.Name(tl.Server, tl.Name))
	}
	for _, n := range names {
		if !strings.HasPrefix(n, mcpclient.NamePrefix+"budget__") {
			t.Errorf("exposed name %q does not say its server", n)
		}
	}
	for _, want := range []string{"mcp_budget__get-budget-data", "mcp_budget__say_hello", "mcp_budget__legacy_view"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s is not offered to the model: %v", want, names)
		}
	}
	for _, never := range []string{"mcp_budget__refresh-budget", "mcp_budget__broken_schema"} {
		if slices.Contains(names, never) {
			t.Errorf("%s reaches the model: it is app-only or cannot be called", never)
		}
	}
	ref, ok := snap.Resolve("mcp_budget__get-budget-data")
	if !ok || ref != (mcpclient.ToolRef{Server: "budget", Tool: "get-budget-data"}) {
		t.Fatalf("resolve: %v %v", ref, ok)
	}
	for _, provider := range []string{toolcontract.ProviderOpenAI, toolcontract.ProviderGemini} {
		decls, back, err := snap.Declarations(provider)
		if err != nil || len(decls) != len(names) || len(back) != len(names) {
			t.Fatalf("%s: %d declarations, %d names, %v", provider, len(decls), len(back), err)
		}
		for _, d := range decls {
			var x struct{ Name string }
			if json.Unmarshal(d, &x) != nil || back[x.Name].Server != "budget" {
				t.Fatalf("%s declaration %s does not map back", provider, d)
			}
		}
	}
	if s2 := m.Snapshot(); s2 != snap {
		t.Fatal("the snapshot changed with nothing changing: a voice cache keyed on it would rebuild")
	}
}

func TestCallToolKeepsEachCallerToItsTools(t *testing.T) {
	m, dir := newManager(t, nil)
	m.Start()
	budget, record, _ := stdioServer(filepath.Join(dir, "b"), mcpclienttest.ModeNormal)
	other, _, _ := stdioServer(filepath.Join(dir, "o"), mcpclienttest.ModeNormal)
	for _, d := range []string{"b", "o"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Add("budget", budget); err != nil {
		t.Fatal(err)
	}
	if err := m.Add("other", other); err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, "budget", "ready", ready)
	waitFor(t, m, "other", "ready", ready)
	ctx := context.Background()
	args := json.RawMessage(`{"month":"2026-01","limit":null,"tags":["a"]}`)

	res, r := m.CallTool(ctx, "budget", "get-budget-data", args, mcpclient.Model)
	if r != nil {
		t.Fatalf("model → get-budget-data: %v", r)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if string(b) != `{"received":{"limit":null,"month":"2026-01","tags":["a"]}}` {
		t.Fatalf("the server received %s", b)
	}

	cases := []struct {
		name         string
		server, tool string
		from         mcpclient.Caller
		code         string
	}{
		{"model → app-only tool", "budget", "refresh-budget", mcpclient.Model, mcpclient.CodeNotVisible},
		{"own view → app-only tool", "budget", "refresh-budget", mcpclient.ViewOf("budget"), ""},
		{"own view → model-only tool", "budget", "say_hello", mcpclient.ViewOf("budget"), mcpclient.CodeNotVisible},
		{"own view → tool for both", "budget", "get-budget-data", mcpclient.ViewOf("budget"), ""},
		{"other server's view → tool for both", "budget", "get-budget-data", mcpclient.ViewOf("other"), mcpclient.CodeCrossServer},
		{"other server's view → app-only tool", "budget", "refresh-budget", mcpclient.ViewOf("other"), mcpclient.CodeCrossServer},
		{"model → tool that cannot be called", "budget", "broken_schema", mcpclient.Model, mcpclient.CodeToolUnusable},
		{"model → no such tool", "budget", "nope", mcpclient.Model, toolcontract.CodeUnknownTool},
		{"model → no such server", "nobody", "say_hello", mcpclient.Model, mcpclient.CodeServerUnknown},
	}
	for _, c := range cases {
		a := json.RawMessage(`{}`)
		if c.tool == "get-budget-data" {
			a = args
		}
		before := len(requests(t, record, "tools/call"))
		_, r := m.CallTool(ctx, c.server, c.tool, a, c.from)
		got := ""
		if r != nil {
			got = r.Refused
		}
		if got != c.code {
			t.Errorf("%s: refused %q (%v), want %q", c.name, got, r, c.code)
		}
		after := len(requests(t, record, "tools/call"))
		if reached := after > before; reached != (c.code == "") {
			t.Errorf("%s: reached the server %v, want %v", c.name, reached, c.code == "")
		}
	}

	res, r = m.CallTool(ctx, "budget", "fail", nil, mcpclient.Model)
	if r != nil || !res.IsError {
		t.Fatalf("an isError result is a result: %+v %v", res, r)
	}
	if _, r := m.CallTool(ctx, "budget", "big_result", nil, mcpclient.Model); r == nil || r.Refused != toolcontract.CodeOutputOverBudget {
		t.Fatalf("a 2 MiB result: %v", r)
	}
}

func TestArgumentsAreCheckedBeforeTheServerSeesThem(t *testing.T) {
	m, record := startBudget(t, nil)
	cases := []struct{ args, code, path string }{
		{`{}`, toolcontract.CodeMissingArgument, "/month"},
		{`{"month":"2026-1"}`, toolcontract.CodeInvalidArgument, "/month"}, // pattern
		{`{"month":7}`, toolcontract.CodeInvalidArgumentType, "/month"},
		{`{"month":"2026-01","category":"cars"}`, toolcontract.CodeInvalidArgumentEnum, "/category"},
		{`{"month":"2026-01","limit":0}`, toolcontract.CodeInvalidArgumentRange, "/limit"},     // anyOf's integer branch
		{`{"month":"2026-01","tags":[""]}`, toolcontract.CodeInvalidArgumentLength, "/tags/0"}, // through $ref
		{`{"month":"2026-01","extra":1}`, toolcontract.CodeInvalidArgument, ""},                // additionalProperties
		{`{"month":"2026-01","month":"2026-02"}`, toolcontract.CodeInvalidToolArguments, ""},   // duplicate key
		{`{"month":"2026-01","email":"\ud800@x"}`, toolcontract.CodeInvalidToolArguments, ""},  // lone surrogate
		{`[1]`, toolcontract.CodeInvalidToolArguments, ""},
		{`{"month":"2026-01"} x`, toolcontract.CodeInvalidToolArguments, ""},
		{`{"month":"2026-01","tags":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`, toolcontract.CodeInvalidArgumentBounds, ""},
		{`{"month":"` + strings.Repeat("x", toolcontract.MaxArgsBytes) + `"}`, toolcontract.CodeInvalidToolArguments, ""},
	}
	for _, c := range cases {
		_, r := m.CallTool(context.Background(), "budget", "get-budget-data", json.RawMessage(c.args), mcpclient.Model)
		if r == nil || r.Refused != c.code || (c.path != "" && r.Path != c.path) {
			t.Errorf("%.60s: %+v, want %s at %q", c.args, r, c.code, c.path)
		}
	}
	if n := len(requests(t, record, "tools/call")); n != 0 {
		t.Fatalf("%d refused calls reached the server", n)
	}
	// A pattern Go cannot compile is left to the server, never a reason to refuse: ".a@x" breaks the
	// email pattern's lookahead and still goes through.
	if _, r := m.CallTool(context.Background(), "budget", "get-budget-data", json.RawMessage(`{"month":"2026-01","email":".a@x","limit":100}`), mcpclient.Model); r != nil {
		t.Fatalf("a valid call was refused: %v", r)
	}
	if n := len(requests(t, record, "tools/call")); n != 1 {
		t.Fatalf("%d calls reached the server, want 1", n)
	}
}

func TestAServerThatCrashesAtStartFailsWithItsStderrAndBoundedRestarts(t *testing.T) {
	m, dir := newManager(t, func(o *mcpclient.Options) { o.MaxRestarts = 2 })
	m.Start()
	srv, _, starts := stdioServer(dir, mcpclienttest.ModeCrashAtStart)
	if err := m.Add("broken", srv); err != nil {
		t.Fatal(err)
	}
	st := waitFor(t, m, "broken", "giving up", func(s mcpclient.Status) bool {
		return s.State == mcpclient.StateFailed && strings.Contains(s.Reason, "not restarted again")
	})
	if st.Starts != 3 || st.Restarts != 2 || len(lines(t, starts)) != 3 {
		t.Fatalf("starts %d (file: %d), restarts %d; want 3 starts, 2 restarts", st.Starts, len(lines(t, starts)), st.Restarts)
	}
	if !strings.Contains(st.Stderr, mcpclienttest.CrashAtStartLine) || !strings.Contains(st.Reason, "exited with status 2") {
		t.Fatalf("the person cannot tell why: reason %q, stderr %q", st.Reason, st.Stderr)
	}
	// It stays failed: a view's or the model's call starts nothing.
	if _, r := m.CallTool(context.Background(), "broken", "say_hello", json.RawMessage(`{"name":"x"}`), mcpclient.ViewOf("broken")); r == nil || r.Refused != mcpclient.CodeServerNotReady {
		t.Fatalf("a call to a failed server: %v", r)
	}
	if _, r := m.ReadResource(context.Background(), "broken", mcpclienttest.ViewURI); r == nil || r.Refused != mcpclient.CodeServerNotReady {
		t.Fatalf("a read from a failed server: %v", r)
	}
	// The person's restart counts anew.
	if err := m.Restart("broken"); err != nil {
		t.Fatal(err)
	}
	st = waitFor(t, m, "broken", "giving up again", func(s mcpclient.Status) bool {
		return s.State == mcpclient.StateFailed && s.Starts == 6 && strings.Contains(s.Reason, "not restarted again")
	})
	if n := len(lines(t, starts)); n != 6 {
		t.Fatalf("%d starts recorded, want 6", n)
	}
}

func TestAServerThatCrashesOnACallRestartsAFewTimesThenStaysFailed(t *testing.T) {
	m, dir := newManager(t, func(o *mcpclient.Options) { o.MaxRestarts = 1 })
	m.Start()
	srv, _, starts := stdioServer(dir, mcpclienttest.ModeNormal)
	if err := m.Add("budget", srv); err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, "budget", "ready", ready)
	if _, r := m.CallTool(context.Background(), "budget", "crash", nil, mcpclient.Model); r == nil || r.Refused != mcpclient.CodeServerError {
		t.Fatalf("a call during which the server exits: %v", r)
	}
	st := waitFor(t, m, "budget", "ready after one restart", func(s mcpclient.Status) bool { return ready(s) && s.Starts == 2 })
	if st.Restarts != 1 || !strings.Contains(st.Stderr, mcpclienttest.CrashOnCallLine) {
		t.Fatalf("after the restart: %+v", st)
	}
	if _, r := m.CallTool(context.Background(), "budget", "say_hello", json.RawMessage(`{"name":"again"}`), mcpclient.Model); r != nil {
		t.Fatalf("the restarted server does not answer: %v", r)
	}
	_, _ = m.CallTool(context.Background(), "budget", "crash", nil, mcpclient.Model)
	st = waitFor(t, m, "budget", "giving up", func(s mcpclient.Status) bool {
		return s.State == mcpclient.StateFailed && strings.Contains(s.Reason, "not restarted again")
	})
	if st.Starts != 2 || len(lines(t, starts)) != 2 || !strings.Contains(st.Reason, "exited with status 3") {
		t.Fatalf("after the second crash: starts %d (file %d), reason %q", st.Starts, len(lines(t, starts)), st.Reason)
	}
	if len(m.ModelTools()) != 0 {
		t.Fatal("a failed server's tools are still offered to the model")
	}
}

func TestToolsListChangedRefreshesTheToolsAndTellsSubscribers(t *testing.T) {
	m, _ := startBudget(t, nil)
	notices, stop := m.Changes()
	defer stop()
	if m.Snapshot().Name("budget", "added_later") != "" {
		t.Fatal("added_later before it was added")
	}
	if _, r := m.CallTool(context.Background(), "budget", "add_tool", nil, mcpclient.Model); r != nil {
		t.Fatal(r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), backstop)
	defer cancel()
	for m.Snapshot().Name("budget", "added_later") != "mcp_budget__added_later" {
		select {
		case <-notices:
		case <-ctx.Done():
			t.Fatal("the new tool never arrived")
		}
	}
	if _, r := m.CallTool(context.Background(), "budget", "added_later", nil, mcpclient.Model); r != nil {
		t.Fatal(r)
	}
}

func TestStreamableHTTPServer(t *testing.T) {
	var mu sync.Mutex
	var inits []json.RawMessage
	auth := map[string]bool{}
	h := mcpclienttest.Handler(mcpclienttest.Options{Record: func(method string, p json.RawMessage) {
		if method == "initialize" {
			mu.Lock()
			inits = append(inits, p)
			mu.Unlock()
		}
	}})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth[r.Header.Get("Authorization")] = true
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close) // after the Manager's Close (cleanups run last first), which ends its open stream

	m, dir := newManager(t, nil)
	m.Start()
	if err := m.Add("remote", mcpclient.Server{URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer t0k3n"}}); err != nil {
		t.Fatal(err)
	}
	st := waitFor(t, m, "remote", "ready", ready)
	if st.Config.Transport != mcpclient.TransportHTTP || !reflect.DeepEqual(st.Config.HeaderNames, []string{"Authorization"}) {
		t.Fatalf("status config: %+v", st.Config)
	}
	if b, _ := json.Marshal(st); strings.Contains(string(b), "t0k3n") {
		t.Fatalf("the status shows a header's value: %s", b)
	}
	mu.Lock()
	gotInits, gotAuth := slices.Clone(inits), maps.Clone(auth)
	mu.Unlock()
	if len(gotInits) != 1 || !gotAuth["Bearer t0k3n"] || gotAuth[""] {
		t.Fatalf("initialize requests %d; Authorization seen %v (every request must carry it)", len(gotInits), gotAuth)
	}
	checkUIExtension(t, gotInits[0])

	v, r := m.ReadResource(context.Background(), "remote", mcpclienttest.ViewURI)
	if r != nil || v.HTML != mcpclienttest.ViewHTML {
		t.Fatalf("read over HTTP: %v", r)
	}
	// tools/list_changed reaches the client over the session's own stream.
	if _, r := m.CallTool(context.Background(), "remote", "add_tool", nil, mcpclient.Model); r != nil {
		t.Fatal(r)
	}
	waitFor(t, m, "remote", "added_later listed", func(s mcpclient.Status) bool {
		return slices.ContainsFunc(s.Tools, func(x mcpclient.ToolStatus) bool { return x.Name == "added_later" })
	})
	b, err := os.ReadFile(mcpclient.Path(dir))
	if err != nil || !strings.Contains(string(b), `"url": "`+ts.URL+`"`) {
		t.Fatalf("the list: %s %v", b, err)
	}
}

func TestViewsAreReadWithTheirMetadataAndBounded(t *testing.T) {
	m, _ := startBudget(t, nil)
	ctx := context.Background()

	v, r := m.ReadResource(ctx, "budget", mcpclienttest.ViewURI)
	if r != nil {
		t.Fatal(r)
	}
	if v.HTML != mcpclienttest.ViewHTML || v.MIMEType != mcpclient.ViewMIMEType || v.Domain != "budget.example" || v.PrefersBorder == nil || !*v.PrefersBorder {
		t.Fatalf("view: %+v", v)
	}
	wantCSP := mcpclient.CSP{ConnectDomains: []string{"https://api.example.com"},
		ResourceDomains: []string{"https://cdn.example.com", "https://*.cdn.example.net"},
		FrameDomains:    []string{"https://www.youtube.com"}}
	if !reflect.DeepEqual(v.CSP, wantCSP) {
		t.Fatalf("csp %+v, want %+v", v.CSP, wantCSP)
	}
	if len(v.Dropped) != 1 || !strings.Contains(v.Dropped[0], "script-src") {
		t.Fatalf("a CSP entry that would inject a directive was not dropped: %v", v.Dropped)
	}
	if v.Permissions != (mcpclient.Permissions{Microphone: true, ClipboardWrite: true}) {
		t.Fatalf("permissions %+v", v.Permissions)
	}

	// base64 blob, a spaced content type, and _meta.ui only in resources/list
	v, r = m.ReadResource(ctx, "budget", mcpclienttest.BlobURI)
	if r != nil || v.HTML != mcpclienttest.BlobHTML || v.PrefersBorder == nil || *v.PrefersBorder {
		t.Fatalf("blob view: %+v %v", v, r)
	}
	// several MB open; one byte over the bound does not
	v, r = m.ReadResource(ctx, "budget", mcpclienttest.BigURI)
	if r != nil || len(v.HTML) != mcpclienttest.BigBytes {
		t.Fatalf("a 5 MiB view: %v", r)
	}
	if _, r := m.ReadResource(ctx, "budget", mcpclienttest.OverURI); r == nil || r.Refused != mcpclient.CodeViewTooLarge {
		t.Fatalf("a view over %d bytes: %v", mcpclient.MaxViewBytes, r)
	}
	for _, uri := range []string{mcpclienttest.PlainURI, "https://example.com/x.html", "ui://budget/missing.html"} {
		_, r := m.ReadResource(ctx, "budget", uri)
		if r == nil || (r.Refused != mcpclient.CodeViewInvalid && r.Refused != mcpclient.CodeServerError) {
			t.Errorf("%s: %v", uri, r)
		}
	}
	if _, r := m.ReadResource(ctx, "budget", mcpclienttest.PlainURI); r.Refused != mcpclient.CodeViewInvalid {
		t.Errorf("text/html without the profile: %v", r)
	}
}

func TestAServerGetsNoneOfVoiceboxsEnvironmentButWhatItNeeds(t *testing.T) {
	host := map[string]string{"PATH": os.Getenv("PATH"), "LANG": "C.UTF-8", "OPENAI_API_KEY": "sk-secret", "VOICEBOX_SERVE_TOKEN": "tok"}
	m, dir := newManager(t, func(o *mcpclient.Options) { o.Getenv = func(k string) string { return host[k] } })
	m.Start()
	srv, _, _ := stdioServer(dir, mcpclienttest.ModeNormal)
	srv.Env["BUDGET_TOKEN"] = "given-by-the-person"
	if err := m.Add("budget", srv); err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, "budget", "ready", ready)
	get := func(name string) string {
		res, r := m.CallTool(context.Background(), "budget", "env", json.RawMessage(`{"name":"`+name+`"}`), mcpclient.Model)
		if r != nil {
			t.Fatal(r)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	for name, want := range map[string]string{"OPENAI_API_KEY": "<unset>", "VOICEBOX_SERVE_TOKEN": "<unset>",
		"LANG": "C.UTF-8", "BUDGET_TOKEN": "given-by-the-person"} {
		if got := get(name); got != want {
			t.Errorf("the server sees %s=%q, want %q", name, got, want)
		}
	}
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func TestClosingStopsEveryServerAndWhatItStarted(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc to tell a zombie from a live process")
	}
	m, dir := newManager(t, nil)
	m.Start()
	var pids []int
	for _, name := range []string{"one", "two"} {
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		srv, _, _ := stdioServer(d, mcpclienttest.ModeNormal)
		if err := m.Add(name, srv); err != nil {
			t.Fatal(err)
		}
		waitFor(t, m, name, "ready", ready)
		for _, tool := range []string{"pid", "spawn"} {
			res, r := m.CallTool(context.Background(), name, tool, nil, mcpclient.Model)
			if r != nil {
				t.Fatal(r)
			}
			pid, err := strconv.Atoi(res.Content[0].(*mcp.TextContent).Text)
			if err != nil {
				t.Fatal(err)
			}
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("process %d is not running before Close", pid)
		}
	}
	m.Close()
	deadline := time.Now().Add(backstop)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d outlived Close", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if err := m.Add("late", mcpclient.Server{Command: "true"}); err == nil {
		t.Fatal("a closed Manager took a new server")
	}
}

func TestServersStartOnlyFromTheList(t *testing.T) {
	m, dir := newManager(t, nil)
	srv, _, starts := stdioServer(dir, mcpclienttest.ModeNormal)
	srv.Disabled = true
	if err := m.Add("budget", srv); err != nil {
		t.Fatal(err)
	}
	m.Start()
	st, _ := m.Status("budget")
	if st.State != mcpclient.StateStopped || st.Reason != "turned off" {
		t.Fatalf("a server turned off: %+v", st)
	}
	for _, from := range []mcpclient.Caller{mcpclient.Model, mcpclient.ViewOf("budget")} {
		if _, r := m.CallTool(context.Background(), "budget", "get-budget-data", json.RawMessage(`{"month":"2026-01"}`), from); r == nil || r.Refused != mcpclient.CodeServerNotReady {
			t.Fatalf("a call to a server turned off: %v", r)
		}
	}
	if _, r := m.ReadResource(context.Background(), "budget", mcpclienttest.ViewURI); r == nil || r.Refused != mcpclient.CodeServerNotReady {
		t.Fatalf("a read from a server turned off: %v", r)
	}
	if err := m.Restart("budget"); err == nil {
		t.Fatal("Restart started a server turned off")
	}
	if n := len(lines(t, starts)); n != 0 {
		t.Fatalf("a server turned off was started %d times", n)
	}
	if err := m.SetDisabled("budget", false); err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, "budget", "ready once turned on", ready)
	if err := m.SetDisabled("budget", true); err != nil {
		t.Fatal(err)
	}
	if st, _ := m.Status("budget"); st.State != mcpclient.StateStopped || len(m.ModelTools()) != 0 {
		t.Fatalf("turned off again: %+v", st)
	}
	f, err := mcpclient.ReadFile(mcpclient.Path(dir))
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := f.Find("budget"); !ok || !e.Server.Disabled {
		t.Fatalf("the list does not keep it off: %+v", e)
	}
}

func TestEditsGoToTheListAndRestartTheServer(t *testing.T) {
	m, dir := newManager(t, nil)
	m.Start()
	srv, _, starts := stdioServer(dir, mcpclienttest.ModeNormal)
	if err := m.Add("budget", srv); err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, "budget", "ready", ready)
	var refusal *toolcontract.Refusal
	if err := m.Add("budget", srv); !errors.As(err, &refusal) || refusal.Refused != mcpclient.CodeServerExists {
		t.Fatalf("a second Add of one name: %v", err)
	}
	if err := m.Add("bad", mcpclient.Server{URL: "http://example.com/mcp"}); !errors.As(err, &refusal) || refusal.Refused != mcpclient.CodeServerInvalid || refusal.Path != "/mcpServers/bad/url" {
		t.Fatalf("http to another machine: %v", err)
	}
	consent := &mcpclient.Consent{ConnectDomains: []string{"https://api.example.com"}, Permissions: []string{"microphone"}}
	if err := m.SetConsent("budget", consent); err != nil {
		t.Fatal(err)
	}
	if st, _ := m.Status("budget"); st.Starts != 1 || st.State != mcpclient.StateReady {
		t.Fatalf("a consent restarted the server: %+v", st)
	}
	srv.Args = append(srv.Args, "-test.v=false")
	if err := m.Replace("budget", srv); err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, "budget", "ready after the edit", func(s mcpclient.Status) bool { return ready(s) && s.Starts == 2 })
	if c := m.Consent("budget"); !reflect.DeepEqual(c, consent) {
		t.Fatalf("an edit of the command lost the consent: %+v", c)
	}
	if err := m.Remove("budget"); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Status("budget"); ok || len(m.Servers()) != 0 {
		t.Fatal("removed, still listed")
	}
	if n := len(lines(t, starts)); n != 2 {
		t.Fatalf("%d starts, want 2", n)
	}
	f, err := mcpclient.ReadFile(mcpclient.Path(dir))
	if err != nil || len(f.Entries) != 0 {
		t.Fatalf("the list after Remove: %+v %v", f, err)
	}
}
