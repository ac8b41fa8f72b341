package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/display"
	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// State is where a server is.
type State string

const (
	StateStopped  State = "stopped"  // turned off, or not started yet
	StateStarting State = "starting" // its process or connection is starting, or its first tools/list runs
	StateReady    State = "ready"    // initialized, tools listed
	StateFailed   State = "failed"   // it could not start, or stopped; Reason says why (a restart may follow)
)

// Options configure a Manager. Only DataDir is required.
type Options struct {
	// DataDir holds mcp-servers.json.
	DataDir string
	// Version is Voicebox's, sent as clientInfo.version.
	Version string
	// MaxRestarts is how many times a server that failed is started again by itself before it stays
	// failed until the person restarts it (DefaultMaxRestarts when 0; none when negative). The count is
	// reset only by the person (Restart, turning it on, editing it), never by a start that worked: a
	// server that crashes on every call cannot restart forever.
	MaxRestarts int
	// Backoff is the wait before automatic restart n (1, 2, …): 1s, 2s, 4s … at most 30s when nil.
	Backoff func(n int) time.Duration
	// ConnectTimeout bounds a start up to its first tools/list (DefaultConnectTimeout when 0).
	ConnectTimeout time.Duration
	// CallTimeout bounds a call or read whose context has no deadline (DefaultCallTimeout when 0).
	CallTimeout time.Duration
	// StopGrace is how long a stdio server has at each step of stopping (DefaultStopGrace when 0).
	StopGrace time.Duration
	// Interval is the least time between two notices on one Changes channel (events' 250 ms when 0).
	Interval time.Duration
	// Getenv reads Voicebox's environment for what a stdio server inherits (os.Getenv when nil).
	Getenv func(string) string
	// Logger receives the SDK's diagnostics (discarded when nil).
	Logger *slog.Logger
}

// Status is one server as Settings shows it.
type Status struct {
	Name   string `json:"name"`
	State  State  `json:"state"`
	Reason string `json:"reason,omitempty"`
	// Stderr is the last StderrTailLines lines a stdio server wrote to stderr (across its starts).
	Stderr string `json:"stderr,omitempty"`
	// Tools are its tools while it is ready, in the server's order.
	Tools []ToolStatus `json:"tools"`
	// Starts counts its starts since Voicebox started; Restarts the automatic ones since the person's
	// last start.
	Starts   int `json:"starts"`
	Restarts int `json:"restarts"`
	// ServerName and ServerVersion are what the server said of itself in initialize.
	ServerName    string `json:"serverName,omitempty"`
	ServerVersion string `json:"serverVersion,omitempty"`
	// Config is the entry as the room may see it (no env or header values).
	Config Public `json:"config"`
	// Problem says why the entry is not valid (then it never starts).
	Problem *toolcontract.Refusal `json:"problem,omitempty"`
}

// ToolStatus is one tool of a ready server as Settings shows it.
type ToolStatus struct {
	Name        string   `json:"name"`
	Exposed     string   `json:"exposed,omitempty"` // the name the voice calls it by ("" when not for the model)
	Visibility  []string `json:"visibility"`
	ResourceURI string   `json:"resourceUri,omitempty"`
	Problem     string   `json:"problem,omitempty"`
	Unchecked   []string `json:"unchecked,omitempty"`
}

// Manager runs the person's MCP servers. It is safe for concurrent use.
type Manager struct {
	o    Options
	path string

	editMu   sync.Mutex // one change of the list at a time, from decision to the server's new start
	mu       sync.Mutex
	file     *File
	fileErr  error // the file could not be read: nothing is written over it
	servers  map[string]*server
	started  bool
	closed   bool
	namer    *namer
	snap     *Snapshot
	changes  events.Fanout[struct{}]
	supervis sync.WaitGroup
}

// server is one entry and what runs for it.
type server struct {
	name     string
	cfg      Server
	problem  *toolcontract.Refusal
	state    State
	reason   string
	stderr   ring
	starts   int
	restarts int
	tools    []*Tool
	session  *mcp.ClientSession
	info     *mcp.Implementation
	run      *run
}

