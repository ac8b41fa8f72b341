package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/services"
)

// ChannelPath is a room's request channel in `voicebox serve` (docs/sandbox.md, "Room ↔ Go"): one
// WebSocket per room page (?room=<id>). Go writes the requests its registry queued for that room, as JSON
// arrays, oldest first; the room writes its replies back, as JSON arrays too. A connected room is present
// (hello); a room whose channel stayed closed longer than the grace period (a reconnect) said goodbye.
const ChannelPath = "/api/room/channel"

// channel serves ChannelPath.
type channel struct {
	svc    *services.RegistryService
	reg    *registry.Registry
	grace  time.Duration
	accept websocket.AcceptOptions // a room page on another origin than the channel's host names it here

	mu   sync.Mutex
	open map[string]int // room → connected channels
	gen  map[string]int // room → connections so far, to tell a reconnect from the end
}

func newChannel(svc *services.RegistryService, grace time.Duration, roomOrigins ...string) *channel {
	if grace <= 0 {
		grace = 5 * time.Second
	}
	return &channel{svc: svc, reg: services.RegistryOf(svc), grace: grace, open: map[string]int{}, gen: map[string]int{},
		accept: websocket.AcceptOptions{OriginPatterns: roomOrigins, Subprotocols: []string{RoomProtocol}}}
}

func (c *channel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	room := r.URL.Query().Get("room")
	if err := c.svc.Hello(room); err != nil {
		reply(w, nil, err)
		return
	}
	// The door has checked the Origin when there is one; a browser's WebSocket always sends it.
	if r.Header.Get("Origin") == "" {
		writeError(w, http.StatusForbidden, CodeForbiddenOrigin, "the room channel is for the room's own page")
		return
	}
	defer c.enter(room)() // before the upgrade: the room counts as connected once its page hears so
	ws, err := websocket.Accept(w, r, &c.accept)
	if err != nil {
		return
	}
	defer ws.CloseNow()
	// Replies are read whole whatever their size, so that the registry's output check (not the socket)
	// refuses an oversized result.
	ws.SetReadLimit(MaxBody)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		defer cancel()
		for {
			batch, err := c.reg.Take(ctx, room)
			if err != nil {
				_ = ws.Close(websocket.StatusNormalClosure, "the room said goodbye")
				return
			}
			b, _ := json.Marshal(batch)
			if err := ws.Write(ctx, websocket.MessageText, b); err != nil {
				c.reg.Untake(room, batch) // the room's next channel gets them
				return
			}
		}
	}()
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			return
		}
		var reps []registry.Reply
		if err := json.Unmarshal(b, &reps); err != nil {
			_ = ws.Close(websocket.StatusUnsupportedData, "replies are a JSON array")
			return
		}
		for _, rep := range reps {
			rep.Room = room // a channel answers for its own room only
			_ = c.reg.Reply(rep)
		}
	}
}

// enter counts a channel of room and returns what to call when it closes: once the room has had no
// channel for the grace period, it has gone (closed or reloaded: a new page is a new room).
func (c *channel) enter(room string) func() {
	c.mu.Lock()
	c.open[room]++
	c.gen[room]++
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.open[room]--
		gen := c.gen[room]
		c.mu.Unlock()
		time.AfterFunc(c.grace, func() {
			c.mu.Lock()
			gone := c.open[room] == 0 && c.gen[room] == gen
			if gone {
				delete(c.open, room)
				delete(c.gen, room)
			}
			c.mu.Unlock()
			if gone {
				_ = c.svc.Goodbye(room)
			}
		})
	}
}
