package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/voicebox/voicebox/backend/httpapi"
	"github.com/voicebox/voicebox/backend/services"
)

// ErrNotLoopback refuses an address a second machine could reach: the room's only login is its secret, and
// it travels in plain HTTP.
var ErrNotLoopback = errors.New("serve: --addr must be a loopback address (127.0.0.1, ::1 or localhost)")

// Listen opens the room's port. Port 0 picks a free one.
func Listen(addr string) (net.Listener, error) {
	hostPart, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("serve: %q: %w", addr, err)
	}
	if ip := net.ParseIP(hostPart); hostPart != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("%w: got %q", ErrNotLoopback, addr)
	}
	return net.Listen("tcp", addr)
}

// ServeOptions are the Options of a Host whose room is served on ln: each launch gets a site of its own
// (127.0.0.2 and up, never the room's address), so the browser runs every app in a process apart from the
// room's and the other apps': a busy app stalls neither. Where the system has no such addresses, the
// sandbox falls back to one site other than the room's (127.0.0.1 ↔ localhost), which keeps the room free.
func ServeOptions(ln net.Listener) Options {
	hostPort := ln.Addr().String()
	roomIP, _, _ := net.SplitHostPort(hostPort)
	bridgeHost := "localhost"
	if roomIP == "localhost" {
		bridgeHost = "127.0.0.1"
	}
	return Options{SandboxHost: bridgeHost, RoomOrigin: httpapi.Origin(hostPort), SitePerLaunch: true, RoomAddress: roomIP}
}

// RoomService is the room's own configuration in `voicebox serve` (the desktop binds its own RoomService,
// which adds the native dialogs and the watchdog's reports).
type RoomService struct{ h *Host }

// Config tells the room where it runs.
func (r *RoomService) Config() (services.RoomConfig, error) {
	cfg := services.NewRoomConfig("serve", r.h.Store.Workspace(), r.h.BridgeOrigin())
	cfg.Guard = true // the browser isolates the sandbox's site in its own process
	return cfg, nil
}

// ServeMethods are what `voicebox serve` serves by name: the room's methods and its RoomService.
func (h *Host) ServeMethods() []any { return append(h.RoomMethods(), &RoomService{h}) }

// Handler is the room over HTTP for a Host whose room is served at hostPort, behind the door and secret.
func (h *Host) Handler(hostPort, secret string, room fs.FS) (http.Handler, error) {
	return httpapi.New(httpapi.Options{
		Host:     hostPort,
		Secret:   secret,
		Room:     room,
		RoomCSP:  RoomCSP("", h.Sandbox.Origins()...),
		Bus:      h.Bus,
		Services: h.ServeMethods(),
		Registry: h.RegistryService,
		Voice:    h.Voice,
	})
}

// Serve runs the room over HTTP on ln until ctx ends; every /api route requires secret (httpapi: auth.go).
// ready, if set, is called with the room's URL, the secret included, once the store is watched and the
// port answers.
func (h *Host) Serve(ctx context.Context, ln net.Listener, room fs.FS, secret string, ready func(url string)) error {
	if err := h.Start(ctx); err != nil {
		return err
	}
	hostPort := ln.Addr().String()
	handler, err := h.Handler(hostPort, secret, room)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if ready != nil {
		ready(httpapi.RoomURL(hostPort, secret))
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		log.Printf("serve: shutdown: %v", err)
	}
	return nil
}

// RoomCSP is the room page's policy: its own scripts only, frames only from the sandbox's origins, and
// connections to its own origin and to channel, where its request channel is elsewhere (the desktop's).
func RoomCSP(channel string, bridgeOrigins ...string) string {
	frames := "'none'"
	if len(bridgeOrigins) > 0 && bridgeOrigins[0] != "" {
		frames = strings.Join(bridgeOrigins, " ")
	}
	return "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
		"connect-src " + strings.TrimSpace("'self' "+channel) + "; media-src 'self' blob:; frame-src " + frames + "; object-src 'none'; base-uri 'none'; " +
		"form-action 'none'; frame-ancestors 'none'"
}
