package exposed

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/registry"
)

var echo = []json.RawMessage{json.RawMessage(`{"name":"echo","description":"","parameters":{"type":"object"}}`)}

func TestSnapshotRebuiltOnlyOnChange(t *testing.T) {
	reg := registry.New(events.NewBus())
	tab := New(reg)
	reg.Register("room", "page_echo", "Echo", "echo", echo)
	first := tab.Snapshot()
	if tab.Snapshot() != first || tab.Snapshot() != first {
		t.Fatal("a snapshot was rebuilt without a registry change")
	}
	if first.Name("page_echo", "echo") != "echo__echo" || first.Names["echo__echo"].AppID != "page_echo" || first.Tool(first.Names["echo__echo"]) == nil {
		t.Fatalf("names %v", first.Names)
	}
	reg.Register("room", "app_echo", "Echo", "echo", echo)
	second := tab.Snapshot()
	if second == first || len(second.Apps) != 2 {
		t.Fatal("the registry changed but the snapshot did not")
	}
	// The name stays with the app that got it; the newcomer (whose id sorts first) gets the suffix.
	if second.Names["echo__echo"].AppID != "page_echo" || second.Name("app_echo", "echo") == "echo__echo" {
		t.Fatalf("names %v", second.Names)
	}
	if _, ok := second.App("app_echo"); !ok {
		t.Fatal("App does not find an open app")
	}
}

// A hundred changes within an Interval of an hour make one notice: the first, at once. A second could
// only come when the hour has passed (timers never fire early).
func TestChangesThrottled(t *testing.T) {
	reg := registry.New(events.NewBus())
	tab := New(reg)
	tab.Interval = time.Hour
	ch, stop := tab.Changes()
	defer stop()
	for i := 0; i < 50; i++ {
		reg.Register("room", "app_churn", "Churn", "churn", echo)
		reg.Unregister("app_churn")
	}
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("no notice for the first change")
	}
	select {
	case <-ch:
		t.Fatal("a second notice within the interval")
	default:
	}
}

// The last change is never dropped: it comes once the Interval since the first notice has passed.
func TestChangesTrailingNotice(t *testing.T) {
	const every = 20 * time.Millisecond
	reg := registry.New(events.NewBus())
	tab := New(reg)
	tab.Interval = every
	ch, stop := tab.Changes()
	defer stop()
	start := time.Now()
	reg.Register("room", "app_churn", "Churn", "churn", echo)
	<-ch
	reg.Unregister("app_churn")
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("the last change was dropped")
	}
	if waited := time.Since(start); waited < every {
		t.Fatalf("two notices %v apart, under the interval %v", waited, every)
	}
	if len(tab.Snapshot().Apps) != 0 {
		t.Fatal("the snapshot after the last notice does not show the last change")
	}
}
