package compat

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/voicebox/voicebox/tests/testbin"
	"github.com/voicebox/voicebox/tests/webdriver"
)

// webkit is WebKitGTK's MiniBrowser under a private Xvfb, driven over W3C WebDriver; it reads the app's
// frame by switching into the room's bridge frame and then its inner frame. Every http request that is
// not for loopback goes to a proxy of ours that refuses it. WebKitGTK's driver sends https past its proxy
// setting (measured: no CONNECT arrives), so the pages that need CDN stand-ins run in Chromium only.
type webkit struct {
	*webdriver.Session
}

const elementKey = "element-6066-11e4-a52e-4f735466cecf"

func openWebKit(t *testing.T) *webkit {
	t.Helper()
	testbin.Need(t, map[string]string{"WebKitWebDriver": "webkit2gtk-driver", "Xvfb": "xvfb"})
	if _, err := os.Stat(webdriver.MiniBrowser); err != nil {
		t.Fatalf("%s is missing: install the Debian package libwebkit2gtk-4.1-0", webdriver.MiniBrowser)
	}
	refuse := refusingProxy(t)
	return &webkit{webdriver.WebKit{
		Display: testbin.Xvfb(t),
		Capabilities: map[string]any{
			"unhandledPromptBehavior": "dismiss",
			"proxy":                   map[string]any{"proxyType": "manual", "httpProxy": refuse, "sslProxy": refuse, "noProxy": []string{"127.0.0.0/8", "localhost"}},
		},
		Timeout: 30 * time.Second,
	}.Start(t)}
}

// refusingProxy starts the proxy that refuses every request WebKit sends it, and returns its host:port.
func refusingProxy(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "compat: requests that leave the machine are refused", http.StatusBadGateway)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

func (w *webkit) do(method, path string, body any) (json.RawMessage, error) {
	return w.Do(method, path, body)
}

func (w *webkit) name() string { return "webkitgtk" }

func (w *webkit) open(u string) error {
	_, err := w.do("POST", "/url", map[string]any{"url": u})
	return err
}

func (w *webkit) eval(js string, out any) error {
	raw, err := w.do("POST", "/execute/async", map[string]any{"args": []any{}, "script": "const done = arguments[arguments.length - 1];\n" +
		"(async () => {\n" + js + "\n})().then((v) => done({ok: true, v: v === undefined ? null : v}), (e) => done({ok: false, e: String(e)}));"})
	if err != nil {
		return err
	}
	var r struct {
		OK bool            `json:"ok"`
		V  json.RawMessage `json:"v"`
		E  string          `json:"e"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	if !r.OK {
		return fmt.Errorf("script failed: %s", r.E)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(r.V, out)
}

// appSnapshot switches into the app's frame (room → bridge → app), reads the probe, and switches back.
func (w *webkit) appSnapshot(appID string) (string, error) {
	defer w.do("POST", "/frame", map[string]any{"id": nil})
	for _, sel := range []string{fmt.Sprintf(`.mini-app-window[data-app-id=%q] .mini-app-bridge`, appID), "#inner-app"} {
		raw, err := w.do("POST", "/element", map[string]any{"using": "css selector", "value": sel})
		if err != nil {
			return "", err
		}
		var el map[string]string
		if err := json.Unmarshal(raw, &el); err != nil {
			return "", err
		}
		if _, err := w.do("POST", "/frame", map[string]any{"id": map[string]string{elementKey: el[elementKey]}}); err != nil {
			return "", err
		}
	}
	raw, err := w.do("POST", "/execute/sync", map[string]any{"args": []any{}, "script": `return document.documentElement.getAttribute("data-compat") || "";`})
	if err != nil {
		return "", err
	}
	var s string
	return s, json.Unmarshal(raw, &s)
}

func (w *webkit) canCDN() string {
	return "WebKitGTK's WebDriver sends https past the proxy it is given, so no stand-in can answer"
}

func (w *webkit) close() { _, _ = w.do("DELETE", "", nil) }
