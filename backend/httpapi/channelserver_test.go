package httpapi

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/sandbox"
	"github.com/voicebox/voicebox/backend/services"
)

// The desktop's channel port (ChannelServer) opens a room's channel only for the room's origin, at its own
// Host, with that room's key; with all three, a call goes down and its reply comes back. The control: the
// same channel without the port's checks lets a local process with no key take the room's calls.
func TestChannelServerOpensOnlyTheRoomsChannel(t *testing.T) {
	const roomOrigin, secret = "wails://wails", "the-run-secret"
	reg := registry.New(events.NewBus())
	rs := services.NewRegistryService(exposed.New(reg), sandbox.New(sandbox.Options{Hostname: "localhost", RoomOrigin: roomOrigin}, "127.0.0.1:1"))
	// listen serves handler(its own host:port) on a loopback port and returns that host:port.
	listen := func(handler func(host string) http.Handler) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: handler(ln.Addr().String())}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		return ln.Addr().String()
	}
	host := listen(func(host string) http.Handler {
		h, err := ChannelServer(ChannelOptions{Host: host, RoomOrigin: roomOrigin, Secret: secret, Registry: rs})
		if err != nil {
			t.Fatal(err)
		}
		return h
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dial := func(addr, origin, hostHeader string) (*websocket.Conn, int) {
		hd := http.Header{}
		if origin != "" {
			hd.Set("Origin", origin)
		}
		ws, res, err := websocket.Dial(ctx, addr, &websocket.DialOptions{HTTPHeader: hd, Host: hostHeader})
		if err != nil {
			if res == nil {
				t.Fatalf("dial %s: %v", addr, err)
			}
			return nil, res.StatusCode
		}
		t.Cleanup(func() { ws.CloseNow() })
		return ws, 101
	}
	other := ChannelURL(host, secret, "room-b") // room-b's own key
	_, otherKey, _ := strings.Cut(other, "key=")
	for name, c := range map[string]struct {
		addr, origin, host string
		status             int
	}{
		"a mini-app's origin":   {ChannelURL(host, secret, "room-a"), "null", "", 403},
		"the port's own origin": {ChannelURL(host, secret, "room-a"), "http://" + host, "", 403},
		"no origin (a script)":  {ChannelURL(host, secret, "room-a"), "", "", 403},
		"a rebound host":        {ChannelURL(host, secret, "room-a"), roomOrigin, "evil.example:80", 403},
		"no key":                {"ws://" + host + ChannelPath + "?room=room-a", roomOrigin, "", 401},
		"another room's key":    {"ws://" + host + ChannelPath + "?room=room-a&key=" + otherKey, roomOrigin, "", 401},
		"another path":          {"ws://" + host + "/api/call/RegistryService.Apps", roomOrigin, "", 404},
	} {
		if ws, status := dial(c.addr, c.origin, c.host); ws != nil || status != c.status {
			t.Errorf("%s: %d, want %d", name, status, c.status)
		}
	}
	if _, err := rs.Register("room-a", "app_x", "X", "x", []json.RawMessage{json.RawMessage(echoTool)}); err != nil {
		t.Fatal(err)
	}
	ws, _ := dial(ChannelURL(host, secret, "room-a"), roomOrigin, "")
	if ws == nil {
		t.Fatal("the room's own dial was refused")
	}
	echoRoom(ctx, ws)
	if out, _ := rs.Call("app_x", "echo", json.RawMessage(`{"text":"hi"}`)); !out.OK || string(out.Result) != `{"echo":"hi"}` {
		t.Fatalf("a call through the room's channel: %+v", out)
	}

	// Control: the channel itself, served without the port's checks, is open to any local process that
	// dials it (any Origin it likes, no key) and takes the room's calls.
	bare := listen(func(string) http.Handler { return newChannel(rs, 0) })
	if _, err := rs.Register("room-c", "app_c", "C", "c", []json.RawMessage{json.RawMessage(echoTool)}); err != nil {
		t.Fatal(err)
	}
	thief, status := dial("ws://"+bare+ChannelPath+"?"+url.Values{"room": {"room-c"}}.Encode(), "http://"+bare, "")
	if thief == nil {
		t.Fatalf("control: the bare channel refused a keyless dial (%d)", status)
	}
	echoRoom(ctx, thief)
	if out, _ := rs.Call("app_c", "echo", json.RawMessage(`{"text":"stolen"}`)); !out.OK || string(out.Result) != `{"echo":"stolen"}` {
		t.Fatalf("control: the keyless page did not take the room's call: %+v", out)
	}
}

// echoRoom answers every call the channel ws brings with {"echo": text}, as a room page would.
func echoRoom(ctx context.Context, ws *websocket.Conn) {
	answerRoom(ctx, ws, func(req registry.Request) registry.Reply {
		return registry.Reply{ID: req.ID, OK: true, Result: echoOf(req)}
	})
}

// answerRoom writes answer's reply to every request the channel ws brings, until it closes.
func answerRoom(ctx context.Context, ws *websocket.Conn, answer func(registry.Request) registry.Reply) {
	go func() {
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				return
			}
			var reqs []registry.Request
			_ = json.Unmarshal(b, &reqs)
			for _, req := range reqs {
				rep, _ := json.Marshal([]registry.Reply{answer(req)})
				_ = ws.Write(ctx, websocket.MessageText, rep)
			}
		}
	}()
}

// echoOf is an echo tool's result for req's arguments.
func echoOf(req registry.Request) json.RawMessage {
	var args map[string]string
	_ = json.Unmarshal(req.Args, &args)
	return json.RawMessage(`{"echo":` + mustJSON(args["text"]) + `}`)
}
