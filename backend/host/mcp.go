package host

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"

	"github.com/voicebox/voicebox/backend/mcpserver"
	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/backend/verbs"
)

// initMCP prepares the MCP door (stopped): the manager that follows the Settings switch and the service
// the room's Settings panel calls.
func (h *Host) initMCP() {
	h.MCP = mcpserver.NewManager(mcpserver.ManagerOptions{
		Registry: h.Registry,
		Settings: h.Settings,
		DataDir:  h.Paths.Data,
		Catalog:  h.catalog,
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
		slog.Info("mcp: listening", "url", st.URL, "discovery", st.Discovery)
	}
}

// StopMCP stops the MCP server and removes its discovery file.
func (h *Host) StopMCP() {
	if h.MCP != nil {
		h.MCP.Close()
	}
}

// catalog is what launch_mini_app can open: the shelf's apps first, then pages (as the voice session
// lists them).
func (h *Host) catalog() []mcpserver.CatalogEntry {
	return verbs.Catalog(h.Store.List())
}

// mcpRoutes are the HTTP twins of MCPService for `voicebox serve` (the shared door has already checked
// Host, Origin and the JSON content type).
func (h *Host) mcpRoutes(mux *http.ServeMux) {
	s := h.MCPService
	mux.HandleFunc("GET /api/mcp", func(w http.ResponseWriter, r *http.Request) {
		st, err := s.Status()
		reply(w, st, err)
	})
	mux.HandleFunc("POST /api/mcp", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Enabled *bool `json:"enabled"`
		}
		if err := readBody(r, &req); err != nil || req.Enabled == nil {
			reply(w, nil, badRequest(`send {"enabled": true|false}`))
			return
		}
		st, err := s.SetEnabled(*req.Enabled)
		reply(w, st, err)
	})
	mux.HandleFunc("POST /api/mcp/token", func(w http.ResponseWriter, r *http.Request) {
		st, err := s.RotateToken()
		reply(w, st, err)
	})
	mux.HandleFunc("GET /api/mcp/config", func(w http.ResponseWriter, r *http.Request) {
		cfg, err := s.ClientConfig()
		reply(w, map[string]string{"config": cfg}, err)
	})
}

type badRequestError string

func (e badRequestError) Error() string { return string(e) }

func badRequest(msg string) error { return badRequestError(msg) }

func readBody(r *http.Request, v any) error {
	b, err := io.ReadAll(io.LimitReader(r.Body, 4096))
	if err != nil {
		return err
	}
	if len(b) == 0 {
		return errors.New("empty body")
	}
	return json.Unmarshal(b, v)
}

func reply(w http.ResponseWriter, v any, err error) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if err != nil {
		var bad badRequestError
		if errors.As(err, &bad) {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(services.ErrorBody{Code: services.CodeBadRequest, Message: err.Error()})
			return
		}
		status, body := services.Describe(err)
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(body)
		return
	}
	_ = json.NewEncoder(w).Encode(v)
}
