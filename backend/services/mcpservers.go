package services

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"time"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/mcpclient"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// EventServers tells every room that the person's MCP servers changed; Data is ServersView (a state notice).
const EventServers = "mcpservers:changed"

// MCPServersService is the room's door to the person's MCP servers (backend/mcpclient, docs/mcp-apps.md):
// Settings lists them with their state, adds, edits, turns off, restarts and removes them, and imports
// Claude Desktop's list when the person asks; the Tool Console lists and calls their tools. Env and header
// values are write-only: the room learns their names only.
type MCPServersService struct {
	m   *mcpclient.Manager
	bus *events.Bus
}

// NewMCPServersService serves m and tells the rooms of its changes on bus until ctx ends (Follow).
func NewMCPServersService(m *mcpclient.Manager, bus *events.Bus) *MCPServersService {
	return &MCPServersService{m: m, bus: bus}
}

// Follow publishes EventServers after each change of the servers, until ctx ends.
func (s *MCPServersService) Follow(ctx context.Context) {
	changes, stop := s.m.Changes()
	go func() {
		defer stop()
		events.Follow(ctx, changes, func(struct{}) bool {
			if v, err := s.List(); err == nil {
				s.bus.Publish(EventServers, v)
			}
			return true
		})
	}()
}

// ServersView is the list as Settings shows it.
type ServersView struct {
	Servers []mcpclient.Status `json:"servers"`
	// FileError says why <data>/mcp-servers.json could not be read (then nothing is written over it).
	FileError string `json:"fileError,omitempty"`
	// ClaudeDesktop is where Claude Desktop's configuration is, when a file is there (it is not read: the
	// person asks with ReadClaudeDesktop).
	ClaudeDesktop string `json:"claudeDesktop,omitempty"`
}

// List returns the servers and their states.
func (s *MCPServersService) List() (ServersView, error) {
	v := ServersView{Servers: s.m.Servers()}
	if v.Servers == nil {
		v.Servers = []mcpclient.Status{}
	}
	if err := s.m.FileError(); err != nil {
		v.FileError = err.Error()
	}
	if p, err := mcpclient.ClaudeDesktopPath(); err == nil {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			v.ClaudeDesktop = p
		}
	}
	return v, nil
}

// Add puts a server in the list (and starts it unless it is turned off).
func (s *MCPServersService) Add(name string, srv mcpclient.Server) error {
	return serversError(s.m.Add(name, srv))
}

// Replace changes a server's entry; an env or header value the room sends empty keeps what it was (the room
// never sees them).
func (s *MCPServersService) Replace(name string, srv mcpclient.Server) error {
	return serversError(s.m.Replace(name, srv))
}

// Remove takes a server out of the list and stops it.
func (s *MCPServersService) Remove(name string) error { return serversError(s.m.Remove(name)) }

// SetEnabled turns a server on (started) or off (stopped, kept in the list).
func (s *MCPServersService) SetEnabled(name string, on bool) error {
	return serversError(s.m.SetDisabled(name, !on))
}

// Restart starts a server again (and resets its count of automatic restarts).
func (s *MCPServersService) Restart(name string) error { return serversError(s.m.Restart(name)) }

// ReadClaudeDesktop reads Claude Desktop's configuration now that the person asked, and returns its
// servers for them to choose from (what each runs; env and header names only). Nothing is added: the
// person picks, then ImportClaudeDesktop adds those.
func (s *MCPServersService) ReadClaudeDesktop() ([]mcpclient.Candidate, error) {
	p, err := mcpclient.ClaudeDesktopPath()
	if err != nil {
		return nil, BadRequest(err.Error())
	}
	c, r := mcpclient.ImportClaudeDesktop(p)
	if r != nil {
		return nil, &serversRefusal{r}
	}
	return c, nil
}

// ImportClaudeDesktop adds the servers of Claude Desktop's configuration the person picked, by name (the
// file is read again: the room never held their env values). It answers the names added; a name the file
// lacks, or one the list has already, is refused and nothing after it is added.
func (s *MCPServersService) ImportClaudeDesktop(names []string) ([]string, error) {
	found, err := s.ReadClaudeDesktop()
	if err != nil {
		return nil, err
	}
	by := map[string]mcpclient.Candidate{}
	for _, c := range found {
		by[c.Name] = c
	}
	added := []string{}
	for _, n := range names {
		c, ok := by[n]
		if !ok {
			return added, &serversRefusal{&toolcontract.Refusal{Refused: mcpclient.CodeServerUnknown, Message: "Claude Desktop's configuration has no server " + n}}
		}
		if err := s.Add(n, c.Server); err != nil {
			return added, err
		}
		added = append(added, n)
	}
	return added, nil
}

// ServerTool is one tool the Tool Console lists: the name the voice calls it by, its server, and its
// declaration as the server gave it.
type ServerTool struct {
	Name        string          `json:"name"`
	Server      string          `json:"server"`
	Tool        string          `json:"tool"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	HasView     bool            `json:"hasView,omitempty"`
}

// Tools lists the tools the model may call, as the Tool Console shows them.
func (s *MCPServersService) Tools() ([]ServerTool, error) {
	snap := s.m.Snapshot()
	out := make([]ServerTool, 0, len(snap.Tools))
	for _, t := range snap.Tools {
		out = append(out, ServerTool{Name: snap.Name(t.Server, t.Name), Server: t.Server, Tool: t.Name, Title: t.Title,
			Description: t.Description, InputSchema: t.InputSchema, HasView: t.ResourceURI != ""})
	}
	return out, nil
}

// consoleCallTimeout bounds the Tool Console's call of a server's tool (the voice's bound: backend/voice).
const consoleCallTimeout = 30 * time.Second

// Call runs a server's tool from the Tool Console, by the name the voice calls it by, with the model's
// rights (the person tries what the assistant could do); logged with its server. Refusals are outcomes.
func (s *MCPServersService) Call(name string, args json.RawMessage) (registry.Outcome, error) {
	start := time.Now()
	ref, ok := s.m.Snapshot().Resolve(name)
	var out registry.Outcome
	if !ok {
		out = registry.Outcome{Refused: toolcontract.CodeUnknownTool, Message: "no MCP server has a tool " + name + " now"}
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), consoleCallTimeout)
		res, r := s.m.CallTool(ctx, ref.Server, ref.Tool, args, mcpclient.Model)
		cancel()
		out = mcpclient.Outcome(res, r)
	}
	s.bus.Publish(registry.EventActivity, registry.Activity{Caller: "console", Op: registry.OpCall, AppID: mcpclient.LogID(ref.Server),
		Tool: ref.Tool, Args: registry.Loggable(args), Outcome: out, Millis: time.Since(start).Milliseconds()})
	return out, nil
}

// serversError is a Manager's refusal with its code for the room.
func serversError(err error) error {
	var r *toolcontract.Refusal
	if errors.As(err, &r) {
		return &serversRefusal{r}
	}
	return err
}

type serversRefusal struct{ r *toolcontract.Refusal }

func (e *serversRefusal) Error() string     { return e.r.Message }
func (e *serversRefusal) ErrorCode() string { return e.r.Refused }
func (e *serversRefusal) HTTPStatus() int {
	switch e.r.Refused {
	case mcpclient.CodeServerUnknown, mcpclient.CodeImportNotFound:
		return http.StatusNotFound
	case mcpclient.CodeServerExists, mcpclient.CodeServersFile:
		return http.StatusConflict
	}
	return http.StatusBadRequest
}
