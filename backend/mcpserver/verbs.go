package mcpserver

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/verbs"
)

// verbHandler runs a host verb (backend/verbs) for an MCP client. A launch or close syncs the tool list
// before it answers, so the new tools are listed by the time the client reads the answer.
func (s *Server) verbHandler(v *verbs.Verb) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		env := verbs.Env{Exposed: s.exp, Library: s.o.Library, Caller: s.caller(req.Session), ShowApp: showApp, Changed: s.sync}
		return result(v.Run(ctx, &env, args)), nil
	}
}

// showApp is how MCP answers show an open app: its tools' names as tools/list has them, sorted.
func showApp(a registry.App, snap *exposed.Snapshot, _ bool) any {
	names := []string{}
	for _, t := range a.Tools {
		if t != nil {
			if n := snap.Name(a.AppID, t.Name); n != "" {
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return verbs.OpenApp[string]{AppID: a.AppID, Title: a.Title, Slug: a.Slug, Tools: names}
}
