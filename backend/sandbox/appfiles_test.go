package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/voicebox/voicebox/backend/store"
)

const secret = "the person's own file"

// folderApp is a workspace with a folder app (pizza/) beside a file of the person's (secret.txt), a launch
// of that app on a test server, and the folder on disk.
type folderApp struct {
	s       *Server
	ts      *httptest.Server
	l       Launch
	dir     string
	outside string
}

func newFolderApp(t *testing.T) folderApp {
	t.Helper()
	ws := t.TempDir()
	dir := filepath.Join(ws, "pizza")
	files := map[string]string{
		"index.html": "<!doctype html><title>Pizza</title><script src=script.js></script>",
		"page2.html": "<!doctype html><title>Two</title>",
		"script.js":  "window.pizza = 1;", "style.css": "body{color:red}", "data.json": `{"slices":8}`,
		"mod.mjs": "export default 1;", "logo.png": "\x89PNG", "add.wasm": "\x00asm\x01\x00\x00\x00",
		"font.woff2": "wOF2", "notes.xyz": "?", "lib/x.js": "export const x = 1;", ".env": "SECRET=1",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(ws, "secret.txt")
	os.WriteFile(outside, []byte(secret), 0o644)
	os.WriteFile(filepath.Join(ws, "top.html"), []byte("<title>top</title>"+secret), 0o644)
	st, err := store.Open(store.Roots{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	e, folder, err := st.GetApp("pizza")
	if err != nil || folder == nil {
		t.Fatalf("GetApp: %v %v", folder, err)
	}
	s, ts := newTestServer(t)
	l := s.Add(Launch{AppID: e.AppID, Title: e.Title, HTML: e.HTML, Entry: e.FileName, Folder: folder})
	t.Cleanup(func() { s.Revoke(l.Token) })
	return folderApp{s: s, ts: ts, l: l, dir: dir, outside: outside}
}

// raw sends one request line exactly as given (Go's client would clean or re-encode the path) and returns
// the status and body.
func raw(t *testing.T, ts *httptest.Server, target string, hdr ...string) (int, http.Header, string) {
	t.Helper()
	c, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n%sConnection: close\r\n\r\n", target, bridge, strings.Join(hdr, ""))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %q: %v", target, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

func TestFolderAppServing(t *testing.T) {
	a := newFolderApp(t)
	base := AppPath(a.l.Token)
	// The bridge points the app frame at its page inside its folder, and names the folder once.
	b := get(t, a.ts, "GET", "/bridge/"+a.l.Token, map[string]string{"Sec-Fetch-Dest": "iframe"})
	if !strings.Contains(b.body, `"appSrc":"`+base+`index.html"`) || !strings.Contains(b.body, `"appBase":"http://`+bridge+base+`"`) {
		t.Fatalf("bridge config: %s", b.body)
	}
	if csp := b.header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-src http://"+bridge+base+";") {
		t.Errorf("bridge frame-src: %s", csp)
	}
	// Pages are documents: SDK injected, the app's CSP (its folder as a path source).
	doc := get(t, a.ts, "GET", base+"page2.html", map[string]string{"Sec-Fetch-Dest": "iframe"})
	if doc.status != 200 || !strings.HasPrefix(doc.body, "<!doctype html><script>") || !strings.HasSuffix(doc.body, "<title>Two</title>") {
		t.Fatalf("page2 as a document: %d %.60q", doc.status, doc.body)
	}
	if csp := doc.header.Get("Content-Security-Policy"); csp != AppCSP("http://"+bridge, room, base, []string{"cdn.jsdelivr.net", "unpkg.com"}) ||
		!strings.Contains(csp, "connect-src http://"+bridge+base+";") {
		t.Errorf("page CSP: %s", csp)
	}
	// Files: their type from the table, nosniff, CORS for the opaque origin only.
	for rel, want := range map[string]string{
		"script.js": "text/javascript; charset=utf-8", "style.css": "text/css; charset=utf-8", "data.json": "application/json",
		"mod.mjs": "text/javascript; charset=utf-8", "logo.png": "image/png", "add.wasm": "application/wasm",
		"font.woff2": "font/woff2", "notes.xyz": "application/octet-stream", "lib/x.js": "text/javascript; charset=utf-8",
		"page2.html": "text/html; charset=utf-8", // fetched, not framed: the file as it is
	} {
		r := get(t, a.ts, "GET", base+rel, map[string]string{"Sec-Fetch-Dest": "empty", "Origin": "null"})
		if r.status != 200 || r.header.Get("Content-Type") != want || r.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d %q", rel, r.status, r.header.Get("Content-Type"))
		}
		if r.header.Get("Access-Control-Allow-Origin") != "null" || r.header.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("%s: CORS %v", rel, r.header)
		}
		disk, _ := os.ReadFile(filepath.Join(a.dir, filepath.FromSlash(rel)))
		if r.body != string(disk) {
			t.Errorf("%s: body %q, want %q", rel, r.body, disk)
		}
	}
	// No Origin (a classic script, an image): no CORS header either.
	if r := get(t, a.ts, "GET", base+"script.js", map[string]string{"Sec-Fetch-Dest": "script"}); r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("script without Origin: %d %v", r.status, r.header)
	}
	// Another origin gets no CORS grant; the bridge's own files stay CORS-less.
	if r := get(t, a.ts, "GET", base+"data.json", map[string]string{"Origin": "http://evil.example"}); r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS for another origin: %v", r.header)
	}
	for _, p := range []string{"/bridge/" + a.l.Token, "/sandbox/sdk.js"} {
		r := get(t, a.ts, "GET", p, map[string]string{"Origin": "null"})
		commonHeaders(t, p, r)
	}
	// Live edits show on the next request.
	os.WriteFile(filepath.Join(a.dir, "script.js"), []byte("window.pizza = 2;"), 0o644)
	if r := get(t, a.ts, "GET", base+"script.js", nil); r.body != "window.pizza = 2;" {
		t.Errorf("edit not served: %q", r.body)
	}
	// Ranges (media seeking) and HEAD.
	if r := get(t, a.ts, "GET", base+"data.json", map[string]string{"Range": "bytes=0-3"}); r.status != 206 || r.body != `{"sl` {
		t.Errorf("range: %d %q", r.status, r.body)
	}
	if r := get(t, a.ts, "HEAD", base+"data.json", nil); r.status != 200 || r.body != "" {
		t.Errorf("HEAD: %d %q", r.status, r.body)
	}
	// Nothing under /app/ is a top-level page; POST is refused.
	if r := get(t, a.ts, "GET", base+"script.js", map[string]string{"Sec-Fetch-Dest": "document"}); r.status != 404 {
		t.Errorf("top-level: %d", r.status)
	}
	if r := get(t, a.ts, "POST", base+"index.html", nil); r.status != 405 {
		t.Errorf("POST: %d", r.status)
	}
	// Revoked: the folder goes with the token.
	a.s.Revoke(a.l.Token)
	if r := get(t, a.ts, "GET", base+"script.js", nil); r.status != 404 {
		t.Errorf("after revoke: %d", r.status)
	}
}

