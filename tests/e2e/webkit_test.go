package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/tests/testbin"
	"github.com/voicebox/voicebox/tests/webdriver"
)

// MiniBrowser ships with libwebkit2gtk-4.1-0; WebKitWebDriver with webkit2gtk-driver.
const miniBrowser = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"

// webkitPage is the room in WebKitGTK's MiniBrowser, driven by a minimal W3C WebDriver client.
type webkitPage struct {
	base    string // http://127.0.0.1:port/session/<id>
	client  *http.Client
	timeout time.Duration
	record  *dnsRecord
}

func (w *webkitPage) name() string { return "webkitgtk" }

func (w *webkitPage) dns() *dnsRecord { return w.record }

func (w *webkitPage) do(method, path string, body any) (json.RawMessage, error) {
	return webdriver.Do(w.client, w.base, method, path, body)
}

func (w *webkitPage) evalRaw(script string) (json.RawMessage, error) {
	wrapped := "const done = arguments[arguments.length - 1];\n" +
		wrapScript(script) + ".then((v) => done({ok: true, v: v}), (e) => done({ok: false, e: String(e && e.stack || e)}));"
	raw, err := w.do("POST", "/execute/async", map[string]any{"script": wrapped, "args": []any{}})
	if err != nil {
		return nil, err
	}
	var r struct {
		OK bool            `json:"ok"`
		V  json.RawMessage `json:"v"`
		E  string          `json:"e"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("webdriver result %s: %v", raw, err)
	}
	if !r.OK {
		return nil, fmt.Errorf("script failed: %s", r.E)
	}
	return r.V, nil
}

func (w *webkitPage) windowCount() (int, error) {
	raw, err := w.do("GET", "/window/handles", nil)
	if err != nil {
		return 0, err
	}
	var h []string
	err = json.Unmarshal(raw, &h)
	return len(h), err
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// openWebKit starts WebKitWebDriver and a MiniBrowser session on the room.
func openWebKit(t testing.TB, url string) *webkitPage {
	t.Helper()
	driver := requireTool(t, "WebKitWebDriver", "webkit2gtk-driver")
	if _, err := os.Stat(miniBrowser); err != nil {
		if testing.Short() {
			t.Skip("-short")
		}
		t.Fatalf("%s is missing: install the Debian package libwebkit2gtk-4.1-0", miniBrowser)
	}
	requireTool(t, "Xvfb", "xvfb")
	display := testbin.Xvfb(t)
	port := freePort(t)
	// Every name MiniBrowser's processes resolve goes to the page's DNS record.
	resolver := testbin.ResolverLog(t)
	cmd := exec.Command(driver, fmt.Sprintf("--port=%d", port), "--host=127.0.0.1")
	cmd.Env = append(os.Environ(), "DISPLAY="+display, "HOME="+t.TempDir(), "WEBKIT_DISABLE_COMPOSITING_MODE=1",
		"XDG_RUNTIME_DIR="+t.TempDir(), "GDK_BACKEND=x11", "LIBGL_ALWAYS_SOFTWARE=1")
	cmd.Env = append(cmd.Env, resolver.Env...)
	cmd.Stderr = &logWriter{t: t}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start WebKitWebDriver: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	w := &webkitPage{base: fmt.Sprintf("http://127.0.0.1:%d", port), client: &http.Client{Timeout: 90 * time.Second},
		record: newDNSRecord(func(testing.TB) string { return strings.Join(resolver.Names(), "\n") })}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := w.do("GET", "/status", nil); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("WebKitWebDriver did not answer /status")
		}
		time.Sleep(100 * time.Millisecond)
	}
	raw, err := w.do("POST", "/session", map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"webkitgtk:browserOptions": map[string]any{"binary": miniBrowser, "args": []string{"--automation"}},
	}}})
	if err != nil {
		t.Fatalf("new WebKit session: %v", err)
	}
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(raw, &sess); err != nil || sess.SessionID == "" {
		t.Fatalf("new WebKit session: %s", raw)
	}
	base := w.base
	w.base = base + "/session/" + sess.SessionID
	t.Cleanup(func() { _, _ = w.do("DELETE", "", nil) })
	if _, err := w.do("POST", "/timeouts", map[string]any{"script": 60000, "pageLoad": 60000}); err != nil {
		t.Fatalf("webdriver timeouts: %v", err)
	}
	if _, err := w.do("POST", "/url", map[string]any{"url": roomLink(url)}); err != nil {
		t.Fatalf("open the room in WebKit: %v", err)
	}
	return w
}

func TestWebKit(t *testing.T) {
	s := startRoomServer(t)
	p := openWebKit(t, s.url)
	roomCases(t, p, s, false, nil)
	t.Run("DNS record", func(t *testing.T) { p.record.check(t) })
}
