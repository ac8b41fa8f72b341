package mcpdoor

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"

	"github.com/voicebox/voicebox/backend/programs"
	"github.com/voicebox/voicebox/backend/settings"
)

// Path is where the Streamable HTTP endpoint answers.
const Path = "/mcp"

// DefaultAddr is where the MCP server's HTTP door listens unless Settings › MCP (settings.Values.MCPPort) or
// EnvAddr name another port, so a client configured with its URL keeps working across restarts. When the
// port is taken the door stays shut and says so: it never moves on its own, since a client configured for
// the port would then send its token to whatever holds it (docs/sandbox.md, "Ports and credentials").
const DefaultAddr = "127.0.0.1:8790"

// EnvAddr overrides DefaultAddr and Settings (loopback only); VOICEBOX_MCP_ADDR=127.0.0.1:0 takes a free
// port, different at each start, which only a client that reads the discovery file can follow (tests).
const EnvAddr = "VOICEBOX_MCP_ADDR"

// ConfiguredAddr is where the HTTP door listens: EnvAddr, else the port Settings › MCP chose, else
// DefaultAddr. fixedBy names what decided it when Settings cannot change it ("" when it can).
func ConfiguredAddr(v settings.Values) (addr, fixedBy string) {
	if a := os.Getenv(EnvAddr); a != "" {
		return a, EnvAddr
	}
	if v.MCPPort > 0 {
		return net.JoinHostPort("127.0.0.1", strconv.Itoa(v.MCPPort)), ""
	}
	return DefaultAddr, ""
}

// ProtocolVersions are the versions the server and `voicebox mcp` negotiate: the session-based ones, so
// every client initializes (we learn its name and version) and keeps a stream open for list_changed.
var ProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// The two forms of a client config (`voicebox mcp --print-config[=http]`, Settings › MCP).
const (
	// FormStdio launches `voicebox mcp`, which reaches the running Voicebox through its socket (socket.go):
	// the config holds no credential, and the channel opens to this user alone.
	FormStdio = "stdio"
	// FormHTTP talks Streamable HTTP to 127.0.0.1:<port> with the lasting bearer token, for clients that take
	// a URL only. Whoever holds the port while Voicebox does not receives the token from such a client.
	FormHTTP = "http"
)

// HTTPWarning is said beside every HTTP config: what the person takes on by choosing it.
const HTTPWarning = "this config holds Voicebox's lasting MCP token, and a client sends it to whatever program " +
	"listens on its port while Voicebox does not (a port is anyone's to take). Prefer the stdio form " +
	"(`voicebox mcp --print-config`), which holds no token; keep this one for clients that take a URL only."

// StdioConfig is the stdio form: an "mcpServers" block (Claude Desktop, Cursor and other clients with that
// format) whose "voicebox" entry launches exe's `voicebox mcp` on dataDir.
func StdioConfig(exe, dataDir string) ([]byte, error) {
	type stdio struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	return marshalConfig(map[string]any{"voicebox": stdio{Command: exe, Args: []string{"mcp", "--data", dataDir}}})
}

// HTTPConfig is the HTTP form: a "voicebox-http" entry with url and the bearer token. A URL without a
// fixed port (:0) names no door a client could find again, and is refused.
func HTTPConfig(endpoint, token string) ([]byte, error) {
	if token == "" {
		return nil, errors.New("mcp: no token yet")
	}
	if u, err := url.Parse(endpoint); err != nil || u.Scheme != "http" || u.Port() == "" || u.Port() == "0" {
		return nil, ErrNoFixedPort
	}
	type remote struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	return marshalConfig(map[string]any{"voicebox-http": remote{Type: "http", URL: endpoint, Headers: map[string]string{"Authorization": "Bearer " + token}}})
}

// ErrNoFixedPort refuses an HTTP config for a door without a fixed port: its URL would name another
// program's port once Voicebox starts again.
var ErrNoFixedPort = fmt.Errorf("mcp: the HTTP door has no fixed port (%s=…:0 takes a new one at each start): choose a port in Settings › MCP", EnvAddr)

// HasFixedPort says whether a client configured for addr finds the door there again after a restart.
func HasFixedPort(addr string) bool {
	_, port, err := net.SplitHostPort(addr)
	return err == nil && port != "" && port != "0"
}

func marshalConfig(servers map[string]any) ([]byte, error) {
	b, err := json.MarshalIndent(struct {
		MCPServers map[string]any `json:"mcpServers"`
	}{servers}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ClientConfig is what `voicebox mcp --print-config[=form]` prints for dataDir. The stdio form needs
// nothing of the running app. The HTTP form names the running server's URL and token when one runs
// (an error when its HTTP door is shut), else the configured address and the saved token, made on first use
// (the app adopts it when it starts).
func ClientConfig(dataDir, form string) ([]byte, error) {
	switch form {
	case FormStdio:
		return StdioConfig(Executable(), dataDir)
	case FormHTTP:
	default:
		return nil, fmt.Errorf("mcp: no config form %q (%s or %s)", form, FormStdio, FormHTTP)
	}
	st, err := settings.Open(dataDir)
	if err != nil {
		return nil, err
	}
	addr, _ := ConfiguredAddr(st.Get())
	if !HasFixedPort(addr) {
		return nil, ErrNoFixedPort
	}
	if d, err := ReadDiscovery(dataDir); err == nil { // running: exactly what it answers to
		if d.URL == "" {
			return nil, errors.New("mcp: the running Voicebox's HTTP door is shut (its port is in use by another program?): see Settings › MCP")
		}
		return HTTPConfig(d.URL, d.Token)
	}
	token, err := st.MCPToken()
	if err != nil {
		return nil, err
	}
	return HTTPConfig("http://"+addr+Path, token)
}

// Executable is the program a client config names: `voicebox` (backend/programs), absolute.
func Executable() string {
	exe, err := os.Executable()
	if err != nil || !filepath.IsAbs(exe) {
		return programs.Front
	}
	return programs.FrontPath(exe)
}
