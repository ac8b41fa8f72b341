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
	st, err := settings.Open(dataDir)
	if err != nil {
		return nil, err
	}
	token, err := st.MCPToken()
	if err != nil {
		return nil, err
	}
	url := "http://" + DefaultAddr + Path
	if env := os.Getenv(EnvAddr); env != "" {
		url = "http://" + env + Path
	}
	if d, err := ReadDiscovery(dataDir); err == nil {
		url = d.URL
	}
	return ClientConfigFor(executable(), dataDir, url, token)
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
