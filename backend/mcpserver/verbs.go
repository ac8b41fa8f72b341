package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/toolcontract"
	"github.com/voicebox/voicebox/backend/verbs"
)

// The host verbs are declared like any mini-app tool and pass the same tool contract, so their arguments
// are refused with the same codes. The declarations are written for MCP clients; the work is backend/verbs'
// (shared with the voice session).
var verbDecls = map[string]string{
	VerbLaunch: `{
  "name": "launch_mini_app",
  "description": "Open a mini-app (or an .html page) in the Voicebox room, where the person can see it. ref is its name, file name, slug, appId or title, as list_mini_apps shows them. Once it is ready its tools appear in tools/list as <app>__<tool>.",
  "parameters": {
    "type": "object",
    "properties": {
      "ref": {"type": "string", "minLength": 1, "maxLength": 512, "description": "name, file name, slug, appId or title of the mini-app"}
    },
    "required": ["ref"],
    "additionalProperties": false
  }
}`,
	VerbList: `{
  "name": "list_mini_apps",
  "description": "List the mini-apps open in the Voicebox room (with the names of their tools) and the mini-apps and pages that launch_mini_app can open.",
  "parameters": {"type": "object", "properties": {}, "additionalProperties": false}
}`,
	VerbClose: `{
  "name": "close_mini_app",
  "description": "Close an open mini-app in the Voicebox room; its tools leave tools/list. appId is the app's id (or its slug or title) as list_mini_apps shows it.",
  "parameters": {
    "type": "object",
    "properties": {
      "appId": {"type": "string", "minLength": 1, "maxLength": 512, "description": "the open app's appId, slug or title"}
    },
    "required": ["appId"],
    "additionalProperties": false
  }
}`,
}

var verbTitles = map[string]string{
	VerbLaunch: "Launch a mini-app",
	VerbList:   "List mini-apps",
	VerbClose:  "Close a mini-app",
}

func verbTools() (map[string]*toolcontract.Tool, error) {
	out, err := verbs.Declare(verbDecls[VerbLaunch], verbDecls[VerbList], verbDecls[VerbClose])
	if err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	return out, nil
}

// OpenApp is an open app as the verbs report it: its tools by their MCP names.
type OpenApp = verbs.OpenApp[string]

func (s *Server) verbHandler(t *toolcontract.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		caller := s.caller(req.Session)
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		in, refused, ok := verbs.Decode(t, args)
		if !ok {
			return result(refused), nil
		}
		switch t.Name {
		case VerbLaunch:
			app, out := s.reg.Launch(ctx, caller, in.Ref)
			if !out.OK {
				return result(out), nil
			}
			s.sync() // the new tools are listed before the answer arrives
			b, _ := json.Marshal(s.openApp(app))
			return result(registry.Outcome{OK: true, Result: b}), nil
		case VerbClose:
			out := verbs.CloseApp(ctx, s.reg, caller, in.AppID)
			if out.OK {
				s.sync()
			}
			return result(out), nil
		default: // VerbList
			b, _ := json.Marshal(s.list())
			return result(registry.Outcome{OK: true, Result: b}), nil
		}
	}
}

// namesByApp returns the MCP names of each open app's tools.
func (s *Server) namesByApp() map[string][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]string{}
	for name, e := range s.current {
		out[e.appID] = append(out[e.appID], name)
	}
	return out
}

func (s *Server) openApp(a registry.App) OpenApp {
	return openApp(a, s.namesByApp())
}

func openApp(a registry.App, names map[string][]string) OpenApp {
	n := append([]string{}, names[a.AppID]...)
	sort.Strings(n)
	return OpenApp{AppID: a.AppID, Title: a.Title, Slug: a.Slug, Tools: n}
}

func (s *Server) list() verbs.Listing[string] {
	names := s.namesByApp()
	open := []OpenApp{}
	for _, a := range s.reg.Apps() {
		open = append(open, openApp(a, names))
	}
	available := []CatalogEntry{}
	if s.o.Catalog != nil {
		available = append(available, s.o.Catalog()...)
	}
	return verbs.Listing[string]{Open: open, Available: available}
}
