package httpapi

import (
	"net/http"

	"github.com/voicebox/voicebox/backend/services"
)

// maxMCPBody bounds POST /api/mcp: {"enabled": true|false} needs a few bytes.
const maxMCPBody = 4096

// MCPRoutes are the HTTP twins of MCPService (Settings › MCP in the room). They sit behind the shared door,
// so Host, Origin and content type are already checked.
func MCPRoutes(s *services.MCPService) func(*http.ServeMux) {
	return func(mux *http.ServeMux) {
		mux.HandleFunc("GET /api/mcp", run(s.Status))
		mux.HandleFunc("POST /api/mcp", func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Enabled *bool `json:"enabled"`
			}
			if !readJSON(w, r, maxMCPBody, http.StatusRequestEntityTooLarge, &req) {
				return
			}
			if req.Enabled == nil {
				writeJSON(w, http.StatusBadRequest, services.ErrorBody{Code: services.CodeBadRequest, Message: `send {"enabled": true|false}`})
				return
			}
			st, err := s.SetEnabled(*req.Enabled)
			reply(w, st, err)
		})
		mux.HandleFunc("POST /api/mcp/token", run(s.RotateToken))
		mux.HandleFunc("GET /api/mcp/config", run(func() (map[string]string, error) {
			cfg, err := s.ClientConfig()
			return map[string]string{"config": cfg}, err
		}))
	}
}
