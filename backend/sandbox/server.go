// Package sandbox is the mini-apps' asset server: a loopback HTTP server on an origin distinct from the
// room's that serves the bridge document, its scripts (the bridge, the JavaScript twin of the tool contract,
// the SDK) and each launched app's files (its page, or a folder app's folder), and nothing else. See
// docs/sandbox.md.
//
// The room's origin is injected into the bridge server-side; every document carries a CSP header with
// frame-ancestors, so no page but the room can frame the bridge and no page but the bridge (inside the room)
// can frame an app. Apps are reachable only through unguessable launch tokens that live while the app is
// open and are revoked when it closes.
package sandbox

import (
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/voicebox/voicebox/backend/store"
)

//go:embed bridge.js confine.js sdk.js
var scripts embed.FS

// MaxLaunches bounds the tokens alive at once; the oldest is revoked past it.
const MaxLaunches = 64

// bridgeStyle is the bridge's only inline style (allowed by hash in BridgeCSP).
const bridgeStyle = "html,body{margin:0;height:100%;overflow:hidden;background:#fff}" +
	"iframe{border:0;width:100%;height:100%;display:block}" +
	"p{font:14px system-ui,sans-serif;color:#900;margin:16px}"

// What the room does for an app has bounds of its own (docs/webmcp.md): the bridge refuses a download or a
// copy past them, and the desktop's Save refuses a download past MaxDownloadBytes again.
const (
	MaxDownloadBytes = 64 << 20 // bytes of one download
	MaxCopyChars     = 1 << 20  // UTF-16 code units of one clipboard write
)

// PermissionsPolicy goes on the bridge's and the apps' documents: no powerful feature for either.
const PermissionsPolicy = "camera=(), microphone=(), geolocation=(), usb=(), serial=(), hid=(), payment=(), display-capture=()"

// Launch is one opened app as the asset server knows it.
type Launch struct {
	Token string `json:"launchId"`
	Room  string `json:"-"`
	AppID string `json:"appId"`
	Title string `json:"title"`
	Slug  string `json:"slug"`
	HTML  string `json:"-"`
	// Entry is the page's file name, served at AppPath(Token)+Entry. For a single page (Folder nil) it is
	// the only file served and HTML its content; a folder app serves its Folder, read at request time.
	Entry  string        `json:"-"`
	Folder *store.Folder `json:"-"`
	Origin string        `json:"-"` // the bridge's origin: the launch's site (sites.go)
	site   *site
	// children are the launch's child frames' documents (children.go), dropped when it is revoked.
	children *children
	seq      uint64 // the order of Add: the oldest launch goes first past MaxLaunches
}

// Server serves the sandbox. Create it with Listen.
type Server struct {
	sites      []*site // where it answers: one, or one per launch (sites.go)
	siteClock  uint64
	now        func() time.Time // the clock of reuseWindow (tests set it)
	added      uint64
	roomOrigin string
	cdnHosts   func() []string
	blobNav    bool // Options.BlobNavigationDownloads
	srv        *http.Server

	sdkJS      []byte // the SDK with every section (GET /sandbox/sdk.js)
	sdk        sdkVariants
	unconfined *sdkVariants // the SDK alone for child documents: only when a test asks (children.go)

	mu       sync.Mutex
	launches map[string]*Launch
}

// Options configure a Server.
type Options struct {
	// Hostname is the host name the room uses for the bridge: "127.0.0.1" in the desktop, "localhost" beside
	// a room served on 127.0.0.1 (a different site, so the browser gives the sandbox its own process).
	Hostname string
	// SitePerLaunch gives each launch a site of its own (sites.go): MaxLaunches loopback addresses from
	// 127.0.0.2 up, never RoomAddress. When the system has no such addresses, Hostname's one site is used.
	SitePerLaunch bool
	// RoomAddress is the IP address the room is served on, which a site must not share.
	RoomAddress string
	// RoomOrigin is the origin of the room page, the only page that may frame the bridge.
	RoomOrigin string
	// CDNHosts returns the hosts apps may load scripts, styles, images and fonts from (nil: none).
	CDNHosts func() []string
	// BlobNavigationDownloads lets the app frame's navigation to a blob: URL past the bridge's frame-src, to
	// the desktop's guard, which makes it a download and loads no blob: document (backend/guard,
	// blobdownload.c). Only where that guard decides every navigation: a browser would load the document.
	BlobNavigationDownloads bool
}

