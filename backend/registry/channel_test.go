package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/registry/registrytest"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

const echoTool = `{"name":"echo","description":"Echo","parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`

// 10,000 calls in flight to a room whose transport is slow on purpose (it sleeps after every batch it
// takes), beside a bus subscriber that never reads (the old path lost requests there): every call is
// answered with its own result, none is lost, and a second reply to the same request settles nothing.
func TestChannelNeverDropsAndAnswersOnce(t *testing.T) {
	defer registry.SetBound(registry.OpCall, 10*time.Minute)() // causes, not the clock
	bus := events.NewBus()
	_, stopDeaf := bus.Subscribe(1) // never read: notices overflow it, requests must not care
	defer stopDeaf()
	reg := registry.New(bus)
	const room = "room-slow"
	if err := reg.Hello(room); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Register(room, "app_echo", "Echo", "echo", []json.RawMessage{json.RawMessage(echoTool)}); err != nil {
		t.Fatal(err)
	}
	var accepted, refusedAgain, crossRoom atomic.Int64
	var batches atomic.Int64
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var answering sync.WaitGroup
	go func() {
		for {
			batch, err := reg.Take(ctx, room)
			if err != nil {
				return
			}
			batches.Add(1)
			answering.Add(1)
			go func() {
				defer answering.Done()
				for _, q := range batch {
					rep := registry.Reply{ID: q.ID, Room: room, OK: true, Result: q.Args}
					if err := reg.Reply(registry.Reply{ID: q.ID, Room: "room-other", OK: true, Result: json.RawMessage(`"crossed"`)}); errors.Is(err, registry.ErrNoRequest) {
						crossRoom.Add(1)
					}
					if reg.Reply(rep) == nil {
						accepted.Add(1)
					}
					if err := reg.Reply(rep); errors.Is(err, registry.ErrNoRequest) {
						refusedAgain.Add(1)
					}
				}
			}()
			time.Sleep(2 * time.Millisecond) // the slow subscriber
		}
	}()
	const n = 10000
	var wg sync.WaitGroup
	var wrong atomic.Int64
	var firstWrong atomic.Value
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := fmt.Sprintf(`{"text":"call %d"}`, i)
			out := reg.Call(context.Background(), "test", "app_echo", "echo", json.RawMessage(args))
			if !out.OK || string(out.Result) != args {
				wrong.Add(1)
				firstWrong.CompareAndSwap(nil, fmt.Sprintf("call %d: %+v", i, out))
			}
		}()
	}
	wg.Wait()
	answering.Wait()
	if w := wrong.Load(); w != 0 {
		t.Fatalf("%d of %d calls lost or crossed; first: %v", w, n, firstWrong.Load())
	}
	if a, r, c := accepted.Load(), refusedAgain.Load(), crossRoom.Load(); a != n || r != n || c != n {
		t.Fatalf("replies accepted %d, second replies refused %d, replies from another room refused %d; want %d each", a, r, c, n)
	}
	t.Logf("%d calls answered once each, in %d batches", n, batches.Load())
}

// A launch is bounded by LaunchTimeout, not by the call timeout: an app slower to become ready than a
// tool call may take still opens and its launch answers ok (before, Go gave up at 5 s while the room
// waited 15 s, and answered tool-timeout for an app that then opened).
func TestLaunchHasItsOwnBound(t *testing.T) {
	defer registry.SetBound(registry.OpCall, 50*time.Millisecond)()
	defer registry.SetBound(registry.OpLaunch, time.Minute)()
	slow := registrytest.Scoreboard()
	slow.ReadyAfter = 200 * time.Millisecond
	reg, _, _ := rig(t, slow)
	app, out := reg.Launch(context.Background(), "test", "scoreboard")
	if !out.OK || app.AppID != slow.AppID {
		t.Fatalf("slow launch: got %+v %+v, want ok", app, out)
	}
}