// run is one supervision of a server, from the start the person asked for until it stops or gives up.
type run struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// New reads the list in o.DataDir and starts nothing (Start does). A list that cannot be read is kept
// as it is: FileError says why, the servers list is empty, and every change is refused.
func New(o Options) *Manager {
	if o.MaxRestarts == 0 {
		o.MaxRestarts = DefaultMaxRestarts
	}
	if o.Backoff == nil {
		o.Backoff = func(n int) time.Duration { return min(time.Second<<min(n-1, 5), 30*time.Second) }
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.StopGrace <= 0 {
		o.StopGrace = DefaultStopGrace
	}
	if o.Interval <= 0 {
		o.Interval = 250 * time.Millisecond
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	m := &Manager{o: o, path: Path(o.DataDir), servers: map[string]*server{}, namer: newNamer()}
	m.file, m.fileErr = ReadFile(m.path)
	if m.fileErr != nil {
		m.file = &File{}
	}
	for _, e := range m.file.Entries {
		m.servers[e.Name] = &server{name: e.Name, cfg: e.Server, problem: e.Problem, state: StateStopped}
	}
	m.rebuildLocked()
	return m
}

// FileError is why mcp-servers.json could not be read (nil when it could, or is missing).
func (m *Manager) FileError() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.fileErr
}

// Start starts every server of the list that is valid and not turned off. Only the person's list starts
// servers: no call, read or view does.
func (m *Manager) Start() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started || m.closed {
		return
	}
	m.started = true
	for _, name := range m.namesLocked() {
		m.startLocked(m.servers[name], true)
	}
}

// Close stops every server the Manager started and waits until each has stopped.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	var runs []*run
	for _, s := range m.servers {
		if s.run != nil {
			runs = append(runs, s.run)
			s.run.cancel()
		}
	}
	m.mu.Unlock()
	for _, r := range runs {
		<-r.done
	}
	m.supervis.Wait()
}

