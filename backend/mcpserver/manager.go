package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/voicebox/voicebox/backend/author"
	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/mcpdoor"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/settings"
	"github.com/voicebox/voicebox/backend/verbs"
)

// EventStatus is published on the bus whenever the server starts, stops or its clients change. Its data
// is a Status without the token.
const EventStatus = "mcp:status"

// Status is what Settings and the room's side panel show.
type Status struct {
	Enabled   bool     `json:"enabled"`          // the switch is on (Settings, or --mcp for this run)
	Forced    bool     `json:"forced,omitempty"` // on because of --mcp
	Running   bool     `json:"running"`
	URL       string   `json:"url,omitempty"`
	Token     string   `json:"token,omitempty"`
	Discovery string   `json:"discovery"` // the discovery file `voicebox mcp` reads
	Clients   []Client `json:"clients"`
	Error     string   `json:"error,omitempty"` // why it is not running although enabled
}

// ManagerOptions configure a Manager.
type ManagerOptions struct {
	Registry *registry.Registry
	Settings *settings.Store
	DataDir  string
	Addr     string // "" means $VOICEBOX_MCP_ADDR, then mcpdoor.DefaultAddr
	Mode     string // "desktop" or "serve", for the discovery file
	Version  string
	Library  verbs.Library   // what launch_mini_app can open (the store); may be nil
	Author   *author.Service // writes apps (create_mini_app, …); may be nil
	Exposed  *exposed.Table  // shared with the voice session; may be nil (the server makes its own)
	// AllowedOrigins are browser origins allowed besides none (see Options).
	AllowedOrigins []string
	// Publish sends an event to the room (events.Bus.Publish). Optional.
	Publish func(name string, data any)
	Logger  *slog.Logger
}

// Manager starts and stops the MCP server as the Settings switch (or --mcp) says. It is safe for
// concurrent use.
type Manager struct {
	o ManagerOptions

	mu      sync.Mutex
	forced  bool
	srv     *Server
	httpSrv *http.Server
	disc    mcpdoor.Discovery
	lastErr string
}

// NewManager returns a stopped manager.
func NewManager(o ManagerOptions) *Manager {
	if o.Addr == "" {
		o.Addr = os.Getenv(mcpdoor.EnvAddr)
	}
	if o.Addr == "" {
		o.Addr = mcpdoor.DefaultAddr
	}
	return &Manager{o: o}
}

// SetMode names the app (for the discovery file and serverInfo) before Start.
func (m *Manager) SetMode(mode, version string) {
	m.mu.Lock()
	m.o.Mode, m.o.Version = mode, version
	m.mu.Unlock()
}

// Start runs the server if the Settings switch is on or forced (--mcp) is set. Failing to start is
// reported in the Status (and returned), never fatal for the app.
func (m *Manager) Start(forced bool) (Status, error) {
	m.mu.Lock()
	m.forced = m.forced || forced
	on := m.forced || m.o.Settings.Get().MCPEnabled
	var err error
	if on {
		err = m.startLocked()
	}
	st := m.statusLocked()
	m.mu.Unlock()
	m.publish(st)
	return st, err
}

// SetEnabled flips the Settings switch, saves it, and starts or stops the server now.
func (m *Manager) SetEnabled(on bool) (Status, error) {
	m.adoptDiskToken() // before this write replaces the file
	if _, err := m.o.Settings.Update(func(v *settings.Values) { v.MCPEnabled = on }); err != nil {
		return m.Status(), err
	}
	m.mu.Lock()
	var err error
	if on {
		err = m.startLocked()
	} else {
		m.forced = false
		m.stopLocked()
	}
	st := m.statusLocked()
	m.mu.Unlock()
	m.publish(st)
	return st, err
}

// RotateToken replaces the bearer token; a running server restarts with the new one (its clients must
// be reconfigured, which is the point).
func (m *Manager) RotateToken() (Status, error) {
	if _, err := m.o.Settings.Update(func(v *settings.Values) { v.MCPToken = settings.NewToken() }); err != nil {
		return m.Status(), err
	}
	m.mu.Lock()
	var err error
	if m.srv != nil {
		m.stopLocked()
		err = m.startLocked()
	}
	st := m.statusLocked()
	m.mu.Unlock()
	m.publish(st)
	return st, err
}

// Status reports the switch, the URL, the token and the connected clients.
func (m *Manager) Status() Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.statusLocked()
}

// Close stops the server and removes the discovery file. The switch keeps its saved value.
func (m *Manager) Close() {
	m.mu.Lock()
	m.stopLocked()
	m.mu.Unlock()
}

