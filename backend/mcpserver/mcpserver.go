// Package mcpserver opens the open mini-apps' tools to any MCP client (Claude Desktop, Cursor, VS Code, the
// MCP Inspector) through the official Go SDK: Streamable HTTP on 127.0.0.1 behind a bearer token, a Host
// check against DNS rebinding and an Origin check as the MCP transport spec requires.
//
// Callers here are external callers (docs/sandbox.md, Threat model): every tools/call goes through
// registry.Call, which validates the raw argument JSON against the tool's declared schema before anything
// is dispatched (a refusal comes back as an MCP tool error whose text is the structured refusal
// {"refused","path","message"}) and bounds the call by 5,000 ms and 64 KiB.
//
// tools/list shows every open app's tools under the names backend/exposed gives them, the same table the
// live voice session names them from (a name stays with the app that got it: docs/tools.md), plus the
// host verbs MCP declares (backend/verbs). When apps open or close the tool set on the SDK server changes
// and the SDK sends notifications/tools/list_changed to every session; the changes are throttled
// (exposed.Table.Changes), so an app that churns its tools cannot flood the clients.
package mcpserver

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/author"
	"github.com/voicebox/voicebox/backend/display"
	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/mcpdoor"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/toolcontract"
	"github.com/voicebox/voicebox/backend/verbs"
)

// CallerPrefix marks calls from MCP clients in the activity log: the caller is "mcp:<client name>".
const CallerPrefix = "mcp:"

// Keepalive: a session whose client answers no ping for about a minute is closed and leaves the
// room's list of connected clients.
const (
	keepAlive          = 15 * time.Second
	keepAliveThreshold = 4
)

// Client is one connected MCP session as the room shows it.
type Client struct {
	Session  string    `json:"session"`
	Name     string    `json:"name"`
	Title    string    `json:"title,omitempty"`
	Version  string    `json:"version,omitempty"`
	Protocol string    `json:"protocol,omitempty"`
	Since    time.Time `json:"since"`
	Calls    int       `json:"calls"`
	LastCall time.Time `json:"lastCall,omitzero"`
}

// Options configure a Server.
type Options struct {
	Registry *registry.Registry // required
	// Exposed names the open apps' tools; give the one the voice session uses, so a tool has one name
	// whoever calls it. Default: a table of the server's own over Registry.
	Exposed *exposed.Table
	Token   string // required: the bearer token every request must carry
	Version string // reported as serverInfo.version
	// AllowedOrigins are browser origins allowed to call (exact match, e.g. "http://localhost:6274").
	// A request that carries any other Origin header is refused 403. Native clients send none.
	AllowedOrigins []string
	// Library is what launch_mini_app can open, for list_mini_apps (the store). Optional.
	Library verbs.Library
	// Author writes apps for create_mini_app, edit_mini_app, revert_mini_app and write_mini_app. Optional:
	// without it those verbs refuse.
	Author *author.Service
	// OnClients is told (without locks held) the connected clients when they change: a client came or went,
	// or made calls (its count). At most one notice per clientsInterval, the newest list. Optional.
	OnClients func([]Client)
	Logger    *slog.Logger
}

// Server is the MCP server over a registry. Make one with New; Close it when done.
type Server struct {
	o    Options
	reg  *registry.Registry
	exp  *exposed.Table
	mcp  *mcp.Server
	http *mcp.StreamableHTTPHandler
	log  *slog.Logger

	syncMu  sync.Mutex             // one sync at a time
	mu      sync.Mutex             // guards the fields below
	current map[string]exposedTool // MCP name → what it stands for
	clients map[string]*Client     // session id → client
	touched chan struct{}          // buffered 1: the clients changed (OnClients follows, throttled)
	stop    func()
	done    chan struct{}
}

type exposedTool struct {
	appID, tool, title, description string
	schema                          string
	annotations                     string // toolcontract.Annotations as JSON, "" for none
}

