package sandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/voicebox/voicebox/backend/toolcontract"
)

// postChild stores body as a child document of the launch, as confine.js does (Origin: null).
func postChild(t *testing.T, ts *httptest.Server, token, origin, base, body string) (int, http.Header, map[string]string) {
	t.Helper()
	req, _ := http.NewRequest("POST", ts.URL+ChildPath(token)+"?base="+base, strings.NewReader(body))
	req.Host = bridge
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	res, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var out map[string]string
	_ = json.Unmarshal(b, &out)
	return res.StatusCode, res.Header, out
}

// A child document is stored from the app's opaque origin only, served as a frame only, with the
// confinement and the SDK first, a <base> in the app's folder, the app's policy without frame-ancestors;
// it answers only on the launch's site and goes with the launch.
func TestChildDocuments(t *testing.T) {
	s, ts := newTestServer(t)
	l := s.Add(Launch{Room: "r1", AppID: "app_x", Title: "X", HTML: "<!doctype html><p>app</p>", Entry: "x.html"})
	folder := l.Origin + AppPath(l.Token)
	status, hdr, out := postChild(t, ts, l.Token, "null", folder+"sub/page.html", "<!doctype html><p>child</p>")
	if status != 200 || hdr.Get("Access-Control-Allow-Origin") != "null" || !strings.HasPrefix(out["url"], ChildPath(l.Token)) {
		t.Fatalf("store: %d %v %v", status, hdr, out)
	}
	frame := map[string]string{"Sec-Fetch-Dest": "iframe"}
	r := get(t, ts, "GET", out["url"], frame)
	if r.status != 200 || !strings.HasPrefix(r.body, "<!doctype html><script>") || !strings.Contains(r.body, "RTC") {
		t.Fatalf("child document: %d %.200s", r.status, r.body)
	}
	if !strings.Contains(r.body, `<base href="`+folder+`sub/page.html"><p>child</p>`) {
		t.Errorf("no <base> in the folder after the SDK: %.300s", r.body[strings.LastIndex(r.body, "</script>"):])
	}
	csp := r.header.Get("Content-Security-Policy")
	if csp != ChildCSP(l.Origin, room, AppPath(l.Token), []string{"cdn.jsdelivr.net", "unpkg.com"}) ||
		strings.Contains(csp, "frame-ancestors") || !strings.Contains(csp, "frame-src "+folder+".child/;") || !strings.Contains(csp, "sandbox allow-scripts") {
		t.Errorf("child policy: %s", csp)
	}
	for what, c := range map[string]struct {
		method, path string
		hdr          map[string]string
	}{
		"fetched, not framed": {"GET", out["url"], map[string]string{"Sec-Fetch-Dest": "empty"}},
		"a top-level page":    {"GET", out["url"], map[string]string{"Sec-Fetch-Dest": "document"}},
		"an unknown id":       {"GET", ChildPath(l.Token) + "999", frame},
		"not a number":        {"GET", ChildPath(l.Token) + "1x", frame},
		"the store by GET":    {"GET", ChildPath(l.Token), frame},
		"another token":       {"GET", ChildPath(strings.Repeat("0", 64)) + "1", frame},
		"PUT":                 {"PUT", out["url"], frame},
	} {
		if r := get(t, ts, c.method, c.path, c.hdr); r.status == 200 {
			t.Errorf("%s: 200", what)
		}
	}
	// Only the app's opaque origin stores; a base outside the folder (or with ".."), or none, gives no <base>.
	for _, origin := range []string{"", "http://evil.example", l.Origin} {
		if status, _, _ := postChild(t, ts, l.Token, origin, "", "<p>x"); status != 404 {
			t.Errorf("a store from origin %q: %d", origin, status)
		}
	}
	for _, base := range []string{"", "http://evil.example/", folder + "../other/", folder + "%2e%2e/x", "javascript:alert(1)", l.Origin + "/bridge/" + l.Token} {
		_, _, out := postChild(t, ts, l.Token, "null", base, "<p>b")
		if r := get(t, ts, "GET", out["url"], frame); !strings.Contains(r.body, `</script><p>b`) {
			t.Errorf("base %q was kept: %.200s", base, r.body[strings.LastIndex(r.body, "</script>"):])
		}
	}
	// A page's own <base> is its own.
	_, _, own := postChild(t, ts, l.Token, "null", folder, `<base href="sub/"><p>own`)
	if r := get(t, ts, "GET", own["url"], frame); strings.Contains(r.body, `<base href="`+folder) {
		t.Errorf("a second <base> before the page's own: %.200s", r.body[strings.LastIndex(r.body, "</script>"):])
	}
	s.Revoke(l.Token)
	if r := get(t, ts, "GET", out["url"], frame); r.status != 404 {
		t.Errorf("a child of a revoked launch: %d", r.status)
	}
	if status, _, _ := postChild(t, ts, l.Token, "null", "", "<p>x"); status != 404 {
		t.Errorf("a store for a revoked launch: %d", status)
	}
}

