package services_test

import (
	"encoding/json"
	"testing"

	"github.com/voicebox/voicebox/backend/activity"
	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/services"
)

// The room's own lines go through the same log as Go's: numbered, bounded, sent to every room; a line
// with nothing done is refused; Clear empties the log and tells the rooms.
func TestActivityServiceAddsAndClears(t *testing.T) {
	bus := events.NewBus()
	log := activity.On(bus)
	svc := services.NewActivityService(log, bus)
	evs, stop := bus.Subscribe(8)
	defer stop()

	if _, body := services.Describe(svc.Add(services.RoomLine{Who: "you", What: "  "})); body.Code != services.CodeBadRequest {
		t.Fatalf("a line with nothing done: %+v", body)
	}
	ms := int64(-1)
	if _, body := services.Describe(svc.Add(services.RoomLine{What: "x", Ms: &ms})); body.Code != services.CodeBadRequest {
		t.Fatalf("a negative duration: %+v", body)
	}
	ms = 42
	if err := svc.Add(services.RoomLine{Who: "you", What: "launch", Input: json.RawMessage(`"Timer"`), Ms: &ms, Room: "room-a", Key: "3"}); err != nil {
		t.Fatal(err)
	}
	ev := <-evs
	l, ok := ev.Data.(activity.Line)
	if ev.Name != activity.EventLine || !ok || l.Seq != 1 || l.Room != "room-a" || l.Key != "3" || *l.Ms != 42 {
		t.Fatalf("the event: %+v", ev)
	}
	if got, _ := svc.List(); len(got) != 1 || got[0].What != "launch" {
		t.Fatalf("List: %+v", got)
	}
	if err := svc.Clear(); err != nil {
		t.Fatal(err)
	}
	if ev := <-evs; ev.Name != activity.EventCleared {
		t.Fatalf("after Clear: %+v", ev)
	}
	if got, _ := svc.List(); len(got) != 0 {
		t.Fatalf("after Clear: %+v", got)
	}
}
