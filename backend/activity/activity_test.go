package activity_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/voicebox/voicebox/backend/activity"
	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/registry"
)

// A call from outside the room, published on the bus as the registry does, reaches subscribers as a
// numbered line and stays in the log; the room's own line (a Line) is numbered after it.
func TestBusEventsAreStampedIntoTheLog(t *testing.T) {
	bus := events.NewBus()
	log := activity.On(bus)
	evs, stop := bus.Subscribe(8)
	defer stop()

	bus.Publish(registry.EventActivity, registry.Activity{Caller: "mcp:inspector", Op: registry.OpCall, AppID: "app_score",
		Tool: "set_score", Args: json.RawMessage(`{"home":3}`), Outcome: registry.Outcome{Refused: "missing-argument", Message: "away is required"}, Millis: 12})
	bus.Publish(activity.EventLine, activity.Line{Who: "you", What: "launch", Input: json.RawMessage(`"Timer"`), Room: "room-1", Key: "7"})
	bus.Publish("store:changed", nil) // other events pass unchanged

	first := (<-evs).Data.(activity.Line)
	if first.Seq != 1 || first.Who != "mcp:inspector" || first.What != "set_score (app_score)" || !first.Failed ||
		first.Ms == nil || *first.Ms != 12 || string(first.Input) != `{"home":3}` || string(first.Outcome) != `"missing-argument: away is required"` || first.At == 0 {
		t.Fatalf("the registry's call became %+v", first)
	}
	second := (<-evs).Data.(activity.Line)
	if second.Seq != 2 || second.Room != "room-1" || second.Key != "7" || second.Ms != nil {
		t.Fatalf("the room's line became %+v", second)
	}
	if ev := <-evs; ev.Name != "store:changed" || ev.Data != nil {
		t.Fatalf("another event changed: %+v", ev)
	}
	if got := log.List(); len(got) != 2 || got[0].Seq != 1 || got[1].Seq != 2 {
		t.Fatalf("the log holds %+v", got)
	}
}

func TestLaunchAndCloseLines(t *testing.T) {
	log := activity.New()
	l := log.Stamp(registry.Activity{Caller: "voice:openai", Op: registry.OpLaunch, Ref: "timer.html", Outcome: registry.Outcome{OK: true, Result: json.RawMessage(`{"appId":"app_timer"}`)}}).(activity.Line)
	if l.What != "launch" || string(l.Input) != `"timer.html"` || l.Failed || string(l.Outcome) != `{"appId":"app_timer"}` {
		t.Fatalf("launch: %+v", l)
	}
	c := log.Stamp(registry.Activity{Caller: "mcp:x", Op: registry.OpClose, AppID: "app_timer", Outcome: registry.Outcome{OK: true}}).(activity.Line)
	if c.What != "close app_timer" || string(c.Outcome) != `"ok"` {
		t.Fatalf("close: %+v", c)
	}
}

// The ring keeps the newest Keep lines, in order; Clear empties it and numbering goes on.
func TestTheRingIsBounded(t *testing.T) {
	log := activity.New()
	for i := 0; i < activity.Keep+25; i++ {
		log.Stamp(activity.Line{Who: "you", What: "x"})
	}
	got := log.List()
	if len(got) != activity.Keep || got[0].Seq != 26 || got[len(got)-1].Seq != activity.Keep+25 {
		t.Fatalf("%d lines, %d…%d; want %d lines, 26…%d", len(got), got[0].Seq, got[len(got)-1].Seq, activity.Keep, activity.Keep+25)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Seq != got[i-1].Seq+1 {
			t.Fatalf("out of order at %d: %d after %d", i, got[i].Seq, got[i-1].Seq)
		}
	}
	log.Clear()
	if n := len(log.List()); n != 0 {
		t.Fatalf("%d lines after Clear", n)
	}
	if l := log.Stamp(activity.Line{What: "after"}).(activity.Line); l.Seq != activity.Keep+26 {
		t.Fatalf("after Clear the next line is %d, want %d", l.Seq, activity.Keep+26)
	}
}

// Texts are cut at a rune boundary; data past MaxData or not JSON is summarised.
func TestLinesAreBounded(t *testing.T) {
	log := activity.New()
	big := json.RawMessage(`"` + strings.Repeat("a", activity.MaxData) + `"`)
	l := log.Stamp(activity.Line{Who: strings.Repeat("é", activity.MaxText), What: "w", Input: big, Outcome: json.RawMessage(`{not json`)}).(activity.Line)
	if !utf8.ValidString(l.Who) || len(l.Who) > activity.MaxText+len("…") || !strings.HasSuffix(l.Who, "…") {
		t.Fatalf("who: %d bytes, valid %v", len(l.Who), utf8.ValidString(l.Who))
	}
	if string(l.Input) != `"(2050 bytes of input)"` || string(l.Outcome) != `"(9 bytes of outcome)"` {
		t.Fatalf("input %s, outcome %s", l.Input, l.Outcome)
	}
	res := json.RawMessage(`"` + strings.Repeat("r", 70000) + `"`)
	r := log.Stamp(registry.Activity{Caller: "mcp:x", Op: registry.OpCall, Tool: "t", AppID: "a", Outcome: registry.Outcome{OK: true, Result: res}}).(activity.Line)
	if string(r.Outcome) != `"(70002 bytes of outcome)"` {
		t.Fatalf("a 70 kB result is kept as %.80s", r.Outcome)
	}
}
