package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// The host verbs are declared like any mini-app tool and pass the same tool contract, so their arguments
// are refused with the same codes.
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
	out := map[string]*toolcontract.Tool{}
	for name, decl := range verbDecls {
		t, ref := toolcontract.ValidateTool([]byte(decl))
		if ref != nil {
			return nil, fmt.Errorf("mcpserver: host verb %s: %v", name, ref)
		}
		out[name] = t
	}
	return out, nil
}

// OpenApp is an open app as the verbs report it: its tools by their MCP names.
type OpenApp struct {
	AppID string   `json:"appId"`
	Title string   `json:"title"`
	Slug  string   `json:"slug,omitempty"`
	Tools []string `json:"tools"`
}

func (s *Server) verbHandler(t *toolcontract.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		caller := s.caller(req.Session)
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		if ref := t.ValidateArgs(args); ref != nil {
			return result(registry.Outcome{Refused: ref.Refused, Path: ref.Path, Message: ref.Message}), nil
		}
		var in struct {
			Ref   string `json:"ref"`
			AppID string `json:"appId"`
		}
		if err := json.Unmarshal(args, &in); err != nil {
			return result(registry.Outcome{Refused: toolcontract.CodeInvalidToolArguments, Message: err.Error()}), nil
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
			id := s.resolveOpen(in.AppID)
			out := s.reg.Close(ctx, caller, id)
			if out.OK {
				s.sync()
				out.Result, _ = json.Marshal(map[string]any{"closed": id})
			}
			return result(out), nil
		default: // VerbList
			b, _ := json.Marshal(s.list())
			return result(registry.Outcome{OK: true, Result: b}), nil
		}
	}
}

// resolveOpen finds an open app by id, then slug, then title (case-insensitive); unknown refs pass through
// so the registry refuses them with its own code.
func (s *Server) resolveOpen(ref string) string {
	apps := s.reg.Apps()
	for _, a := range apps {
		if a.AppID == ref {
			return a.AppID
		}
	}
	for _, a := range apps {
		if a.Slug != "" && strings.EqualFold(a.Slug, ref) {
			return a.AppID
		}
	}
	for _, a := range apps {
		if strings.EqualFold(a.Title, ref) {
			return a.AppID
		}
	}
	return ref
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
	names := s.namesByApp()[a.AppID]
	if names == nil {
		names = []string{}
	}
	sort.Strings(names)
	return OpenApp{AppID: a.AppID, Title: a.Title, Slug: a.Slug, Tools: names}
}

func (s *Server) list() map[string]any {
	names := s.namesByApp()
	open := []OpenApp{}
	for _, a := range s.reg.Apps() {
		n := names[a.AppID]
		if n == nil {
			n = []string{}
		}
		sort.Strings(n)
		open = append(open, OpenApp{AppID: a.AppID, Title: a.Title, Slug: a.Slug, Tools: n})
	}
	available := []CatalogEntry{}
	if s.o.Catalog != nil {
		available = append(available, s.o.Catalog()...)
	}
	return map[string]any{"open": open, "available": available}
}
