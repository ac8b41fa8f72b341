package recent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/registry/registrytest"
)

func ids(apps []App) string {
	var s []string
	for _, a := range apps {
		s = append(s, a.AppID)
	}
	return strings.Join(s, ",")
}

func tool(name string) json.RawMessage {
	return json.RawMessage(`{"name":"` + name + `","description":"","parameters":{"type":"object"}}`)
}

// The list survives a restart (a new Open of the same folder), keeps the newest MaxApps, moves an app that
// opens again to the front, keeps its place when only its tools change, and writes nothing when nothing
// changed.
func TestListPersistsBounded(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir)
	if err != nil || len(l.Apps()) != 0 {
		t.Fatalf("fresh list: %+v %v", l.Apps(), err)
	}
	for i := range MaxApps + 3 {
		if _, err := l.Saw(fmt.Sprintf("app_%d", i), fmt.Sprintf("App %d", i), nil, true); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(l.Apps()); n != MaxApps {
		t.Fatalf("%d apps kept, want %d", n, MaxApps)
	}
	if _, err := l.Saw("app_5", "App 5", []json.RawMessage{tool("count")}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Saw("app_9", "App 9", []json.RawMessage{tool("a"), tool("b")}, false); err != nil {
		t.Fatal(err)
	}
	apps := l.Apps()
	if apps[0].AppID != "app_5" || apps[1].AppID != "app_26" || apps[len(apps)-1].AppID != "app_3" {
		t.Fatalf("order %s", ids(apps))
	}
	info, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("file %v %v, want mode 0600", info, err)
	}

	again, err := Open(dir)
	if err != nil || ids(again.Apps()) != ids(apps) {
		t.Fatalf("after a restart: %s (%v), want %s", ids(again.Apps()), err, ids(apps))
	}
	var nine App
	for _, a := range again.Apps() {
		if a.AppID == "app_9" {
			nine = a
		}
	}
	if len(nine.Tools) != 2 || !strings.Contains(string(nine.Tools[1]), `"b"`) {
		t.Fatalf("app_9's tools after a restart: %s", nine.Tools)
	}

	// Nothing changed: nothing is written (the file, removed, stays away).
	os.Remove(filepath.Join(dir, FileName))
	if wrote, err := again.Saw("app_9", "App 9", []json.RawMessage{tool("a"), tool("b")}, false); err != nil || wrote {
		t.Fatalf("unchanged Saw: wrote %v, %v", wrote, err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !os.IsNotExist(err) {
		t.Errorf("an unchanged list was written (%v)", err)
	}
}

// A file that is not the list's (broken JSON, too large, bad entries) starts the list empty or drops what
// is wrong, and the next change writes a good one.
func TestListRefusesBadFiles(t *testing.T) {
	for name, content := range map[string]string{
		"not JSON":  "{oops",
		"too large": `[{"appId":"app_a","title":"` + strings.Repeat("x", maxFileBytes) + `"}]`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, FileName), []byte(content), 0o600)
			l, err := Open(dir)
			if err == nil || len(l.Apps()) != 0 {
				t.Fatalf("Open: %d apps, err %v; want none and an error", len(l.Apps()), err)
			}
			if _, err := l.Saw("app_b", "B", nil, true); err != nil {
				t.Fatal(err)
			}
			if again, err := Open(dir); err != nil || ids(again.Apps()) != "app_b" {
				t.Fatalf("rewritten: %s %v", ids(again.Apps()), err)
			}
		})
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FileName), []byte(`[{"appId":""},{"appId":"app_a","title":"A"},{"appId":"app_a","title":"again"}]`), 0o600)
	if l, err := Open(dir); err != nil || ids(l.Apps()) != "app_a" || l.Apps()[0].Title != "A" {
		t.Fatalf("bad entries kept: %+v %v", l.Apps(), err)
	}
}

// Follow remembers the store's apps as they open in the registry, with the tools the registry accepted,
// and leaves out what the store does not know (an opened file).
func TestFollowRegistry(t *testing.T) {
	reg := registry.New(events.NewBus())
	l, _ := Open(t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := make(chan struct{}, 8)
	l.Follow(ctx, exposed.New(reg), func(id string) bool { return strings.HasPrefix(id, "app_") }, func() { changes <- struct{}{} }, t.Logf)
	room := registrytest.NewRoom(reg)
	defer room.Stop()
	board := registrytest.Scoreboard()
	if err := room.Open(registrytest.App{AppID: "doc_0123", Title: "Opened", Tools: board.Tools}); err != nil {
		t.Fatal(err)
	}
	if err := room.Open(board); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changes:
	case <-time.After(10 * time.Second):
		t.Fatal("no change reported")
	}
	apps := l.Apps()
	if ids(apps) != "app_scoreboard" || apps[0].Title != "Scoreboard" || len(apps[0].Tools) != 1 ||
		!strings.Contains(string(apps[0].Tools[0]), `"set_score"`) || !strings.Contains(string(apps[0].Tools[0]), `"enum":["home","away"]`) {
		t.Fatalf("followed: %+v", apps)
	}
}
