package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The room's boot data holds a launch for each opened file, made for the page's own id (so the page's
// goodbye revokes it), only where mini-app frames may be made, and never one the launch rule refuses.
func TestRoomBootPreparesTheOpenedFiles(t *testing.T) {
	h, p := testHost(t)
	page := filepath.Join(p.Workspace, "hello.html")
	if err := os.WriteFile(page, []byte("<!doctype html><title>Hello</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	docs := h.OpenFiles("", []string{page})
	if len(docs) != 1 {
		t.Fatalf("opened %d files", len(docs))
	}
	a := &App{host: h}

	// No guard in force (as in this test process): frames may not be made, so nothing is prepared.
	if b := a.roomBoot(); b.Config.Guard || len(b.Launches) != 0 || len(b.Opened) != 1 {
		t.Fatalf("without a guard: guard %v, %d launches, %d opened", b.Config.Guard, len(b.Launches), len(b.Opened))
	}

	a.guard.unsafe = true // Config.Guard true, as with the guard in force
	b := a.roomBoot()
	if !regexp.MustCompile(`^room-[0-9a-f]{32}$`).MatchString(b.RoomID) {
		t.Fatalf("room id %q", b.RoomID)
	}
	info, ok := b.Launches[docs[0].ID]
	if !ok || len(b.Launches) != 1 {
		t.Fatalf("launches %+v, want one for %s", b.Launches, docs[0].ID)
	}
	l, ok := h.Sandbox.Lookup(info.LaunchID)
	if !ok || l.Room != b.RoomID || info.AppID != "doc_hello" || info.BridgeURL == "" {
		t.Fatalf("launch %+v (live %v, room %q), want doc_hello for room %s", info, ok, l.Room, b.RoomID)
	}
	if n := h.Sandbox.RevokeRoom(b.RoomID); n != 1 {
		t.Errorf("the page's goodbye revoked %d launches, want 1", n)
	}
	if again := a.roomBoot(); again.RoomID == b.RoomID {
		t.Error("two pages got the same id")
	}

	// The watchdog's rule refuses a booting room the app: no launch is prepared for it.
	h.SandboxService.SetLaunchRule(func(appID, by string) string {
		if by == "boot" {
			return "the watchdog closed it"
		}
		return ""
	})
	if b := a.roomBoot(); len(b.Launches) != 0 || len(b.Opened) != 1 {
		t.Fatalf("under the rule: %d launches, %d opened", len(b.Launches), len(b.Opened))
	}
}