// traversals are ways out of an app's folder, as a request line spells them.
var traversals = []string{
	"../secret.txt", "%2e%2e/secret.txt", "%2E%2e/secret.txt", ".%2e/secret.txt", "..%2fsecret.txt", "..%2Fsecret.txt",
	"lib/..%2f..%2fsecret.txt", "lib%2f..%2f..%2fsecret.txt", `..\secret.txt`, "..%5csecret.txt", "..%5Csecret.txt",
	"lib/../../secret.txt", "./../secret.txt", "%2e/%2e%2e/secret.txt", "..%252fsecret.txt", "..%00/secret.txt",
	"index.html%00.js", "%00", "/../secret.txt", "//secret.txt", "lib/", "lib", "", ".env", "%2eenv", "lib/.%2e/.env",
	"../top.html", "%2E%2E/top.html", "..;/secret.txt",
}

func TestFolderAppTraversal(t *testing.T) {
	a := newFolderApp(t)
	base := AppPath(a.l.Token)
	for _, p := range traversals {
		for _, dest := range []string{"", "Sec-Fetch-Dest: iframe\r\n", "Sec-Fetch-Dest: empty\r\nOrigin: null\r\n"} {
			status, hdr, body := raw(t, a.ts, base+p, dest)
			if status != 404 && status != 400 || strings.Contains(body, secret) || strings.Contains(body, "SECRET") || hdr.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("GET %s%s (%q): %d CORS=%q %.80q", base, p, dest, status, hdr.Get("Access-Control-Allow-Origin"), body)
			}
		}
	}
}

