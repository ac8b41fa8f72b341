package sandbox

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/toolcontract"
)

const (
	room   = "http://127.0.0.1:8787"
	bridge = "localhost:9999"
)

func newTestServer(t *testing.T) (*Server, *httptest.Server) {
	t.Helper()
	s := New(Options{Hostname: "localhost", RoomOrigin: room, CDNHosts: func() []string { return []string{"cdn.jsdelivr.net", "unpkg.com"} }}, bridge)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

type resp struct {
	status int
	header http.Header
	body   string
}

func get(t *testing.T, ts *httptest.Server, method, path string, hdr map[string]string) resp {
	t.Helper()
	req, _ := http.NewRequest(method, ts.URL+path, nil)
	req.Host = bridge
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{res.StatusCode, res.Header, string(b)}
}

func commonHeaders(t *testing.T, where string, r resp) {
	t.Helper()
	if r.header.Get("X-Content-Type-Options") != "nosniff" || r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("%s: missing nosniff/no-store: %v", where, r.header)
	}
	for k := range r.header {
		if strings.HasPrefix(strings.ToLower(k), "access-control-") {
			t.Errorf("%s: CORS header %s", where, k)
		}
	}
}

func TestRoutesAndHeaders(t *testing.T) {
	s, ts := newTestServer(t)
	l := s.Add(Launch{Room: "r1", AppID: "app_x", Title: "X <b>", Slug: "x", HTML: "<!doctype html><p>hi</p>"})
	if len(l.Token) != 64 {
		t.Fatalf("token %q", l.Token)
	}

	b := get(t, ts, "GET", "/bridge/"+l.Token, map[string]string{"Sec-Fetch-Dest": "iframe"})
	commonHeaders(t, "bridge", b)
	if b.status != 200 || !strings.HasPrefix(b.header.Get("Content-Type"), "text/html") {
		t.Fatalf("bridge: %d %v", b.status, b.header)
	}
	csp := b.header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "frame-ancestors "+room) || strings.Contains(csp, "frame-ancestors "+room+" ") {
		t.Errorf("bridge frame-ancestors must be the room only: %s", csp)
	}
	if !strings.Contains(b.body, `"roomOrigin":"`+room+`"`) {
		t.Errorf("room origin not injected: %s", b.body)
	}
	if !strings.Contains(b.body, "X &lt;b&gt;") || strings.Contains(b.body, "<b>") {
		t.Errorf("title not escaped: %s", b.body)
	}
	// The bridge's two scripts are in its document, each allowed by its hash and nothing else runs: no
	// script is fetched, no 'self', no 'unsafe-inline'.
	inline := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllStringSubmatch(b.body, -1)
	if len(inline) != 2 || strings.Contains(b.body, "<script src") || !strings.Contains(inline[0][1], "VoiceboxToolContract") || inline[1][1] != string(bridgeJS) {
		t.Errorf("bridge scripts: %d inline, document %.300q", len(inline), b.body)
	}
	var allowed []string
	for _, m := range inline {
		allowed = append(allowed, inlineHash(m[1]))
	}
	if want := "script-src " + strings.Join(allowed, " ") + ";"; !strings.Contains(csp, want) {
		t.Errorf("bridge CSP %q lacks %q", csp, want)
	}

	a := get(t, ts, "GET", AppPath(l.Token)+"index.html", map[string]string{"Sec-Fetch-Dest": "iframe"})
	commonHeaders(t, "app", a)
	if a.status != 200 || !strings.HasPrefix(a.body, "<!doctype html><script>") || !strings.HasSuffix(a.body, "</script><p>hi</p>") {
		t.Fatalf("app: %d %.80q", a.status, a.body)
	}
	for who, r := range map[string]resp{"bridge": b, "app": a} {
		if pp := r.header.Get("Permissions-Policy"); !strings.Contains(pp, "microphone=()") || !strings.Contains(pp, "camera=()") || !strings.Contains(pp, "geolocation=()") {
			t.Errorf("%s Permissions-Policy: %q", who, pp)
		}
	}
	if got := a.header.Get("Content-Security-Policy"); got != AppCSP("http://"+bridge, room, AppPath(l.Token), []string{"cdn.jsdelivr.net", "unpkg.com"}) {
		t.Errorf("app CSP: %s", got)
	}

	r := get(t, ts, "GET", "/sandbox/sdk.js", nil)
	commonHeaders(t, "/sandbox/sdk.js", r)
	if r.status != 200 || r.body != string(s.sdkJS) || !strings.HasPrefix(r.header.Get("Content-Type"), "text/javascript") {
		t.Errorf("/sandbox/sdk.js: %d %v", r.status, r.header)
	}
	if r.header.Get("Cross-Origin-Resource-Policy") != "same-origin" {
		t.Errorf("/sandbox/sdk.js: CORP missing")
	}
	// The bridge's scripts are inline in its document (bridgeScripts): served on their own to nobody.
	for _, path := range []string{"/sandbox/bridge.js", "/sandbox/toolcontract.js"} {
		if r := get(t, ts, "GET", path, nil); r.status != 404 {
			t.Errorf("%s: %d, want 404", path, r.status)
		}
	}

	// Everything else is 404.
	for _, p := range []string{"/", "/index.html", "/bridge/", "/bridge/nope", "/app/nope", "/app/" + l.Token, "/app/" + l.Token + "/",
		"/app/" + l.Token + "x/index.html", "/app/" + l.Token + "/other.html", "/app/nope/index.html",
		"/sandbox/", "/sandbox/other.js", "/api/mini-apps", "/bridge/" + l.Token + "/../x", "/favicon.ico"} {
		if r := get(t, ts, "GET", p, nil); r.status != 404 {
			t.Errorf("%s: %d, want 404", p, r.status)
		} else {
			commonHeaders(t, p, r)
		}
	}
	// Documents only as frames; scripts only as scripts (when the browser says).
	if r := get(t, ts, "GET", "/bridge/"+l.Token, map[string]string{"Sec-Fetch-Dest": "document"}); r.status != 404 {
		t.Errorf("bridge as a top-level document: %d", r.status)
	}
	if r := get(t, ts, "GET", AppPath(l.Token)+"index.html", map[string]string{"Sec-Fetch-Dest": "document"}); r.status != 404 {
		t.Errorf("app as a top-level document: %d", r.status)
	}
	if r := get(t, ts, "GET", "/sandbox/sdk.js", map[string]string{"Sec-Fetch-Dest": "iframe"}); r.status != 404 {
		t.Errorf("script as a frame: %d", r.status)
	}
	if r := get(t, ts, "GET", AppPath(l.Token)+"index.html", map[string]string{"Sec-Fetch-Dest": "empty"}); r.status != 404 {
		t.Errorf("a single page fetched: %d", r.status)
	}
	if r := get(t, ts, "POST", AppPath(l.Token)+"index.html", nil); r.status != 405 {
		t.Errorf("POST: %d", r.status)
	}
	if r := get(t, ts, "HEAD", AppPath(l.Token)+"index.html", nil); r.status != 200 || r.body != "" {
		t.Errorf("HEAD: %d %q", r.status, r.body)
	}
}

