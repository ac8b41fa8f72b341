// Package e2e drives the real `voicebox serve` binary from real browsers: headless Chromium (chromedp) and
// WebKitGTK (WebKitWebDriver + MiniBrowser under Xvfb), with hostile mini-apps of our own (testdata/), to
// check the sandbox's threat model (docs/sandbox.md, "Threat model") where it matters: in the browser.
//
// The binary is VOICEBOX_BIN when set (what `make test` builds), else a fresh build of the module.
// Missing browsers fail the tests with the apt package to install, unless -short.
package e2e

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voicebox/voicebox/tests/testbin"
)

func TestMain(m *testing.M) { testbin.Main(m) }

// server is one running `voicebox serve` with its own workspace and data folders.
type server struct {
	url       string // http://127.0.0.1:port (no trailing slash)
	token     string // the run's secret, from the room's URL
	bin       string // the binary it runs (testbin.Path)
	workspace string
	data      string
	cmd       *exec.Cmd
	stopOnce  sync.Once
}

// requireTool fails (never skips, unless -short) when a program the test needs is missing.
func requireTool(t testing.TB, path, aptPackage string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("browser end-to-end tests are skipped in -short mode")
	}
	p, err := exec.LookPath(path)
	if err != nil {
		t.Fatalf("%s is missing: install the Debian package %s (apt-get install %s; `make deps-test` does it)", path, aptPackage, aptPackage)
	}
	return p
}

// startRoomServer is the browser suites' server (startServer): with no provider key in its environment, the
// room's Start answers missing-key (caseErrorsSpeakHuman). Skipped in -short mode.
func startRoomServer(t *testing.T) *server {
	t.Helper()
	if testing.Short() {
		t.Skip("browser end-to-end tests are skipped in -short mode")
	}
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("GEMINI_API_KEY", "")
	return startServer(t)
}

// startServer runs `voicebox serve [flags…]` on a random port with the test apps in its workspace and one on
// its shelf, and stops it (Ctrl+C, then a kill after 5 s) when the test ends.
func startServer(t testing.TB, flags ...string) *server {
	t.Helper()
	bin, err := testbin.Path()
	if err != nil {
		t.Fatalf("voicebox binary: %v", err)
	}
	root := t.TempDir()
	s := &server{bin: bin, workspace: filepath.Join(root, "workspace"), data: filepath.Join(root, "data")}
	for _, d := range []string{s.workspace, filepath.Join(s.data, "mini-apps")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	apps, _ := filepath.Glob("testdata/*.html")
	for _, a := range apps {
		copyFile(t, a, filepath.Join(s.workspace, filepath.Base(a)))
	}
	// A shelf app for the tray: same tools as echo.html, its own title.
	b, err := os.ReadFile("testdata/echo.html")
	if err != nil {
		t.Fatal(err)
	}
	shelf := strings.Replace(string(b), "<title>Echo Lab</title>", "<title>Shelf Echo</title>", 1)
	if err := os.WriteFile(filepath.Join(s.data, "mini-apps", "shelf-echo.html"), []byte(shelf), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{"serve"}, flags...), "--addr", "127.0.0.1:0", "--workspace", s.workspace, "--data", s.data)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+root, "XDG_DATA_HOME="+filepath.Join(root, ".local", "share")) // its Trash too
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = &logWriter{t: t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.cmd = cmd
	t.Cleanup(s.stop)
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "Voicebox room: "); ok {
				lines <- u
			}
		}
	}()
	select {
	case u := <-lines:
		room, err := url.Parse(strings.TrimSpace(u))
		if err != nil {
			t.Fatalf("the room's URL %q: %v", u, err)
		}
		// TestServeSecret checks that the URL carries the token in its fragment; an older binary (a
		// benchmark's baseline) printed it in the query, or not at all.
		frag, _ := url.ParseQuery(room.EscapedFragment())
		s.url, s.token = room.Scheme+"://"+room.Host, frag.Get("token")
		if s.token == "" {
			s.token = room.Query().Get("token")
		}
		roomLinks.Store(s.url, room.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("voicebox %s did not print its room URL", strings.Join(args[:1+len(flags)], " "))
	}
	return s
}

