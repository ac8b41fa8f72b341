package httpapi

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Without the run's secret, every /api route answers 401 with a JSON refusal, whatever the method or path
// (the event stream, the room channel, the audio socket, unknown routes included); a wrong secret is no
// better, and neither is a cookie, whatever it holds. The secret as a bearer token opens them.
func TestEveryAPIRouteNeedsTheSecret(t *testing.T) {
	f := newFixture(t)
	f.srv.Client().Timeout = 10 * time.Second // an event stream that opened would never end: a backstop
	routes := []call{
		callTo("StoreService.List", `[]`),
		callTo("RoomService.Config", `[]`),
		callTo("StoreService.Delete", `["app_calc"]`),
		{method: "GET", path: "/api/events"},
		{method: "GET", path: ChannelPath + "?room=r1"},
		{method: "GET", path: AudioPath + "?rate=48000"},
		{method: "GET", path: "/api/nothing"},
		{method: "GET", path: "/api/mcp/config"}, // the old route that answered the MCP token to anyone
	}
	port := f.host[strings.LastIndex(f.host, ":")+1:]
	before := f.snapshot(t)
	for _, auth := range []string{"", "Bearer wrong", "Bearer " + testSecret + "x", "Basic " + testSecret, testSecret} {
		for _, c := range routes {
			// The cookie the room's URL was once traded for (issue 28): no credential any more.
			c.header = map[string]string{"Authorization": auth, "Cookie": "voicebox-" + port + "=" + testSecret}
			status, body := f.do(t, c)
			if status != 401 || body["error"] != CodeUnauthorized || body["message"] == "" {
				t.Errorf("%s %s with Authorization %q: got %d %v, want 401 %s", c.method, c.path, auth, status, body, CodeUnauthorized)
			}
		}
	}
	if !sameTree(before, f.snapshot(t)) {
		t.Fatal("a refused request changed files on disk")
	}
	if status, _ := f.do(t, callTo("StoreService.List", `[]`)); status != 200 {
		t.Fatalf("with the secret as a bearer token: %d", status)
	}
}

// setCookies records every Set-Cookie a client was answered with, redirects included.
type setCookies struct {
	mu   sync.Mutex
	seen []string
}

func (s *setCookies) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		s.mu.Lock()
		s.seen = append(s.seen, res.Header.Values("Set-Cookie")...)
		s.mu.Unlock()
	}
	return res, err
}

// The attack of issue 28 (finding 4): the person opens the room's URL; a page elsewhere then links to a
// hostile server on another port of 127.0.0.1, which the browser sends every cookie of 127.0.0.1 (cookies
// ignore ports; SameSite=Strict counts every port as one site), and which replays them to the room's API.
// Before, the first visit traded the URL's secret for the cookie voicebox-<port>, and with it
// MCPService.ClientConfig and StoreService.List answered 200. Now nothing sets a cookie, the hostile server
// receives none, and a replayed cookie opens nothing.
func TestNoCredentialReachesAnotherPortOfTheHost(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	var received []*http.Cookie
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		received = append(received, r.Cookies()...)
		mu.Unlock()
		io.WriteString(w, "<!doctype html><title>elsewhere</title>")
	}))
	t.Cleanup(hostile.Close)
	if !strings.HasPrefix(hostile.URL, "http://127.0.0.1:") || !strings.HasPrefix(f.srv.URL, "http://127.0.0.1:") || hostile.URL == f.srv.URL {
		t.Fatalf("the room (%s) and the hostile server (%s) must be two ports of 127.0.0.1", f.srv.URL, hostile.URL)
	}
	// A browser's cookie store keys cookies by host, not port, as browsers do.
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	sets := &setCookies{}
	browser := &http.Client{Jar: jar, Transport: sets, Timeout: 10 * time.Second}
	for _, visit := range []string{
		RoomURL(f.host, testSecret),                      // the address `voicebox serve` prints
		f.srv.URL + "/?" + TokenParam + "=" + testSecret, // its older form, as a bookmark may hold it
		f.srv.URL + "/",                                  // a reload
		hostile.URL + "/",                                // the page elsewhere links here
		hostile.URL + "/?reloaded",                       // which reloads itself
	} {
		res, err := browser.Get(visit)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("GET %s: %d", visit, res.StatusCode)
		}
	}
	room, _ := url.Parse(f.srv.URL)
	if len(sets.seen) != 0 || len(jar.Cookies(room)) != 0 {
		t.Errorf("the room set cookies: %q (the jar holds %v)", sets.seen, jar.Cookies(room))
	}
	mu.Lock()
	got := append([]*http.Cookie(nil), received...)
	mu.Unlock()
	if len(got) != 0 {
		t.Errorf("the hostile server on another port received the room's cookies: %v", got)
	}
	// What the hostile server does with what it received: every cookie, replayed, opens nothing.
	for _, c := range got {
		for _, m := range []string{"StoreService.List", "RoomService.Config"} {
			status, body := f.do(t, call{method: "POST", path: CallPrefix + m, body: `[]`,
				header: map[string]string{"Authorization": "", "Cookie": c.Name + "=" + c.Value}})
			if status != 401 {
				t.Errorf("the cookie %s replayed to %s: %d %v, want 401", c.Name, m, status, body)
			}
		}
	}
}

// The room's URL carries the secret in its fragment, which no request sends; the older form's query is
// moved there by a redirect that stores nothing, and a wrong one is refused.
func TestRoomURLCarriesTheSecretInItsFragment(t *testing.T) {
	f := newFixture(t)
	// The room reads the fragment as URLSearchParams do (transport.js), which ParseQuery matches.
	u, err := url.Parse(RoomURL(f.host, "a b+c/d&e"))
	if err != nil {
		t.Fatal(err)
	}
	if frag, err := url.ParseQuery(u.EscapedFragment()); err != nil || u.Path != "/" || u.RawQuery != "" || frag.Get(TokenParam) != "a b+c/d&e" {
		t.Fatalf("RoomURL = %s (%v): want the secret in the fragment only", u, err)
	}
	client := f.srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := client.Get(f.srv.URL + "/?" + TokenParam + "=" + testSecret + "&x=1")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if want := "/?x=1#" + TokenParam + "=" + testSecret; res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != want {
		t.Fatalf("the older form: %d to %q, want 303 to %q", res.StatusCode, res.Header.Get("Location"), want)
	}
	if c := res.Header.Values("Set-Cookie"); len(c) != 0 {
		t.Fatalf("the older form set cookies: %q", c)
	}
	res, err = client.Get(f.srv.URL + "/?" + TokenParam + "=wrong")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || res.Header.Get("Location") != "" {
		t.Fatalf("wrong token: %d to %q; want 401", res.StatusCode, res.Header.Get("Location"))
	}
	if _, err := New(Options{Host: f.host}); err == nil {
		t.Fatal("New without a secret: no error")
	}
}
