package httpapi

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// The run's secret (docs/sandbox.md, "Ports and credentials"). The Origin checks stop browsers only; any
// local process (another user, any program) could call the room's API, read the MCP token or the
// workspace's files. So every /api route, the event stream and the room channel included, requires the
// secret that `voicebox serve` prints in the room's URL: as the room's cookie, which the first visit trades
// the URL's ?token= for, or as `Authorization: Bearer <secret>` for scripts.

// TokenParam is the query parameter of the room's URL that carries the secret on the first visit.
const TokenParam = "token"

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

// RoomURL is the address to open: the room's origin with the secret for the first visit.
func RoomURL(host, secret string) string {
	return Origin(host) + "/?" + TokenParam + "=" + url.QueryEscape(secret)
}

// auth holds the run's secret. The cookie is named after the port: cookies ignore ports, and two rooms on
// one host must not overwrite each other's.
type auth struct {
	sum    [32]byte // sha256 of the secret: compared in constant time, whatever the length offered
	cookie string
}

func newAuth(host, secret string) *auth {
	_, port, _ := net.SplitHostPort(host)
	return &auth{sum: sha256.Sum256([]byte(secret)), cookie: "voicebox-" + port}
}

func (a *auth) matches(s string) bool {
	sum := sha256.Sum256([]byte(s))
	return subtle.ConstantTimeCompare(sum[:], a.sum[:]) == 1
}

// allowed says whether r carries the secret, as the cookie or as a bearer token.
func (a *auth) allowed(r *http.Request) bool {
	if c, err := r.Cookie(a.cookie); err == nil && a.matches(c.Value) {
		return true
	}
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && a.matches(tok) {
		return true
	}
	return false
}

// trade handles a page request that carries ?token=: the right secret becomes the room's cookie
// (HttpOnly: no script reads it; SameSite=Strict: no other site's page sends it) and the browser is sent
// to the same address without it, so the secret leaves the address bar and the history. It reports whether
// it answered.
func (a *auth) trade(w http.ResponseWriter, r *http.Request) bool {
	q := r.URL.Query()
	if !q.Has(TokenParam) {
		return false
	}
	if !a.matches(q.Get(TokenParam)) {
		writeError(w, http.StatusUnauthorized, CodeUnauthorized, "this link's token is not this room's: open the address `voicebox serve` printed")
		return true
	}
	http.SetCookie(w, &http.Cookie{Name: a.cookie, Value: q.Get(TokenParam), Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	q.Del(TokenParam)
	clean := *r.URL
	clean.RawQuery = q.Encode()
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, clean.RequestURI(), http.StatusSeeOther)
	return true
}

func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="voicebox"`)
	writeError(w, http.StatusUnauthorized, CodeUnauthorized, "this room needs its secret: open the address `voicebox serve` printed, or send Authorization: Bearer <secret>")
}
