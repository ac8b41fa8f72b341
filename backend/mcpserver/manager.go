package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"syscall"
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
	Running   bool     `json:"running"`          // it answers, on its socket or its port
	URL       string   `json:"url,omitempty"`    // the HTTP door, when its port is open
	Socket    string   `json:"socket,omitempty"` // the socket `voicebox mcp` reaches it through, when open
	Token     string   `json:"token,omitempty"`
	Discovery string   `json:"discovery"` // the discovery file `voicebox mcp` reads
	Clients   []Client `json:"clients"`
	// Error says why it is not running although enabled, or why a door of a running one is shut (its
	// port in use by another program).
	Error string `json:"error,omitempty"`
	// Port is the HTTP door's port (settings.Values.MCPPort, or the default); PortFixedBy names what
	// decides it when Settings cannot (VOICEBOX_MCP_ADDR).
	Port        int    `json:"port"`
	PortFixedBy string `json:"portFixedBy,omitempty"`
}

// ErrPortInUse marks an HTTP door whose port another program holds: the door stays shut rather than
// move, since a client configured for the port would send its token to that program (docs/sandbox.md,
// "Ports and credentials").
var ErrPortInUse = errors.New("in use by another program")

// ManagerOptions configure a Manager.
type ManagerOptions struct {
	Registry *registry.Registry
	Settings *settings.Store
	DataDir  string
	Addr     string // the HTTP door's address; "" means mcpdoor.ConfiguredAddr (the environment, Settings, the default)
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
	doors   []*http.Server // the socket's and the port's, those that opened
	disc    mcpdoor.Discovery
	lastErr string
}

// NewManager returns a stopped manager.
func NewManager(o ManagerOptions) *Manager { return &Manager{o: o} }

// addr is the HTTP door's address and what fixed it, if not Settings.
func (m *Manager) addr() (addr, fixedBy string) {
	if m.o.Addr != "" {
		return m.o.Addr, "ManagerOptions.Addr"
	}
	return mcpdoor.ConfiguredAddr(m.o.Settings.Get())
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
	return m.change(func(v *settings.Values) { v.MCPToken = settings.NewToken() })
}

