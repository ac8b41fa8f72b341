package mcpserver

import (
	"encoding/json"
	"os"

	"github.com/voicebox/voicebox/backend/settings"
)

// ClientConfig is what `voicebox mcp --print-config` prints: a ready "mcpServers" block for Claude
// Desktop, Cursor and other clients with that format. "voicebox" launches `voicebox mcp` over stdio (works
// in every client and follows the app to whatever port it got); "voicebox-http" talks Streamable HTTP to the
// running app directly with the bearer token (for clients that take a URL). The token is made on first use.
func ClientConfig(dataDir string) ([]byte, error) {
	if d, err := ReadDiscovery(dataDir); err == nil { // running: exactly what it answers to
		return ClientConfigFor(executable(), dataDir, d.URL, d.Token)
	}
	st, err := settings.Open(dataDir)
	if err != nil {
		return nil, err
	}
	token, err := st.MCPToken()
	if err != nil {
		return nil, err
	}
	return ClientConfigFor(executable(), dataDir, configURL(dataDir, ""), token)
}

// configURL is the running server's URL if there is one, else where it will listen.
func configURL(dataDir, addr string) string {
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

// ClientConfig is the client config for this binary, the manager's data folder and its server.
func (m *Manager) ClientConfig() ([]byte, error) {
	token, err := m.o.Settings.MCPToken()
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	url := m.disc.URL
	m.mu.Unlock()
	if url == "" {
		url = configURL(m.o.DataDir, m.o.Addr)
	}
	return ClientConfigFor(executable(), m.o.DataDir, url, token)
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
