package mcpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/http/httpguts"

	"github.com/voicebox/voicebox/backend/atomicfile"
	"github.com/voicebox/voicebox/backend/display"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// Server is one entry of the list: a command for stdio (command, args, env, cwd) or a URL for Streamable
// HTTP (url, headers), as Claude Desktop, Cursor and VS Code write them, plus what Voicebox keeps beside:
// disabled (the person turned it off; Cursor and Cline use the same key) and consent (what the person
// allowed its views beyond the restrictive default). Keys this type does not know are kept as they were
// when the file is written again.
type Server struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Type is "stdio", "http" (also "streamable-http", "streamableHttp") or empty (told by command or url).
	Type     string   `json:"type,omitempty"`
	Disabled bool     `json:"disabled,omitempty"`
	Consent  *Consent `json:"consent,omitempty"`

	extra map[string]json.RawMessage
}

// Consent is what the person allowed the views of one server, beyond the restrictive default of the
// spec: CSP domains (each must also be declared by the view to take effect; see View.Granted) and
// permissions ("camera", "microphone", "geolocation", "clipboardWrite").
type Consent struct {
	ConnectDomains  []string `json:"connectDomains,omitempty"`
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	FrameDomains    []string `json:"frameDomains,omitempty"`
	BaseURIDomains  []string `json:"baseUriDomains,omitempty"`
	Permissions     []string `json:"permissions,omitempty"`
}

// Permission names of _meta.ui.permissions and Consent.Permissions.
var permissionNames = []string{"camera", "microphone", "geolocation", "clipboardWrite"}

// Transport kinds.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// Transport is TransportStdio or TransportHTTP ("" for an entry that is neither).
func (s Server) Transport() string {
	switch {
	case s.Command != "" && s.URL == "":
		return TransportStdio
	case s.URL != "" && s.Command == "":
		return TransportHTTP
	}
	return ""
}

// Public is what of a server the room may see: the command and URL, but only the names of its
// environment variables and headers, whose values are often keys (docs/mcp-apps.md, "The list").
type Public struct {
	Transport   string   `json:"transport"`
	Command     string   `json:"command,omitempty"`
	Args        []string `json:"args,omitempty"`
	Cwd         string   `json:"cwd,omitempty"`
	EnvNames    []string `json:"envNames,omitempty"`
	URL         string   `json:"url,omitempty"`
	HeaderNames []string `json:"headerNames,omitempty"`
	Disabled    bool     `json:"disabled"`
	Consent     *Consent `json:"consent,omitempty"`
}