func (m *Manager) namesLocked() []string {
	names := make([]string, 0, len(m.servers))
	for n := range m.servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// startLocked starts supervising s unless it is invalid, off, or already running. fresh resets its
// automatic restarts (a start the person asked for).
func (m *Manager) startLocked(s *server, fresh bool) {
	if s.problem != nil || s.cfg.Disabled || s.run != nil || m.closed || !m.started {
		return
	}
	if fresh {
		s.restarts = 0
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &run{cancel: cancel, done: make(chan struct{})}
	s.run = r
	s.state, s.reason = StateStarting, ""
	m.supervis.Add(1)
	go m.supervise(ctx, s, r)
}

// stopLocked ends s's supervision and returns its run to wait for (nil when none ran).
func (m *Manager) stopLocked(s *server) *run {
	r := s.run
	if r == nil {
		return nil
	}
	r.cancel()
	s.run = nil
	s.state, s.reason, s.tools, s.session = StateStopped, "", nil, nil
	return r
}

// supervise starts s, waits while it runs, and starts it again after a failure at most MaxRestarts times
// with Backoff between; it returns when ctx ends (a stop) or it gives up (failed until the person acts).
func (m *Manager) supervise(ctx context.Context, s *server, r *run) {
	defer m.supervis.Done()
	defer close(r.done)
	for {
		reason := m.runOnce(ctx, s, r)
		if ctx.Err() != nil {
			return
		}
		m.mu.Lock()
		if s.run != r {
			m.mu.Unlock()
			return
		}
		give := m.o.MaxRestarts < 0 || s.restarts >= m.o.MaxRestarts
		if !give {
			s.restarts++
		}
		n := s.restarts
		s.state, s.reason, s.tools, s.session = StateFailed, reason, nil, nil
		if give {
			s.reason = reason + fmt.Sprintf(" (not restarted again after %d restarts; restart it in Settings)", n)
			s.run = nil
		}
		m.changedLocked()
		m.mu.Unlock()
		if give {
			return
		}
		if d := m.o.Backoff(n); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		m.mu.Lock()
		if s.run == r && ctx.Err() == nil {
			s.state = StateStarting
			m.changedLocked()
		}
		m.mu.Unlock()
	}
}

// runOnce starts s, waits while it is ready, and returns why it is not any more ("" after a stop).
func (m *Manager) runOnce(ctx context.Context, s *server, r *run) string {
	m.mu.Lock()
	cfg := s.cfg.clone()
	s.starts++
	if cfg.Transport() == TransportStdio {
		s.stderr.mark("start %d", s.starts)
	}
	m.changedLocked()
	m.mu.Unlock()

	refresh := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "voicebox", Title: "Voicebox", Version: m.o.Version}, &mcp.ClientOptions{
		Logger:       m.o.Logger,
		Capabilities: clientCapabilities(),
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case refresh <- struct{}{}:
			default:
			}
		},
	})
	var transport mcp.Transport
	var stdio *stdioTransport
	if cfg.Transport() == TransportStdio {
		stdio = &stdioTransport{cfg: cfg, stderr: &s.stderr, grace: m.o.StopGrace, getenv: m.o.Getenv}
		transport = stdio
	} else {
		t, err := httpTransport(cfg)
		if err != nil {
			return err.Error()
		}
		transport = t
	}
	why := func(err error) string {
		msg := display.Text(err.Error(), 512)
		if stdio != nil {
			if exit := stdio.exitReason(); exit != "" {
				msg += " (" + exit + ")"
			}
		}
		if isTooLarge(err) {
			msg = errTooLarge.Error()
		}
		return msg
	}

	cctx, cancel := context.WithTimeout(ctx, m.o.ConnectTimeout)
	cs, err := client.Connect(cctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		cancel()
		if stdio != nil {
			stdio.closeProc()
		}
		if ctx.Err() != nil {
			return ""
		}
		return "could not start: " + why(err)
	}
	tools, note, err := listTools(cctx, s.name, cs)
	cancel()
	if err != nil {
		_ = cs.Close()
		if ctx.Err() != nil {
			return ""
		}
		return "tools/list failed: " + why(err)
	}
	ended := make(chan struct{})
	go func() {
		_ = cs.Wait()
		close(ended)
	}()

	m.mu.Lock()
	if s.run != r || ctx.Err() != nil {
		m.mu.Unlock()
		_ = cs.Close()
		<-ended
		return ""
	}
	s.state, s.reason, s.tools, s.session = StateReady, note, tools, cs
	if res := cs.InitializeResult(); res != nil {
		s.info = res.ServerInfo
	}
	m.changedLocked()
	m.mu.Unlock()

	for {
		select {
		case <-ctx.Done():
			_ = cs.Close()
			<-ended
			return ""
		case <-ended:
			reason := "it stopped"
			if stdio != nil {
				if exit := stdio.exitReason(); exit != "" {
					reason = exit
				}
			} else {
				reason = "the connection ended"
			}
			return reason
		case <-refresh:
			lctx, cancel := context.WithTimeout(ctx, m.o.CallTimeout)
			tools, note, err := listTools(lctx, s.name, cs)
			cancel()
			if err != nil {
				continue // the session's end, if that is why, comes next
			}
			m.mu.Lock()
			if s.run == r && s.session == cs {
				s.tools, s.reason = tools, note
				m.changedLocked()
			}
			m.mu.Unlock()
		}
	}
}

// closeProc stops a process that started but whose session never came up.
func (t *stdioTransport) closeProc() {
	t.mu.Lock()
	p := t.proc
	t.mu.Unlock()
	if p != nil {
		_ = p.Close()
	}
}

// clientCapabilities are what Voicebox offers a server: the MCP Apps extension with the one view type it
// renders; no sampling or elicitation (the SDK writes "roots":{} whatever it is given, and lists no roots).
func clientCapabilities() *mcp.ClientCapabilities {
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(UIExtension, map[string]any{"mimeTypes": []string{ViewMIMEType}})
	return caps
}

// listTools reads every page of tools/list, keeping at most MaxToolsPerServer tools; note says what was
// left out.
func listTools(ctx context.Context, server string, cs *mcp.ClientSession) ([]*Tool, string, error) {
	var out []*Tool
	var cursor string
	extra := 0
	seen := map[string]bool{}
	for page := 0; page < 64; page++ {
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		for _, t := range res.Tools {
			if t == nil || seen[t.Name] {
				continue
			}
			seen[t.Name] = true
			if len(out) >= MaxToolsPerServer {
				extra++
				continue
			}
			out = append(out, NewTool(server, t))
		}
		if res.NextCursor == "" || res.NextCursor == cursor {
			break
		}
		cursor = res.NextCursor
	}
	note := ""
	if extra > 0 {
		note = fmt.Sprintf("%d tools past the first %d are left out", extra, MaxToolsPerServer)
	}
	return out, note, nil
}

