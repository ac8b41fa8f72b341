// Package httpapi serves the room and its API to a browser (`voicebox serve`): the room's files, every
// bound method by name (calls.go), the room's request channel (channel.go), the event stream and the
// audio socket. Every request passes one JSON door first: loopback Host only (no DNS rebinding), no
// foreign Origin (a sandboxed app's blind no-cors POST carries Origin: null and is refused before it can
// change anything), the run's secret on every /api route (auth.go), JSON bodies only, and a body limit.
// For the desktop's room it serves the request channel alone, on a port of its own with checks of its own
// (channelserver.go).
package httpapi

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"
)

// MaxBody is the shared door's body limit: room for any mini-app's HTML.
const MaxBody = 16 << 20

// Door codes.
const (
	CodeForbiddenHost   = "forbidden-host"
	CodeForbiddenOrigin = "forbidden-origin"
	CodeUnsupportedType = "unsupported-media-type"
	CodeBodyTooLarge    = "body-too-large"
	CodeBadJSON         = "invalid-json"
	CodeMethod          = "method-not-allowed"
)

// door checks what every request must satisfy before a route sees it.
type door struct {
	host   string // the bound host:port, exactly as a browser sends it
	origin string // the room's own origin, http://host:port
	auth   *auth
	next   http.Handler
}

func (d *door) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Host != d.host {
		writeError(w, http.StatusForbidden, CodeForbiddenHost, fmt.Sprintf("host %q is not %q", r.Host, d.host))
		return
	}
	if origin, ok := r.Header["Origin"]; ok && (len(origin) != 1 || origin[0] != d.origin) {
		writeError(w, http.StatusForbidden, CodeForbiddenOrigin, fmt.Sprintf("origin %q may not call the room's API", r.Header.Get("Origin")))
		return
	}
	// Browsers mark cross-site subresource requests even when they omit Origin (a GET from a frame).
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		writeError(w, http.StatusForbidden, CodeForbiddenOrigin, "cross-site requests may not call the room's API")
		return
	}
	if strings.HasPrefix(r.URL.Path, "/api/") {
		if !d.auth.allowed(r) {
			unauthorized(w)
			return
		}
	} else if d.auth.toFragment(w, r) {
		return
	}
	if hasBody(r) {
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" {
			writeError(w, http.StatusUnsupportedMediaType, CodeUnsupportedType, "request bodies must be application/json")
			return
		}
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	d.next.ServeHTTP(w, r)
}

func hasBody(r *http.Request) bool {
	return r.ContentLength > 0 || (r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]string{"error": code, "message": msg})
}
