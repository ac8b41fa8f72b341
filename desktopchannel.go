package main

import (
	"context"
	"log"
	"net"
	"net/http"

	"github.com/voicebox/voicebox/backend/httpapi"
	"github.com/voicebox/voicebox/backend/services"
)

// roomChannel is the desktop's request channel (docs/sandbox.md, "Room ↔ Go"): the room page dials it as a
// WebSocket on a loopback port, as in `voicebox serve`, and Go writes each room's requests there, not as
// Wails events. WebKit runs every script Wails evaluates in the page (events, call results) as the person's
// gesture, and hands that gesture on with the room's window messages to the bridge and the app: a model's
// tool call would act as the person's click. A socket's message carries no gesture. It is also quicker:
// no Wails event and no bound call onto the GTK main thread per batch (docs/performance.md, "MCP calls").
type roomChannel struct {
	ln     net.Listener
	secret string
}

// listenRoomChannel opens the channel's port; it is served once the window starts (serve).
func listenRoomChannel() (*roomChannel, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return &roomChannel{ln: ln, secret: httpapi.NewSecret()}, nil
}

// origin is the channel's origin, for the room's connect-src.
func (c *roomChannel) origin() string { return "ws://" + c.ln.Addr().String() }

// url is the address the page of room dials: its key opens that room's channel only.
func (c *roomChannel) url(room string) string {
	return httpapi.ChannelURL(c.ln.Addr().String(), c.secret, room)
}

// serve answers the room pages' channels until ctx ends.
func (c *roomChannel) serve(ctx context.Context, reg *services.RegistryService) {
	h, err := httpapi.ChannelServer(httpapi.ChannelOptions{Host: c.ln.Addr().String(), RoomOrigin: DesktopRoomOrigin,
		Secret: c.secret, Registry: reg})
	if err != nil {
		log.Printf("room channel: %v", err)
		return
	}
	srv := &http.Server{Handler: h}
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.Serve(c.ln); err != nil && err != http.ErrServerClosed {
		log.Printf("room channel: %v", err)
	}
}
