// Package settings keeps what the person chose in Settings: the voice provider and its keys, the MCP door,
// the CDN hosts mini-apps may load from. The file is <data>/settings.json with mode 0600, written
// atomically. Keys never leave Go: the room sees only whether a key is set.
package settings

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/voicebox/voicebox/backend/atomicfile"
)

// FileName is the settings file inside the data folder.
const FileName = "settings.json"

// DefaultCDNHosts are the hosts model-written apps load libraries from (Chart.js and friends). A URL an app
// loads is of its choosing, so only the CDN operator may see what it carries: a host that fetches an
// arbitrary URL on request (esm.sh does) is never a default. docs/sandbox.md, "CDN hosts", says what each
// one does with a request for something it does not have.
// Fonts, esm.run and the Tailwind Play CDN came with issue 10 (pages load them); esm.sh stays out.
var DefaultCDNHosts = []string{"cdn.jsdelivr.net", "unpkg.com", "cdnjs.cloudflare.com",
	"fonts.googleapis.com", "fonts.gstatic.com", "esm.run", "cdn.tailwindcss.com"}

// Values is the whole settings file.
type Values struct {
	Provider    string `json:"provider,omitempty"` // "openai" or "gemini"
	OpenAIKey   string `json:"openaiKey,omitempty"`
	OpenAIModel string `json:"openaiModel,omitempty"`
	GeminiKey   string `json:"geminiKey,omitempty"`
	GeminiModel string `json:"geminiModel,omitempty"`
	// The code models that write mini-apps (backend/author/codemodel), per provider; "" is its default.
	OpenAICodeModel string   `json:"openaiCodeModel,omitempty"`
	GeminiCodeModel string   `json:"geminiCodeModel,omitempty"`
	MCPEnabled      bool     `json:"mcpEnabled,omitempty"`
	MCPToken        string   `json:"mcpToken,omitempty"`
	MCPPort         int      `json:"mcpPort,omitempty"` // the MCP door's port on 127.0.0.1; 0 means the default (backend/mcpdoor)
	CDNHosts        []string `json:"cdnHosts"`          // null means DefaultCDNHosts; [] means none (kept as written)
}

// Store reads and writes the settings file. It is safe for concurrent use.
type Store struct {
	path string
	mu   sync.Mutex
	v    Values
}

// Open reads <dir>/settings.json; a missing file means defaults. A running Voicebox opens it once
// (host.New) and every part of it shares that Store.
func Open(dir string) (*Store, error) {
	v, err := Read(dir)
	if err != nil {
		return nil, err
	}
	return &Store{path: filepath.Join(dir, FileName), v: v}, nil
}

// Read returns what <dir>/settings.json says now (defaults when it is missing), for a look at what another
// process may have written; it is no second Store.
func Read(dir string) (Values, error) {
	var v Values
	path := filepath.Join(dir, FileName)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return v, nil
	case err != nil:
		return v, fmt.Errorf("settings: %w", err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return Values{}, fmt.Errorf("settings: %s is not valid JSON: %w", path, err)
	}
	return v, nil
}

// Get returns a copy of the current values.
func (s *Store) Get() Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.v
	v.CDNHosts = slices.Clone(s.v.CDNHosts) // keeps an empty list empty (not nil: the defaults)
	return v
}

// Update changes the values with fn and writes them; on a write error nothing changes.
func (s *Store) Update(fn func(*Values)) (Values, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.v
	next.CDNHosts = slices.Clone(s.v.CDNHosts)
	fn(&next)
	b, err := json.MarshalIndent(next, "", "  ")
	if err != nil {
		return s.v, fmt.Errorf("settings: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return s.v, fmt.Errorf("settings: %w", err)
	}
	if err := atomicfile.Write(s.path, b, 0o600); err != nil {
		return s.v, fmt.Errorf("settings: %w", err)
	}
	s.v = next
	return next, nil
}

// MCPToken returns the MCP bearer token, making one on first use.
func (s *Store) MCPToken() (string, error) {
	if t := s.Get().MCPToken; t != "" {
		return t, nil
	}
	v, err := s.Update(func(v *Values) {
		if v.MCPToken == "" {
			v.MCPToken = NewToken()
		}
	})
	return v.MCPToken, err
}

// The environment's keys, used when Settings hold none.
const (
	EnvOpenAIKey = "OPENAI_API_KEY"
	EnvGeminiKey = "GEMINI_API_KEY"
)

// APIKey is provider's key ("openai" or "gemini") and where it came from: Settings if set there ("settings"),
// else the environment ("env"), else none ("", ""). The voice session and the code model both ask here.
func (v Values) APIKey(provider string, getenv func(string) string) (key, source string) {
	stored, env := v.OpenAIKey, EnvOpenAIKey
	switch provider {
	case "openai":
	case "gemini":
		stored, env = v.GeminiKey, EnvGeminiKey
	default:
		return "", ""
	}
	if k := strings.TrimSpace(stored); k != "" {
		return k, "settings"
	}
	if getenv != nil {
		if k := strings.TrimSpace(getenv(env)); k != "" {
			return k, "env"
		}
	}
	return "", ""
}

// CDNHostList returns the allowlist mini-apps may load from.
func (v Values) CDNHostList() []string {
	if v.CDNHosts == nil {
		return append([]string(nil), DefaultCDNHosts...)
	}
	return v.CDNHosts
}

// NewToken returns 32 random bytes in hex.
func NewToken() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:])
}