func (m *Manager) statusLocked() Status {
	st := Status{
		Enabled:   m.forced || m.o.Settings.Get().MCPEnabled,
		Forced:    m.forced,
		Running:   m.srv != nil,
		Discovery: mcpdoor.DiscoveryPath(m.o.DataDir),
		Clients:   []Client{},
		Error:     m.lastErr,
	}
	if m.srv != nil {
		st.URL = m.disc.URL
		st.Token = m.disc.Token
		st.Clients = m.srv.Clients()
	} else if tok := m.o.Settings.Get().MCPToken; tok != "" {
		st.Token = tok
	}
	return st
}

func (m *Manager) publish(st Status) {
	if m.o.Publish != nil {
		st.Token = ""
		m.o.Publish(EventStatus, st)
	}
}

func (m *Manager) startLocked() error {
	if m.srv != nil {
		return nil
	}
	m.lastErr = ""
	err := m.tryStartLocked()
	if err != nil {
		m.lastErr = err.Error()
	}
	return err
}

func (m *Manager) tryStartLocked() error {
	m.adoptDiskToken()
	token, err := m.o.Settings.MCPToken()
	if err != nil {
		return err
	}
	ln, err := listen(m.o.Addr)
	if err != nil {
		return err
	}
	srv, err := New(Options{
		Registry:       m.o.Registry,
		Token:          token,
		Version:        m.o.Version,
		AllowedOrigins: m.o.AllowedOrigins,
		Library:        m.o.Library,
		Author:         m.o.Author,
		Exposed:        m.o.Exposed,
		Logger:         m.o.Logger,
		OnClients: func([]Client) {
			m.publish(m.Status())
		},
	})
	if err != nil {
		ln.Close()
		return err
	}
	hostPort := ln.Addr().String()
	httpSrv := &http.Server{Handler: srv.Handler(hostPort), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := httpSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && m.o.Logger != nil {
			m.o.Logger.Error("mcp: serve", "err", err)
		}
	}()
	disc := mcpdoor.Discovery{URL: "http://" + hostPort + mcpdoor.Path, Token: token, PID: os.Getpid(), Mode: m.o.Mode, Version: m.o.Version, Started: time.Now().UTC()}
	if err := mcpdoor.WriteDiscovery(m.o.DataDir, disc); err != nil {
		srv.Close()
		httpSrv.Close()
		return err
	}
	m.srv, m.httpSrv, m.disc = srv, httpSrv, disc
	return nil
}

// adoptDiskToken takes the token `voicebox mcp --print-config` may have written to settings.json while
// this app was running without one, so the config a person already pasted into a client keeps working.
func (m *Manager) adoptDiskToken() {
	if m.o.Settings.Get().MCPToken != "" {
		return
	}
	disk, err := settings.Read(m.o.DataDir)
	if err != nil {
		return
	}
	if tok := disk.MCPToken; tok != "" {
		_, _ = m.o.Settings.Update(func(v *settings.Values) {
			if v.MCPToken == "" {
				v.MCPToken = tok
			}
		})
	}
}

func (m *Manager) stopLocked() {
	if m.srv == nil {
		return
	}
	srv, httpSrv, disc := m.srv, m.httpSrv, m.disc
	m.srv, m.httpSrv, m.disc = nil, nil, mcpdoor.Discovery{}
	mcpdoor.RemoveDiscovery(m.o.DataDir, disc)
	// Unlock-free: the callbacks of srv take m.mu through Status, so they must not run while we wait.
	// Closing sessions first ends their streams; then the listener.
	go srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := httpSrv.Shutdown(ctx); err != nil {
		httpSrv.Close()
	}
}

// listen binds addr (loopback only), falling back to a free port when the preferred one is taken.
func listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("mcp: address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("mcp: address %q: the MCP server listens on a loopback IP only (127.0.0.1)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	ln, err2 := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err2 != nil {
		return nil, fmt.Errorf("mcp: listen on %s: %w", addr, err)
	}
	return ln, nil
}

// ClientConfig is the client config for this binary, the manager's data folder and its server.
func (m *Manager) ClientConfig() ([]byte, error) {
	token, err := m.o.Settings.MCPToken()
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	url := m.disc.URL
	m.mu.Unlock()
	if url == "" {
		url = mcpdoor.URL(m.o.DataDir, m.o.Addr)
	}
	return mcpdoor.ClientConfigFor(mcpdoor.Executable(), m.o.DataDir, url, token)
}