// roomLinks maps each server's URL to the address it printed, so that a browser opened on s.url opens the
// room with its secret (roomLink) however the test names the server.
var roomLinks sync.Map

// roomLink is the address a browser opens for the room at base: the one `voicebox serve` printed, secret
// included, when startServer started it.
func roomLink(base string) string {
	if link, ok := roomLinks.Load(base); ok {
		return link.(string)
	}
	return base + "/"
}

// stop ends the server as Ctrl+C does (a kill after 5 s) and waits for it; a test that checks what the
// server leaves behind calls it first, the test's cleanup again (only the first call acts).
func (s *server) stop() {
	s.stopOnce.Do(func() {
		_ = s.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = s.cmd.Process.Kill()
			<-done
		}
	})
}

type logWriter struct{ t testing.TB }

func (w *logWriter) Write(p []byte) (int, error) {
	if s := strings.TrimSpace(string(p)); s != "" {
		w.t.Logf("voicebox: %s", s)
	}
	return len(p), nil
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// diskState hashes every file under the workspace and data folders (the store on disk).
func (s *server) diskState(t testing.TB) string {
	t.Helper()
	var lines []string
	for _, root := range []string{s.workspace, s.data} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if d.Name() == "settings.json" || d.Name() == "recent.json" { // Voicebox's own records, not the store
				return nil
			}
			b, _ := os.ReadFile(p)
			sum := sha256.Sum256(b)
			lines = append(lines, p+" "+hex.EncodeToString(sum[:]))
			return nil
		})
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// api calls the room's HTTP API as a script would: no Origin header, the right Host, the secret as a
// bearer token.
func (s *server) api(t testing.TB, method, path string, body any, out any) int {
	t.Helper()
	status, err := s.tryAPI(method, path, body, out)
	if err != nil {
		t.Fatal(err)
	}
	return status
}

// tryAPI is api for goroutines of a test: it returns what went wrong instead of failing the test.
func (s *server) tryAPI(method, path string, body any, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	}
	req, _ := http.NewRequest(method, s.url+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return res.StatusCode, fmt.Errorf("%s %s: %d %s: %v", method, path, res.StatusCode, b, err)
		}
	}
	return res.StatusCode, nil
}

// call runs a room method as the room does, by name with its argument array (POST /api/call/…), and
// decodes its result into out.
func (s *server) call(t testing.TB, out any, name string, args ...any) int {
	t.Helper()
	status, err := s.tryCall(out, name, args...)
	if err != nil {
		t.Fatal(err)
	}
	return status
}

// tryCall is call for goroutines of a test.
func (s *server) tryCall(out any, name string, args ...any) (int, error) {
	if args == nil {
		args = []any{}
	}
	return s.tryAPI("POST", "/api/call/"+name, args, out)
}

// page is the room page in some browser: eval runs the body of an async function there and decodes the
// JSON value it returns.
type page interface {
	name() string
	evalRaw(js string) (json.RawMessage, error)
	windowCount() (int, error)
	dns() *dnsRecord // what the browser resolved: checked at the end of the suite
}

func eval(t testing.TB, p page, out any, js string, args ...any) {
	t.Helper()
	raw, err := p.evalRaw(fmt.Sprintf(js, args...))
	if err != nil {
		t.Fatalf("%s: %v\nscript: %s", p.name(), err, fmt.Sprintf(js, args...))
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: decode %s: %v", p.name(), raw, err)
		}
	}
}

// waitTrue polls a script (the body of an async function) in p every `every` until it returns true, and
// fails the test after `within`.
func waitTrue(t testing.TB, p page, within, every time.Duration, what, script string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var ok bool
		raw, err := p.evalRaw(script)
		if err == nil && json.Unmarshal(raw, &ok) == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: timed out waiting for %s (%v %s)", p.name(), what, err, raw)
		}
		time.Sleep(every)
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// waitListed waits until the store finds ref (a file a test just wrote reaches the store through its
// watcher, a moment later); a minute is a hang's backstop, not a measure.
func waitListed(t testing.TB, s *server, ref string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		status, err := s.tryCall(nil, "StoreService.Get", ref)
		if err == nil && status == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store never found %s (status %d, %v)", ref, status, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
