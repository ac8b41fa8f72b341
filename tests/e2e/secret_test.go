package e2e

// `voicebox serve` answers no local process without the run's secret (issue 11, finding 7): before, any
// program on the machine could read the MCP bearer token at /api/mcp/config, the workspace's files at
// /api/file and the store at /api/mini-apps. Real HTTP against the real binary, as curl would ask.

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestServeSecret(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end tests are skipped in -short mode")
	}
	t.Setenv("VOICEBOX_MCP_ADDR", "127.0.0.1:0")
	s := startServer(t, "--mcp")
	if len(s.token) < 32 {
		t.Errorf("the room's URL carries no secret (or a short one): %q", s.token)
	}
	var d mcpDiscovery
	for i := 0; ; i++ {
		b, err := os.ReadFile(filepath.Join(s.data, "mcp.json"))
		if err == nil && json.Unmarshal(b, &d) == nil && d.Token != "" {
			break
		}
		if i == 100 {
			t.Fatalf("no discovery file: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	echo, err := os.ReadFile(filepath.Join(s.workspace, "echo.html"))
	if err != nil {
		t.Fatal(err)
	}
	routes := []struct{ method, path, body string }{
		{"GET", "/api/mcp/config", ""}, // what leaked the MCP token before
		{"GET", "/api/file?path=echo.html", ""},
		{"GET", "/api/mini-apps", ""},
		{"GET", "/api/config", ""},
		{"GET", "/api/events", ""},
		{"POST", "/api/call/MCPService.ClientConfig", "[]"},
		{"POST", "/api/call/MCPService.Status", "[]"},
		{"POST", "/api/call/StoreService.ReadFile", `["echo.html"]`},
		{"POST", "/api/call/StoreService.List", "[]"},
		{"POST", "/api/call/SettingsService.Get", "[]"},
		{"POST", "/api/call/StoreService.Delete", `["echo.html"]`},
		{"GET", "/api/room/channel?room=room-x", ""},
		{"GET", "/api/session/audio?rate=48000", ""},
	}
	do := func(method, path, body, auth string) (int, string) {
		t.Helper()
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, s.url+path, rd)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for _, auth := range []string{"", "Bearer " + strings.Repeat("0", len(s.token)), "Bearer " + d.Token} {
		for _, r := range routes {
			status, body := do(r.method, r.path, r.body, auth)
			var refusal struct{ Error, Message string }
			if status != 401 || json.Unmarshal([]byte(body), &refusal) != nil || refusal.Error != "unauthorized" || refusal.Message == "" {
				t.Errorf("%s %s with %q: %d %s, want 401 {\"error\":\"unauthorized\"}", r.method, r.path, auth, status, body)
			}
			if strings.Contains(body, d.Token) || strings.Contains(body, "Echo Lab") || (len(echo) > 40 && strings.Contains(body, string(echo[:40]))) {
				t.Errorf("%s %s without the secret leaked: %s", r.method, r.path, body)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(s.workspace, "echo.html")); err != nil {
		t.Fatalf("a refused delete removed the file: %v", err)
	}
	// With the secret, the same method answers (and it is the one that holds the MCP token).
	if status, body := do("POST", "/api/call/MCPService.ClientConfig", "[]", "Bearer "+s.token); status != 200 || !strings.Contains(body, d.Token) {
		t.Fatalf("with the secret: %d %s", status, body)
	}

	// VOICEBOX_SERVE_TOKEN chooses the secret; it is what the room's URL carries.
	t.Setenv("VOICEBOX_SERVE_TOKEN", "chosen-secret-for-this-run")
	t.Setenv("VOICEBOX_MCP_ADDR", "")
	chosen := startServer(t)
	if chosen.token != "chosen-secret-for-this-run" {
		t.Fatalf("VOICEBOX_SERVE_TOKEN: the room's URL carries %q", chosen.token)
	}
	if n := chosen.call(t, nil, "StoreService.List"); n != 200 {
		t.Fatalf("with the chosen secret: %d", n)
	}
}

// caseSecretTraded: the room's URL with the token was opened; the page is at the address without it, and
// its script cannot read the cookie that replaced it.
func caseSecretTraded(t *testing.T, p page) {
	var r struct{ Href, Cookie string }
	eval(t, p, &r, `return {href: location.href, cookie: document.cookie};`)
	if strings.Contains(r.Href, "token") || !strings.HasSuffix(r.Href, "/") {
		t.Errorf("the address bar shows %s", r.Href)
	}
	if r.Cookie != "" {
		t.Errorf("the page reads the cookie: %q", r.Cookie)
	}
}
