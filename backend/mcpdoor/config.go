package mcpdoor

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/voicebox/voicebox/backend/programs"
	"github.com/voicebox/voicebox/backend/settings"
)

// Path is where the Streamable HTTP endpoint answers.
const Path = "/mcp"

// DefaultAddr is where the MCP server listens when it can, so a client configured with its URL keeps
// working across restarts. When the port is taken it falls back to a free one (the discovery file and
// Settings always show the real URL).
const DefaultAddr = "127.0.0.1:8790"

// EnvAddr overrides DefaultAddr (loopback only), e.g. VOICEBOX_MCP_ADDR=127.0.0.1:0 for a free port.
const EnvAddr = "VOICEBOX_MCP_ADDR"

// ProtocolVersions are the versions the server and `voicebox mcp` negotiate: the session-based ones, so
// every client initializes (we learn its name and version) and keeps a stream open for list_changed.
var ProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// ClientConfig is what `voicebox mcp --print-config` prints: a ready "mcpServers" block for Claude
// Desktop, Cursor and other clients with that format. "voicebox" launches `voicebox mcp` over stdio (works
// in every client and follows the app to whatever port it got); "voicebox-http" talks Streamable HTTP to the
// running app directly with the bearer token (for clients that take a URL). The token is made on first use.
func ClientConfig(dataDir string) ([]byte, error) {
	if d, err := ReadDiscovery(dataDir); err == nil { // running: exactly what it answers to
		return ClientConfigFor(Executable(), dataDir, d.URL, d.Token)
	}
	st, err := settings.Open(dataDir)
	if err != nil {
		return nil, err
	}
	token, err := st.MCPToken()
	if err != nil {
		return nil, err
	}
	return ClientConfigFor(Executable(), dataDir, URL(dataDir, ""), token)
}

// URL is the running server's URL if there is one, else where it will listen (addr, else $VOICEBOX_MCP_ADDR,
// else DefaultAddr).
func URL(dataDir, addr string) string {
	if d, err := ReadDiscovery(dataDir); err == nil {
		return d.URL
	}
	if addr == "" {
		addr = os.Getenv(EnvAddr)
	}
	if addr == "" {
		addr = DefaultAddr
	}
	return "http://" + addr + Path
}

// ClientConfigFor builds the config for a given binary, data folder, URL and token.
func ClientConfigFor(exe, dataDir, url, token string) ([]byte, error) {
	type stdio struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	type remote struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	cfg := struct {
		MCPServers map[string]any `json:"mcpServers"`
	}{map[string]any{
		"voicebox":      stdio{Command: exe, Args: []string{"mcp", "--data", dataDir}},
		"voicebox-http": remote{Type: "http", URL: url, Headers: map[string]string{"Authorization": "Bearer " + token}},
	}}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Executable is the program a client config names: `voicebox` (backend/programs), absolute.
func Executable() string {
	exe, err := os.Executable()
	if err != nil || !filepath.IsAbs(exe) {
		return programs.Front
	}
	return programs.FrontPath(exe)
}