// change saves a setting of the door and, if the server runs, starts it again with it.
func (m *Manager) change(set func(*settings.Values)) (Status, error) {
	if _, err := m.o.Settings.Update(set); err != nil {
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

// SetPort saves the HTTP door's port (0: the default) and, if the server runs, starts it again there
// (clients configured with the old URL must be given the new one). The environment's address
// (VOICEBOX_MCP_ADDR), when set, decides instead, and the port is refused.
func (m *Manager) SetPort(port int) (Status, error) {
	if port < 0 || port > 65535 {
		return m.Status(), fmt.Errorf("mcp: a port is 1 to 65535 (0 for the default), not %d", port)
	}
	if _, fixedBy := m.addr(); fixedBy != "" {
		return m.Status(), fmt.Errorf("mcp: %s decides the port for this run", fixedBy)
	}
	return m.change(func(v *settings.Values) { v.MCPPort = port })
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
	addr, fixedBy := m.addr()
	_, port, _ := net.SplitHostPort(addr)
	st := Status{
		Enabled:     m.forced || m.o.Settings.Get().MCPEnabled,
		Forced:      m.forced,
		Running:     m.srv != nil,
		Discovery:   mcpdoor.DiscoveryPath(m.o.DataDir),
		Clients:     []Client{},
		Error:       m.lastErr,
		PortFixedBy: fixedBy,
	}
	st.Port, _ = strconv.Atoi(port)
	if m.srv != nil {
		st.URL = m.disc.URL
		st.Socket = m.disc.Socket
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
	shut, err := m.tryStartLocked()
	switch {
	case err != nil:
		m.lastErr = err.Error()
	case shut != nil:
		m.lastErr = shut.Error()
		if m.o.Logger != nil {
			m.o.Logger.Warn("mcp: a door is shut", "err", shut)
		}
	}
	return err
}

// tryStartLocked opens the server's two doors, the socket (the stdio form's channel) and the port (the
// HTTP form's); it runs when either opens, and shut says why the other did not.
func (m *Manager) tryStartLocked() (shut, err error) {
	m.adoptDiskToken()
	token, err := m.o.Settings.MCPToken()
	if err != nil {
		return nil, err
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
		return nil, err
	}
	disc := mcpdoor.Discovery{Token: token, PID: os.Getpid(), Mode: m.o.Mode, Version: m.o.Version, Started: time.Now().UTC()}
	var doors []*http.Server
	open := func(ln net.Listener, host string) {
		door := &http.Server{Handler: srv.Handler(host), ReadHeaderTimeout: 10 * time.Second}
		doors = append(doors, door)
		go func() {
			if err := door.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && m.o.Logger != nil {
				m.o.Logger.Error("mcp: serve", "err", err)
			}
		}()
	}
	sock, sockErr := mcpdoor.ListenSocket(m.o.DataDir)
	if sockErr == nil {
		open(sock, mcpdoor.SocketHost)
		disc.Socket = mcpdoor.SocketPath(m.o.DataDir)
	}
	addr, _ := m.addr()
	ln, portErr := listen(addr)
	if portErr == nil {
		open(ln, ln.Addr().String())
		disc.URL = "http://" + ln.Addr().String() + mcpdoor.Path
	}
	closeAll := func() {
		srv.Close()
		for _, d := range doors {
			d.Close()
		}
	}
	switch {
	case len(doors) == 0:
		closeAll()
		return nil, errors.Join(portErr, sockErr)
	case portErr != nil:
		shut = portErr
	case sockErr != nil:
		shut = fmt.Errorf("`voicebox mcp` reaches this server over its port (%w)", sockErr)
	}
	if err := mcpdoor.WriteDiscovery(m.o.DataDir, disc); err != nil {
		closeAll()
		return nil, err
	}
	m.srv, m.doors, m.disc = srv, doors, disc
	return shut, nil
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
	srv, doors, disc := m.srv, m.doors, m.disc
	m.srv, m.doors, m.disc = nil, nil, mcpdoor.Discovery{}
	mcpdoor.RemoveDiscovery(m.o.DataDir, disc)
	// Unlock-free: the callbacks of srv take m.mu through Status, so they must not run while we wait.
	// Closing sessions first ends their streams; then the listeners (the socket's file goes with its).
	go srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for _, d := range doors {
		if err := d.Shutdown(ctx); err != nil {
			d.Close()
		}
	}
}

// listen binds addr (loopback only). A port another program holds is an error that says so: the door
// never moves to another port on its own (ErrPortInUse). Port 0 asks for a free port knowingly (tests).
func listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("mcp: address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("mcp: address %q: the MCP server listens on a loopback IP only (127.0.0.1)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("mcp: port %s is %w: the HTTP door stays shut (choose another port in Settings › MCP; `voicebox mcp` works meanwhile)", port, ErrPortInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("mcp: listen on %s: %w", addr, err)
	}
	return ln, nil
}

// StdioConfig is the stdio form of the client config for this binary and the manager's data folder: it
// holds no token (mcpdoor.FormStdio).
func (m *Manager) StdioConfig() ([]byte, error) {
	return mcpdoor.StdioConfig(mcpdoor.Executable(), m.o.DataDir)
}

// HTTPConfig is the HTTP form, with the lasting token, for the running server's URL, or where it will
// listen when it is off; an error while its port is in use by another program.
func (m *Manager) HTTPConfig() ([]byte, error) {
	addr, _ := m.addr()
	if !mcpdoor.HasFixedPort(addr) { // a URL good for this run only
		return nil, mcpdoor.ErrNoFixedPort
	}
	token, err := m.o.Settings.MCPToken()
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	running, url, lastErr := m.srv != nil, m.disc.URL, m.lastErr
	m.mu.Unlock()
	if running && url == "" {
		return nil, fmt.Errorf("the HTTP door is shut: %s", lastErr)
	}
	if url == "" {
		url = "http://" + addr + mcpdoor.Path
	}
	return mcpdoor.HTTPConfig(url, token)
}
