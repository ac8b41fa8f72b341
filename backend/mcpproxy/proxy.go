// Package mcpproxy is `voicebox mcp`: MCP over stdio for clients that only launch commands, forwarded to the
// running Voicebox that the data folder's discovery file names (backend/mcpdoor). It links no server and
// no window, so the program MCP clients start for each session starts in milliseconds (cmd/voicebox).
package mcpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/mcpdoor"
)

// ProxyOptions configure RunStdio.
type ProxyOptions struct {
	DataDir string
	Version string
	In      io.ReadCloser  // stdin
	Out     io.WriteCloser // stdout
	Stderr  io.Writer
	Logger  *slog.Logger
}

// RunStdio is `voicebox mcp`: MCP over stdio (newline-delimited JSON-RPC on In and Out) for clients that
// only launch commands, forwarded to the running Voicebox that the data folder's discovery file names.
// When none is running, or its MCP is off, requests fail with an MCP error saying so (also written to
// Stderr), and the next request looks again, so starting Voicebox later needs no client restart.
// It returns when the client closes stdin or ctx ends.
func RunStdio(ctx context.Context, o ProxyOptions) error {
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	p := &proxy{o: o, mirrored: map[string]string{}, log: logger}
	p.server = mcp.NewServer(&mcp.Implementation{Name: "voicebox", Title: "Voicebox mini-apps (stdio)", Version: o.Version}, &mcp.ServerOptions{
		Logger:                    logger,
		Capabilities:              &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
		SupportedProtocolVersions: mcpdoor.ProtocolVersions,
		InitializedHandler: func(ctx context.Context, req *mcp.InitializedRequest) {
			// Connect early so the tools are mirrored (and list_changed flows) before the first tools/list.
			go func() { _ = p.ensure(context.WithoutCancel(ctx), clientInfo(req.Session)) }()
		},
	})
	p.server.AddReceivingMiddleware(p.middleware)
	if _, err := mcpdoor.ReadDiscovery(o.DataDir); err != nil {
		p.warn(p.explain(err))
	}
	defer p.close()
	err := p.server.Run(ctx, &mcp.IOTransport{Reader: o.In, Writer: o.Out})
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

type proxy struct {
	o      ProxyOptions
	server *mcp.Server
	log    *slog.Logger

	mu       sync.Mutex
	up       *mcp.ClientSession
	mirrored map[string]string // tool name → its JSON, to see changes
	warned   string
}

func clientInfo(ss *mcp.ServerSession) *mcp.Implementation {
	if ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			return p.ClientInfo
		}
	}
	return nil
}

func (p *proxy) warn(msg string) {
	p.mu.Lock()
	repeat := p.warned == msg
	p.warned = msg
	p.mu.Unlock()
	if !repeat {
		fmt.Fprintf(p.o.Stderr, "voicebox mcp: %s\n", msg)
	}
}

// explain turns a connection failure into what a person should do.
func (p *proxy) explain(err error) string {
	switch {
	case errors.Is(err, mcpdoor.ErrNotRunning):
		return fmt.Sprintf("%v. Start Voicebox and switch on Settings › MCP (or start it with --mcp), or run `voicebox serve --mcp`; "+
			"pass --data if it uses another data folder than %s.", err, p.o.DataDir)
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ENOENT):
		return fmt.Sprintf("the Voicebox named in %s does not answer (it may have quit, or turned MCP off): %v", mcpdoor.DiscoveryPath(p.o.DataDir), err)
	case errors.Is(err, errUnauthorized):
		return fmt.Sprintf("Voicebox refused the token in %s (it was rotated?); turn MCP off and on in Settings", mcpdoor.DiscoveryPath(p.o.DataDir))
	}
	return err.Error()
}

var errUnauthorized = errors.New("401 Unauthorized")

// ensure connects to the running Voicebox unless connected, and mirrors its tools.
func (p *proxy) ensure(ctx context.Context, who *mcp.Implementation) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.up != nil {
		return nil
	}
	d, err := mcpdoor.ReadDiscovery(p.o.DataDir)
	if err != nil {
		return err
	}
	impl := &mcp.Implementation{Name: "voicebox-mcp", Version: p.o.Version}
	if who != nil {
		// The room shows (and logs calls by) the real client, not this forwarder.
		impl = &mcp.Implementation{Name: who.Name, Title: who.Title, Version: who.Version}
	}
	client := mcp.NewClient(impl, &mcp.ClientOptions{
		Logger: p.log,
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			go p.resync()
		},
	})
	// The socket, where the discovery file names one: only this user can open it, and nothing else may
	// stand in for it. Never the port instead when it does not answer (a crashed Voicebox's file names a
	// port that anyone may hold now). The port only where Voicebox could not make a socket (mcpdoor).
	rt := &mcpdoor.BearerTransport{Token: d.Token}
	endpoint := d.URL
	if d.Socket != "" {
		if rt.Base, err = mcpdoor.SocketTransport(d.Socket); err != nil {
			return err
		}
		endpoint = "http://" + mcpdoor.SocketHost + mcpdoor.Path
	}
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: rt}, MaxRetries: 2}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cs, err := client.Connect(cctx, tr, nil)
	if err != nil {
		if rt.Unauthorized() {
			return errUnauthorized
		}
		return fmt.Errorf("connect to %s: %w", where(d), err)
	}
	p.up = cs
	p.warned = ""
	go func() {
		_ = cs.Wait()
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.up == cs {
			p.up = nil
			p.mirrorLocked(nil)
		}
	}()
	tools, err := listAll(cctx, cs)
	if err != nil {
		return err
	}
	p.mirrorLocked(tools)
	return nil
}

