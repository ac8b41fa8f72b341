package sandbox

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/voicebox/voicebox/backend/store"
	"github.com/voicebox/voicebox/backend/trace"
)

// An app's files live under AppPath(token): a single page serves its one file there (its own name), a
// folder app its whole folder (store.Folder), read at request time. See docs/sandbox.md, "Folder apps".

// AppPath is the path of a launch's files, "/app/<token>/". It is the one place the rule "an app may load,
// fetch, submit to and navigate within its own folder, on the bridge origin" is spelled: the router, the
// app's CSP and the bridge's frame-src (path sources) and the bridge config's appBase all take it from here.
func AppPath(token string) string { return pathApp + token + "/" }

// AppBase is AppPath on the launch's own origin (its site): the URL prefix of a launch's files (the bridge
// config's appBase).
func (s *Server) AppBase(token string) string {
	l, _ := s.Lookup(token)
	return l.Origin + AppPath(token)
}

// appSrc is what the bridge loads into the app frame: the launch's page under AppPath, so the page's
// relative URLs resolve inside its folder.
func appSrc(l Launch) string { return AppPath(l.Token) + url.PathEscape(l.entry()) }

// entry is the launch's page: Entry, or index.html when it has none that could be served.
func (l Launch) entry() string {
	if l.Entry != "" && !strings.Contains(l.Entry, "/") && store.ValidFolderPath(l.Entry) {
		return l.Entry
	}
	return store.FolderEntry
}

// release closes what a launch holds (its folder) once its token is revoked.
func (l *Launch) release() {
	if l.children != nil {
		l.children.drop()
	}
	if l.Folder != nil {
		l.Folder.Close()
	}
}

// appRequest splits an escaped request path /app/<token>/<rel> into the token and the file it names. Every
// spelling of a way out is refused before the folder is asked: an encoded slash, backslash or NUL anywhere
// (%2f, %5c, %00, any case), a raw backslash, and after decoding any "", "." or ".." element or dotfile
// (store.ValidFolderPath). Go's server does not clean paths, and neither does this.
func appRequest(escaped string) (token, rel string, ok bool) {
	rest, ok := strings.CutPrefix(escaped, pathApp)
	if !ok {
		return "", "", false
	}
	token, rest, ok = strings.Cut(rest, "/")
	if !ok || token == "" || strings.ContainsRune(rest, '\\') {
		return "", "", false
	}
	low := strings.ToLower(rest)
	for _, bad := range []string{"%2f", "%5c", "%00"} {
		if strings.Contains(low, bad) {
			return "", "", false
		}
	}
	rel, err := url.PathUnescape(rest)
	if err != nil || !store.ValidFolderPath(rel) {
		return "", "", false
	}
	return token, rel, true
}

func isPage(rel string) bool {
	ext := strings.ToLower(path.Ext(rel))
	return ext == ".html" || ext == ".htm"
}

// serveApp answers GET /app/<token>/<rel>: the launch's page as a document (SDK injected, the app's CSP),
// or, for a folder app, any file of its folder.
func (s *Server) serveApp(w http.ResponseWriter, r *http.Request, at *site) {
	token, rel, ok := appRequest(r.URL.EscapedPath())
	var l Launch
	if ok {
		l, ok = s.launchAt(at, token)
	}
	dest := r.Header.Get("Sec-Fetch-Dest")
	if !ok || dest == "document" { // nothing under /app/ is a top-level page
		plain(w, http.StatusNotFound, "not found")
		return
	}
	asDocument := isPage(rel) && framed(r)
	if l.Folder == nil {
		if rel != l.entry() || !asDocument { // a single page owns nothing but itself
			plain(w, http.StatusNotFound, "not found")
			return
		}
		s.appDocument(w, r, l, l.HTML, s.sdk.tagFor(l.HTML), s.appCSP(l))
		return
	}
	if asDocument {
		b, err := l.Folder.ReadPage(rel)
		if err != nil {
			refuseFile(w, err)
			return
		}
		s.appDocument(w, r, l, string(b), s.sdk.tagFor(string(b)), s.appCSP(l))
		return
	}
	if dest == "iframe" || dest == "frame" { // only a page is a document in the app's frame (docs/sandbox.md)
		plain(w, http.StatusNotFound, "not found")
		return
	}
	s.appAsset(w, r, l, rel)
}