// Over MaxChildBytes a document is refused child-frame-too-large and nothing is stored; past MaxChildren
// documents, or MaxChildrenBytes in all, the oldest go.
func TestChildBounds(t *testing.T) {
	s, ts := newTestServer(t)
	l := s.Add(Launch{AppID: "app_b", HTML: "<p>app", Entry: "b.html"})
	status, _, out := postChild(t, ts, l.Token, "null", "", strings.Repeat("x", MaxChildBytes+1))
	if status != http.StatusRequestEntityTooLarge || out["refused"] != toolcontract.CodeChildFrameTooLarge {
		t.Fatalf("over the bound: %d %v", status, out)
	}
	if n := len(s.launches[l.Token].children.docs); n != 0 {
		t.Fatalf("%d documents stored after a refusal", n)
	}
	if status, _, _ := postChild(t, ts, l.Token, "null", "", strings.Repeat("x", MaxChildBytes)); status != 200 {
		t.Fatalf("at the bound: %d", status)
	}
	frame := map[string]string{"Sec-Fetch-Dest": "iframe"}
	var urls []string
	for i := 0; i < MaxChildren+3; i++ {
		_, _, out := postChild(t, ts, l.Token, "null", "", "<p>"+strconv.Itoa(i))
		urls = append(urls, out["url"])
	}
	c := s.launches[l.Token].children
	if len(c.docs) != MaxChildren || c.bytes > MaxChildrenBytes {
		t.Errorf("%d documents, %d bytes kept", len(c.docs), c.bytes)
	}
	if r := get(t, ts, "GET", urls[2], frame); r.status != 404 {
		t.Errorf("the oldest stays: %d", r.status)
	}
	if r := get(t, ts, "GET", urls[len(urls)-1], frame); r.status != 200 {
		t.Errorf("the newest: %d", r.status)
	}
	for i := 0; i < MaxChildrenBytes/MaxChildBytes+1; i++ {
		postChild(t, ts, l.Token, "null", "", strings.Repeat("y", MaxChildBytes))
	}
	if c.bytes > MaxChildrenBytes {
		t.Errorf("%d bytes kept, over %d", c.bytes, MaxChildrenBytes)
	}
}

// confine.js checks a document's size before it sends it (a browser may not read the refusal while it
// sends): its bound is MaxChildBytes.
func TestConfineChildBound(t *testing.T) {
	b, _ := scripts.ReadFile("confine.js")
	m := regexp.MustCompile(`MAX_CHILD_BYTES = (\d+)`).FindSubmatch(b)
	if m == nil || string(m[1]) != strconv.Itoa(MaxChildBytes) {
		t.Fatalf("confine.js's MAX_CHILD_BYTES is %q, sandbox.MaxChildBytes %d", m, MaxChildBytes)
	}
}

// With UnsafeUnconfinedChildrenEnv a child document gets the SDK without the confinement (the e2e control);
// without it, the confinement.
func TestUnconfinedChildren(t *testing.T) {
	if v := unconfinedVariants(func(string) string { return "" }, "x"); v != nil {
		t.Fatal("unconfined children without the variable")
	}
	s := New(Options{RoomOrigin: room}, bridge)
	s.unconfined = unconfinedVariants(func(k string) string { return map[string]string{UnsafeUnconfinedChildrenEnv: "1"}[k] }, "/*core*/")
	if s.unconfined == nil || strings.Contains(s.childTag("<p>"), "RTC") || !strings.Contains(s.sdk.tagFor("<p>"), "RTC") {
		t.Fatalf("the unconfined tag: %.200s", s.childTag("<p>"))
	}
}
