package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/voicebox/voicebox/backend/httpapi"
	"github.com/voicebox/voicebox/backend/services"
)

// ErrNotLoopback refuses an address a second machine could reach: the room has no login.
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

// Serve runs the room over HTTP on ln until ctx ends. ready, if set, is called with the room's URL once
// the store is watched and the port answers.
func (h *Host) Serve(ctx context.Context, ln net.Listener, room fs.FS, ready func(url string)) error {
	if err := h.Start(ctx); err != nil {
		return err
	}
	hostPort := ln.Addr().String()
	// The sandbox gets a different site than the room (127.0.0.1 ↔ localhost), so the browser runs it in
	// its own process: a busy app cannot freeze the room.
	bridgeHost := "localhost"
	if name, _, _ := net.SplitHostPort(hostPort); name == "localhost" {
		bridgeHost = "127.0.0.1"
	}
	if err := h.StartSandbox(ctx, bridgeHost, httpapi.Origin(hostPort)); err != nil {
		return err
	}
	handler := httpapi.New(httpapi.Options{
		Host:  hostPort,
		Room:  room,
		Store: h.StoreService,
		Bus:   h.Bus,
		Config: func() services.RoomConfig {
			return services.RoomConfig{Mode: "serve", Workspace: h.Store.Workspace(), Guard: true, BridgeOrigin: h.BridgeOrigin()}
		},
		RoomCSP:  RoomCSP(h.BridgeOrigin()),
		Registry: h.RegistryService,
		Sandbox:  h.SandboxService,
		Extra: func(mux *http.ServeMux) {
			httpapi.MCPRoutes(h.MCPService)(mux)
			httpapi.SessionRoutes(hostPort, h.SessionService, h.SettingsService)(mux)
		},
	})
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if ready != nil {
		ready(httpapi.Origin(hostPort) + "/")
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

// RoomCSP is the room page's policy: its own scripts only, frames only from the sandbox's origin.
func RoomCSP(bridgeOrigin string) string {
	frames := "'none'"
	if bridgeOrigin != "" {
		frames = bridgeOrigin
	}
	return "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
		"connect-src 'self'; media-src 'self' blob:; frame-src " + frames + "; object-src 'none'; base-uri 'none'; " +
		"form-action 'none'; frame-ancestors 'none'"
}
