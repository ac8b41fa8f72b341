package mcpclient_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voicebox/voicebox/backend/mcpclient"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// A file as people write it: Claude Desktop's shape, keys of other programs, one entry that cannot run.
const handWritten = `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me"], "autoApprove": ["read_file"]},
    "github": {"command": "docker", "args": ["run", "-i", "ghcr.io/github/github-mcp-server"], "env": {"GITHUB_TOKEN": "ghp_secret"}},
    "remote": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer abc"}, "disabled": true},
    "old-sse": {"type": "sse", "url": "https://mcp.example.com/sse"}
  }
}`

func TestTheListKeepsWhatItDoesNotKnowAndIsWrittenPrivately(t *testing.T) {
	dir := t.TempDir()
	path := mcpclient.Path(dir)
	if err := os.WriteFile(path, []byte(handWritten), 0o644); err != nil {
		t.Fatal(err)
	}
	m := mcpclient.New(mcpclient.Options{DataDir: dir})
	defer m.Close()
	if err := m.FileError(); err != nil {
		t.Fatal(err)
	}
	st := map[string]mcpclient.Status{}
	for _, s := range m.Servers() {
		st[s.Name] = s
	}
	if len(st) != 4 {
		t.Fatalf("%d servers, want 4", len(st))
	}
	if p := st["old-sse"].Problem; p == nil || p.Refused != mcpclient.CodeServerInvalid || p.Path != "/mcpServers/old-sse/type" || st["old-sse"].State != mcpclient.StateFailed {
		t.Fatalf("an SSE server: %+v", st["old-sse"])
	}
	if c := st["github"].Config; c.Transport != mcpclient.TransportStdio || strings.Join(c.EnvNames, ",") != "GITHUB_TOKEN" {
		t.Fatalf("github: %+v", c)
	}
	if !st["remote"].Config.Disabled || st["remote"].Config.URL != "https://mcp.example.com/mcp" {
		t.Fatalf("remote: %+v", st["remote"].Config)
	}
	if b, _ := json.Marshal(m.Servers()); strings.Contains(string(b), "ghp_secret") || strings.Contains(string(b), "Bearer abc") {
		t.Fatalf("the room would see an env or header value: %s", b)
	}

	// A change rewrites the file: 0600, atomically, and everything else kept as it was.
	if err := m.Add("budget", mcpclient.Server{Command: "budget-server", Args: []string{"--stdio"}}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v, want 0600", fi.Mode(), err)
	}
	var doc map[string]any
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	servers := doc["mcpServers"].(map[string]any)
	if doc["globalShortcut"] != "Ctrl+Space" {
		t.Error("a top-level key of another program was lost")
	}
	if fs := servers["filesystem"].(map[string]any); fs["autoApprove"] == nil {
		t.Error("a server's key this package does not know was lost")
	}
	if sse := servers["old-sse"].(map[string]any); sse["type"] != "sse" || sse["url"] != "https://mcp.example.com/sse" {
		t.Errorf("an entry that cannot run was not kept as written: %v", sse)
	}
	if gh := servers["github"].(map[string]any); gh["env"].(map[string]any)["GITHUB_TOKEN"] != "ghp_secret" {
		t.Error("an env value was lost")
	}
	if bd := servers["budget"].(map[string]any); bd["command"] != "budget-server" {
		t.Errorf("the new server: %v", bd)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != mcpclient.FileName {
			t.Errorf("left beside the list: %s", e.Name())
		}
	}
	// Reading it again gives the same list.
	again := mcpclient.New(mcpclient.Options{DataDir: dir})
	defer again.Close()
	if len(again.Servers()) != 5 {
		t.Fatalf("%d servers after a round trip, want 5", len(again.Servers()))
	}
}

