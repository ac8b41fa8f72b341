package desktop

// Helpers for the hardening tests: a voicebox with its own folders and environment, its log, an MCP
// client into it (the black-box way to open apps and call their tools), an xdg-open shim that records
// what it is asked to open, snapshots of folders, and the window's geometry.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/tests/testbin"
	"github.com/voicebox/voicebox/tests/testfs"
)

// box is one voicebox run with its own workspace and data folder.
type box struct {
	*app
	s         *session
	workspace string
	data      string
	openLog   string // what the xdg-open shim was asked to open, one URL a line
}

// newBox prepares the folders and an xdg-open shim first on PATH; files maps workspace-relative names
// to contents.
func newBox(t *testing.T, s *session, files map[string]string) *box {
	t.Helper()
	b := &box{s: s, workspace: t.TempDir(), data: t.TempDir()}
	testfs.Files(t, b.workspace, files)
	shim := t.TempDir()
	b.openLog = filepath.Join(t.TempDir(), "xdg-open.log")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + b.openLog + "'\n"
	for _, name := range []string{"xdg-open", "x-www-browser", "www-browser"} {
		if err := os.WriteFile(filepath.Join(shim, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.env = append(s.env, "PATH="+shim+string(os.PathListSeparator)+os.Getenv("PATH"))
	return b
}

// start runs voicebox on the box's folders with MCP on (on a free port) and extra environment.
func (b *box) start(t *testing.T, env []string, args ...string) {
	t.Helper()
	bin, err := testbin.Path()
	if err != nil {
		t.Fatal(err)
	}
	b.startBin(t, bin, env, args...)
}

// startBin is start with another voicebox binary (a benchmark's baseline).
func (b *box) startBin(t *testing.T, bin string, env []string, args ...string) {
	t.Helper()
	saved := b.s.env
	b.s.env = append(append(append([]string(nil), saved...), "VOICEBOX_MCP_ADDR=127.0.0.1:0",
		"OPENAI_API_KEY=", "GEMINI_API_KEY=", "VOICEBOX_UNSAFE_NO_GUARD=", "VOICEBOX_MOCK_CAPTURE="), env...)
	defer func() { b.s.env = saved }()
	b.app = b.s.startBin(t, bin, append([]string{"--mcp", "--workspace", b.workspace, "--data", b.data}, args...)...)
}

// opened is what the xdg-open shim was asked to open.
func (b *box) opened() []string {
	raw, _ := os.ReadFile(b.openLog)
	return strings.Fields(string(raw))
}

// waitLog waits for a line of the app's output that contains sub and returns when it was seen.
func (a *app) waitLog(t *testing.T, sub string, within time.Duration) (time.Time, bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if strings.Contains(a.output(), sub) {
			return time.Now(), true
		}
		if time.Now().After(deadline) {
			return time.Time{}, false
		}
		select {
		case <-a.done:
			return time.Time{}, strings.Contains(a.output(), sub)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (a *app) running() bool {
	select {
	case <-a.done:
		return false
	default:
		return true
	}
}

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// mcpClient connects to the box's MCP server once its discovery file appears.
func (b *box) mcpClient(t *testing.T) *mcp.ClientSession {
	t.Helper()
	var d struct {
		URL   string `json:"url"`
		Token string `json:"token"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		raw, err := os.ReadFile(filepath.Join(b.data, "mcp.json"))
		if err == nil && json.Unmarshal(raw, &d) == nil && d.URL != "" {
			break
		}
		if time.Now().After(deadline) || !b.running() {
			t.Fatalf("no MCP discovery file in %s (running %v)", b.data, b.running())
		}
		time.Sleep(100 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "desktop-test", Version: "1.0"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: d.URL, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer(d.Token)}}, nil)
	if err != nil {
		t.Fatalf("MCP connect %s: %v", d.URL, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// toolText calls an MCP tool and returns its text and whether it was refused.
func toolText(t *testing.T, cs *mcp.ClientSession, timeout time.Duration, name string, args any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("MCP %s: %v", name, err)
	}
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String(), res.IsError
}

// openApp is an app as list_mini_apps and launch_mini_app describe it.
type openApp struct {
	AppID string   `json:"appId"`
	Title string   `json:"title"`
	Slug  string   `json:"slug"`
	Tools []string `json:"tools"`
}

// askJSON calls tool with no arguments and decodes its JSON answer; a refusal or an answer of another shape
// fails the test.
func askJSON[T any](t *testing.T, cs *mcp.ClientSession, tool string) T {
	t.Helper()
	text, refused := toolText(t, cs, 10*time.Second, tool, map[string]any{})
	var r T
	if refused || json.Unmarshal([]byte(text), &r) != nil {
		t.Fatalf("%s: %s (refused %v)", tool, text, refused)
	}
	return r
}

// launchApp opens an app through MCP, waiting for the room to be up first.
func launchApp(t *testing.T, cs *mcp.ClientSession, ref string) openApp {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	text, refused := toolText(t, cs, 30*time.Second, "launch_mini_app", map[string]any{"ref": ref})
	for refused && strings.Contains(text, `"no-room"`) && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		text, refused = toolText(t, cs, 30*time.Second, "launch_mini_app", map[string]any{"ref": ref})
	}
	var a openApp
	if refused || json.Unmarshal([]byte(text), &a) != nil || a.AppID == "" {
		t.Fatalf("launch_mini_app %s: %s (refused %v)", ref, text, refused)
	}
	return a
}

func openApps(t *testing.T, cs *mcp.ClientSession) []openApp {
	t.Helper()
	text, refused := toolText(t, cs, 10*time.Second, "list_mini_apps", map[string]any{})
	var l struct {
		Open []openApp `json:"open"`
	}
	if refused || json.Unmarshal([]byte(text), &l) != nil {
		t.Fatalf("list_mini_apps: %s", text)
	}
	return l.Open
}

// waitOpen polls list_mini_apps until pred holds.
func waitOpen(t *testing.T, cs *mcp.ClientSession, within time.Duration, what string, pred func([]openApp) bool) []openApp {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		apps := openApps(t, cs)
		if pred(apps) {
			return apps
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; open: %+v", what, apps)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func findApp(apps []openApp, title string) (openApp, bool) {
	for _, a := range apps {
		if a.Title == title {
			return a, true
		}
	}
	return openApp{}, false
}

// toolNamed finds an app's tool by its short name in the MCP names (<slug>__<tool>).
func toolNamed(t *testing.T, a openApp, short string) string {
	t.Helper()
	for _, n := range a.Tools {
		if strings.HasSuffix(n, "__"+short) {
			return n
		}
	}
	t.Fatalf("%s has no tool %s: %v", a.Title, short, a.Tools)
	return ""
}

// windowState is the window's name and geometry as X sees them.
func (s *session) windowState(t *testing.T, win string) string {
	t.Helper()
	name, _ := s.run(t, 5*time.Second, "xdotool", "getwindowname", win)
	geo, err := s.run(t, 5*time.Second, "xdotool", "getwindowgeometry", win)
	if err != nil {
		return fmt.Sprintf("gone (%v)", err)
	}
	vis, _ := s.run(t, 5*time.Second, "xdotool", "search", "--onlyvisible", "--name", "^Voicebox$")
	return fmt.Sprintf("name=%q visible=%v %s", strings.TrimSpace(name), strings.Contains(vis, win), strings.Join(strings.Fields(geo), " "))
}

// keepScreenshot saves the screen to $VOICEBOX_SCREENSHOTS/name (when set) or the test's temp folder.
func (s *session) keepScreenshot(t *testing.T, name string) string {
	t.Helper()
	dir := os.Getenv("VOICEBOX_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	p := filepath.Join(dir, name)
	if out, err := s.run(t, 10*time.Second, "import", "-window", "root", p); err != nil {
		t.Logf("screenshot %s: %v %s", p, err, out)
	}
	return p
}

// windowNamed is the X id of a visible window titled title, plain text ("" when none). While windows come and
// go (a web process starting again and again) xdotool's search can answer ids of windows it could not read,
// and complain on stderr: each candidate's title is read back.
func (s *session) windowNamed(t *testing.T, title string) string {
	out, _ := s.run(t, 5*time.Second, "xdotool", "search", "--onlyvisible", "--name", "^"+title+"$")
	for _, id := range strings.Fields(out) {
		if got, err := s.run(t, 5*time.Second, "xdotool", "getwindowname", id); err == nil && strings.TrimSpace(got) == title {
			return id
		}
	}
	return ""
}
