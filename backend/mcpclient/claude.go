package mcpclient

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/voicebox/voicebox/backend/toolcontract"
)

// Candidate is a server found in another program's configuration, for the person to choose: the entry as
// it was written, and why it cannot be added as it is (Problem), if it cannot.
type Candidate struct {
	Name    string                `json:"name"`
	Server  Server                `json:"-"`
	Public  Public                `json:"server"`
	Problem *toolcontract.Refusal `json:"problem,omitempty"`
}

// ClaudeDesktopPath is where Claude Desktop keeps its configuration on Linux: claude_desktop_config.json
// in the Claude folder of the user's configuration folder ($XDG_CONFIG_HOME, else ~/.config).
func ClaudeDesktopPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "Claude", "claude_desktop_config.json"), nil
}

// ImportClaudeDesktop reads Claude Desktop's configuration at path and returns its servers for the person
// to choose from; nothing is added. It runs only when the person asks (Settings' Import), never at start:
// the file is another program's, and what it holds is shown before anything of it is used. A missing file
// is a refusal with CodeImportNotFound; a file that is not the mcpServers shape, CodeServersFile.
func ImportClaudeDesktop(path string) ([]Candidate, *toolcontract.Refusal) {
	b, err := readBounded(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &toolcontract.Refusal{Refused: CodeImportNotFound, Message: fmt.Sprintf("no Claude Desktop configuration at %s", path)}
	}
	if err != nil {
		return nil, &toolcontract.Refusal{Refused: CodeServersFile, Message: fmt.Sprintf("reading %s: %v", path, err)}
	}
	f, err := parseFile(b)
	if err != nil {
		return nil, &toolcontract.Refusal{Refused: CodeServersFile, Message: fmt.Sprintf("%s: %v", path, err)}
	}
	out := make([]Candidate, 0, len(f.Entries))
	for _, e := range f.Entries {
		c := Candidate{Name: e.Name, Server: e.Server, Problem: e.Problem}
		if e.Problem == nil {
			c.Public = e.Server.Public()
		}
		out = append(out, c)
	}
	return out, nil
}
