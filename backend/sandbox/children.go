package sandbox

import (
	"encoding/json"
	"errors"
	"html"
	"io"
	"log"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/voicebox/voicebox/backend/toolcontract"
)

// Child frames (docs/sandbox.md, "Child frames"). A child frame from srcdoc, blob: or data: would be a
// fresh realm where WebRTC is whole again, so the app's own content never becomes one: confine.js takes the
// frame's HTML away before its document commits and posts it here; the server keeps it under the launch's
// token and the child frame loads it from ChildPath, served like an app document (the app's CSP,
// confine.js and the SDK first), so everything the confinement does in the app it does in the child, and
// in the child's children.

// childDir is the reserved folder of a launch's child documents, under AppPath. It starts with a dot: no
// file of an app's folder can have that name (dotfiles are never served), so it cannot hide one.
const childDir = ".child"

// ChildPath is the path under which a launch's child documents are served, "/app/<token>/.child/": the
// app's frame-src (a CSP path source) and the route both take it from here.
func ChildPath(token string) string { return AppPath(token) + childDir + "/" }

// Bounds of the child documents a launch keeps (in memory, dropped with the launch): one document over
// MaxChildBytes is refused (child-frame-too-large, nothing stored); past MaxChildren documents or
// MaxChildrenBytes in all, the oldest are forgotten (a live preview posts a new document at every edit).
const (
	MaxChildBytes    = 2 << 20
	MaxChildren      = 32
	MaxChildrenBytes = 8 << 20
)

// UnsafeUnconfinedChildrenEnv, set to 1, serves child documents without confine.js: for the tests that
// show what the confinement stops (tests/e2e, "no WebRTC"), never for use.
const UnsafeUnconfinedChildrenEnv = "VOICEBOX_UNSAFE_UNCONFINED_CHILD_FRAMES"

// childDoc is one stored child document: its HTML and the base URL its relative URLs resolve against.
type childDoc struct {
	id         uint64
	html, base string
}

// children holds a launch's child documents, oldest first.
type children struct {
	mu    sync.Mutex
	next  uint64
	docs  []childDoc
	bytes int
}

func (c *children) add(html, base string) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	c.docs = append(c.docs, childDoc{c.next, html, base})
	c.bytes += len(html)
	for len(c.docs) > MaxChildren || c.bytes > MaxChildrenBytes {
		c.bytes -= len(c.docs[0].html)
		c.docs = c.docs[1:]
	}
	return c.next
}

func (c *children) get(id uint64) (childDoc, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.docs {
		if d.id == id {
			return d, true
		}
	}
	return childDoc{}, false
}

// drop forgets every document (the launch was revoked).
func (c *children) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.docs, c.bytes = nil, 0
}

// childRequest splits /app/<token>/.child/<rest> into the token and rest ("" for the store itself).
func childRequest(escaped string) (token, rest string, ok bool) {
	after, ok := strings.CutPrefix(escaped, pathApp)
	if !ok {
		return "", "", false
	}
	token, after, ok = strings.Cut(after, "/")
	if !ok || token == "" {
		return "", "", false
	}
	rest, ok = strings.CutPrefix(after, childDir+"/")
	return token, rest, ok
}

// serveChild answers the child routes: POST /app/<token>/.child/ stores a document from the launch's own
// opaque origin and answers {"url"} (or a structured refusal); GET /app/<token>/.child/<id> serves one as
// a frame.
func (s *Server) serveChild(w http.ResponseWriter, r *http.Request, at *site, token, rest string) {
	l, ok := s.launchAt(at, token)
	if !ok || l.children == nil {
		plain(w, http.StatusNotFound, "not found")
		return
	}
	if r.Method == http.MethodPost && rest == "" {
		s.storeChild(w, r, l)
		return
	}
	id, err := strconv.ParseUint(rest, 10, 64)
	dest := r.Header.Get("Sec-Fetch-Dest")
	if err != nil || r.Method == http.MethodPost || dest == "document" || !framed(r) {
		plain(w, http.StatusNotFound, "not found")
		return
	}
	d, ok := l.children.get(id)
	if !ok {
		plain(w, http.StatusNotFound, "not found")
		return
	}
	extra := ""
	if d.base != "" && !containsFold(d.html, "<base") { // the page's own <base> goes first, as it would in a tab
		extra = `<base href="` + html.EscapeString(d.base) + `">`
	}
	s.appDocument(w, r, l, d.html, s.childTag(d.html)+extra, ChildCSP(l.Origin, s.roomOrigin, AppPath(l.Token), s.cdn()))
}

// childTag is the confinement and the SDK for a child document: the app's own, unless a test switched
// the confinement off (UnsafeUnconfinedChildrenEnv).
func (s *Server) childTag(page string) string {
	if s.unconfined != nil {
		return s.unconfined.tagFor(page)
	}
	return s.sdk.tagFor(page)
}

// storeChild keeps the request's body as a child document of launch l. Only the app's opaque origin may
// store (Origin: null); the answer carries CORS for that origin alone.
func (s *Server) storeChild(w http.ResponseWriter, r *http.Request, l Launch) {
	if r.Header.Get("Origin") != "null" {
		plain(w, http.StatusNotFound, "not found")
		return
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "null")
	h.Add("Vary", "Origin")
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxChildBytes))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		childAnswer(w, http.StatusRequestEntityTooLarge, toolcontract.Refusal{Refused: toolcontract.CodeChildFrameTooLarge,
			Message: "a child frame's document may be at most " + strconv.Itoa(MaxChildBytes) + " bytes"})
		return
	case err != nil:
		plain(w, http.StatusBadRequest, "bad request")
		return
	}
	base := childBase(l, r.URL.Query().Get("base"))
	id := l.children.add(string(b), base)
	childAnswer(w, http.StatusOK, struct {
		URL string `json:"url"`
	}{ChildPath(l.Token) + strconv.FormatUint(id, 10)})
}

// childBase is the base URL of a child document: the URL its parent resolved relative URLs against, which
// a srcdoc document inherits in a tab, kept only when it lies in the launch's folder; else none (a blob:
// or data: document has none in a tab either: its relative URLs fail).
func childBase(l Launch, base string) string {
	folder := l.Origin + AppPath(l.Token)
	u, err := url.Parse(base)
	if base == "" || err != nil || !u.IsAbs() || u.User != nil {
		return ""
	}
	u.RawQuery, u.Fragment, u.RawFragment, u.ForceQuery = "", "", "", false
	p := strings.ToLower(u.EscapedPath())
	if strings.Contains(p, "/.") || strings.Contains(p, "%2e") || strings.Contains(p, "\\") {
		return "" // no "..", in any spelling, nor a dotfile
	}
	if s := u.String(); strings.HasPrefix(s, folder) {
		return s
	}
	return ""
}

func childAnswer(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// unconfinedVariants is the SDK without the confinement, when a test asks for it (UnsafeUnconfinedChildrenEnv).
func unconfinedVariants(getenv func(string) string, core string) *sdkVariants {
	if getenv(UnsafeUnconfinedChildrenEnv) != "1" {
		return nil
	}
	log.Printf("sandbox: UNSAFE: child frames are served without confine.js (%s=1, for tests only)", UnsafeUnconfinedChildrenEnv)
	v := newSDKVariants("", core)
	return &v
}