// where names the door the forwarder dials for d.
func where(d mcpdoor.Discovery) string {
	if d.Socket != "" {
		return d.Socket
	}
	return d.URL
}

func listAll(ctx context.Context, cs *mcp.ClientSession) ([]*mcp.Tool, error) {
	var out []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func (p *proxy) resync() {
	p.mu.Lock()
	cs := p.up
	p.mu.Unlock()
	if cs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tools, err := listAll(ctx, cs)
	if err != nil {
		p.log.Warn("mcp proxy: list tools", "err", err)
		return
	}
	p.mu.Lock()
	if p.up == cs {
		p.mirrorLocked(tools)
	}
	p.mu.Unlock()
}

// mirrorLocked makes the local server list exactly tools; the SDK then tells the client list_changed.
func (p *proxy) mirrorLocked(tools []*mcp.Tool) {
	want := map[string]*mcp.Tool{}
	sig := map[string]string{}
	for _, t := range tools {
		if t == nil || t.Name == "" {
			continue
		}
		b, _ := json.Marshal(t)
		want[t.Name], sig[t.Name] = t, string(b)
	}
	var gone []string
	for name, s := range p.mirrored {
		if sig[name] != s {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		p.server.RemoveTools(gone...)
		for _, name := range gone {
			delete(p.mirrored, name)
		}
	}
	names := make([]string, 0, len(want))
	for name := range want {
		if _, ok := p.mirrored[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		if err := addMirrored(p.server, want[name], p.forward); err != nil {
			p.log.Warn("mcp proxy: tool", "tool", name, "err", err)
			continue
		}
		p.mirrored[name] = sig[name]
	}
}

func addMirrored(s *mcp.Server, t *mcp.Tool, h mcp.ToolHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	s.AddTool(t, h)
	return nil
}

// forward sends a call upstream with the raw arguments, and returns the upstream result unchanged.
func (p *proxy) forward(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := p.ensure(ctx, clientInfo(req.Session)); err != nil {
		msg := p.explain(err)
		p.warn(msg)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
	}
	p.mu.Lock()
	cs := p.up
	p.mu.Unlock()
	params := &mcp.CallToolParams{Name: req.Params.Name, Meta: req.Params.Meta}
	if len(req.Params.Arguments) > 0 {
		params.Arguments = req.Params.Arguments
	}
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		var wire *jsonrpc.Error
		if errors.As(err, &wire) {
			return nil, wire
		}
		msg := fmt.Sprintf("the call did not reach Voicebox: %v", err)
		p.warn(msg)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
	}
	return res, nil
}

// middleware connects before tools/list and tools/call, answering a clear MCP error when Voicebox is not
// there; tools/list refreshes the mirror first, and tools/call is always forwarded, so a tool the mirror has
// not seen yet still reaches Voicebox (which refuses unknown tools itself).
func (p *proxy) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list", "tools/call":
			ss, _ := req.GetSession().(*mcp.ServerSession)
			if err := p.ensure(ctx, clientInfo(ss)); err != nil {
				msg := p.explain(err)
				p.warn(msg)
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "voicebox mcp: " + msg}
			}
			if method == "tools/call" {
				if cr, ok := req.(*mcp.CallToolRequest); ok && cr.Params != nil {
					return p.forward(ctx, cr)
				}
			} else {
				// The mirror follows list_changed, which the SDK sends 10 ms after a change at the soonest:
				// a client that lists right after an app opened would not see its tools yet. Ask now.
				p.resync()
			}
		}
		return next(ctx, method, req)
	}
}

func (p *proxy) close() {
	p.mu.Lock()
	cs := p.up
	p.up = nil
	p.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
}

// Command is `voicebox mcp [--data DIR] [--print-config[=http]]`; it returns the exit code. printConfig
// is "" (speak MCP over stdio), mcpdoor.FormStdio or mcpdoor.FormHTTP; the HTTP form, which holds the
// lasting token, is printed with a warning on stderr (mcpdoor.HTTPWarning).
func Command(ctx context.Context, dataDir, printConfig, version string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) int {
	if printConfig != "" {
		b, err := mcpdoor.ClientConfig(dataDir, printConfig)
		if err != nil {
			fmt.Fprintf(stderr, "voicebox mcp: %v\n", err)
			return 1
		}
		if printConfig == mcpdoor.FormHTTP {
			fmt.Fprintf(stderr, "voicebox mcp: warning: %s\n", mcpdoor.HTTPWarning)
		}
		_, _ = stdout.Write(b)
		return 0
	}
	if err := RunStdio(ctx, ProxyOptions{DataDir: dataDir, Version: version, In: stdin, Out: stdout, Stderr: stderr}); err != nil {
		fmt.Fprintf(stderr, "voicebox mcp: %v\n", err)
		return 1
	}
	return 0
}
