package main

import (
	"testing"

	"github.com/voicebox/voicebox/backend/events"
)

// A burst of Go's notices (an activity line per tool call under load) reaches the window as one Wails event
// carrying all of them in order, not one event (one call onto the GTK main thread) each; nothing is lost.
func TestForwardBusSendsABurstAsOneWindowEvent(t *testing.T) {
	const n = 100
	bus := events.NewBus()
	evs, cancel := bus.Subscribe(256)
	for i := 0; i < n; i++ { // queued before the forwarder runs: one burst whatever the machine's pace
		bus.Publish("activity", i)
	}
	var emits [][]events.Event
	done := make(chan struct{})
	go func() {
		forwardBus(bus, evs, func() {}, func(batch []events.Event) { emits = append(emits, batch) })
		close(done)
	}()
	cancel() // closes evs after what is queued: the forwarder sends the burst, then ends
	<-done
	if len(emits) != 1 {
		t.Fatalf("%d window events for a burst of %d notices, want 1", len(emits), n)
	}
	for i, ev := range emits[0] {
		if ev.Name != "activity" || ev.Data != i {
			t.Fatalf("notice %d is %s %v, want activity %d", i, ev.Name, ev.Data, i)
		}
	}
	if got := len(emits[0]); got != n {
		t.Fatalf("the batch carries %d notices, want %d", got, n)
	}
}
