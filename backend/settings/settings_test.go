package settings

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestRoundTripAndMode(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Get(); !reflect.DeepEqual(got, Values{}) {
		t.Fatalf("fresh settings = %+v, want zero", got)
	}
	if _, err := s.Update(func(v *Values) { v.Provider = "gemini"; v.GeminiKey = "k" }); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("settings file mode = %v (%v), want 0600", info.Mode().Perm(), err)
	}
	again, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Get(); got.Provider != "gemini" || got.GeminiKey != "k" {
		t.Fatalf("reopened = %+v, want provider gemini and the key", got)
	}
}

func TestMCPTokenIsStable(t *testing.T) {
	s, _ := Open(t.TempDir())
	a, err := s.MCPToken()
	if err != nil || len(a) != 64 {
		t.Fatalf("token %q, %v; want 64 hex characters", a, err)
	}
	if b, _ := s.MCPToken(); b != a {
		t.Fatalf("second token %q, want %q", b, a)
	}
}

func TestCDNHostsDefault(t *testing.T) {
	if got := (Values{}).CDNHostList(); !reflect.DeepEqual(got, DefaultCDNHosts) {
		t.Fatalf("got %v, want %v", got, DefaultCDNHosts)
	}
	if got := (Values{CDNHosts: []string{}}).CDNHostList(); len(got) != 0 {
		t.Fatalf("an emptied list must stay empty, got %v", got)
	}
}

// An emptied list survives a save of any other setting and a restart: apps then load from no CDN.
func TestEmptyCDNListIsKept(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(func(v *Values) { v.CDNHosts = []string{} }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(func(v *Values) { v.Provider = "gemini" }); err != nil {
		t.Fatal(err)
	}
	v, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.CDNHostList(); v.CDNHosts == nil || len(got) != 0 {
		t.Fatalf("after a restart the list is %v (nil %v), want it empty", got, v.CDNHosts == nil)
	}
	if _, err := s.Update(func(v *Values) { v.CDNHosts = nil }); err != nil {
		t.Fatal(err)
	}
	if v, _ := Read(dir); !reflect.DeepEqual(v.CDNHostList(), DefaultCDNHosts) {
		t.Fatalf("a null list reads back as %v, want the defaults", v.CDNHostList())
	}
}

// esm.sh fetches any http(s) URL on request (its server/esm_router.go: /https://… modules, /uno.css?ctx=):
// a secret in the URL would reach the app's author. docs/sandbox.md, "CDN hosts".
func TestNoDefaultCDNFetchesArbitraryURLs(t *testing.T) {
	for _, h := range DefaultCDNHosts {
		if h == "esm.sh" || strings.HasSuffix(h, ".esm.sh") {
			t.Errorf("default CDN host %s fetches arbitrary URLs on request", h)
		}
	}
}

func TestOpenRefusesBrokenFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FileName), []byte("{"), 0o600)
	if _, err := Open(dir); err == nil {
		t.Fatal("broken settings: got nil error, want one")
	}
}
