package services

import (
	"errors"

	"github.com/voicebox/voicebox/backend/mcpserver"
)

// MCPService is the room's door to the MCP server: Settings › MCP shows its status (URL, token, connected
// clients), flips its switch at runtime and copies a client config. The desktop binds it; `voicebox serve`
// serves the same methods by name (backend/httpapi).
type MCPService struct {
	m *mcpserver.Manager
}

// NewMCPService serves m.
func NewMCPService(m *mcpserver.Manager) *MCPService { return &MCPService{m: m} }

var errNoMCP = errors.New("the MCP server is not available in this build")

// Status reports whether the switch is on, whether the server runs, its URL and token, and who is connected.
func (s *MCPService) Status() (mcpserver.Status, error) {
	if s == nil || s.m == nil {
		return mcpserver.Status{Clients: []mcpserver.Client{}}, errNoMCP
	}
	return s.m.Status(), nil
}

// SetEnabled turns the MCP server on or off now and saves the choice. A server that cannot start (its
// port, say) is reported in Status.Error rather than as a failure of the call; only an unsaved switch is.
func (s *MCPService) SetEnabled(on bool) (mcpserver.Status, error) {
	if s == nil || s.m == nil {
		return mcpserver.Status{Clients: []mcpserver.Client{}}, errNoMCP
	}
	st, err := s.m.SetEnabled(on)
	if err != nil && st.Error == "" {
		return st, err
	}
	return st, nil
}

// RotateToken replaces the bearer token (clients configured with the old one stop working).
func (s *MCPService) RotateToken() (mcpserver.Status, error) {
	if s == nil || s.m == nil {
		return mcpserver.Status{Clients: []mcpserver.Client{}}, errNoMCP
	}
	st, err := s.m.RotateToken()
	if err != nil && st.Error == "" {
		return st, err
	}
	return st, nil
}

// ClientConfig is the stdio form of the client config, as `voicebox mcp --print-config` prints it: it runs
// `voicebox mcp`, which reaches this Voicebox through a socket only this user can open, and holds no token.
func (s *MCPService) ClientConfig() (string, error) {
	if s == nil || s.m == nil {
		return "", errNoMCP
	}
	b, err := s.m.StdioConfig()
	return string(b), err
}

// HTTPClientConfig is the HTTP form (`voicebox mcp --print-config=http`): the URL and the lasting token,
// for clients that take a URL only. Settings shows it only once the person asks for it (mcpdoor.FormHTTP).
func (s *MCPService) HTTPClientConfig() (string, error) {
	if s == nil || s.m == nil {
		return "", errNoMCP
	}
	b, err := s.m.HTTPConfig()
	if err != nil {
		return "", BadRequest(err.Error())
	}
	return string(b), nil
}

// SetPort chooses the HTTP door's port (0: the default, 8790) and restarts a running server there. A port
// another program holds is reported in Status.Error, as at start; a port out of range, or one the
// environment decides (VOICEBOX_MCP_ADDR), is refused.
func (s *MCPService) SetPort(port int) (mcpserver.Status, error) {
	if s == nil || s.m == nil {
		return mcpserver.Status{Clients: []mcpserver.Client{}}, errNoMCP
	}
	st, err := s.m.SetPort(port)
	if err != nil && st.Error == "" {
		return st, BadRequest(err.Error())
	}
	return st, nil
}