func TestHostCheck(t *testing.T) {
	s, ts := newTestServer(t)
	l := s.Add(Launch{AppID: "a", HTML: "x"})
	for _, host := range []string{"127.0.0.1:9999", "localhost:9998", "evil.example:9999", "localhost", ""} {
		req, _ := http.NewRequest("GET", ts.URL+AppPath(l.Token)+"index.html", nil)
		req.Host = host
		res, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("Host %q: %d", host, res.StatusCode)
		}
	}
}

func TestTokenRevocation(t *testing.T) {
	s, ts := newTestServer(t)
	a := s.Add(Launch{Room: "r1", AppID: "a", HTML: "a"})
	b := s.Add(Launch{Room: "r1", AppID: "b", HTML: "b"})
	c := s.Add(Launch{Room: "r2", AppID: "c", HTML: "c"})
	if a.Token == b.Token {
		t.Fatal("tokens repeat")
	}
	// A token lives while the app is open: the app may reload.
	for i := 0; i < 2; i++ {
		if r := get(t, ts, "GET", AppPath(a.Token)+"index.html", nil); r.status != 200 {
			t.Fatalf("load %d: %d", i, r.status)
		}
	}
	if !s.Revoke(a.Token) || s.Revoke(a.Token) {
		t.Fatal("Revoke")
	}
	for _, p := range []string{AppPath(a.Token) + "index.html", "/bridge/" + a.Token} {
		if r := get(t, ts, "GET", p, nil); r.status != 404 {
			t.Errorf("%s after revoke: %d", p, r.status)
		}
	}
	if n := s.RevokeRoom("r1"); n != 1 {
		t.Errorf("RevokeRoom: %d", n)
	}
	if _, ok := s.Lookup(b.Token); ok {
		t.Error("b survived its room")
	}
	if _, ok := s.Lookup(c.Token); !ok {
		t.Error("c went with another room")
	}
	// Bounded: the oldest goes first.
	first := s.Add(Launch{AppID: "first"})
	for i := 0; i < MaxLaunches; i++ {
		s.Add(Launch{AppID: "more"})
	}
	if _, ok := s.Lookup(first.Token); ok {
		t.Error("the oldest launch outlived the bound")
	}
}