// Changes returns a channel that receives a notice when a server's state or tools changed: at once after
// a quiet Interval, otherwise once the Interval since the last notice has passed (events.Throttle, as
// backend/exposed does). Receivers read Servers or Snapshot. stop ends the feed.
func (m *Manager) Changes() (notices <-chan struct{}, stop func()) {
	in, unsubscribe := m.changes.Subscribe(1)
	out := make(chan struct{}, 1)
	done := make(chan struct{})
	go events.Throttle(in, out, m.o.Interval, done)
	var once sync.Once
	return out, func() {
		once.Do(func() {
			unsubscribe()
			close(done)
		})
	}
}

func (m *Manager) changedLocked() {
	m.rebuildLocked()
	m.changes.Send(struct{}{})
}

// Servers returns every server of the list, by name.
func (m *Manager) Servers() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Status, 0, len(m.servers))
	for _, n := range m.namesLocked() {
		out = append(out, m.statusLocked(m.servers[n]))
	}
	return out
}

// Status returns one server.
func (m *Manager) Status(name string) (Status, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[name]
	if !ok {
		return Status{}, false
	}
	return m.statusLocked(s), true
}

func (m *Manager) statusLocked(s *server) Status {
	st := Status{Name: s.name, State: s.state, Reason: s.reason, Stderr: s.stderr.tail(StderrTailLines),
		Starts: s.starts, Restarts: s.restarts, Problem: s.problem, Tools: []ToolStatus{}}
	if s.problem == nil {
		st.Config = s.cfg.Public()
	}
	if s.problem != nil {
		st.State, st.Reason = StateFailed, s.problem.Message
	} else if s.cfg.Disabled {
		st.Reason = "turned off"
	}
	if s.info != nil {
		st.ServerName, st.ServerVersion = display.Text(s.info.Name, 200), display.Text(s.info.Version, 100)
	}
	for _, t := range s.tools {
		st.Tools = append(st.Tools, ToolStatus{Name: t.Name, Exposed: m.snap.names[ToolRef{Server: s.name, Tool: t.Name}],
			Visibility: t.Visibility, ResourceURI: t.ResourceURI, Problem: t.Problem, Unchecked: t.Unchecked})
	}
	return st
}

// Snapshot is the tools the model may call at one moment: every callable tool whose visibility includes
// "model" of every ready server, under its exposed name. It is immutable: a change makes a new Snapshot,
// so a voice session may key its cached declarations on the pointer.
type Snapshot struct {
	// Tools in (server, server's order) order.
	Tools []*Tool
	// Names maps each exposed name to its tool.
	Names map[string]ToolRef

	names map[ToolRef]string
	tools map[ToolRef]*Tool
}

// Name is the exposed name of a tool ("" when the model may not call it now).
func (s *Snapshot) Name(server, tool string) string {
	return s.names[ToolRef{Server: server, Tool: tool}]
}

// Resolve finds the tool an exposed name stands for.
func (s *Snapshot) Resolve(name string) (ToolRef, bool) {
	r, ok := s.Names[name]
	return r, ok
}

// Declarations are the snapshot's tools as provider's function declarations, and the map back from each
// name to its tool.
func (s *Snapshot) Declarations(provider string) ([]json.RawMessage, map[string]ToolRef, error) {
	out := make([]json.RawMessage, 0, len(s.Tools))
	for _, t := range s.Tools {
		d, err := Declaration(provider, s.names[ToolRef{Server: t.Server, Tool: t.Name}], t)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, d)
	}
	return out, s.Names, nil
}

// Snapshot returns the model's tools now.
func (m *Manager) Snapshot() *Snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.snap
}

// ModelTools are the tools of every ready server whose visibility includes "model" and that can be
// called, in (server, server's order) order. Tools without "model" never reach the voice.
func (m *Manager) ModelTools() []*Tool { return m.Snapshot().Tools }