// New builds the server and starts following the registry.
func New(o Options) (*Server, error) {
	if o.Registry == nil {
		return nil, fmt.Errorf("mcpserver: a registry is required")
	}
	if len(o.Token) < 16 {
		return nil, fmt.Errorf("mcpserver: a bearer token of at least 16 characters is required")
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Exposed == nil {
		o.Exposed = exposed.New(o.Registry)
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{
		o:       o,
		reg:     o.Registry,
		exp:     o.Exposed,
		log:     logger,
		current: map[string]exposedTool{},
		clients: map[string]*Client{},
		touched: make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "voicebox", Title: "Voicebox mini-apps", Version: o.Version}, &mcp.ServerOptions{
		Instructions: "Voicebox is a room of sandboxed HTML mini-apps that a person watches. Each open app's tools are " +
			"named <app>__<tool>; launch_mini_app opens an app (its tools then appear), list_mini_apps shows what is " +
			"open and what can be opened, close_mini_app closes one. Arguments are checked against each tool's schema " +
			"before the app sees them; a refusal comes back as a tool error {\"refused\":code,\"path\",\"message\"}.",
		Logger:                    logger,
		Capabilities:              &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
		InitializedHandler:        s.initialized,
		KeepAlive:                 keepAlive,
		KeepAliveFailureThreshold: keepAliveThreshold,
		SupportedProtocolVersions: mcpdoor.ProtocolVersions,
	})
	s.mcp.AddReceivingMiddleware(s.unknownToolMiddleware)
	for _, v := range verbs.For(verbs.MCP) {
		if err := s.addTool(&mcp.Tool{Name: v.Name(), Title: v.Title, Description: v.Tool.Description, InputSchema: v.Tool.Parameters}, s.verbHandler(v)); err != nil {
			return nil, err
		}
	}
	s.http = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Logger:              logger,
		MaxRequestBodyBytes: 1 << 20, // arguments are capped at 64 KiB; the envelope needs little more
		// A call's answer is one JSON body, not an event stream of one event: less to write and flush per
		// call. Notices (list_changed) still go on the session's own stream (GET).
		JSONResponse: true,
	})

	changes, cancel := s.exp.Changes()
	clients, stopClients := context.WithCancel(context.Background())
	s.stop = func() { cancel(); stopClients() }
	s.followClients(clients)
	s.sync()
	go func() {
		defer close(s.done)
		for range changes {
			s.sync()
		}
	}()
	return s, nil
}

// Close stops following the registry and closes every session.
func (s *Server) Close() {
	s.mu.Lock()
	stop := s.stop
	s.stop = nil
	s.mu.Unlock()
	if stop == nil {
		return
	}
	stop()
	for ss := range s.mcp.Sessions() {
		_ = ss.Close()
	}
}

// MCP returns the SDK server (for tests that connect over an in-memory transport).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Clients returns the connected clients, oldest first.
func (s *Server) Clients() []Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientsLocked()
}

func (s *Server) clientsLocked() []Client {
	out := make([]Client, 0, len(s.clients))
	for _, c := range s.clients {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Since.Equal(out[j].Since) {
			return out[i].Since.Before(out[j].Since)
		}
		return out[i].Session < out[j].Session
	})
	return out
}