// Listen opens the asset server on a random loopback port. Serve must be called to answer.
func Listen(o Options) (*Server, error) {
	if o.Hostname == "" {
		o.Hostname = "127.0.0.1"
	}
	if o.Hostname != "127.0.0.1" && o.Hostname != "localhost" {
		return nil, fmt.Errorf("sandbox: hostname must be 127.0.0.1 or localhost, not %q", o.Hostname)
	}
	if !validOrigin(o.RoomOrigin) {
		return nil, fmt.Errorf("sandbox: invalid room origin %q", o.RoomOrigin)
	}
	if o.SitePerLaunch {
		sites, err := listenSites(MaxLaunches, o.RoomAddress)
		if err == nil {
			s := New(o, sites[0].host)
			s.sites = sites
			return s, nil
		}
		log.Printf("sandbox: one site for every launch (%v)", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	s := New(o, fmt.Sprintf("%s:%d", o.Hostname, port))
	s.sites[0].ln = ln
	return s, nil
}

// New returns a Server for the given host:port without listening (tests serve it with httptest).
func New(o Options, hostPort string) *Server {
	s := &Server{
		sites:      []*site{newSite(hostPort, nil)},
		now:        time.Now,
		roomOrigin: o.RoomOrigin,
		cdnHosts:   o.CDNHosts,
		blobNav:    o.BlobNavigationDownloads,
		launches:   map[string]*Launch{},
	}
	core, _ := scripts.ReadFile("sdk.js")
	confine, _ := scripts.ReadFile("confine.js")
	s.sdkJS = []byte(SDKScript(string(core), sdkCapabilities, sdkForms, sdkIndexedDB))
	s.sdk = newSDKVariants(stripJS(string(confine)), string(core)) // confinement first: before any app code
	s.unconfined = unconfinedVariants(os.Getenv, string(core))
	return s
}

// Serve answers on every site's listener until Close.
func (s *Server) Serve() error {
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, len(s.sites))
	for _, x := range s.sites {
		go func(ln net.Listener) { errc <- s.srv.Serve(ln) }(x.ln)
	}
	for range s.sites {
		if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
			s.srv.Close()
			return err
		}
	}
	return nil
}

// Close stops the server.
func (s *Server) Close() error {
	if s.srv != nil {
		return s.srv.Close()
	}
	closeSites(s.sites)
	return nil
}

// Origin is the first site's origin, e.g. http://127.0.0.2:41234 (the only one in the desktop).
func (s *Server) Origin() string { return s.sites[0].origin }

// RoomOrigin is the one origin allowed to frame the bridge.
func (s *Server) RoomOrigin() string { return s.roomOrigin }

// Add registers a launch and returns it with its new token.
func (s *Server) Add(l Launch) Launch {
	l.Token = newToken()
	s.mu.Lock()
	s.added++
	l.seq = s.added
	for len(s.launches) >= MaxLaunches {
		var oldest *Launch
		for _, x := range s.launches {
			if oldest == nil || x.seq < oldest.seq {
				oldest = x
			}
		}
		delete(s.launches, oldest.Token)
		s.letGo(oldest)
	}
	l.site = s.pickSite(l.AppID)
	l.children = &children{}
	l.Origin = l.site.origin
	cp := l
	s.launches[l.Token] = &cp
	s.mu.Unlock()
	return l
}

// Revoke forgets a launch: its bridge and app URLs answer 404 from now on.
func (s *Server) Revoke(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.launches[token]
	delete(s.launches, token)
	if ok {
		s.letGo(l)
	}
	return ok
}

