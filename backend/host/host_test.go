package host

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/backend/settings"
)

// The sandbox reads the CDN hosts from the Host's one settings store, so a change in Settings applies to
// the next app opened (no second copy of settings.json that misses it).
func TestSandboxFollowsTheSharedSettings(t *testing.T) {
	h := newTestHost(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := h.StartSandbox(ctx, "127.0.0.1", "http://127.0.0.1:1"); err != nil {
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
}