func (m *Manager) rebuildLocked() {
	snap := &Snapshot{Names: map[string]ToolRef{}, tools: map[ToolRef]*Tool{}}
	for _, n := range m.namesLocked() {
		s := m.servers[n]
		if s.state != StateReady {
			continue
		}
		for _, t := range s.tools {
			if t.VisibleTo(VisibleToModel) && t.Callable() {
				snap.Tools = append(snap.Tools, t)
			}
		}
	}
	snap.names = m.namer.assign(snap.Tools)
	for ref, name := range snap.names {
		snap.Names[name] = ref
		snap.tools[ref] = nil
	}
	for _, t := range snap.Tools {
		snap.tools[ToolRef{Server: t.Server, Tool: t.Name}] = t
	}
	m.snap = snap
}

// CallTool calls tool on server for from, after every check: the caller may call it (a view only its own
// server's tools with "app" in their visibility, the model only tools with "model"), the server is ready,
// the tool exists and can be called, and the arguments pass its schema (Tool.ValidateArgs). A refused
// call reaches no server. A result the server marks isError is a result, not a refusal.
func (m *Manager) CallTool(ctx context.Context, server, tool string, args json.RawMessage, from Caller) (*mcp.CallToolResult, *toolcontract.Refusal) {
	if from.IsView() && from.View != server {
		return nil, refusal(CodeCrossServer, "", "a view of %q may call only %q's own tools, not %q's", from.View, from.View, server)
	}
	cs, tools, r := m.ready(server)
	if r != nil {
		return nil, r
	}
	var t *Tool
	for _, x := range tools {
		if x.Name == tool {
			t = x
			break
		}
	}
	if t == nil {
		return nil, refusal(toolcontract.CodeUnknownTool, "", "%q has no tool %q", server, tool)
	}
	switch {
	case from.IsView() && !t.VisibleTo(VisibleToApp):
		return nil, refusal(CodeNotVisible, "", "%q's tool %q is not for views (visibility %v)", server, tool, t.Visibility)
	case !from.IsView() && !t.VisibleTo(VisibleToModel):
		return nil, refusal(CodeNotVisible, "", "%q's tool %q is not for the model (visibility %v)", server, tool, t.Visibility)
	}
	body, r := t.ValidateArgs(args)
	if r != nil {
		return nil, r
	}
	ctx, cancel := m.bound(ctx)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: body})
	if err != nil {
		return nil, m.requestRefusal(ctx, server, "tools/call", err)
	}
	if b, err := json.Marshal(res); err != nil || len(b) > MaxResultBytes {
		return nil, refusal(toolcontract.CodeOutputOverBudget, "", "%q's result is over %d bytes", tool, MaxResultBytes)
	}
	return res, nil
}

// ready returns a ready server's session and tools, or why a request to it cannot be made.
func (m *Manager) ready(server string) (*mcp.ClientSession, []*Tool, *toolcontract.Refusal) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[server]
	if !ok {
		return nil, nil, refusal(CodeServerUnknown, "", "no MCP server %q", server)
	}
	if s.state != StateReady || s.session == nil {
		return nil, nil, notReady(m.statusLocked(s))
	}
	return s.session, s.tools, nil
}

// ReadResource reads the view uri of server (resources/read): a ui:// resource of text/html;profile=mcp-app,
// its HTML from text or a base64 blob, at most MaxViewBytes, with its _meta.ui (from the content, else
// from the resource's resources/list entry). A view of another server is the caller's to refuse
// (CodeCrossServer): this reads for whoever asks on server's behalf.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (*View, *toolcontract.Refusal) {
	if !strings.HasPrefix(uri, "ui://") {
		return nil, refusal(CodeViewInvalid, "", "%q is not a ui:// view", display.Text(uri, 200))
	}
	cs, _, r := m.ready(server)
	if r != nil {
		return nil, r
	}
	ctx, cancel := m.bound(ctx)
	defer cancel()
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		if isTooLarge(err) {
			return nil, refusal(CodeViewTooLarge, "", "%s: %v", uri, errTooLarge)
		}
		return nil, m.requestRefusal(ctx, server, "resources/read", err)
	}
	var listed mcp.Meta
	if len(res.Contents) > 0 && res.Contents[0] != nil && res.Contents[0].Meta["ui"] == nil {
		listed = listedMeta(ctx, cs, uri)
	}
	return newView(server, uri, res, listed)
}

