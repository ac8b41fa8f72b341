package mcpserver

// The MCP door's port and the stdio form's channel (issue 28, finding 3): `voicebox mcp --print-config`
// printed http://127.0.0.1:8790/mcp with the lasting token; when 8790 was taken, Voicebox listened
// elsewhere without a word, so a client built from that config sent its bearer to the program on 8790,
// which found the real door by scanning loopback and used it. Now a taken port is an error that says so,
// the printed config is the stdio form (no token), and `voicebox mcp` reaches Voicebox through a socket
// only this user can open, never the port.

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/voicebox/voicebox/backend/mcpdoor"
	"github.com/voicebox/voicebox/backend/mcpproxy"
	"github.com/voicebox/voicebox/backend/settings"
)

// squatter is another program on a loopback port: a real HTTP server that records every bearer token it is
// sent (it answers 404, as a stranger would).
type squatter struct {
	addr string
	mu   sync.Mutex
	got  []string
}

func newSquatter(t *testing.T, addr string) *squatter {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	sq := &squatter{addr: ln.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("Authorization"); a != "" {
			sq.mu.Lock()
			sq.got = append(sq.got, a)
			sq.mu.Unlock()
		}
		http.NotFound(w, r)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return sq
}

func (sq *squatter) port() int {
	_, p, _ := net.SplitHostPort(sq.addr)
	n, _ := strconv.Atoi(p)
	return n
}

func (sq *squatter) heard() []string {
	sq.mu.Lock()
	defer sq.mu.Unlock()
	return append([]string(nil), sq.got...)
}

// freePort is a loopback port no one listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// A port another program holds: the HTTP door stays shut and says so (Settings, the discovery file, the HTTP
// config all refuse to name another port), `voicebox mcp` works meanwhile and the squatter hears nothing;
// the person picks another port in Settings and the door opens there.
func TestATakenPortIsAVisibleErrorNotAMove(t *testing.T) {
	t.Setenv(mcpdoor.EnvAddr, "")
	sq := newSquatter(t, "127.0.0.1:0")
	x := newManaged(t, "") // the address Settings chooses
	if _, err := x.st.Update(func(v *settings.Values) { v.MCPPort = sq.port() }); err != nil {
		t.Fatal(err)
	}
	st, err := x.m.SetEnabled(true)
	want := "port " + strconv.Itoa(sq.port()) + " is in use by another program"
	if err != nil || !st.Running || st.URL != "" || !strings.Contains(st.Error, want) || st.Port != sq.port() || st.PortFixedBy != "" {
		t.Fatalf("with its port taken: %+v (%v); want running on the socket alone, no URL, the error %q", st, err, want)
	}
	d, err := mcpdoor.ReadDiscovery(x.dir)
	if err != nil || d.URL != "" || d.Socket == "" {
		t.Fatalf("discovery file = %+v (%v): want the socket and no URL", d, err)
	}
	if b, err := x.m.HTTPConfig(); err == nil {
		t.Fatalf("an HTTP config while the port is another program's:\n%s", b)
	}
	if b, err := mcpdoor.ClientConfig(x.dir, mcpdoor.FormHTTP); err == nil {
		t.Fatalf("`voicebox mcp --print-config=http` while the port is another program's:\n%s", b)
	}

	cs, _ := pipes(t, x.dir, "claude-ai", nil)
	if res := call(t, cs, "scoreboard__set_score", map[string]any{"team": "home", "points": 1}); res.IsError {
		t.Fatalf("`voicebox mcp` with the port taken: %s", text(t, res))
	}
	if got := sq.heard(); len(got) != 0 {
		t.Fatalf("the program on the port received %q", got)
	}
	// The control: a client of the HTTP form configured for the port (what the old --print-config printed)
	// does hand the program its token (the residual risk of a bearer over TCP, docs/sandbox.md), which
	// opens no door of Voicebox's: it listens on no port.
	status(t, "http://"+sq.addr+mcpdoor.Path, st.Token)
	if got := sq.heard(); len(got) != 1 || got[0] != "Bearer "+st.Token {
		t.Fatalf("the control: the squatter heard %q", got)
	}

	// The person picks another port: the door opens there, and says no more.
	port := freePort(t)
	st, err = x.m.SetPort(port)
	if err != nil || !st.Running || st.Error != "" || st.URL != "http://127.0.0.1:"+strconv.Itoa(port)+mcpdoor.Path || x.st.Get().MCPPort != port {
		t.Fatalf("another port: %+v (%v)", st, err)
	}
	if code := status(t, st.URL, st.Token); code != 200 {
		t.Fatalf("the door on the chosen port answered %d", code)
	}
	if _, err := x.m.SetPort(70000); err == nil {
		t.Fatal("port 70000 accepted")
	}
	t.Setenv(mcpdoor.EnvAddr, "127.0.0.1:0")
	if _, err := x.m.SetPort(port + 1); err == nil || !strings.Contains(err.Error(), mcpdoor.EnvAddr) {
		t.Fatalf("a port while %s decides: %v", mcpdoor.EnvAddr, err)
	}
}

// Voicebox died without tidying (its discovery file and its socket's file stay behind) and another
// program took its port. `voicebox mcp` reads the file, finds no one at the socket, and says so: it never
// tries the port, so the squatter receives no token.
func TestStdioNeverSendsTheTokenToThePort(t *testing.T) {
	x := newManaged(t, "127.0.0.1:0")
	st, err := x.m.SetEnabled(true)
	if err != nil || st.URL == "" || st.Socket == "" {
		t.Fatalf("started: %+v %v", st, err)
	}
	crashed, err := mcpdoor.ReadDiscovery(x.dir)
	if err != nil {
		t.Fatal(err)
	}
	x.m.Close()
	if err := mcpdoor.WriteDiscovery(x.dir, crashed); err != nil {
		t.Fatal(err)
	}
	dead, err := net.Listen("unix", crashed.Socket) // the socket's file, with no one behind it
	if err != nil {
		t.Fatal(err)
	}
	dead.(*net.UnixListener).SetUnlinkOnClose(false)
	dead.Close()
	sq := newSquatter(t, strings.TrimSuffix(strings.TrimPrefix(crashed.URL, "http://"), mcpdoor.Path))

	cs, stderr := pipes(t, x.dir, "cursor", nil)
	if _, err := cs.ListTools(ctx(t), nil); err == nil || !strings.Contains(err.Error(), "does not answer") {
		t.Fatalf("tools/list with a dead socket: %v", err)
	}
	if got := sq.heard(); len(got) != 0 {
		t.Fatalf("the program on the crashed Voicebox's port received %q (stderr: %s)", got, stderr)
	}
	// The control: what the old forwarder did, dial the file's URL with the token, hands it over.
	status(t, crashed.URL, crashed.Token)
	if got := sq.heard(); len(got) != 1 {
		t.Fatalf("the control: the squatter heard %q", got)
	}
	// And a Voicebox started again on the data folder takes its socket back: the same client finds it.
	if _, err := x.m.Start(true); err != nil {
		t.Fatal(err)
	}
	if toolNames(t, cs)["scoreboard__set_score"] == nil {
		t.Fatal("the forwarder did not find Voicebox once it started again")
	}
}

// The socket's folder is this user's alone (0700) and the socket 0600; a forwarder refuses a folder that
// others may enter.
func TestSocketFolderIsPrivate(t *testing.T) {
	x := newManaged(t, "127.0.0.1:0")
	st, err := x.m.SetEnabled(true)
	if err != nil || st.Socket != mcpdoor.SocketPath(x.dir) {
		t.Fatalf("started: %+v %v", st, err)
	}
	for path, want := range map[string]os.FileMode{mcpdoor.SocketDir(x.dir): 0o700, st.Socket: 0o600} {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
		}
	}
	if _, err := mcpdoor.SocketTransport(st.Socket); err != nil {
		t.Fatalf("the private folder refused: %v", err)
	}
	if err := os.Chmod(mcpdoor.SocketDir(x.dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := mcpdoor.SocketTransport(st.Socket); err == nil || !strings.Contains(err.Error(), "alone") {
		t.Fatalf("a folder others may enter: %v", err)
	}
	cs, _ := pipes(t, x.dir, "cursor", nil)
	if _, err := cs.ListTools(ctx(t), nil); err == nil || !strings.Contains(err.Error(), "alone") {
		t.Fatalf("`voicebox mcp` through a folder others may enter: %v", err)
	}
}

// `voicebox mcp --print-config` prints the stdio form: no token, no URL. --print-config=http prints the
// URL and the token, with a warning on stderr; a URL without a fixed port is refused.
func TestClientConfigForms(t *testing.T) {
	t.Setenv(mcpdoor.EnvAddr, "")
	dir := t.TempDir()
	print := func(form string) (code int, stdout, stderr string) {
		var o, e bytes.Buffer
		code = mcpproxy.Command(ctx(t), dir, form, "test", io.NopCloser(strings.NewReader("")), nopWriteCloser{&o}, &e)
		return code, o.String(), e.String()
	}
	code, out, errOut := print(mcpdoor.FormStdio)
	var cfg struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Type    string            `json:"type"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(out), &cfg); err != nil || code != 0 || errOut != "" {
		t.Fatalf("stdio form: %d %v\n%s%s", code, err, out, errOut)
	}
	s, ok := cfg.MCPServers["voicebox"]
	if len(cfg.MCPServers) != 1 || !ok || !filepath.IsAbs(s.Command) || strings.Join(s.Args, " ") != "mcp --data "+dir {
		t.Fatalf("stdio form: %s", out)
	}
	if tok := settingsToken(t, dir); tok != "" || strings.Contains(out, "Bearer") || strings.Contains(out, "http") {
		t.Fatalf("the stdio form holds a credential (or made one, %q):\n%s", tok, out)
	}

	code, out, errOut = print(mcpdoor.FormHTTP)
	tok := settingsToken(t, dir)
	cfg.MCPServers = nil
	if err := json.Unmarshal([]byte(out), &cfg); err != nil || code != 0 || len(tok) < 32 {
		t.Fatalf("http form: %d %v\n%s%s", code, err, out, errOut)
	}
	h, ok := cfg.MCPServers["voicebox-http"]
	if len(cfg.MCPServers) != 1 || !ok || h.Type != "http" || h.URL != "http://"+mcpdoor.DefaultAddr+mcpdoor.Path || h.Headers["Authorization"] != "Bearer "+tok {
		t.Fatalf("http form: %s", out)
	}
	if !strings.Contains(errOut, "warning") || !strings.Contains(errOut, "token") || strings.Contains(errOut, tok) {
		t.Fatalf("http form's stderr: %q", errOut)
	}
	if b, err := mcpdoor.HTTPConfig("http://127.0.0.1:0/mcp", tok); err == nil {
		t.Fatalf("an HTTP config without a fixed port:\n%s", b)
	}
	if code, _, errOut := print("sse"); code == 0 {
		t.Fatalf("an unknown form printed: %s", errOut)
	}
}

func settingsToken(t *testing.T, dir string) string {
	t.Helper()
	v, err := settings.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return v.MCPToken
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// A data folder whose path is too long for a socket (108 bytes on Linux): the server runs on its port, says
// that `voicebox mcp` uses the port, and the forwarder does.
func TestALongDataFolderServesStdioOverThePort(t *testing.T) {
	dir := filepath.Join(t.TempDir(), strings.Repeat("d", 120))
	st, err := settings.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	x := newManaged(t, "127.0.0.1:0")
	m := NewManager(ManagerOptions{Registry: x.reg, Settings: st, DataDir: dir, Addr: "127.0.0.1:0"})
	t.Cleanup(m.Close)
	s, err := m.Start(true)
	if err != nil || s.URL == "" || s.Socket != "" || !strings.Contains(s.Error, "over its port") {
		t.Fatalf("a long data folder: %+v %v", s, err)
	}
	cs, _ := pipes(t, dir, "cursor", nil)
	if toolNames(t, cs)["scoreboard__set_score"] == nil {
		t.Fatal("`voicebox mcp` did not reach the server over its port")
	}
}
