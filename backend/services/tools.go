package services

import (
	"context"
	"encoding/json"
	"net/http"
	"path"
	"path/filepath"
	"strings"

	"github.com/voicebox/voicebox/backend/documents"
	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/sandbox"
	"github.com/voicebox/voicebox/backend/store"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// RegistryService is the room's door to Go's registry of open mini-apps: the room says hello, mirrors each
// app's tools on ready and close, answers the requests Go sends on its request channel, and lets the Tool
// Console call tools through the same validation and bounds as a model's call.
type RegistryService struct {
	reg     *registry.Registry
	exp     *exposed.Table
	sb      *sandbox.Server
	tickets tickets // the Tool Console's calls in flight (consolecall.go)
}

// NewRegistryService serves the registry exp follows (exp names its tools as voice and MCP do); sb (may be
// nil) has its launch tokens revoked when a room says goodbye.
func NewRegistryService(exp *exposed.Table, sb *sandbox.Server) *RegistryService {
	return &RegistryService{reg: exp.Registry(), exp: exp, sb: sb}
}

// Hello records a room page (its id is generated per page load).
func (s *RegistryService) Hello(room string) error {
	if blank(room) || len(room) > 128 {
		return BadRequest("a room id is required")
	}
	return s.reg.Hello(room)
}

// Goodbye forgets a room page: its apps' tools, its pending requests and its launch tokens.
func (s *RegistryService) Goodbye(room string) error {
	if blank(room) {
		return BadRequest("a room id is required")
	}
	s.reg.Goodbye(room)
	if s.sb != nil {
		s.sb.RevokeRoom(room)
	}
	return nil
}

// Register mirrors an open app's tools; Go validates them again and answers a verdict per declaration.
func (s *RegistryService) Register(room, appID, title, slug string, tools []json.RawMessage) ([]toolcontract.Verdict, error) {
	if blank(room) || blank(appID) {
		return nil, BadRequest("room and appId are required")
	}
	if tools == nil {
		tools = []json.RawMessage{}
	}
	return s.reg.Register(room, appID, title, slug, tools)
}

// Unregister closes an app's tools.
func (s *RegistryService) Unregister(appID string) error {
	if blank(appID) {
		return BadRequest("an appId is required")
	}
	s.reg.Unregister(appID)
	return nil
}

// Report records what an app's document did besides registering tools: the declarations the bridge
// refused, or one uncaught error (registry.Health; the activity log shows each error).
func (s *RegistryService) Report(appID string, rep registry.Report) error {
	if blank(appID) {
		return BadRequest("an appId is required")
	}
	if rep.Refused == nil && rep.Error == nil {
		return BadRequest("a report needs refused declarations or an error")
	}
	s.reg.Report(appID, rep)
	return nil
}

// RegistryOf is the registry behind the service, for the HTTP door's request channel. It is a function,
// not a method, so Wails does not bind it to the room.
func RegistryOf(s *RegistryService) *registry.Registry { return s.reg }

// Call runs a tool exactly as a model's call runs: validated by Go against the declaration, dispatched to
// the room, bounded by 5,000 ms and 64 KiB. Refusals are outcomes, not errors. The Tool Console uses
// ConsoleCall, the same with a ticket it can cancel by.
func (s *RegistryService) Call(appID, tool string, args json.RawMessage) (registry.Outcome, error) {
	return s.reg.Call(context.Background(), "console", appID, tool, args), nil
}

// Apps lists the open apps and their accepted tools as Go sees them.
func (s *RegistryService) Apps() ([]registry.App, error) {
	apps := s.reg.Apps()
	if apps == nil {
		apps = []registry.App{}
	}
	return apps, nil
}

// Declarations is the answer of FunctionDeclarations.
type Declarations struct {
	Provider     string                          `json:"provider"`
	Declarations []json.RawMessage               `json:"declarations"`
	Exposed      map[string]toolcontract.Exposed `json:"exposed"`
}

// FunctionDeclarations converts every open app's tools for a provider ("openai" or "gemini"), under the
// names voice and MCP call them by.
func (s *RegistryService) FunctionDeclarations(provider string) (Declarations, error) {
	decls, names, err := s.exp.Snapshot().Declarations(provider)
	if err != nil {
		return Declarations{}, BadRequest(err.Error())
	}
	if decls == nil {
		decls = []json.RawMessage{}
	}
	return Declarations{Provider: provider, Declarations: decls, Exposed: names}, nil
}

// SandboxService prepares launches on the asset server: it turns a store reference, an opened document or
// raw HTML (a page dropped into a browser) into a launch token and the bridge URL the room frames.
type SandboxService struct {
	sb    *sandbox.Server
	store *store.Store
	docs  *documents.Table
	// mayLaunch is the launch rule (SetLaunchRule): why appID stays closed to by, or "".
	mayLaunch func(appID, by string) string
}

// NewSandboxService launches from st and docs onto sb (nil sb: every launch is refused).
func NewSandboxService(sb *sandbox.Server, st *store.Store, docs *documents.Table) *SandboxService {
	return &SandboxService{sb: sb, store: st, docs: docs}
}

// LaunchRequest names what to launch: exactly one of Ref, Document or HTML (with an optional Name).
type LaunchRequest struct {
	Room     string `json:"room,omitempty"`
	Ref      string `json:"ref,omitempty"`
	Document string `json:"document,omitempty"`
	HTML     string `json:"html,omitempty"`
	Name     string `json:"name,omitempty"`
	// By says who asks ("person" when empty, "model", "watchdog", "boot"): the desktop's launch rule
	// (SetLaunchRule) refuses some apps to some askers.
	By string `json:"by,omitempty"`
}

// LaunchInfo is what the room needs to open the app's frames.
type LaunchInfo struct {
	LaunchID     string `json:"launchId"`
	AppID        string `json:"appId"`
	Title        string `json:"title"`
	Slug         string `json:"slug"`
	Source       string `json:"source"` // "store", "document" or "html"
	BridgeURL    string `json:"bridgeURL"`
	BridgeOrigin string `json:"bridgeOrigin"`
}

// Prepare registers a launch and returns its token and bridge URL.
func (s *SandboxService) Prepare(req LaunchRequest) (LaunchInfo, error) {
	if s == nil || s.sb == nil {
		return LaunchInfo{}, BadRequest("mini-apps are not available here: no sandbox is running")
	}
	l := sandbox.Launch{Room: strings.TrimSpace(req.Room)}
	var source string
	switch {
	case !blank(req.Ref) && blank(req.Document) && req.HTML == "":
		e, folder, err := s.store.GetApp(req.Ref)
		if err != nil {
			return LaunchInfo{}, err
		}
		l.AppID, l.Title, l.Slug, l.HTML, source = e.AppID, e.Title, e.Slug, e.HTML, "store"
		l.Entry, l.Folder = e.FileName, folder
	case !blank(req.Document) && blank(req.Ref) && req.HTML == "":
		if s.docs == nil {
			return LaunchInfo{}, documents.ErrNotFound
		}
		d, err := s.docs.Read(req.Document)
		if err != nil {
			return LaunchInfo{}, err
		}
		// An opened index.html owns its folder only when the person made the folder an app: opened it as
		// a folder, or it lies in the workspace, on the shelf or in a sandbox (store.DocumentFolder;
		// docs/sandbox.md, "Folder apps"). Anywhere else, and when its folder cannot be opened, it is a
		// single page, as every other opened file is.
		folder, err := s.store.DocumentFolder(d.Path, d.Folder)
		if err != nil {
			folder = nil
		}
		slug, named := store.SlugOf(d.Name), d.Name
		if folder != nil {
			named = filepath.Base(folder.Path())
			slug = store.SlugOf(named)
		}
		l.AppID, l.Slug, l.HTML, source = "doc_"+slug, slug, d.Content, "document"
		l.Title = store.TitleOf(d.Content, named)
		l.Entry, l.Folder = d.Name, folder
	case req.HTML != "" && blank(req.Ref) && blank(req.Document):
		if len(req.HTML) > store.MaxHTMLBytes {
			return LaunchInfo{}, &codedError{store.ErrTooLarge, "the page is over 16 MiB"}
		}
		name := req.Name
		if blank(name) {
			name = "page.html"
		}
		slug := store.SlugOf(name)
		l.AppID, l.Slug, l.HTML, source = "local_"+slug, slug, req.HTML, "html"
		l.Title = store.TitleOf(req.HTML, name)
		l.Entry = path.Base(strings.ReplaceAll(name, "\\", "/"))
	default:
		return LaunchInfo{}, BadRequest(`give "ref", "document", or "html" (with an optional "name")`)
	}
	if s.mayLaunch != nil {
		if why := s.mayLaunch(l.AppID, req.By); why != "" {
			return LaunchInfo{}, &launchRefused{l.Title + " stays closed: " + why + "."}
		}
	}
	l = s.sb.Add(l)
	return LaunchInfo{
		LaunchID: l.Token, AppID: l.AppID, Title: l.Title, Slug: l.Slug, Source: source,
		BridgeURL: s.sb.BridgeURL(l), BridgeOrigin: l.Origin,
	}, nil
}

// SetLaunchRule makes Prepare refuse an app when rule(appID, by) says why; the desktop sets the
// watchdog's (backend/recovery), in the same call as the launch rather than a round trip of its own
// (docs/performance.md). Set it before the room runs; `voicebox serve` has none.
func (s *SandboxService) SetLaunchRule(rule func(appID, by string) string) { s.mayLaunch = rule }

// launchRefused is Prepare's refusal under the launch rule: the sentence says why.
type launchRefused struct{ msg string }

func (e *launchRefused) Error() string     { return e.msg }
func (e *launchRefused) ErrorCode() string { return registry.CodeLaunchFailed }
func (e *launchRefused) HTTPStatus() int   { return http.StatusConflict }

// Release revokes a launch token: the app was closed.
func (s *SandboxService) Release(launchID string) error {
	if s == nil || s.sb == nil {
		return nil
	}
	if blank(launchID) {
		return BadRequest("a launchId is required")
	}
	s.sb.Revoke(launchID)
	return nil
}