func TestListenOrigin(t *testing.T) {
	if _, err := Listen(Options{Hostname: "0.0.0.0", RoomOrigin: room}); err == nil {
		t.Error("a non-loopback host name was accepted")
	}
	if _, err := Listen(Options{Hostname: "localhost", RoomOrigin: "http://x; script-src *"}); err == nil {
		t.Error("an invalid room origin was accepted")
	}
	s, err := Listen(Options{Hostname: "localhost", RoomOrigin: room})
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	defer s.Close()
	if !strings.HasPrefix(s.Origin(), "http://localhost:") || s.RoomOrigin() != room {
		t.Fatalf("origin %s", s.Origin())
	}
	l := s.Add(Launch{AppID: "a", HTML: "<p>x"})
	req, _ := http.NewRequest("GET", s.BridgeURL(l), nil)
	req.URL.Host = strings.Replace(req.URL.Host, "localhost", "127.0.0.1", 1) // dial the IP, send Host: localhost:port
	req.Host = strings.TrimPrefix(s.Origin(), "http://")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("bridge over the listener: %d", res.StatusCode)
	}
}

// Beside a served room each launch gets a site of its own: a loopback address no other live launch holds,
// never the room's; a token answers only on its own site, and the scripts on every site.
func TestSitePerLaunch(t *testing.T) {
	s, err := Listen(Options{Hostname: "localhost", RoomOrigin: room, SitePerLaunch: true, RoomAddress: "127.0.0.3"})
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	defer s.Close()
	if n := len(s.Origins()); n != MaxLaunches {
		t.Fatalf("%d sites, want %d (one per live launch)", n, MaxLaunches)
	}
	seen := map[string]bool{}
	var first, second Launch
	for i := 0; i < MaxLaunches; i++ {
		l := s.Add(Launch{AppID: fmt.Sprint("a", i), HTML: "<p>x"})
		host := strings.TrimPrefix(l.Origin, "http://")
		ip, _, _ := net.SplitHostPort(host)
		if seen[ip] || ip == "127.0.0.3" || ip == "127.0.0.1" || !strings.HasPrefix(ip, "127.0.0.") {
			t.Fatalf("launch %d got %s (seen %v)", i, l.Origin, seen[ip])
		}
		seen[ip] = true
		if i == 0 {
			first = l
		} else if i == 1 {
			second = l
		}
	}
	// Past the bound the oldest launch goes, and its site is the one the newcomer gets.
	late := s.Add(Launch{AppID: "late", HTML: "<p>y"})
	if late.Origin != first.Origin {
		t.Errorf("the newcomer got %s, want the evicted launch's %s", late.Origin, first.Origin)
	}
	// A released site is not handed out again while an older free one waits.
	s.Revoke(second.Token)
	s.Revoke(late.Token)
	if again := s.Add(Launch{AppID: "again"}); again.Origin != second.Origin {
		t.Errorf("reused %s, want the least recently used free site %s", again.Origin, second.Origin)
	}
	fetch := func(origin, path, dest string) int {
		req, _ := http.NewRequest("GET", origin+path, nil)
		if dest != "" {
			req.Header.Set("Sec-Fetch-Dest", dest)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	l := s.Add(Launch{AppID: "own", HTML: "<p>z"})
	other := s.Origins()[0]
	if other == l.Origin {
		other = s.Origins()[1]
	}
	for _, c := range []struct {
		origin, path, dest string
		want               int
	}{
		{l.Origin, "/bridge/" + l.Token, "iframe", 200},
		{l.Origin, appSrc(l), "iframe", 200},
		{other, "/bridge/" + l.Token, "iframe", 404},
		{other, appSrc(l), "iframe", 404},
		{other, "/sandbox/sdk.js", "script", 200},
	} {
		if got := fetch(c.origin, c.path, c.dest); got != c.want {
			t.Errorf("GET %s%s: %d, want %d", c.origin, c.path, got, c.want)
		}
	}
	// Another Host on a site's own address is refused (DNS rebinding).
	req, _ := http.NewRequest("GET", l.Origin+"/sandbox/sdk.js", nil)
	req.Host = "evil.example:80"
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("foreign Host: %v %v", res, err)
	}
	// The app's frame-ancestors name its own site.
	req, _ = http.NewRequest("GET", l.Origin+appSrc(l), nil)
	req.Header.Set("Sec-Fetch-Dest", "iframe")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors "+l.Origin+" "+room) {
		t.Errorf("app CSP on its site: %s", csp)
	}
}

