package registry_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/registry/registrytest"
)

// A request in flight to a room that is restarted (the desktop's watchdog) or goes away is refused at
// once with the matching code, not left to time out.
func TestFailRoomRefusesWaitingRequests(t *testing.T) {
	for _, tc := range []struct {
		name, code string
		end        func(reg *registry.Registry, room string)
	}{
		{"reloaded", registry.CodeRoomReloaded, func(reg *registry.Registry, room string) {
			if n := reg.FailRoom(room, registry.CodeRoomReloaded, "the room was restarted"); n != 1 {
				t.Errorf("FailRoom answered %d requests, want 1", n)
			}
		}},
		{"goodbye", registry.CodeRoomGone, func(reg *registry.Registry, room string) { reg.Goodbye(room) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, room, _ := rig(t)
			if err := room.Open(registrytest.Scoreboard()); err != nil {
				t.Fatal(err)
			}
			room.Hang(true)
			if n := reg.FailRoom("some-other-room", registry.CodeRoomReloaded, "x"); n != 0 {
				t.Fatalf("FailRoom of an idle room answered %d requests", n)
			}
			done := make(chan registry.Outcome, 1)
			go func() {
				done <- reg.Call(context.Background(), "test", "app_scoreboard", "set_score", json.RawMessage(`{"team":"home","points":1}`))
			}()
			time.Sleep(100 * time.Millisecond) // the call is waiting on the hung room
			if n := reg.FailRoom("some-other-room", registry.CodeRoomReloaded, "x"); n != 0 {
				t.Fatalf("FailRoom of another room answered %d requests", n)
			}
			tc.end(reg, room.ID)
			out := <-done
			if out.OK || out.Refused != tc.code || out.Message == "" {
				t.Fatalf("got %+v, want refused %s", out, tc.code)
			}
		})
	}
}
