// Package httpapi serves the room and its API to a browser (`voicebox serve`). Every request passes one
// JSON door first: loopback Host only (no DNS rebinding), no foreign Origin (a sandboxed app's blind
// no-cors POST carries Origin: null and is refused before it can change anything), JSON bodies only,
// and a body limit.
package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/voicebox/voicebox/backend/services"
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

// readJSON decodes a bounded JSON body into v. Over the limit it answers overStatus with body-too-large.
func readJSON(w http.ResponseWriter, r *http.Request, limit int64, overStatus int, v any) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, overStatus, CodeBodyTooLarge, fmt.Sprintf("request body over %d bytes", limit))
			return false
		}
		writeError(w, http.StatusBadRequest, CodeBadJSON, err.Error())
		return false
	}
	if err := json.Unmarshal(body, v); err != nil {
		writeError(w, http.StatusBadRequest, CodeBadJSON, err.Error())
		return false
	}
	return true
}

// post is a route that decodes a JSON body of at most limit bytes (over it: 413) into a Req, calls do and
// replies with what it returns.
func post[Req, Res any](limit int64, do func(Req) (Res, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req Req
		if readJSON(w, r, limit, http.StatusRequestEntityTooLarge, &req) {
			v, err := do(req)
			reply(w, v, err)
		}
	}
}

// run is a route that reads nothing from the request and replies with what do returns.
func run[Res any](do func() (Res, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := do()
		reply(w, v, err)
	}
}

// ok is the answer of a call that returns nothing.
func ok() map[string]bool { return map[string]bool{"ok": true} }

// okOr answers {"ok":true}, or err.
func okOr(err error) (map[string]bool, error) { return ok(), err }

// reply answers v, or err as services.Describe says (status and {"error","message",…}).
func reply(w http.ResponseWriter, v any, err error) {
	if err != nil {
		status, body := services.Describe(err)
		writeJSON(w, status, body)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// method is one method's handler on a path that answers several (see byMethod).
type method struct {
	name string
	h    http.HandlerFunc
}

// byMethod serves path with a handler per method; any other method is answered 405 (JSON, with Allow).
func byMethod(path string, ms ...method) http.HandlerFunc {
	allow := ""
	for i, m := range ms {
		if i > 0 {
			allow += ", "
		}
		allow += m.name
	}
	return func(w http.ResponseWriter, r *http.Request) {
		for _, m := range ms {
			if r.Method == m.name {
				m.h(w, r)
				return
			}
		}
		w.Header().Set("Allow", allow)
		writeError(w, http.StatusMethodNotAllowed, CodeMethod, r.Method+" is not allowed on "+path)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]string{"error": code, "message": msg})
}
