package host

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/voicebox/voicebox/backend/httpapi"
	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/backend/settings"
)

// The sandbox reads the CDN hosts from the Host's one settings store, so a change in Settings applies to
// the next app opened (no second copy of settings.json that misses it).
func TestSandboxFollowsTheSharedSettings(t *testing.T) {
	h := newTestHost(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	csp := func() string {
		t.Helper()
		info, err := h.SandboxService.Prepare(services.LaunchRequest{HTML: "<!doctype html><title>x</title>"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := http.Get(h.Sandbox.AppBase(info.LaunchID) + "page.html")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("app document: %d", res.StatusCode)
		}
		return res.Header.Get("Content-Security-Policy")
	}
	if got := csp(); !strings.Contains(got, "https://"+settings.DefaultCDNHosts[0]) {
		t.Fatalf("default CDN hosts missing from %q", got)
	}
	if _, err := h.Settings.Update(func(v *settings.Values) { v.CDNHosts = []string{"cdn.example.com"} }); err != nil {
		t.Fatal(err)
	}
	if got := csp(); !strings.Contains(got, "https://cdn.example.com") || strings.Contains(got, settings.DefaultCDNHosts[0]) {
		t.Fatalf("the sandbox did not follow Settings: %q", got)
	}
	if _, err := h.Settings.Update(func(v *settings.Values) { v.CDNHosts = []string{} }); err != nil {
		t.Fatal(err)
	}
	if got := csp(); strings.Contains(got, "https:") {
		t.Fatalf("an empty CDN list still allows %q", got)
	}
}

// Every method the room may call in `voicebox serve` answers by name over HTTP: given one argument too many,
// each refuses it as a bound method does (400 bad-request naming its count), none is missing (404).
func TestServeAnswersEveryMethod(t *testing.T) {
	h := newTestHost(t)
	srv := serveRoom(t, h)
	names, err := httpapi.Methods(h.ServeMethods())
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 30 {
		t.Fatalf("only %d methods: %v", len(names), names)
	}
	for _, name := range names {
		svc, m, _ := strings.Cut(name, ".")
		fn, ok := reflect.TypeOf(methodsOf(h, svc)).MethodByName(m)
		if !ok {
			t.Fatalf("%s: no such method", name)
		}
		args := "[" + strings.TrimSuffix(strings.Repeat("null,", fn.Type.NumIn()), ",") + "]" // the receiver counts: one too many
		code, body := do(t, srv, name, args)
		if code != 400 || body["error"] != "bad-request" || !strings.Contains(body["message"].(string), "arguments") {
			t.Errorf("%s: %d %v, want 400 bad-request about the arguments", name, code, body)
		}
	}
}

func methodsOf(h *Host, service string) any {
	for _, s := range h.ServeMethods() {
		if reflect.TypeOf(s).Elem().Name() == service {
			return s
		}
	}
	return nil
}
