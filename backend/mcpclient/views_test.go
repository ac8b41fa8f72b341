package mcpclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/voicebox/voicebox/backend/mcpclient"
	"github.com/voicebox/voicebox/backend/mcpclient/mcpclienttest"
)

func TestCleanOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.example.com":       "https://api.example.com",
		"HTTPS://API.Example.com/":      "https://api.example.com",
		"wss://rt.example.com:8443":     "wss://rt.example.com:8443",
		"https://*.cdn.example.net":     "https://*.cdn.example.net",
		"http://127.0.0.1:3000":         "http://127.0.0.1:3000",
		"https://[::1]:8080":            "https://[::1]:8080",
		"https://a.com; script-src *":   "",
		"https://a.com 'unsafe-eval'":   "",
		"https://a.com,https://b.com":   "",
		"https://a.com/path":            "",
		"javascript://a.com":            "",
		"api.example.com":               "",
		"https://":                      "",
		"https://a..com":                "",
		"https://-a.com":                "",
		"https://a.com:0":               "",
		"https://a.com:99999":           "",
		"https://a.com:08":              "",
		"https://*":                     "",
		"https://*.":                    "",
		"https://a.*.com":               "",
		"https://[::1]x":                "",
		"'self'":                        "",
		"https://exa\u0000mple.com":     "",
		"https://xn--bcher-kva.example": "https://xn--bcher-kva.example",
	} {
		got, ok := mcpclient.CleanOrigin(in)
		if got != want || ok != (want != "") {
			t.Errorf("CleanOrigin(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestAViewGetsOnlyWhatItDeclaresAndThePersonAllowed(t *testing.T) {
	m, _ := startBudget(t, nil)
	v, r := m.ReadResource(context.Background(), "budget", mcpclienttest.ViewURI)
	if r != nil {
		t.Fatal(r)
	}
	csp, perm := v.Granted(nil)
	if !reflect.DeepEqual(csp, mcpclient.CSP{}) || perm != (mcpclient.Permissions{}) {
		t.Fatalf("with no consent a view got %+v %+v", csp, perm)
	}
	consent := &mcpclient.Consent{
		ConnectDomains:  []string{"HTTPS://API.EXAMPLE.COM/", "https://never-declared.example"},
		ResourceDomains: []string{"https://*.cdn.example.net"},
		Permissions:     []string{"microphone", "camera"},
	}
	if err := m.SetConsent("budget", consent); err != nil {
		t.Fatal(err)
	}
	csp, perm = v.Granted(m.Consent("budget"))
	want := mcpclient.CSP{ConnectDomains: []string{"https://api.example.com"}, ResourceDomains: []string{"https://*.cdn.example.net"}}
	if !reflect.DeepEqual(csp, want) {
		t.Fatalf("granted %+v, want %+v (declared and allowed, nothing else)", csp, want)
	}
	if perm != (mcpclient.Permissions{Microphone: true}) {
		t.Fatalf("permissions %+v: camera was allowed but not asked for, clipboardWrite asked for but not allowed", perm)
	}
}

// The entry's headers (credentials) go to the server's own host only: a redirect elsewhere is not
// followed, so the other host never sees them.
func TestHeadersNeverFollowARedirect(t *testing.T) {
	var mu sync.Mutex
	var elsewhere []string
	h := mcpclienttest.Handler(mcpclienttest.Options{})
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		elsewhere = append(elsewhere, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(other.Close)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirector.Close)

	m, _ := newManager(t, func(o *mcpclient.Options) { o.MaxRestarts = -1 })
	m.Start()
	if err := m.Add("redirected", mcpclient.Server{URL: redirector.URL, Headers: map[string]string{"Authorization": "Bearer s3cret"}}); err != nil {
		t.Fatal(err)
	}
	st := waitFor(t, m, "redirected", "failing", func(s mcpclient.Status) bool { return s.State == mcpclient.StateFailed })
	mu.Lock()
	seen := append([]string(nil), elsewhere...)
	mu.Unlock()
	if len(seen) != 0 {
		t.Fatalf("the other host received %d requests (Authorization %q)", len(seen), seen)
	}
	if !strings.Contains(st.Reason, "could not start") {
		t.Fatalf("reason %q", st.Reason)
	}
	// Control: the same entry pointed at the other host directly does send its header there.
	if err := m.Add("direct", mcpclient.Server{URL: other.URL, Headers: map[string]string{"Authorization": "Bearer s3cret"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, m, "direct", "ready", ready)
	mu.Lock()
	defer mu.Unlock()
	if len(elsewhere) == 0 || elsewhere[0] != "Bearer s3cret" {
		t.Fatalf("the control did not reach the host with its header: %q", elsewhere)
	}
}
