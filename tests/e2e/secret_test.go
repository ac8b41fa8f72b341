package e2e

// `voicebox serve` answers no local process without the run's secret (issue 11, finding 7): before, any
// program on the machine could read the MCP bearer token at /api/mcp/config, the workspace's files at
// /api/file and the store at /api/mini-apps. Real HTTP against the real binary, as curl would ask.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"
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
		{"POST", "/api/call/MCPService.HTTPClientConfig", "[]"},
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
	// With the secret, the same method answers (and it is the one that holds the MCP token); a cookie
	// holding the secret is no credential (issue 28, finding 4).
	if status, body := do("POST", "/api/call/MCPService.Status", "[]", "Bearer "+s.token); status != 200 || !strings.Contains(body, d.Token) {
		t.Fatalf("with the secret: %d %s", status, body)
	}
	port := s.url[strings.LastIndex(s.url, ":")+1:]
	req, _ := http.NewRequest("POST", s.url+"/api/call/MCPService.Status", strings.NewReader("[]"))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Cookie", "voicebox-"+port+"="+s.token)
	res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 401 || strings.Contains(string(b), d.Token) {
		t.Fatalf("the secret as the old cookie: %d %s", res.StatusCode, b)
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

// caseSecretKept: the room's URL with the secret in its fragment was opened; the page is at the address
// without it, keeps it in its own sessionStorage (this origin's alone), and the browser holds no cookie at
// all: a cookie of 127.0.0.1 would go to every other server on the host (issue 28, finding 4). In Chromium
// the browser's whole cookie store is read, and a tab opened without the secret, or with a wrong one, shows
// one plain message instead of a half-working room.
func caseSecretKept(t *testing.T, p page, s *server) {
	var r struct {
		Href, Cookie string
		Kept         bool
	}
	eval(t, p, &r, `return {href: location.href, cookie: document.cookie, kept: sessionStorage.getItem("voicebox-secret") === %s};`, js(s.token))
	if strings.Contains(r.Href, "token") || strings.Contains(r.Href, s.token) || !strings.HasSuffix(r.Href, "/") {
		t.Errorf("the address bar shows %s", r.Href)
	}
	if !r.Kept {
		t.Error("the room did not keep the secret in its sessionStorage")
	}
	if r.Cookie != "" {
		t.Errorf("the page has cookies: %q", r.Cookie)
	}
	c, ok := p.(*chromiumPage)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	all, err := chromedp.Call(ctx, storage.GetCookies, storage.GetCookiesParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ck := range all.Cookies {
		t.Errorf("the browser holds a cookie: %s=%s for %s (HttpOnly %v)", ck.Name, ck.Value, ck.Domain, ck.HTTPOnly)
	}
	for _, tab := range []struct{ name, link, says string }{
		{"no secret", s.url + "/", "opened without the room's secret"},
		{"a wrong secret", s.url + "/#token=" + strings.Repeat("0", len(s.token)), "is not the running room's"},
	} {
		ctx, cancel := chromedp.NewContext(c.ctx) // a new tab: its own sessionStorage
		bare := &chromiumPage{ctx: ctx, record: c.record}
		if err := chromedp.Do(ctx, chromedp.Navigate(tab.link)); err != nil {
			cancel()
			t.Fatalf("%s: %v", tab.name, err)
		}
		waitTrue(t, bare, 20*time.Second, 100*time.Millisecond, "the plain message ("+tab.name+")", `return document.body.dataset.locked === "true";`)
		var got struct {
			Message, Href         string
			Ready, Kept           bool
			Toasts, VisibleBlocks int
		}
		eval(t, bare, &got, `return {
			message: document.getElementById("room-locked")?.innerText || "",
			href: location.href,
			ready: document.body.dataset.ready === "true",
			kept: sessionStorage.getItem("voicebox-secret") !== null,
			toasts: document.querySelectorAll("#notices > *").length,
			visibleBlocks: [...document.body.children].filter((e) => e.offsetParent !== null || getComputedStyle(e).display !== "none").length,
		};`)
		cancel()
		if !strings.Contains(got.Message, tab.says) || !strings.Contains(got.Message, "Voicebox room:") {
			t.Errorf("%s: the message says %q", tab.name, got.Message)
		}
		if got.Ready || got.Kept || got.Toasts != 0 || got.VisibleBlocks != 1 || strings.Contains(got.Href, "token") {
			t.Errorf("%s: %+v, want the message alone, no secret kept, nothing in the address bar", tab.name, got)
		}
	}
}
