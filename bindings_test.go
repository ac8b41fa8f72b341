package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/voicebox/voicebox/backend/config"
	"github.com/voicebox/voicebox/backend/host"
	"github.com/voicebox/voicebox/backend/httpapi"
	"github.com/voicebox/voicebox/backend/mcpdoor"
)

// Every method the window binds for the room has its HTTP twin in `voicebox serve` (the same method served
// by name), except the desktop-only ones named in desktopOnly; and desktopOnly names only bound methods.
// Binding a service in app.go without serving it (or the reverse) fails here.
func TestEveryBoundMethodHasAnHTTPTwin(t *testing.T) {
	h, _ := testHost(t)
	bound, err := httpapi.Methods(desktopBindings(h, &RoomService{}))
	if err != nil {
		t.Fatal(err)
	}
	served, err := httpapi.Methods(h.ServeMethods())
	if err != nil {
		t.Fatal(err)
	}
	twins := map[string]bool{}
	for _, n := range served {
		twins[n] = true
	}
	seen := map[string]bool{}
	for _, n := range bound {
		seen[n] = true
		if !twins[n] && !desktopOnly[n] {
			t.Errorf("%s is bound in the desktop but has no HTTP twin in `voicebox serve`", n)
		}
		if twins[n] && desktopOnly[n] {
			t.Errorf("%s is listed desktop-only but `voicebox serve` serves it", n)
		}
	}
	for n := range desktopOnly {
		if !seen[n] {
			t.Errorf("desktopOnly names %s, which the desktop does not bind", n)
		}
	}
	for _, n := range served {
		if !seen[n] {
			t.Errorf("%s is served over HTTP but not bound in the desktop", n)
		}
	}
}

// testHost is the desktop's host on a new workspace and data folder (MCP on a free port), closed when the
// test ends.
func testHost(t *testing.T) (*host.Host, config.Paths) {
	t.Helper()
	t.Setenv(mcpdoor.EnvAddr, "127.0.0.1:0")
	root := t.TempDir()
	p := config.Paths{Workspace: filepath.Join(root, "ws"), Data: filepath.Join(root, "data")}
	if err := os.MkdirAll(p.Workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	h, err := host.New(p, host.Options{SandboxHost: "127.0.0.1", RoomOrigin: DesktopRoomOrigin})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h, p
}