// The same app opened again at once gets its site back (the browser still has its renderer); another app
// does not, and after reuseWindow neither does the same one.
func TestSiteReuse(t *testing.T) {
	s, err := Listen(Options{Hostname: "localhost", RoomOrigin: room, SitePerLaunch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	clock := time.Unix(1000, 0)
	s.now = func() time.Time { return clock }
	a := s.Add(Launch{AppID: "same"})
	s.Revoke(a.Token)
	if b := s.Add(Launch{AppID: "other"}); b.Origin == a.Origin {
		t.Errorf("another app got the site %s the same app had just let go", a.Origin)
	}
	c := s.Add(Launch{AppID: "same"})
	if c.Origin != a.Origin {
		t.Errorf("the same app opened again got %s, want its own %s back", c.Origin, a.Origin)
	}
	s.Revoke(c.Token)
	clock = clock.Add(reuseWindow)
	if d := s.Add(Launch{AppID: "same"}); d.Origin == c.Origin {
		t.Errorf("the same app got %s back after the reuse window", d.Origin)
	}
}

func TestAppCSP(t *testing.T) {
	const folder = "/app/0123abcd/"
	got := AppCSP("http://127.0.0.1:5000", "wails://wails", folder, []string{"cdn.jsdelivr.net", " UNPKG.com ", "https://cdnjs.cloudflare.com/", "*.example.org", "evil.com; script-src *", "x", "a b.com", "cdn.jsdelivr.net", "h.com:8443", "h.com:99999x"})
	const own = "http://127.0.0.1:5000/app/0123abcd/"
	const cdn = "https://cdn.jsdelivr.net https://unpkg.com https://cdnjs.cloudflare.com https://*.example.org https://h.com:8443"
	want := "default-src 'none'; " +
		"script-src 'unsafe-inline' 'unsafe-eval' 'wasm-unsafe-eval' " + own + " data: blob: " + cdn + "; " +
		"style-src 'unsafe-inline' " + own + " data: blob: " + cdn + "; " +
		"img-src " + own + " data: blob: " + cdn + "; " +
		"font-src " + own + " data: blob: " + cdn + "; " +
		"media-src " + own + " data: blob:; connect-src " + own + "; worker-src blob:; manifest-src 'none'; object-src 'none'; base-uri " + own + "; " +
		"form-action " + own + "; frame-src " + own + ".child/; child-src 'none'; frame-ancestors http://127.0.0.1:5000 wails://wails; webrtc 'block'; sandbox allow-scripts allow-forms"
	if got != want {
		t.Fatalf("AppCSP:\n got %s\nwant %s", got, want)
	}
	// No CDN hosts: the folder, inline, data: and blob: only.
	if got := AppCSP("http://localhost:1", "http://127.0.0.1:2", folder, nil); !strings.Contains(got, "script-src 'unsafe-inline' 'unsafe-eval' 'wasm-unsafe-eval' http://localhost:1/app/0123abcd/ data: blob:; ") {
		t.Errorf("no CDN: %s", got)
	}
	// A bad origin or folder path never reaches the header: connect-src and form-action close.
	for _, c := range []struct{ origin, path string }{
		{"http://x; script-src *", folder}, {"http://localhost:1", "/app/x; connect-src */"}, {"http://localhost:1", "/app/"},
		{"http://localhost:1", "/app//"}, {"http://localhost:1", "/bridge/abc/"}, {"http://localhost:1", "/app/abc"},
		{"http://localhost:1", "/app/a/b/"}, {"http://localhost:1", "/app/a b/"}, {"http://localhost:1", ""},
	} {
		got := AppCSP(c.origin, "", c.path, nil)
		if !strings.Contains(got, "connect-src 'none'") || !strings.Contains(got, "form-action 'none'") || !strings.Contains(got, "media-src data: blob:;") ||
			!strings.Contains(got, "frame-src 'none'") || !strings.Contains(got, "base-uri 'none'") {
			t.Errorf("AppCSP(%q, %q) opened something: %s", c.origin, c.path, got)
		}
	}
	if got := AppCSP("http://x; script-src *", "", folder, nil); !strings.Contains(got, "frame-ancestors 'none'") {
		t.Errorf("bad origins: %s", got)
	}
	for _, directive := range strings.Split(got, "; ") {
		if strings.ContainsAny(directive, ",\n\r") {
			t.Errorf("odd directive %q", directive)
		}
	}
}

func TestBridgeCSP(t *testing.T) {
	got := BridgeCSP("wails://wails", "http://127.0.0.1:5000", "/app/0123abcd/", false)
	for _, part := range []string{"default-src 'none'", "script-src 'sha256-", "frame-src http://127.0.0.1:5000/app/0123abcd/;", "connect-src 'none'", "frame-ancestors wails://wails", "style-src 'sha256-"} {
		if !strings.Contains(got, part) {
			t.Errorf("BridgeCSP lacks %q: %s", part, got)
		}
	}
	if strings.Contains(got, "'self'") || strings.Contains(got, "unsafe") {
		t.Errorf("BridgeCSP allows more than its own inline scripts and style: %s", got)
	}
	if got := BridgeCSP("wails://wails", "http://127.0.0.1:5000", "/app/x y/", true); !strings.Contains(got, "frame-src 'none'") {
		t.Errorf("a malformed folder opened frame-src: %s", got)
	}
	// blob: only for the desktop's guard, which turns the navigation into a download (backend/guard).
	if got := BridgeCSP("wails://wails", "http://127.0.0.1:5000", "/app/0123abcd/", true); !strings.Contains(got, "frame-src http://127.0.0.1:5000/app/0123abcd/ blob:;") {
		t.Errorf("the desktop's bridge does not pass blob: navigations to the guard: %s", got)
	}
	if strings.Contains(got, "blob:") {
		t.Errorf("a browser's bridge lets the app frame load a blob: document: %s", got)
	}
}

func TestInjectSDK(t *testing.T) {
	const tag = "<script>SDK</script>"
	cases := []struct{ in, want string }{
		{"<!doctype html><html>", "<!doctype html>" + tag + "<html>"},
		{"<!DOCTYPE html>\n<html>", "<!DOCTYPE html>" + tag + "\n<html>"},
		{"\ufeff<!doctype html><p>", "\ufeff<!doctype html>" + tag + "<p>"},
		{" \n<!doctype html><p>", " \n<!doctype html>" + tag + "<p>"},
		// A comment first: the tag goes first, after a copy of the doctype; the page follows whole.
		{"  \n<!-- c -->\n<!doctype html><p>", "<!doctype html>" + tag + "  \n<!-- c -->\n<!doctype html><p>"},
		{"\ufeff<!-- c --><!DOCTYPE html><p>", "\ufeff<!DOCTYPE html>" + tag + "<!-- c --><!DOCTYPE html><p>"},
		// The finding of issue 28: browsers end a comment at "<!-->", so the page's script came first.
		{"<!--><script>x()</script><!-- --><!doctype html>", tag + "<!--><script>x()</script><!-- --><!doctype html>"},
		{`<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "x">` + "<html>", `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "x">` + tag + "<html>"},
		{"<html><body>quirks", tag + "<html><body>quirks"},
		{"\ufeff<p>quirks", "\ufeff" + tag + "<p>quirks"},
		{"", tag},
		{"<!-- unterminated", tag + "<!-- unterminated"},
		{"<!doctype", tag + "<!doctype"},
		{"<p>x</p><!doctype html>", tag + "<p>x</p><!doctype html>"},
	}
	for _, c := range cases {
		if got := InjectSDK(c.in, tag); got != c.want {
			t.Errorf("InjectSDK(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestScriptsAreInlineSafe(t *testing.T) {
	s := New(Options{RoomOrigin: room}, bridge)
	confine, _ := scripts.ReadFile("confine.js")
	for name, b := range map[string][]byte{"sdk.js": s.sdkJS, "bridge.js": bridgeJS, "confine.js": confine} {
		low := strings.ToLower(string(b))
		if len(b) == 0 || strings.Contains(low, "</script") || strings.Contains(low, "<!--") || strings.Contains(low, "<script") {
			t.Errorf("%s cannot be inlined in a <script> element", name)
		}
	}
}

func TestAppDocument(t *testing.T) {
	const tag = "<script>SDK</script>"
	cases := []struct{ name, in, body, ctype string }{
		{"utf-8", "<!doctype html><p>é", "<!doctype html>" + tag + "<p>é", "text/html; charset=utf-8"},
		{"legacy", "<!doctype html><p>\xe9", "<!doctype html>" + tag + "<p>\xe9", "text/html"},
		{"ESC, but UTF-8: the header wins over a meta charset", "<!doctype html><meta charset=iso-2022-jp>\x1b(B", "<!doctype html>" + tag + "<meta charset=iso-2022-jp>\x1b(B", "text/html; charset=utf-8"},
		{"legacy with ESC", "<!doctype html><meta charset=iso-2022-jp>\x1b(B\xff", "<!doctype html>" + tag + "<meta charset=iso-2022-jp>\x1b(B\xff", "text/html; charset=windows-1252"},
		{"utf-16le", "\xff\xfe<\x00p\x00>\x00\xe9\x00", tag + "<p>é", "text/html; charset=utf-8"},
		{"utf-16be", "\xfe\xff\x00<\x00p\x00>", tag + "<p>", "text/html; charset=utf-8"},
		{"declarative shadow root", "<!doctype html><div><template shadowrootmode=closed><iframe></iframe></template></div>",
			"<!doctype html>" + tag + "<div><template data-voicebox-off-shadowrootmode=closed><iframe></iframe></template></div>", "text/html; charset=utf-8"},
	}
	for _, c := range cases {
		body, ctype := AppDocument(c.in, tag)
		if body != c.body || ctype != c.ctype {
			t.Errorf("%s: AppDocument(%q) = %q, %q; want %q, %q", c.name, c.in, body, ctype, c.body, c.ctype)
		}
	}
}

func TestDisarmDeclarativeShadowRoots(t *testing.T) {
	for in, want := range map[string]string{
		`<template shadowrootmode="open">`:                `<template data-voicebox-off-shadowrootmode="open">`,
		`<TEMPLATE SHADOWROOTMODE=closed>`:                `<TEMPLATE data-voicebox-off-SHADOWROOTMODE=closed>`,
		`<template/shadowrootmode/>`:                      `<template/data-voicebox-off-shadowrootmode/>`,
		`<template a="x"shadowrootmode>`:                  `<template a="x"data-voicebox-off-shadowrootmode>`,
		"<template\nShadowRootMode\t=\n'closed'>":         "<template\ndata-voicebox-off-ShadowRootMode\t=\n'closed'>",
		`<template shadowrootmode`:                        `<template data-voicebox-off-shadowrootmode`,
		`t.shadowRootMode = "open"; x={shadowRootMode:1}`: `t.shadowRootMode = "open"; x={shadowRootMode:1}`,
		`<p>"shadowrootmode"</p><b xshadowrootmode=1>`:    `<p>"shadowrootmode"</p><b xshadowrootmode=1>`,
		`shadowrootmode=open`:                             `shadowrootmode=open`, // not in a tag: the start of the text
		"\xe9 shadowrootmode=\xff":                        "\xe9 data-voicebox-off-shadowrootmode=\xff",
	} {
		if got := DisarmDeclarativeShadowRoots(in); got != want {
			t.Errorf("DisarmDeclarativeShadowRoots(%q) = %q, want %q", in, got, want)
		}
	}
}

// The bridge refuses only with the codes of the one table (toolcontract's Code… constants): a code it
// spells differently would reach the room and the models as an unknown word.
func TestBridgeCodesAreTheTables(t *testing.T) {
	table := map[string]bool{}
	for _, c := range []string{toolcontract.CodeUnknownTool, toolcontract.CodeToolTimeout, toolcontract.CodeOutputOverBudget,
		toolcontract.CodeToolError, toolcontract.CodeCancelled, toolcontract.CodeDuplicateTool, toolcontract.CodeTooManyTools,
		toolcontract.CodeInvalidToolParameters, toolcontract.CodeDownloadRefused, toolcontract.CodeDownloadTooLarge,
		toolcontract.CodeCopyTooLarge, toolcontract.CodeNeedsGesture} {
		table[c] = true
	}
	found := regexp.MustCompile(`(?:refusal\(|mediationAnswer\(d, false, |refused: )"([a-z-]+)"`).FindAllStringSubmatch(string(bridgeJS), -1)
	if len(found) < 8 {
		t.Fatalf("found %d refusals in bridge.js: the pattern no longer matches how it refuses", len(found))
	}
	for _, m := range found {
		if !table[m[1]] {
			t.Errorf("bridge.js refuses with %q, which is not a code of toolcontract's table", m[1])
		}
	}
}
