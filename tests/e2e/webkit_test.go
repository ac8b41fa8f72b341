package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/tests/testbin"
	"github.com/voicebox/voicebox/tests/webdriver"
)

// webkitPage is the room in WebKitGTK's MiniBrowser, driven by a minimal W3C WebDriver client.
type webkitPage struct {
	*webdriver.Session
	record *dnsRecord
}

func (w *webkitPage) name() string { return "webkitgtk" }

func (w *webkitPage) dns() *dnsRecord { return w.record }

func (w *webkitPage) do(method, path string, body any) (json.RawMessage, error) {
	return w.Do(method, path, body)
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

// openWebKit starts WebKitWebDriver and a MiniBrowser session on the room.
func openWebKit(t testing.TB, url string) *webkitPage {
	t.Helper()
	requireTool(t, "WebKitWebDriver", "webkit2gtk-driver")
	if _, err := os.Stat(webdriver.MiniBrowser); err != nil {
		if testing.Short() {
			t.Skip("-short")
		}
		t.Fatalf("%s is missing: install the Debian package libwebkit2gtk-4.1-0", webdriver.MiniBrowser)
	}
	requireTool(t, "Xvfb", "xvfb")
	// Every name MiniBrowser's processes resolve goes to the page's DNS record.
	resolver := testbin.ResolverLog(t)
	w := &webkitPage{
		Session: webdriver.WebKit{Display: testbin.Xvfb(t), Env: resolver.Env, Stderr: &logWriter{t: t}, Timeout: 60 * time.Second}.Start(t),
		record:  newDNSRecord(func(testing.TB) string { return strings.Join(resolver.Names(), "\n") }),
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