// appDocument sends one of the app's pages or child documents (AppDocument: tag, the confinement and the
// SDK, injected) under the policy csp (AppCSP, ChildCSP) and PermissionsPolicy.
func (s *Server) appDocument(w http.ResponseWriter, r *http.Request, l Launch, page, tag, csp string) {
	trace.Mark("app-document")
	body, ctype := AppDocument(page, tag)
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Security-Policy", csp)
	h.Set("Permissions-Policy", PermissionsPolicy)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(body))
	}
}

// appAsset sends a file of a folder app as it is on disk now: its type from the fixed table (nosniff
// stays), AssetCSP (whatever a browser renders as a document from it, an SVG or an XML file, runs no
// script: only the confined pages may), and CORS for the app's opaque origin ("null") only, so module
// scripts, fonts and fetch() of the app's own files work. The app's CSP keeps it to its own AppPath;
// nothing else on this server sends CORS headers. A file that is not a page never gets here as a frame
// (serveApp refuses it).
func (s *Server) appAsset(w http.ResponseWriter, r *http.Request, l Launch, rel string) {
	f, size, err := l.Folder.Open(rel)
	if err != nil {
		refuseFile(w, err)
		return
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Type", ContentType(rel))
	h.Set("Content-Security-Policy", AssetCSP(l.Origin, s.roomOrigin, AppPath(l.Token), s.cdn()))
	h.Add("Vary", "Origin")
	if r.Header.Get("Origin") == "null" {
		h.Set("Access-Control-Allow-Origin", "null")
	}
	// The size is the one the open file had: a file that grows while it is sent is cut there.
	http.ServeContent(w, r, "", time.Time{}, io.NewSectionReader(f, 0, size))
}

func (s *Server) appCSP(l Launch) string {
	return AppCSP(l.Origin, s.roomOrigin, AppPath(l.Token), s.cdn())
}

func (s *Server) cdn() []string {
	if s.cdnHosts == nil {
		return nil
	}
	return s.cdnHosts()
}

// refuseFile answers a file the folder refused: 413 file-too-large over the size bound (unread), else 404.
func refuseFile(w http.ResponseWriter, err error) {
	if errors.Is(err, store.ErrTooLarge) {
		plain(w, http.StatusRequestEntityTooLarge, store.ErrTooLarge.Error())
		return
	}
	plain(w, http.StatusNotFound, "not found")
}

// contentTypes is the fixed table of what an app's files are served as, by extension (lower case).
// Anything else is application/octet-stream; with nosniff a browser runs or styles nothing it is not told.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8", ".htm": "text/html; charset=utf-8",
	".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8", ".cjs": "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8", ".json": "application/json", ".map": "application/json",
	".webmanifest": "application/manifest+json", ".wasm": "application/wasm",
	".txt": "text/plain; charset=utf-8", ".md": "text/markdown; charset=utf-8", ".csv": "text/csv; charset=utf-8",
	".xml": "application/xml", ".vtt": "text/vtt; charset=utf-8",
	".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".avif": "image/avif", ".ico": "image/x-icon", ".bmp": "image/bmp",
	".woff": "font/woff", ".woff2": "font/woff2", ".ttf": "font/ttf", ".otf": "font/otf",
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".ogg": "audio/ogg", ".oga": "audio/ogg", ".m4a": "audio/mp4",
	".flac": "audio/flac", ".aac": "audio/aac", ".opus": "audio/ogg",
	".mp4": "video/mp4", ".m4v": "video/mp4", ".webm": "video/webm", ".ogv": "video/ogg",
	".glb": "model/gltf-binary", ".gltf": "model/gltf+json", ".pdf": "application/pdf",
}

// ContentType is the type an app file is served as (the fixed table; application/octet-stream otherwise).
func ContentType(name string) string {
	if t, ok := contentTypes[strings.ToLower(path.Ext(name))]; ok {
		return t
	}
	return "application/octet-stream"
}