// RevokeRoom forgets every launch a room page made (the page closed or reloaded).
func (s *Server) RevokeRoom(room string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for t, l := range s.launches {
		if l.Room == room {
			delete(s.launches, t)
			s.letGo(l)
			n++
		}
	}
	return n
}

// Lookup returns a live launch.
func (s *Server) Lookup(token string) (Launch, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.launches[token]
	if !ok {
		return Launch{}, false
	}
	return *l, true
}

// BridgeURL is where the room points the bridge frame for a launch: on the launch's own site.
func (s *Server) BridgeURL(l Launch) string { return l.Origin + pathBridge + l.Token }

// Routes.
const (
	pathBridge = "/bridge/"
	pathApp    = "/app/"
	pathSDKJS  = "/sandbox/sdk.js"
)

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	at := s.siteOf(r.Host)
	if at == nil {
		plain(w, http.StatusMisdirectedRequest, "wrong host")
		return
	}
	p := r.URL.Path
	if token, rest, ok := childRequest(r.URL.EscapedPath()); ok && (r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodPost) {
		s.serveChild(w, r, at, token, rest) // the one route that also takes a POST (children.go)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		plain(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	switch {
	case p == pathSDKJS:
		s.script(w, r, s.sdkJS)
	case strings.HasPrefix(p, pathBridge):
		s.bridge(w, r, at, strings.TrimPrefix(p, pathBridge))
	case strings.HasPrefix(p, pathApp):
		s.serveApp(w, r, at)
	default:
		plain(w, http.StatusNotFound, "not found")
	}
}

func plain(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg + "\n"))
}

// A document may be requested only as a frame: a browser that says where the response goes (Sec-Fetch-Dest)
// must say "iframe". Browsers that do not send the header still get frame-ancestors.
func framed(r *http.Request) bool {
	d := r.Header.Get("Sec-Fetch-Dest")
	return d == "" || d == "iframe" || d == "frame"
}

func (s *Server) script(w http.ResponseWriter, r *http.Request, body []byte) {
	if d := r.Header.Get("Sec-Fetch-Dest"); d != "" && d != "script" {
		plain(w, http.StatusNotFound, "not found")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Content-Security-Policy", ScriptCSP)
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// launchAt returns the live launch of a token when the request came to its own site.
func (s *Server) launchAt(at *site, token string) (Launch, bool) {
	l, ok := s.Lookup(token)
	return l, ok && l.site == at
}

func (s *Server) bridge(w http.ResponseWriter, r *http.Request, at *site, token string) {
	l, ok := s.launchAt(at, token)
	if !ok || !framed(r) {
		plain(w, http.StatusNotFound, "not found")
		return
	}
	cfg, _ := json.Marshal(struct {
		RoomOrigin       string `json:"roomOrigin"`
		AppSrc           string `json:"appSrc"`
		AppBase          string `json:"appBase"`
		LaunchID         string `json:"launchId"`
		AppID            string `json:"appId"`
		MaxDownloadBytes int    `json:"maxDownloadBytes"`
		MaxCopyChars     int    `json:"maxCopyChars"`
	}{s.roomOrigin, appSrc(l), l.Origin + AppPath(l.Token), l.Token, l.AppID, MaxDownloadBytes, MaxCopyChars}) // json.Marshal escapes <, > and &: safe in <script>
	doc := "<!doctype html><html><head><meta charset=\"utf-8\"><title>" + html.EscapeString(l.Title) + "</title>" +
		"<style>" + bridgeStyle + "</style>" +
		"<script type=\"application/json\" id=\"voicebox-bridge-config\">" + string(cfg) + "</script>" +
		"</head><body>" +
		bridgeScripts +
		"</body></html>"
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", BridgeCSP(s.roomOrigin, l.Origin, AppPath(l.Token), s.blobNav))
	h.Set("Permissions-Policy", PermissionsPolicy) // the bridge needs no device; nor may it delegate one to the app
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(doc))
	}
}

func newToken() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:])
}