// A launch that outlives its bound answers launch-timeout, and the app it was opening is closed: the
// registry cancels the launch in the room, so no app opens after its caller was told it did not.
func TestLaunchTimeoutClosesTheApp(t *testing.T) {
	defer registry.SetBound(registry.OpLaunch, 50*time.Millisecond)()
	slow := registrytest.Scoreboard()
	slow.ReadyAfter = 300 * time.Millisecond
	reg, room, _ := rig(t, slow)
	start := time.Now()
	_, out := reg.Launch(context.Background(), "test", "scoreboard")
	if out.OK || out.Refused != registry.CodeLaunchTimeout || out.Message == "" {
		t.Fatalf("launch: got %+v, want %s", out, registry.CodeLaunchTimeout)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Fatalf("gave up after %v, before the bound", waited)
	}
	room.Idle()
	if c := room.Cancels(); len(c) != 1 {
		t.Fatalf("cancels = %v, want the launch's", c)
	}
	if apps := reg.Apps(); len(apps) != 0 {
		t.Fatalf("Apps() = %+v after the launch timed out, want none", apps)
	}
}

// A request the room has not taken yet when its caller gives up never reaches the room.
func TestAbandonedRequestLeavesTheMailbox(t *testing.T) {
	defer registry.SetBound(registry.OpCall, 20*time.Millisecond)()
	reg := registry.New(events.NewBus())
	const room = "room-idle"
	_ = reg.Hello(room)
	if _, err := reg.Register(room, "app_echo", "Echo", "echo", []json.RawMessage{json.RawMessage(echoTool)}); err != nil {
		t.Fatal(err)
	}
	if out := reg.Call(context.Background(), "test", "app_echo", "echo", json.RawMessage(`{"text":"x"}`)); out.Refused != toolcontract.CodeToolTimeout {
		t.Fatalf("got %+v, want tool-timeout", out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if batch, err := reg.Take(ctx, room); err == nil {
		t.Fatalf("Take returned %+v, want nothing: the request was abandoned", batch)
	}
}

// A transport that took requests but could not write them gives them back, first in line; goodbye ends
// the room's Take; the call observer sees a call taken and settled.
func TestUntakeGoodbyeAndObserver(t *testing.T) {
	reg := registry.New(events.NewBus())
	const room = "room-a"
	_ = reg.Hello(room)
	if _, err := reg.Register(room, "app_echo", "Echo", "echo", []json.RawMessage{json.RawMessage(echoTool)}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	reg.ObserveCalls(func(e registry.CallEvent) {
		mu.Lock()
		seen = append(seen, fmt.Sprintf("%s %s %v", e.AppID, e.ID, e.InFlight))
		mu.Unlock()
	})
	done := make(chan registry.Outcome, 1)
	go func() {
		done <- reg.Call(context.Background(), "test", "app_echo", "echo", json.RawMessage(`{"text":"x"}`))
	}()
	first, err := reg.Take(context.Background(), room)
	if err != nil || len(first) != 1 {
		t.Fatalf("Take = %+v, %v", first, err)
	}
	reg.Untake(room, first)
	again, err := reg.Take(context.Background(), room)
	if err != nil || len(again) != 1 || again[0].ID != first[0].ID {
		t.Fatalf("after Untake, Take = %+v, %v; want %s again", again, err, first[0].ID)
	}
	if err := reg.Reply(registry.Reply{ID: again[0].ID, Room: room, OK: true, Result: json.RawMessage(`{"text":"x"}`)}); err != nil {
		t.Fatal(err)
	}
	if out := <-done; !out.OK {
		t.Fatalf("call: %+v", out)
	}
	mu.Lock()
	id := first[0].ID
	want := []string{"app_echo " + id + " true", "app_echo " + id + " false", "app_echo " + id + " true", "app_echo " + id + " false"}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("observer saw %v, want %v", seen, want)
	}
	mu.Unlock()

	ended := make(chan error, 1)
	go func() { _, err := reg.Take(context.Background(), room); ended <- err }()
	reg.Goodbye(room)
	if err := <-ended; !errors.Is(err, registry.ErrRoomGone) {
		t.Fatalf("Take after goodbye: %v, want ErrRoomGone", err)
	}
}
