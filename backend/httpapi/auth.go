package httpapi

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
)

// The run's secret (docs/sandbox.md, "Ports and credentials"). The Origin checks stop browsers only; any
// local process (another user, any program) could call the room's API, read the MCP token or the
// workspace's files. So every /api route, the event stream and the room channel included, requires the
// secret that `voicebox serve` prints in the room's URL.
//
// It travels in a header, never in a cookie: cookies ignore ports, and SameSite counts every port of
// 127.0.0.1 as one site, so a cookie of the room's would go to any other server on the host that a page
// links to. Scripts and the room page send `Authorization: Bearer <secret>`; the room's WebSockets, which
// a page cannot give a header, offer it as a subprotocol (SecretProtocol). The page keeps it in its
// sessionStorage, which no other origin reads (frontend/room/src/transport.js).

// TokenParam names the secret in the room's URL: its fragment (#token=…), which no request carries, or the
// query of the address's older form (?token=…), which the door moves into the fragment.
const TokenParam = "token"

// RoomProtocol is the subprotocol a room's WebSocket offers beside SecretProtocol, and the one the server
// selects, so the secret is never echoed back.
const RoomProtocol = "voicebox"

// secretProtocolPrefix starts the subprotocol that carries the secret, base64url without padding (a
// subprotocol is an HTTP token: VOICEBOX_SERVE_TOKEN may hold characters one cannot).
const secretProtocolPrefix = "voicebox.secret."

// SecretProtocol is the subprotocol that carries secret on a WebSocket's opening request.
func SecretProtocol(secret string) string {
	return secretProtocolPrefix + base64.RawURLEncoding.EncodeToString([]byte(secret))
}

// CodeUnauthorized refuses a request without the run's secret.
const CodeUnauthorized = "unauthorized"

// NewSecret returns a random secret for one run (256 bits, hex).
func NewSecret() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:])
}

// RoomURL is the address to open: the room's origin with the secret in the fragment.
func RoomURL(host, secret string) string {
	return Origin(host) + "/#" + TokenParam + "=" + url.QueryEscape(secret)
}

// auth holds the run's secret.
type auth struct {
	sum [32]byte // sha256 of the secret: compared in constant time, whatever the length offered
}

func newAuth(secret string) *auth { return &auth{sum: sha256.Sum256([]byte(secret))} }

func (a *auth) matches(s string) bool {
	sum := sha256.Sum256([]byte(s))
	return subtle.ConstantTimeCompare(sum[:], a.sum[:]) == 1
}

// allowed says whether r carries the secret: as a bearer token, or on a WebSocket's opening request as
// SecretProtocol. A cookie is no credential here, whatever it holds.
func (a *auth) allowed(r *http.Request) bool {
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && a.matches(tok) {
		return true
	}
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return false
	}
	for _, v := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(v, ",") {
			enc, ok := strings.CutPrefix(strings.TrimSpace(p), secretProtocolPrefix)
			if !ok {
				continue
			}
			if b, err := base64.RawURLEncoding.DecodeString(enc); err == nil && a.matches(string(b)) {
				return true
			}
		}
	}
	return false
}

// toFragment answers a page request whose query carries the secret (the address's older form): the right
// secret sends the browser to the same address with the secret in the fragment instead, where the room
// page takes it (no request carries a fragment, so it reaches no log and no Referer); nothing is stored in
// the browser. It reports whether it answered.
func (a *auth) toFragment(w http.ResponseWriter, r *http.Request) bool {
	q := r.URL.Query()
	if !q.Has(TokenParam) {
		return false
	}
	secret := q.Get(TokenParam)
	if !a.matches(secret) {
		writeError(w, http.StatusUnauthorized, CodeUnauthorized, "this link's token is not this room's: open the address `voicebox serve` printed")
		return true
	}
	q.Del(TokenParam)
	clean := *r.URL
	clean.RawQuery = q.Encode()
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, clean.RequestURI()+"#"+TokenParam+"="+url.QueryEscape(secret), http.StatusSeeOther)
	return true
}

func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="voicebox"`)
	writeError(w, http.StatusUnauthorized, CodeUnauthorized, "this room needs its secret: open the address `voicebox serve` printed, or send Authorization: Bearer <secret>")
}
