// Package webdriver is the W3C WebDriver client the browser tests share (tests/e2e and tests/compat drive
// WebKitGTK through WebKitWebDriver): starting the driver and a MiniBrowser session, and one command, a
// JSON body in and the response's "value" out.
package webdriver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Do sends one command to the driver at base (http://127.0.0.1:PORT) and returns its value; a status other
// than 200 is an error that carries the driver's value (its error and message).
func Do(c *http.Client, base, method, path string, body any) (json.RawMessage, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var env struct {
		Value json.RawMessage `json:"value"`
	}
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, fmt.Errorf("webdriver %s %s: %d %s", method, path, res.StatusCode, b)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("webdriver %s %s: %d %s", method, path, res.StatusCode, env.Value)
	}
	return env.Value, nil
}

// MiniBrowser ships with libwebkit2gtk-4.1-0; WebKitWebDriver with webkit2gtk-driver.
const MiniBrowser = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"

// WebKit says how to start WebKitGTK's MiniBrowser under WebKitWebDriver. The caller checks that both are
// installed.
type WebKit struct {
	Display      string         // the X display to run on (testbin.Xvfb)
	Env          []string       // added to the driver's environment
	Stderr       io.Writer      // the driver's output (nil: dropped)
	Capabilities map[string]any // added to alwaysMatch beside MiniBrowser
	Timeout      time.Duration  // for a script and a page load; a command waits 30 s longer
}

// Session is one WebDriver session.
type Session struct {
	Base   string // http://127.0.0.1:PORT/session/<id>
	Client *http.Client
}

// Do sends one command to the session (Do).
func (s *Session) Do(method, path string, body any) (json.RawMessage, error) {
	return Do(s.Client, s.Base, method, path, body)
}

// Start runs WebKitWebDriver on a free loopback port, waits until it answers, and opens a MiniBrowser
// session with the timeouts set. The session is deleted and the driver stopped when the test ends.
func (o WebKit) Start(t testing.TB) *Session {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command("WebKitWebDriver", fmt.Sprintf("--port=%d", port), "--host=127.0.0.1")
	cmd.Env = append(os.Environ(), "DISPLAY="+o.Display, "HOME="+t.TempDir(), "WEBKIT_DISABLE_COMPOSITING_MODE=1",
		"XDG_RUNTIME_DIR="+t.TempDir(), "GDK_BACKEND=x11", "LIBGL_ALWAYS_SOFTWARE=1")
	cmd.Env = append(cmd.Env, o.Env...)
	cmd.Stderr = o.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start WebKitWebDriver: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	s := &Session{Base: fmt.Sprintf("http://127.0.0.1:%d", port), Client: &http.Client{Timeout: o.Timeout + 30*time.Second}}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := s.Do("GET", "/status", nil); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("WebKitWebDriver did not answer /status")
		}
	}
	always := map[string]any{"webkitgtk:browserOptions": map[string]any{"binary": MiniBrowser, "args": []string{"--automation"}}}
	for k, v := range o.Capabilities {
		always[k] = v
	}
	raw, err := s.Do("POST", "/session", map[string]any{"capabilities": map[string]any{"alwaysMatch": always}})
	var sess struct {
		SessionID string `json:"sessionId"`
	}
	if err != nil || json.Unmarshal(raw, &sess) != nil || sess.SessionID == "" {
		t.Fatalf("new WebKit session: %v %s", err, raw)
	}
	s.Base += "/session/" + sess.SessionID
	t.Cleanup(func() { _, _ = s.Do("DELETE", "", nil) })
	ms := o.Timeout.Milliseconds()
	if _, err := s.Do("POST", "/timeouts", map[string]any{"script": ms, "pageLoad": ms}); err != nil {
		t.Fatalf("webdriver timeouts: %v", err)
	}
	return s
}
