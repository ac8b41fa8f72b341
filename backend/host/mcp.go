package host

import (
	"log/slog"
	"os"

	"github.com/voicebox/voicebox/backend/mcpserver"
	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/backend/trace"
)

// initMCP prepares the MCP door (stopped): the manager that follows the Settings switch and the service
// the room's Settings panel calls.
func (h *Host) initMCP() {
	h.MCP = mcpserver.NewManager(mcpserver.ManagerOptions{
		Registry: h.Registry,
		Exposed:  h.Exposed,
		Settings: h.Settings,
		DataDir:  h.Paths.Data,
		Library:  h.Store,
		Author:   h.Author,
		Publish:  h.Bus.Publish,
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
	})
	h.MCPService = services.NewMCPService(h.MCP)
}

// StartMCP starts the MCP server if Settings › MCP is on or forced (--mcp). A server that cannot start is
// logged and shown in Settings; the app runs on without it. mode is "desktop" or "serve".
func (h *Host) StartMCP(forced bool, mode, version string) {
	if h.MCP == nil {
		return
	}
	h.MCP.SetMode(mode, version)
	st, err := h.MCP.Start(forced)
	switch {
	case err != nil:
		slog.Warn("mcp: not started", "err", err)
	case st.Running:
		trace.Mark("mcp-listening")
		slog.Info("mcp: listening", "url", st.URL, "socket", st.Socket, "discovery", st.Discovery)
		if st.Error != "" { // a door shut: its port in use by another program, say (Settings shows it too)
			slog.Warn("mcp: " + st.Error)
		}
	}
}

// StopMCP stops the MCP server and removes its discovery file.
func (h *Host) StopMCP() {
	if h.MCP != nil {
		h.MCP.Close()
	}
}