// Handler returns the HTTP handler for a server bound at hostPort (e.g. "127.0.0.1:8790"), or at its socket
// (mcpdoor.SocketHost): the door (Host, Origin, bearer token) in front of the SDK's Streamable HTTP handler
// at mcpdoor.Path.
func (s *Server) Handler(hostPort string) http.Handler {
	hosts := map[string]bool{hostPort: true}
	if _, port, err := net.SplitHostPort(hostPort); err == nil { // a port's names; the socket has one (mcpdoor.SocketHost)
		hosts["127.0.0.1:"+port], hosts["localhost:"+port], hosts["[::1]:"+port] = true, true, true
	}
	origins := map[string]bool{}
	for _, o := range s.o.AllowedOrigins {
		origins[o] = true
	}
	token := []byte(s.o.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		// DNS rebinding: a page on evil.example resolved to 127.0.0.1 still sends Host: evil.example.
		if !hosts[strings.ToLower(r.Host)] {
			httpError(w, http.StatusForbidden, "forbidden-host", fmt.Sprintf("host %q is not this server", r.Host))
			return
		}
		// The transport spec: validate Origin on every request; present and not allowed is 403.
		if vals, ok := r.Header["Origin"]; ok && (len(vals) != 1 || !origins[vals[0]]) {
			httpError(w, http.StatusForbidden, "forbidden-origin", fmt.Sprintf("origin %q may not call this MCP server", r.Header.Get("Origin")))
			return
		}
		if site := r.Header.Get("Sec-Fetch-Site"); (site == "cross-site" || site == "same-site") && r.Header.Get("Origin") == "" {
			httpError(w, http.StatusForbidden, "forbidden-origin", "cross-site requests may not call this MCP server")
			return
		}
		if r.URL.Path != mcpdoor.Path {
			httpError(w, http.StatusNotFound, "not-found", "the MCP endpoint is "+mcpdoor.Path)
			return
		}
		got, ok := bearer(r.Header.Get("Authorization"))
		if !ok || subtle.ConstantTimeCompare([]byte(got), token) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="voicebox", error="invalid_token"`)
			httpError(w, http.StatusUnauthorized, "unauthorized", "a valid bearer token is required (Voicebox › Settings › MCP)")
			return
		}
		s.http.ServeHTTP(w, r)
	})
}

func bearer(h string) (string, bool) {
	const p = "bearer "
	if len(h) <= len(p) || !strings.EqualFold(h[:len(p)], p) {
		return "", false
	}
	return strings.TrimSpace(h[len(p):]), true
}

func httpError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "message": msg})
}

// sync makes the SDK server's tools match the open apps, under the names of the exposed table the voice
// session shares, so a tool has one name whoever calls it.
func (s *Server) sync() {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	snap := s.exp.Snapshot()
	want := map[string]exposedTool{}
	titles := map[string]string{}
	for _, a := range snap.Apps {
		titles[a.AppID] = a.Title
	}
	for name, ex := range snap.Names {
		t := snap.Tool(ex)
		if t == nil || verbs.Is(name) {
			continue
		}
		title := titles[ex.AppID]
		if title == "" {
			title = ex.AppID
		}
		want[name] = exposedTool{
			appID: ex.AppID, tool: t.Name, title: title + " › " + t.Name,
			description: describe(title, ex.AppID, t),
			schema:      string(t.Parameters),
			annotations: t.Annotations.JSON(),
		}
	}

	s.mu.Lock()
	var gone []string
	var added []string
	for name, have := range s.current {
		if w, ok := want[name]; !ok || w != have {
			gone = append(gone, name)
		}
	}
	for name, w := range want {
		if have, ok := s.current[name]; !ok || have != w {
			added = append(added, name)
		}
	}
	s.mu.Unlock()
	if len(gone) == 0 && len(added) == 0 {
		return
	}
	sort.Strings(added)
	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
	}
	s.mu.Lock()
	for _, name := range gone {
		delete(s.current, name)
	}
	s.mu.Unlock()
	for _, name := range added {
		e := want[name]
		tool := &mcp.Tool{Name: name, Title: e.title, Description: e.description, InputSchema: json.RawMessage(e.schema)}
		if e.annotations != "" { // the app's hints (readOnlyHint…) reach the client's model
			tool.Annotations = new(mcp.ToolAnnotations)
			_ = json.Unmarshal([]byte(e.annotations), tool.Annotations)
		}
		if err := s.addTool(tool, s.appHandler(e.appID, e.tool)); err != nil {
			s.log.Error("mcp: add tool", "tool", name, "err", err)
			continue
		}
		s.mu.Lock()
		s.current[name] = e
		s.mu.Unlock()
	}
}

// describe names the app in the description, so a model (and a person reading tools/list) knows which
// window a tool acts on.
func describe(title, appID string, t *toolcontract.Tool) string {
	d := strings.TrimSpace(t.Description)
	prefix := fmt.Sprintf("[Mini-app %q (%s), tool %s]", title, appID, t.Name)
	if d == "" {
		return prefix
	}
	return prefix + " " + d
}

// addTool hands a declaration to the SDK. Only declarations the tool contract accepted get here (their
// root is always {"type":"object"}), but AddTool panics on anything else, so a surprise is an error, not a
// crash of the whole app.
func (s *Server) addTool(t *mcp.Tool, h mcp.ToolHandler) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("mcpserver: the SDK refused tool %q: %v", t.Name, p)
		}
	}()
	var root struct {
		Type string `json:"type"`
	}
	raw, _ := t.InputSchema.(json.RawMessage)
	if json.Unmarshal(raw, &root) != nil || root.Type != "object" {
		return fmt.Errorf("mcpserver: tool %q: input schema is not a JSON object schema", t.Name)
	}
	s.mcp.AddTool(t, h)
	return nil
}

// appHandler forwards a call to the registry with the raw argument JSON, exactly as the client sent it.
func (s *Server) appHandler(appID, tool string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		caller := s.caller(req.Session)
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		return result(s.reg.Call(ctx, caller, appID, tool, args)), nil
	}
}

// result turns a registry outcome into a tool result: the app's JSON, or an MCP tool error (isError) whose
// text is the structured refusal {"refused","path","message"}.
func result(out registry.Outcome) *mcp.CallToolResult {
	if !out.OK {
		b, _ := json.Marshal(verbs.Refusal(out))
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}
	}
	res := out.Result
	if len(res) == 0 {
		res = json.RawMessage("null")
	}
	r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(res)}}}
	if t := strings.TrimLeft(string(res), " \t\r\n"); strings.HasPrefix(t, "{") {
		r.StructuredContent = res
	}
	return r
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// clientsInterval is the least time between two OnClients notices. Every call changes its client's count,
// and each notice reaches the room (its MCP panel), so under load the room would redraw for every call
// (docs/performance.md, "MCP calls"); the room refreshes the panel as often (mcp.js).
const clientsInterval = 250 * time.Millisecond

// followClients tells OnClients the clients whenever they were touched, throttled, until ctx ends.
func (s *Server) followClients(ctx context.Context) {
	if s.o.OnClients == nil {
		return
	}
	notices := make(chan struct{}, 1)
	go events.Throttle(s.touched, notices, clientsInterval, ctx.Done())
	go events.Follow(ctx, notices, func(struct{}) bool { s.o.OnClients(s.Clients()); return true })
}

// touch notes that the clients changed.
func (s *Server) touch() {
	select {
	case s.touched <- struct{}{}:
	default: // a notice is due already; it reads the newest list
	}
}

// caller names a session's client for the activity log, and counts the call.
func (s *Server) caller(ss *mcp.ServerSession) string {
	name := "unknown"
	if ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil && strings.TrimSpace(p.ClientInfo.Name) != "" {
			name = display.Text(p.ClientInfo.Name, 64)
		}
		s.mu.Lock()
		c := s.clients[ss.ID()]
		if c != nil {
			c.Calls++
			c.LastCall = time.Now()
		}
		s.mu.Unlock()
		if c != nil {
			s.touch()
		}
	}
	return CallerPrefix + name
}

// initialized records a session once its client has said who it is, and forgets it when it ends.
func (s *Server) initialized(_ context.Context, req *mcp.InitializedRequest) {
	ss := req.Session
	if ss == nil {
		return
	}
	c := &Client{Session: ss.ID(), Name: "unknown", Since: time.Now()}
	if p := ss.InitializeParams(); p != nil {
		c.Protocol = p.ProtocolVersion
		if ci := p.ClientInfo; ci != nil {
			// Client-chosen text reaches the room: shown only once made safe to show.
			c.Name = orDefault(display.Text(ci.Name, 64), "unknown")
			c.Title = display.Text(ci.Title, 64)
			c.Version = display.Text(ci.Version, 32)
		}
	}
	if c.Session == "" {
		c.Session = fmt.Sprintf("%p", ss)
	}
	s.mu.Lock()
	s.clients[c.Session] = c
	s.mu.Unlock()
	s.touch()
	go func() {
		_ = ss.Wait()
		s.mu.Lock()
		delete(s.clients, c.Session)
		s.mu.Unlock()
		s.touch()
	}()
}

// unknownToolMiddleware answers a call to a tool that is not (or no longer) listed as docs/sandbox.md's
// Bounds say: fail closed with refused: unknown-tool, as a tool error the model can read, not a protocol error.
func (s *Server) unknownToolMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil && !s.known(p.Name) {
				return result(registry.Outcome{Refused: toolcontract.CodeUnknownTool, Message: fmt.Sprintf("no open mini-app has a tool %q (see tools/list)", p.Name)}), nil
			}
		}
		return next(ctx, method, req)
	}
}

func (s *Server) known(name string) bool {
	if verbs.Lookup(name, verbs.MCP) != nil {
		return true
	}
	s.mu.Lock()
	_, ok := s.current[name]
	s.mu.Unlock()
	return ok
}
