// Package mcpdoor is how an MCP client finds the running Voicebox's MCP server: the discovery file the
// server writes into the data folder, the socket and the address it listens on, the protocol versions it
// speaks, and the ready client configs that name it. The server (backend/mcpserver) and `voicebox mcp`
// (backend/mcpproxy) both read it from here; it imports neither, so `voicebox mcp` links no server.
package mcpdoor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/voicebox/voicebox/backend/atomicfile"
)

// DiscoveryFile is written into the data folder while the MCP server runs (mode 0600) and removed when it
// stops. `voicebox mcp` finds the running app through it.
const DiscoveryFile = "mcp.json"

// Discovery is the content of the discovery file.
type Discovery struct {
	URL     string    `json:"url,omitempty"`    // the HTTP door; "" while its port is in use by another program
	Socket  string    `json:"socket,omitempty"` // the socket `voicebox mcp` uses (socket.go)
	Token   string    `json:"token"`
	PID     int       `json:"pid"`
	Mode    string    `json:"mode,omitempty"` // "desktop" or "serve"
	Version string    `json:"version,omitempty"`
	Started time.Time `json:"started"`
}

// ErrNotRunning means no discovery file: no Voicebox is running on this data folder, or its MCP is off.
var ErrNotRunning = errors.New("no Voicebox with MCP turned on is running for this data folder")

// DiscoveryPath is the discovery file of a data folder.
func DiscoveryPath(dataDir string) string { return filepath.Join(dataDir, DiscoveryFile) }

// WriteDiscovery writes the discovery file atomically with mode 0600 (it holds the token).
func WriteDiscovery(dataDir string, d Discovery) error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	if err := atomicfile.Write(DiscoveryPath(dataDir), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("mcp: write the discovery file: %w", err)
	}
	return nil
}

// ReadDiscovery reads the discovery file; a missing file is ErrNotRunning.
func ReadDiscovery(dataDir string) (Discovery, error) {
	var d Discovery
	b, err := os.ReadFile(DiscoveryPath(dataDir))
	if errors.Is(err, fs.ErrNotExist) {
		return d, fmt.Errorf("%w (no %s)", ErrNotRunning, DiscoveryPath(dataDir))
	}
	if err != nil {
		return d, fmt.Errorf("mcp: %w", err)
	}
	if err := json.Unmarshal(b, &d); err != nil || (d.URL == "" && d.Socket == "") || d.Token == "" {
		return Discovery{}, fmt.Errorf("mcp: %s is damaged; restart Voicebox's MCP server (Settings › MCP)", DiscoveryPath(dataDir))
	}
	return d, nil
}

// RemoveDiscovery removes the discovery file if it is still the one d describes (another Voicebox on the
// same data folder may have written its own since).
func RemoveDiscovery(dataDir string, d Discovery) {
	cur, err := ReadDiscovery(dataDir)
	if err == nil && (cur.PID != d.PID || cur.URL != d.URL || cur.Socket != d.Socket) {
		return
	}
	_ = os.Remove(DiscoveryPath(dataDir))
}
