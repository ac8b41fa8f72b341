package httpapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/voicebox/voicebox/backend/services"
)

// ChannelOptions configure a server of the request channel alone, for a room page this package does not
// serve: the desktop's room at wails://wails. Its requests must not arrive as Wails events, which WebKit
// runs as the person's gesture and would hand on to the apps (docs/sandbox.md, "Room ↔ Go").
type ChannelOptions struct {
	Host       string // the bound host:port; requests naming any other Host are refused
	RoomOrigin string // the room page's origin, the only Origin allowed
	Secret     string // the run's secret: each room's key is derived from it (ChannelKey)
	Registry   *services.RegistryService
	RoomGrace  time.Duration // as Options.RoomGrace
}

// ChannelKey is room's key to its channel on a ChannelServer: HMAC-SHA256 of the room's id under the run's
// secret, so a room's key opens no other room's channel and gives nothing of the secret away.
func ChannelKey(secret, room string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(room))
	return hex.EncodeToString(m.Sum(nil))
}

// ChannelURL is the address a room page dials on a ChannelServer bound to host.
func ChannelURL(host, secret, room string) string {
	return "ws://" + host + ChannelPath + "?" + url.Values{"room": {room}, "key": {ChannelKey(secret, room)}}.Encode()
}

// ChannelServer serves ChannelPath and nothing else. Before the channel: the Host exactly, the room's Origin
// exactly (a browser's WebSocket always sends one; a page elsewhere cannot forge it), and the room's key.
func ChannelServer(o ChannelOptions) (http.Handler, error) {
	if o.Secret == "" || o.RoomOrigin == "" || o.Registry == nil {
		return nil, fmt.Errorf("httpapi: a channel server needs a secret, the room's origin and the registry")
	}
	ch := newChannel(o.Registry, o.RoomGrace, o.RoomOrigin)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		want := ChannelKey(o.Secret, q.Get("room"))
		switch {
		case r.Host != o.Host:
			writeError(w, http.StatusForbidden, CodeForbiddenHost, fmt.Sprintf("host %q is not %q", r.Host, o.Host))
		case r.Header.Get("Origin") != o.RoomOrigin || len(r.Header.Values("Origin")) != 1:
			writeError(w, http.StatusForbidden, CodeForbiddenOrigin, fmt.Sprintf("origin %q may not open the room's channel", r.Header.Get("Origin")))
		case r.Method != http.MethodGet || r.URL.Path != ChannelPath:
			writeError(w, http.StatusNotFound, "not-found", "this port serves the room's request channel only")
		case !hmac.Equal([]byte(q.Get("key")), []byte(want)):
			writeError(w, http.StatusUnauthorized, CodeUnauthorized, "this channel needs the room's key")
		default:
			ch.ServeHTTP(w, r)
		}
	}), nil
}