// Public returns what of s the room may see.
func (s Server) Public() Public {
	keys := func(m map[string]string) []string {
		out := make([]string, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	return Public{Transport: s.Transport(), Command: s.Command, Args: slices.Clone(s.Args), Cwd: s.Cwd,
		EnvNames: keys(s.Env), URL: s.URL, HeaderNames: keys(s.Headers), Disabled: s.Disabled, Consent: s.Consent.clone()}
}

func (c *Consent) clone() *Consent {
	if c == nil {
		return nil
	}
	return &Consent{ConnectDomains: slices.Clone(c.ConnectDomains), ResourceDomains: slices.Clone(c.ResourceDomains),
		FrameDomains: slices.Clone(c.FrameDomains), BaseURIDomains: slices.Clone(c.BaseURIDomains),
		Permissions: slices.Clone(c.Permissions)}
}

func (s Server) clone() Server {
	c := s
	c.Args = slices.Clone(s.Args)
	c.Env = cloneMap(s.Env)
	c.Headers = cloneMap(s.Headers)
	c.Consent = s.Consent.clone()
	if s.extra != nil {
		c.extra = make(map[string]json.RawMessage, len(s.extra))
		for k, v := range s.extra {
			c.extra[k] = v
		}
	}
	return c
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// knownKeys are the keys of a server entry this package reads; any other is kept as it was.
var knownKeys = []string{"command", "args", "env", "cwd", "url", "headers", "type", "disabled", "consent"}

// MarshalJSON writes the known fields and, beside them, the keys of the entry this package did not know.
func (s Server) MarshalJSON() ([]byte, error) {
	type plain Server
	b, err := json.Marshal(plain(s))
	if err != nil || len(s.extra) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range s.extra {
		if _, known := m[k]; !known && !slices.Contains(knownKeys, k) {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// ParseServer reads one entry of an "mcpServers" object named name and validates it. The refusal's path
// points into the file (/mcpServers/<name>/<key>).
func ParseServer(name string, raw json.RawMessage) (Server, *toolcontract.Refusal) {
	base := "/mcpServers/" + pointerEscape(name)
	if r := ValidName(name); r != nil {
		return Server{}, r
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return Server{}, invalid(base, "a server must be a JSON object")
	}
	var s Server
	for k, v := range m {
		var err error
		switch k {
		case "command":
			err = json.Unmarshal(v, &s.Command)
		case "args":
			err = json.Unmarshal(v, &s.Args)
		case "env":
			err = json.Unmarshal(v, &s.Env)
		case "cwd":
			err = json.Unmarshal(v, &s.Cwd)
		case "url":
			err = json.Unmarshal(v, &s.URL)
		case "headers":
			err = json.Unmarshal(v, &s.Headers)
		case "type":
			err = json.Unmarshal(v, &s.Type)
		case "disabled":
			err = json.Unmarshal(v, &s.Disabled)
		case "consent":
			err = json.Unmarshal(v, &s.Consent)
		default:
			if s.extra == nil {
				s.extra = map[string]json.RawMessage{}
			}
			s.extra[k] = v
			continue
		}
		if err != nil {
			return Server{}, invalid(base+"/"+k, "%s has the wrong type: %v", k, err)
		}
	}
	if r := s.Validate(name); r != nil {
		return Server{}, r
	}
	return s, nil
}

// ValidName checks a server's name: 1 to 64 bytes of printable UTF-8 without surrounding spaces (it is
// shown to the person and, mapped, part of the names the voice calls its tools by).
func ValidName(name string) *toolcontract.Refusal {
	base := "/mcpServers/" + pointerEscape(name)
	switch {
	case name == "" || len(name) > 64:
		return invalid(base, "a server's name is 1 to 64 bytes")
	case !utf8.ValidString(name) || display.Clean(name) != name || strings.TrimSpace(name) != name:
		return invalid(base, "a server's name has no control characters and no surrounding spaces")
	}
	return nil
}

// reservedHeaders are set by the Streamable HTTP transport itself.
var reservedHeaders = []string{"host", "content-length", "content-type", "accept", "connection", "transfer-encoding",
	"mcp-session-id", "mcp-protocol-version", "last-event-id"}

// Validate checks s as the entry named name.
func (s Server) Validate(name string) *toolcontract.Refusal {
	base := "/mcpServers/" + pointerEscape(name)
	if r := ValidName(name); r != nil {
		return r
	}
	switch s.Type {
	case "", TransportStdio, TransportHTTP, "streamable-http", "streamableHttp":
	case "sse":
		return invalid(base+"/type", "the SSE transport (older than Streamable HTTP) is not supported; use the server's Streamable HTTP URL")
	default:
		return invalid(base+"/type", "type is \"stdio\" or \"http\"")
	}
	switch {
	case s.Command != "" && s.URL != "":
		return invalid(base, "a server has a command (stdio) or a url (Streamable HTTP), not both")
	case s.Command == "" && s.URL == "":
		return invalid(base, "a server needs a command (stdio) or a url (Streamable HTTP)")
	case s.Type == TransportStdio && s.Command == "":
		return invalid(base+"/command", "a stdio server needs a command")
	case s.Type != "" && s.Type != TransportStdio && s.URL == "":
		return invalid(base+"/url", "an http server needs a url")
	}
	if s.Command != "" {
		if len(s.Headers) > 0 {
			return invalid(base+"/headers", "headers belong to a url server")
		}
		if strings.ContainsRune(s.Command, 0) || len(s.Command) > 4096 {
			return invalid(base+"/command", "the command is at most 4096 bytes, without NUL")
		}
		if len(s.Args) > 256 {
			return invalid(base+"/args", "at most 256 arguments")
		}
		for i, a := range s.Args {
			if strings.ContainsRune(a, 0) || len(a) > 1<<16 {
				return invalid(fmt.Sprintf("%s/args/%d", base, i), "an argument is at most 64 KiB, without NUL")
			}
		}
		if len(s.Env) > 256 {
			return invalid(base+"/env", "at most 256 environment variables")
		}
		for k, v := range s.Env {
			if !envName(k) {
				return invalid(base+"/env/"+pointerEscape(k), "an environment variable's name is letters, digits and '_', not starting with a digit")
			}
			if strings.ContainsRune(v, 0) || len(v) > 1<<16 {
				return invalid(base+"/env/"+pointerEscape(k), "a value is at most 64 KiB, without NUL")
			}
		}
		if s.Cwd != "" && !filepath.IsAbs(s.Cwd) {
			return invalid(base+"/cwd", "cwd is an absolute path")
		}
	} else {
		if len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "" {
			return invalid(base, "args, env and cwd belong to a command server")
		}
		if r := checkURL(base+"/url", s.URL); r != nil {
			return r
		}
		if len(s.Headers) > 64 {
			return invalid(base+"/headers", "at most 64 headers")
		}
		for k, v := range s.Headers {
			p := base + "/headers/" + pointerEscape(k)
			if !httpguts.ValidHeaderFieldName(k) || !httpguts.ValidHeaderFieldValue(v) || len(v) > 8192 {
				return invalid(p, "not a valid HTTP header")
			}
			if slices.Contains(reservedHeaders, strings.ToLower(k)) {
				return invalid(p, "the transport sets %s itself", k)
			}
		}
	}
	if c := s.Consent; c != nil {
		for key, list := range map[string][]string{"connectDomains": c.ConnectDomains, "resourceDomains": c.ResourceDomains,
			"frameDomains": c.FrameDomains, "baseUriDomains": c.BaseURIDomains} {
			if len(list) > MaxDomains {
				return invalid(base+"/consent/"+key, "at most %d domains", MaxDomains)
			}
			for i, d := range list {
				if _, ok := CleanOrigin(d); !ok {
					return invalid(fmt.Sprintf("%s/consent/%s/%d", base, key, i), "a domain is scheme://host[:port] (http, https, ws or wss; *.host for subdomains)")
				}
			}
		}
		for i, p := range c.Permissions {
			if !slices.Contains(permissionNames, p) {
				return invalid(fmt.Sprintf("%s/consent/permissions/%d", base, i), "a permission is one of %s", strings.Join(permissionNames, ", "))
			}
		}
	}
	return nil
}

// checkURL allows https anywhere and http only to this machine (a token sent in clear over a network is
// a token given away); no user:password in the URL (headers carry credentials).
func checkURL(path, raw string) *toolcontract.Refusal {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return invalid(path, "not an absolute URL")
	}
	if u.User != nil {
		return invalid(path, "put credentials in headers, not in the URL")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !loopbackHost(u.Hostname()) {
			return invalid(path, "http is for servers on this machine (localhost, 127.0.0.1, [::1]); use https")
		}
	default:
		return invalid(path, "the URL is https (or http on this machine)")
	}
	return nil
}

func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func envName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func invalid(path, format string, a ...any) *toolcontract.Refusal {
	return &toolcontract.Refusal{Refused: CodeServerInvalid, Path: path, Message: fmt.Sprintf(format, a...)}
}

// pointerEscape escapes one JSON pointer token (RFC 6901).
func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// Entry is one server of a File: valid (Problem nil) or kept as it was written with the reason it cannot
// run.
type Entry struct {
	Name    string
	Server  Server
	Problem *toolcontract.Refusal

	raw json.RawMessage
}

// File is mcp-servers.json: {"mcpServers": {name: server, …}} and any other top-level keys, kept.
type File struct {
	// Entries, by name.
	Entries []Entry

	extra map[string]json.RawMessage
}

// Path is the list's path in the data folder dir.
func Path(dir string) string { return filepath.Join(dir, FileName) }

// ReadFile reads the list at path; a missing file is an empty list. A file that is not JSON, or whose
// mcpServers is not an object, is an error (the Manager then writes nothing over it). An entry that is
// not valid is kept with its Problem.
func ReadFile(path string) (*File, error) {
	b, err := readBounded(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &File{}, nil
	}
	if err != nil {
		return nil, err
	}
	return parseFile(b)
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("%s is over %d bytes", path, MaxFileBytes)
	}
	return b, nil
}

func parseFile(b []byte) (*File, error) {
	var top map[string]json.RawMessage
	if len(bytes.TrimSpace(b)) == 0 {
		return &File{}, nil
	}
	if err := json.Unmarshal(b, &top); err != nil || top == nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	f := &File{}
	var servers map[string]json.RawMessage
	if raw, ok := top["mcpServers"]; ok {
		if err := json.Unmarshal(raw, &servers); err != nil || (servers == nil && string(bytes.TrimSpace(raw)) != "null") {
			return nil, fmt.Errorf("mcpServers is not an object")
		}
		delete(top, "mcpServers")
	}
	if len(top) > 0 {
		f.extra = top
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		e := Entry{Name: n, raw: servers[n]}
		if i >= MaxServers {
			e.Problem = invalid("/mcpServers/"+pointerEscape(n), "the list holds at most %d servers", MaxServers)
		} else {
			e.Server, e.Problem = ParseServer(n, servers[n])
		}
		f.Entries = append(f.Entries, e)
	}
	return f, nil
}

// Find returns the entry named name.
func (f *File) Find(name string) (Entry, bool) {
	for _, e := range f.Entries {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// Servers returns the valid entries' servers by name.
func (f *File) Servers() map[string]Server {
	out := map[string]Server{}
	for _, e := range f.Entries {
		if e.Problem == nil {
			out[e.Name] = e.Server
		}
	}
	return out
}

// with returns a copy of f where name is s (added or replaced); remove drops name instead.
func (f *File) with(name string, s *Server) *File {
	out := &File{extra: f.extra}
	done := false
	for _, e := range f.Entries {
		if e.Name == name {
			done = true
			if s == nil {
				continue
			}
			e = Entry{Name: name, Server: s.clone()}
		}
		out.Entries = append(out.Entries, e)
	}
	if !done && s != nil {
		out.Entries = append(out.Entries, Entry{Name: name, Server: s.clone()})
		sort.Slice(out.Entries, func(i, j int) bool { return out.Entries[i].Name < out.Entries[j].Name })
	}
	return out
}

// Marshal is the file's bytes: valid entries as their Server, the others exactly as they were read.
func (f *File) Marshal() ([]byte, error) {
	servers := map[string]json.RawMessage{}
	for _, e := range f.Entries {
		if e.Problem != nil && e.raw != nil {
			servers[e.Name] = e.raw
			continue
		}
		b, err := json.Marshal(e.Server)
		if err != nil {
			return nil, err
		}
		servers[e.Name] = b
	}
	top := map[string]any{}
	for k, v := range f.extra {
		top[k] = v
	}
	top["mcpServers"] = servers
	b, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteFile writes f to path atomically with mode 0600 (the list holds keys), creating its folder (0700).
func WriteFile(path string, f *File) error {
	b, err := f.Marshal()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, b, 0o600)
}