// listedMeta is the _meta of uri's resources/list entry (nil when the server lists none, or not it).
func listedMeta(ctx context.Context, cs *mcp.ClientSession, uri string) mcp.Meta {
	if res := cs.InitializeResult(); res == nil || res.Capabilities == nil || res.Capabilities.Resources == nil {
		return nil
	}
	var cursor string
	for page := 0; page < 16; page++ {
		res, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil
		}
		for _, r := range res.Resources {
			if r != nil && r.URI == uri {
				return r.Meta
			}
		}
		if res.NextCursor == "" || res.NextCursor == cursor {
			return nil
		}
		cursor = res.NextCursor
	}
	return nil
}

func (m *Manager) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, m.o.CallTimeout)
}

// requestRefusal turns a failed request into its code: the caller gave up → cancelled; the bound passed
// → tool-timeout; the server answered an error or went away → mcp-server-error.
func (m *Manager) requestRefusal(ctx context.Context, server, method string, err error) *toolcontract.Refusal {
	var rpc *jsonrpc.Error
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		return refusal(toolcontract.CodeCancelled, "", "%s to %q was cancelled", method, server)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return refusal(toolcontract.CodeToolTimeout, "", "%q did not answer %s in time", server, method)
	case errors.As(err, &rpc):
		return refusal(CodeServerError, "", "%q answered %s with an error: %s", server, method, display.Text(rpc.Message, 512))
	case errors.Is(err, mcp.ErrConnectionClosed):
		return refusal(CodeServerError, "", "%q stopped during %s", server, method)
	case isTooLarge(err):
		return refusal(toolcontract.CodeOutputOverBudget, "", "%q: %v", server, errTooLarge)
	}
	return refusal(CodeServerError, "", "%s to %q failed: %s", method, server, display.Text(err.Error(), 512))
}

func notReady(st Status) *toolcontract.Refusal {
	msg := fmt.Sprintf("%q is %s", st.Name, st.State)
	if st.Reason != "" {
		msg += ": " + st.Reason
	}
	return refusal(CodeServerNotReady, "", "%s", msg)
}

// Add puts a new server into the list (written at once) and starts it unless it is turned off.
func (m *Manager) Add(name string, s Server) error {
	if r := s.Validate(name); r != nil {
		return r
	}
	return m.edit(name, func(cur *server) (*Server, error) {
		if cur != nil {
			return nil, refusal(CodeServerExists, "/mcpServers/"+pointerEscape(name), "the list already has a server %q", name)
		}
		if len(m.servers) >= MaxServers {
			return nil, invalid("/mcpServers", "the list holds at most %d servers", MaxServers)
		}
		return &s, nil
	})
}

// Replace changes a server's entry (written at once) and starts it again as the person's start.
func (m *Manager) Replace(name string, s Server) error {
	if r := s.Validate(name); r != nil {
		return r
	}
	return m.edit(name, func(cur *server) (*Server, error) {
		if cur == nil {
			return nil, refusal(CodeServerUnknown, "", "no MCP server %q", name)
		}
		if cur.problem == nil && s.Consent == nil {
			s.Consent = cur.cfg.Consent // an edit of the command keeps what the person allowed
		}
		// The room sees env and header names only (Public): a value it sends empty keeps the one there.
		s.Env = keepValues(s.Env, cur.cfg.Env)
		s.Headers = keepValues(s.Headers, cur.cfg.Headers)
		return &s, nil
	})
}

// keepValues is next, where a name whose value is "" keeps its value in cur (a secret the room never saw).
func keepValues(next, cur map[string]string) map[string]string {
	for k, v := range next {
		if v == "" {
			if old, ok := cur[k]; ok {
				next[k] = old
			}
		}
	}
	return next
}

// Remove stops a server and takes it out of the list.
func (m *Manager) Remove(name string) error {
	return m.edit(name, func(cur *server) (*Server, error) {
		if cur == nil {
			return nil, refusal(CodeServerUnknown, "", "no MCP server %q", name)
		}
		return nil, nil
	})
}