// TestFolderAppTraversalControl shows the raw requests above reach a server as spelled: a naive handler
// that decodes the path and joins it to the folder leaks the person's file for most of them.
func TestFolderAppTraversalControl(t *testing.T) {
	a := newFolderApp(t)
	naive := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rel, _ := url.PathUnescape(strings.TrimPrefix(r.URL.EscapedPath(), AppPath(a.l.Token)))
		b, err := os.ReadFile(filepath.Join(a.dir, strings.ReplaceAll(rel, `\`, "/")))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	defer naive.Close()
	leaks := 0
	for _, p := range traversals {
		if _, _, body := raw(t, naive, AppPath(a.l.Token)+p); strings.Contains(body, secret) {
			leaks++
		}
	}
	if leaks < 10 {
		t.Fatalf("the naive handler leaked for %d spellings: the test would not see an escape", leaks)
	}
}

// TestFolderAppBadFiles: a link out of the folder, a link loop, a FIFO (never waited on) and a 1 GiB file
// (refused by its size, unread) are refused.
func TestFolderAppBadFiles(t *testing.T) {
	a := newFolderApp(t)
	base := AppPath(a.l.Token)
	os.Symlink(a.outside, filepath.Join(a.dir, "out.txt"))
	os.Symlink("../secret.txt", filepath.Join(a.dir, "out2.txt"))
	os.Symlink("loop.js", filepath.Join(a.dir, "loop.js"))
	if err := mkfifo(filepath.Join(a.dir, "pipe.js")); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		t.Fatal(err)
	}
	f, _ := os.Create(filepath.Join(a.dir, "huge.wasm"))
	f.Truncate(1 << 30)
	f.Close()
	os.Symlink("lib/x.js", filepath.Join(a.dir, "alias.js"))
	for rel, want := range map[string]int{"out.txt": 404, "out2.txt": 404, "loop.js": 404, "pipe.js": 404, "pipe.js?x": 404, "huge.wasm": 413, "alias.js": 200} {
		status, _, body := raw(t, a.ts, base+rel, "Origin: null\r\n")
		if status != want || strings.Contains(body, secret) || len(body) > 1024 {
			t.Errorf("%s: %d (%d bytes), want %d", rel, status, len(body), want)
		}
	}
	if status, _, body := raw(t, a.ts, base+"huge.wasm"); !strings.Contains(body, "file-too-large") {
		t.Errorf("huge: %d %q", status, body)
	}
}

// TestFolderAppSwapRace: while requests run, a file of the folder flips between a regular file and a link
// to the person's file outside; no response ever carries the outside file (the type is taken from the open
// file: there is no check to race). The control shows a check-then-read server leaking in the same spot.
func TestFolderAppSwapRace(t *testing.T) {
	a := newFolderApp(t)
	p := filepath.Join(a.dir, "swap.txt")
	swapToLink := func() {
		tmp := p + ".tmp"
		os.Symlink(a.outside, tmp)
		os.Rename(tmp, p)
	}
	swapToFile := func() {
		tmp := p + ".tmp"
		os.WriteFile(tmp, []byte("safe"), 0o644)
		os.Rename(tmp, p)
	}
	swapToFile()
	if status, _, body := raw(t, a.ts, AppPath(a.l.Token)+"swap.txt"); status != 200 || body != "safe" {
		t.Fatalf("the regular file before the race: %d %q", status, body)
	}
	// The swapper runs through every request; how often a request meets a file or a link is the
	// scheduler's business (the test asserts no leak, not a mix), but each request starts only after
	// the swapper has made another round, so the race always runs.
	var stop atomic.Bool
	var rounds atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			swapToLink()
			swapToFile()
			rounds.Add(1)
		}
	}()
	for i := 0; i < 400; i++ {
		for n := rounds.Load(); rounds.Load() == n; {
			runtime.Gosched()
		}
		_, _, body := raw(t, a.ts, AppPath(a.l.Token)+"swap.txt")
		if strings.Contains(body, secret) {
			t.Fatalf("request %d served the outside file", i)
		}
	}
	stop.Store(true)
	wg.Wait()

	// Control: check (Lstat says regular), then read by path. A swap between the two leaks.
	swapToFile()
	checkThenRead := func(between func()) string {
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			return ""
		}
		between()
		b, _ := os.ReadFile(p)
		return string(b)
	}
	if got := checkThenRead(swapToLink); got != secret {
		t.Fatalf("control: a check-then-read server served %q", got)
	}
	// The folder, asked at the same point, refuses.
	if status, _, body := raw(t, a.ts, AppPath(a.l.Token)+"swap.txt"); status != 404 || strings.Contains(body, secret) {
		t.Fatalf("after the swap: %d %q", status, body)
	}
}

// A single page owns nothing but itself: its siblings are never served, even when the store knows them.
func TestSinglePageOwnsItself(t *testing.T) {
	s, ts := newTestServer(t)
	l := s.Add(Launch{AppID: "page_top", HTML: "<!doctype html><p>top", Entry: "top.html"})
	if r := get(t, ts, "GET", AppPath(l.Token)+"top.html", map[string]string{"Sec-Fetch-Dest": "iframe"}); r.status != 200 || !strings.HasSuffix(r.body, "<p>top") {
		t.Fatalf("the page: %d %q", r.status, r.body)
	}
	for _, p := range []string{"index.html", "script.js", "top.html/x", "secret.txt"} {
		if r := get(t, ts, "GET", AppPath(l.Token)+p, map[string]string{"Origin": "null"}); r.status != 404 {
			t.Errorf("%s: %d", p, r.status)
		}
	}
	// A name that could not be served (a path, a dotfile) launches as index.html.
	for _, entry := range []string{"../x.html", ".hidden.html", "", `a\b.html`} {
		l := s.Add(Launch{AppID: "x", HTML: "<p>x", Entry: entry})
		if r := get(t, ts, "GET", AppPath(l.Token)+"index.html", nil); r.status != 200 {
			t.Errorf("entry %q: %d", entry, r.status)
		}
	}
}

func TestContentTypeTable(t *testing.T) {
	for name, want := range map[string]string{"A.JS": "text/javascript; charset=utf-8", "x.Wasm": "application/wasm", "noext": "application/octet-stream",
		"x.svg": "image/svg+xml", "a.b.css": "text/css; charset=utf-8", "x.html.exe": "application/octet-stream"} {
		if got := ContentType(name); got != want {
			t.Errorf("ContentType(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestNonHTMLDocuments (issue 28, finding 2): a file of the folder that a browser could render as a
// document with scripts (an SVG, XML with XHTML elements, an XSLT stylesheet, a page asked for as
// anything but a frame) is never served as the app's frame, and everything the folder serves but its
// confined pages carries AssetCSP: no script, sandboxed without allow-scripts. The e2e case "documents
// that are not HTML" shows the same in the browsers.
func TestNonHTMLDocuments(t *testing.T) {
	a := newFolderApp(t)
	base := AppPath(a.l.Token)
	files := map[string]string{
		"evil.svg":   `<svg xmlns="http://www.w3.org/2000/svg"><script>top.postMessage(1, "*")</script></svg>`,
		"evil.xml":   `<html xmlns="http://www.w3.org/1999/xhtml"><script>top.postMessage(1, "*")</script></html>`,
		"evil.xhtml": `<html xmlns="http://www.w3.org/1999/xhtml"><script>top.postMessage(1, "*")</script></html>`,
		"evil.txt":   `<script>top.postMessage(1, "*")</script>`,
		"evil.SVG":   `<svg xmlns="http://www.w3.org/2000/svg"><script>top.postMessage(1, "*")</script></svg>`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(a.dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	asset := AssetCSP("http://"+bridge, room, base, []string{"cdn.jsdelivr.net", "unpkg.com"})
	for _, rel := range []string{"evil.svg", "evil.SVG", "evil.xml", "evil.xhtml", "evil.txt", "logo.png", "script.js", "data.json"} {
		// As the app's frame (a navigation of it): refused, whatever the file.
		for _, dest := range []string{"iframe", "frame"} {
			if r := get(t, a.ts, "GET", base+rel, map[string]string{"Sec-Fetch-Dest": dest}); r.status != 404 || strings.Contains(r.body, "postMessage") {
				t.Errorf("%s as %s: %d %q, want 404", rel, dest, r.status, r.body)
			}
		}
		// As anything else, or where the browser does not say: the file, under AssetCSP.
		for _, dest := range []string{"image", "object", "embed", "empty", ""} {
			hdr := map[string]string{}
			if dest != "" {
				hdr["Sec-Fetch-Dest"] = dest
			}
			r := get(t, a.ts, "GET", base+rel, hdr)
			if r.status != 200 || r.header.Get("Content-Security-Policy") != asset || r.header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s as %q: %d, CSP %q", rel, dest, r.status, r.header.Get("Content-Security-Policy"))
			}
		}
	}
	// A page asked for as an object or an embed is not a confined document: it gets AssetCSP too.
	if r := get(t, a.ts, "GET", base+"page2.html", map[string]string{"Sec-Fetch-Dest": "object"}); r.status != 200 || r.header.Get("Content-Security-Policy") != asset || strings.Contains(r.body, "<script>") {
		t.Errorf("page2.html as an object: %d %q %q", r.status, r.header.Get("Content-Security-Policy"), r.body)
	}
	// The control: the same page as a frame is the confined document under the app's policy.
	if r := get(t, a.ts, "GET", base+"page2.html", map[string]string{"Sec-Fetch-Dest": "iframe"}); r.status != 200 || strings.Contains(r.header.Get("Content-Security-Policy"), "script-src 'none'") || !strings.Contains(r.body, "RTC") {
		t.Errorf("page2.html as a frame: %d %q", r.status, r.header.Get("Content-Security-Policy"))
	}
}

// TestAssetCSP: the app's policy with no script and nothing to reach, directive for directive.
func TestAssetCSP(t *testing.T) {
	app := strings.Split(AppCSP("http://127.0.0.2:5", room, "/app/abc/", []string{"cdn.jsdelivr.net"}), "; ")
	asset := strings.Split(AssetCSP("http://127.0.0.2:5", room, "/app/abc/", []string{"cdn.jsdelivr.net"}), "; ")
	if len(asset) != len(app) {
		t.Fatalf("AssetCSP has %d directives, AppCSP %d: %q", len(asset), len(app), asset)
	}
	none := map[string]bool{"script-src": true, "connect-src": true, "worker-src": true, "form-action": true, "frame-src": true, "base-uri": true}
	for i, d := range asset {
		name, _, _ := strings.Cut(d, " ")
		switch {
		case none[name]:
			if d != name+" 'none'" {
				t.Errorf("%s", d)
			}
		case name == "sandbox":
			if d != "sandbox" {
				t.Errorf("%s: want the sandbox directive without allow-scripts", d)
			}
		case d != app[i]:
			t.Errorf("%s, the app's is %s", d, app[i])
		}
	}
	if !strings.Contains(strings.Join(asset, "; "), "frame-ancestors http://127.0.0.2:5 "+room) {
		t.Errorf("frame-ancestors: %q", asset)
	}
}
