package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

// Without the run's secret, every /api route answers 401 with a JSON refusal, whatever the method or path
// (the event stream, the room channel, the audio socket, unknown routes included); a wrong secret is no
// better. The secret as a bearer token, or as the cookie the room's URL is traded for, opens them.
func TestEveryAPIRouteNeedsTheSecret(t *testing.T) {
	f := newFixture(t)
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
	before := f.snapshot(t)
	for _, auth := range []string{"", "Bearer wrong", "Bearer " + testSecret + "x", "Basic " + testSecret, testSecret} {
		for _, c := range routes {
			c.header = map[string]string{"Authorization": auth}
			status, body := f.do(t, c)
			if status != 401 || body["error"] != CodeUnauthorized || body["message"] == "" {
				t.Errorf("%s %s with Authorization %q: got %d %v, want 401 %s", c.method, c.path, auth, status, body, CodeUnauthorized)
			}
		}
	}
	if !sameTree(before, f.snapshot(t)) {
		t.Fatal("a refused request changed files on disk")
	}
	// A wrong cookie is refused too; the right one opens the API.
	cookie := "voicebox-" + f.host[strings.LastIndex(f.host, ":")+1:]
	for _, c := range []struct {
		value  string
		status int
	}{{"wrong", 401}, {testSecret, 200}} {
		status, _ := f.do(t, call{method: "POST", path: CallPrefix + "StoreService.List", body: `[]`,
			header: map[string]string{"Authorization": "", "Cookie": cookie + "=" + c.value}})
		if status != c.status {
			t.Errorf("cookie %q: got %d, want %d", c.value, status, c.status)
		}
	}
}

// The first visit trades the URL's token for an HttpOnly, SameSite=Strict cookie named after the port and
// is sent on without it; a wrong token sets nothing.
func TestTokenTradedForACookie(t *testing.T) {
	f := newFixture(t)
	client := f.srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := client.Get(f.srv.URL + "/?token=" + testSecret + "&x=1")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/?x=1" {
		t.Fatalf("first visit: %d to %q, want 303 to /?x=1", res.StatusCode, res.Header.Get("Location"))
	}
	cs := res.Cookies()
	port := f.host[strings.LastIndex(f.host, ":")+1:]
	if len(cs) != 1 || cs[0].Name != "voicebox-"+port || cs[0].Value != testSecret || !cs[0].HttpOnly || cs[0].SameSite != http.SameSiteStrictMode || cs[0].Path != "/" {
		t.Fatalf("cookie %+v, want voicebox-%s, HttpOnly, SameSite=Strict, Path=/", cs, port)
	}
	res, err = client.Get(f.srv.URL + "/?token=wrong")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || len(res.Cookies()) != 0 {
		t.Fatalf("wrong token: %d, cookies %v; want 401 and none", res.StatusCode, res.Cookies())
	}
	if _, err := New(Options{Host: f.host}); err == nil {
		t.Fatal("New without a secret: no error")
	}
}