func TestAListThatCannotBeReadIsNeverWrittenOver(t *testing.T) {
	dir := t.TempDir()
	path := mcpclient.Path(dir)
	const broken = `{"mcpServers": {"a": {"command": "x"}` // cut short
	if err := os.WriteFile(path, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	m := mcpclient.New(mcpclient.Options{DataDir: dir})
	defer m.Close()
	if m.FileError() == nil || len(m.Servers()) != 0 {
		t.Fatalf("a broken list: %v, %d servers", m.FileError(), len(m.Servers()))
	}
	var r *toolcontract.Refusal
	if err := m.Add("b", mcpclient.Server{Command: "y"}); !errors.As(err, &r) || r.Refused != mcpclient.CodeServersFile {
		t.Fatalf("Add over a broken list: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != broken {
		t.Fatalf("the person's file changed: %s", b)
	}
}

func TestServerValidation(t *testing.T) {
	cases := []struct {
		name string
		s    mcpclient.Server
		path string // "" when valid
	}{
		{"ok", mcpclient.Server{Command: "npx", Args: []string{"-y", "x"}, Env: map[string]string{"A_1": "v"}}, ""},
		{"ok", mcpclient.Server{URL: "https://mcp.example.com/mcp", Headers: map[string]string{"X-Api-Key": "k"}}, ""},
		{"ok", mcpclient.Server{URL: "http://127.0.0.1:3001/mcp"}, ""},
		{"ok", mcpclient.Server{URL: "http://localhost:3001/mcp", Type: "streamable-http"}, ""},
		{"ok", mcpclient.Server{Command: "x", Consent: &mcpclient.Consent{ConnectDomains: []string{"https://*.example.com"}, Permissions: []string{"camera"}}}, ""},
		{"", mcpclient.Server{Command: "x"}, "/mcpServers/"},
		{"a/b", mcpclient.Server{Command: "x", Args: []string{"a\x00b"}}, "/mcpServers/a~1b/args/0"},
		{"ok", mcpclient.Server{}, "/mcpServers/ok"},
		{"ok", mcpclient.Server{Command: "x", URL: "https://x"}, "/mcpServers/ok"},
		{"ok", mcpclient.Server{URL: "http://mcp.example.com/mcp"}, "/mcpServers/ok/url"},
		{"ok", mcpclient.Server{URL: "https://user:pw@mcp.example.com/mcp"}, "/mcpServers/ok/url"},
		{"ok", mcpclient.Server{URL: "file:///etc/passwd"}, "/mcpServers/ok/url"},
		{"ok", mcpclient.Server{URL: "https://x", Headers: map[string]string{"Bad Name": "v"}}, "/mcpServers/ok/headers/Bad Name"},
		{"ok", mcpclient.Server{URL: "https://x", Headers: map[string]string{"Host": "evil"}}, "/mcpServers/ok/headers/Host"},
		{"ok", mcpclient.Server{URL: "https://x", Headers: map[string]string{"A": "line\r\nbreak"}}, "/mcpServers/ok/headers/A"},
		{"ok", mcpclient.Server{Command: "x", Env: map[string]string{"1A": "v"}}, "/mcpServers/ok/env/1A"},
		{"ok", mcpclient.Server{Command: "x", Headers: map[string]string{"A": "v"}}, "/mcpServers/ok/headers"},
		{"ok", mcpclient.Server{URL: "https://x", Env: map[string]string{"A": "v"}}, "/mcpServers/ok"},
		{"ok", mcpclient.Server{Command: "x", Cwd: "relative"}, "/mcpServers/ok/cwd"},
		{"ok", mcpclient.Server{Command: "x", Type: "ws"}, "/mcpServers/ok/type"},
		{"ok", mcpclient.Server{Command: "x", Consent: &mcpclient.Consent{FrameDomains: []string{"https://a.com; script-src *"}}}, "/mcpServers/ok/consent/frameDomains/0"},
		{"ok", mcpclient.Server{Command: "x", Consent: &mcpclient.Consent{Permissions: []string{"usb"}}}, "/mcpServers/ok/consent/permissions/0"},
		{" padded", mcpclient.Server{Command: "x"}, "/mcpServers/ padded"},
		{"bidi\u202e", mcpclient.Server{Command: "x"}, "/mcpServers/bidi\u202e"},
	}
	for _, c := range cases {
		r := c.s.Validate(c.name)
		switch {
		case c.path == "" && r != nil:
			t.Errorf("%q %+v refused: %v", c.name, c.s, r)
		case c.path != "" && (r == nil || r.Refused != mcpclient.CodeServerInvalid || r.Path != c.path):
			t.Errorf("%q %+v: %+v, want a refusal at %q", c.name, c.s, r, c.path)
		}
	}
	if _, r := mcpclient.ParseServer("x", json.RawMessage(`{"command": "a", "args": "not a list"}`)); r == nil || r.Path != "/mcpServers/x/args" {
		t.Fatalf("args of the wrong type: %v", r)
	}
}

func TestClaudeDesktopIsImportedOnlyWhenAsked(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	path, err := mcpclient.ClaudeDesktopPath()
	if err != nil || path != filepath.Join(cfg, "Claude", "claude_desktop_config.json") {
		t.Fatalf("path %q %v", path, err)
	}
	if _, r := mcpclient.ImportClaudeDesktop(path); r == nil || r.Refused != mcpclient.CodeImportNotFound {
		t.Fatalf("no file: %v", r)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(handWritten), 0o600); err != nil {
		t.Fatal(err)
	}
	// A Manager never reads it by itself.
	m := mcpclient.New(mcpclient.Options{DataDir: t.TempDir()})
	m.Start()
	defer m.Close()
	if n := len(m.Servers()); n != 0 {
		t.Fatalf("a new Manager took %d servers from Claude Desktop's file", n)
	}

	found, r := mcpclient.ImportClaudeDesktop(path)
	if r != nil || len(found) != 4 {
		t.Fatalf("import: %d, %v", len(found), r)
	}
	byName := map[string]mcpclient.Candidate{}
	for _, c := range found {
		byName[c.Name] = c
	}
	if c := byName["github"]; c.Problem != nil || c.Server.Env["GITHUB_TOKEN"] != "ghp_secret" || c.Public.EnvNames[0] != "GITHUB_TOKEN" {
		t.Fatalf("github: %+v", c)
	}
	if byName["old-sse"].Problem == nil {
		t.Fatal("an SSE server came without its problem")
	}
	if b, _ := json.Marshal(found); strings.Contains(string(b), "ghp_secret") {
		t.Fatalf("what the room is shown holds an env value: %s", b)
	}
	// The person picks one; it goes into Voicebox's own list (turned off here: this test runs no docker).
	picked := byName["github"].Server
	picked.Disabled = true
	if err := m.Add("github", picked); err != nil {
		t.Fatal(err)
	}
	if n := len(m.Servers()); n != 1 {
		t.Fatalf("%d servers after one was picked", n)
	}
	if _, r := mcpclient.ImportClaudeDesktop(filepath.Join(cfg, "nothing.json")); r == nil || r.Refused != mcpclient.CodeImportNotFound {
		t.Fatalf("a wrong path: %v", r)
	}
	if err := os.WriteFile(path, []byte(`[]`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, r := mcpclient.ImportClaudeDesktop(path); r == nil || r.Refused != mcpclient.CodeServersFile {
		t.Fatalf("not the mcpServers shape: %v", r)
	}
}