// SetDisabled turns a server off (stopped, kept in the list with "disabled": true) or on (started).
func (m *Manager) SetDisabled(name string, off bool) error {
	return m.edit(name, func(cur *server) (*Server, error) {
		if cur == nil {
			return nil, refusal(CodeServerUnknown, "", "no MCP server %q", name)
		}
		if cur.problem != nil {
			return nil, cur.problem
		}
		c := cur.cfg.clone()
		c.Disabled = off
		return &c, nil
	})
}

// SetConsent records what the person allowed the server's views (nil: nothing beyond the default).
func (m *Manager) SetConsent(name string, c *Consent) error {
	m.editMu.Lock()
	defer m.editMu.Unlock()
	m.mu.Lock()
	cur, ok := m.servers[name]
	m.mu.Unlock()
	if !ok {
		return refusal(CodeServerUnknown, "", "no MCP server %q", name)
	}
	if cur.problem != nil {
		return cur.problem
	}
	next := cur.cfg.clone()
	next.Consent = c.clone()
	if r := next.Validate(name); r != nil {
		return r
	}
	return m.write(name, &next, false)
}

// Consent is what the person allowed server's views (nil when nothing).
func (m *Manager) Consent(server string) *Consent {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.servers[server]; ok {
		return s.cfg.Consent.clone()
	}
	return nil
}

// Restart stops a server and starts it again as the person's start (its automatic restarts count anew).
func (m *Manager) Restart(name string) error {
	m.editMu.Lock()
	defer m.editMu.Unlock()
	m.mu.Lock()
	s, ok := m.servers[name]
	if !ok {
		m.mu.Unlock()
		return refusal(CodeServerUnknown, "", "no MCP server %q", name)
	}
	if s.problem != nil {
		m.mu.Unlock()
		return s.problem
	}
	if s.cfg.Disabled {
		m.mu.Unlock()
		return refusal(CodeServerNotReady, "", "%q is turned off; turn it on to start it", name)
	}
	r := m.stopLocked(s)
	m.mu.Unlock()
	if r != nil {
		<-r.done
	}
	m.mu.Lock()
	m.startLocked(s, true)
	m.changedLocked()
	m.mu.Unlock()
	return nil
}

// edit decides the new entry for name with decide (nil: remove it), writes the list, then stops the old
// server and starts the new one.
func (m *Manager) edit(name string, decide func(cur *server) (*Server, error)) error {
	m.editMu.Lock()
	defer m.editMu.Unlock()
	m.mu.Lock()
	cur := m.servers[name]
	next, err := decide(cur)
	m.mu.Unlock()
	if err != nil {
		return err
	}
	return m.write(name, next, true)
}

// write puts next (nil: nothing) as name's entry into the file, then into the running list; restart says
// whether the server is stopped and started again (false for a change of consent only).
func (m *Manager) write(name string, next *Server, restart bool) error {
	m.mu.Lock()
	if m.fileErr != nil {
		m.mu.Unlock()
		return refusal(CodeServersFile, "", "%s could not be read, so nothing is written over it: %v", m.path, m.fileErr)
	}
	if m.closed {
		m.mu.Unlock()
		return refusal(CodeServersFile, "", "Voicebox is closing")
	}
	f := m.file.with(name, next)
	if err := WriteFile(m.path, f); err != nil {
		m.mu.Unlock()
		return refusal(CodeServersFile, "", "writing %s: %v", m.path, err)
	}
	m.file = f
	s := m.servers[name]
	if !restart && s != nil && next != nil {
		s.cfg.Consent = next.Consent.clone()
		m.changedLocked()
		m.mu.Unlock()
		return nil
	}
	var r *run
	if s != nil {
		r = m.stopLocked(s)
	}
	m.mu.Unlock()
	if r != nil {
		<-r.done
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if next == nil {
		delete(m.servers, name)
	} else {
		if s == nil {
			s = &server{name: name, state: StateStopped}
			m.servers[name] = s
		}
		s.cfg, s.problem = next.clone(), nil
		m.startLocked(s, true)
	}
	m.changedLocked()
	return nil
}
