package settings

import (
	"os"
	"path/filepath"
	"reflect"
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

func TestOpenRefusesBrokenFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FileName), []byte("{"), 0o600)
	if _, err := Open(dir); err == nil {
		t.Fatal("broken settings: got nil error, want one")
	}
}
