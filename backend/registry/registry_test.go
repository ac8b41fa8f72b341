package registry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/registry/registrytest"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

func rig(t *testing.T, shelf ...registrytest.App) (*registry.Registry, *registrytest.Room, *events.Bus) {
	t.Helper()
	bus := events.NewBus()
	reg := registry.New(bus)
	room := registrytest.NewRoom(reg, shelf...)
	t.Cleanup(room.Stop)
	return reg, room, bus
}

func TestCallValidatesBeforeDispatch(t *testing.T) {
	reg, room, _ := rig(t)
	if err := room.Open(registrytest.Scoreboard()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, app, tool, args string
		code, path            string
	}{
		{"enum", "app_scoreboard", "set_score", `{"team":"visitors","points":3}`, toolcontract.CodeInvalidArgumentEnum, "/team"},
		{"missing", "app_scoreboard", "set_score", `{"team":"home"}`, toolcontract.CodeMissingArgument, "/points"},
		{"type", "app_scoreboard", "set_score", `{"team":"home","points":"3"}`, toolcontract.CodeInvalidArgumentType, "/points"},
		{"not an object", "app_scoreboard", "set_score", `[1]`, toolcontract.CodeInvalidToolArguments, ""},
		{"own __proto__", "app_scoreboard", "set_score", `{"team":"home","points":1,"__proto__":{}}`, toolcontract.CodeInvalidArgument, "/__proto__"},
		{"too large", "app_scoreboard", "set_score", `{"team":"home","points":1,"x":"` + strings.Repeat("a", toolcontract.MaxArgsBytes) + `"}`, toolcontract.CodeInvalidToolArguments, ""},
		{"unknown tool", "app_scoreboard", "reset", `{}`, toolcontract.CodeUnknownTool, ""},
		{"unknown app", "app_nope", "set_score", `{"team":"home","points":1}`, toolcontract.CodeUnknownTool, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := reg.Call(context.Background(), "test", tt.app, tt.tool, json.RawMessage(tt.args))
			if out.OK || out.Refused != tt.code || out.Path != tt.path || out.Message == "" {
				t.Fatalf("got %+v, want refused %s at %q with a message", out, tt.code, tt.path)
			}
		})
	}
	if n := len(room.Calls()); n != 0 {
		t.Fatalf("%d refused calls reached the app, want 0", n)
	}
	out := reg.Call(context.Background(), "test", "app_scoreboard", "set_score", json.RawMessage(`{"team":"home","points":3}`))
	if !out.OK || string(out.Result) != `{"ok":true,"currentScore":3}` {
		t.Fatalf("valid call: got %+v, want the app's result", out)
	}
	if calls := room.Calls(); len(calls) != 1 || string(calls[0].Args) != `{"team":"home","points":3}` {
		t.Fatalf("calls = %+v, want the arguments passed through unchanged", calls)
	}
}

func TestCallBoundsTheRoom(t *testing.T) {
	big := registrytest.App{
		AppID: "app_big", Title: "Big", Slug: "big",
		Tools: []string{`{"name":"dump","description":"","parameters":{"type":"object"}}`},
		Run: func(string, json.RawMessage) (json.RawMessage, string) {
			return json.RawMessage(`"` + strings.Repeat("x", toolcontract.MaxOutputBytes) + `"`), ""
		},
	}
	reg, room, _ := rig(t)
	room.Open(big)
	if out := reg.Call(context.Background(), "test", "app_big", "dump", nil); out.Refused != toolcontract.CodeOutputOverBudget || out.Message != "output over budget (max 64KB)" {
		t.Fatalf("over the output cap: got %+v", out)
	}

	room.Hang(true)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	if out := reg.Call(ctx, "test", "app_big", "dump", nil); out.Refused != toolcontract.CodeCancelled {
		t.Fatalf("cancelled: got %+v, want %s", out, toolcontract.CodeCancelled)
	}
	start := time.Now()
	out := reg.Call(context.Background(), "test", "app_big", "dump", nil)
	if out.Refused != toolcontract.CodeToolTimeout || out.Message != "tool execution timed out after 5000ms" {
		t.Fatalf("hung room: got %+v, want tool-timeout", out)
	}
	if waited := time.Since(start); waited < toolcontract.CallTimeout {
		t.Fatalf("gave up after %v, want the full %v", waited, toolcontract.CallTimeout)
	}
}

func TestLaunchCloseAndLifecycle(t *testing.T) {
	bus := events.NewBus()
	reg := registry.New(bus)
	if _, out := reg.Launch(context.Background(), "test", "scoreboard"); out.Refused != registry.CodeNoRoom {
		t.Fatalf("launch with no room: got %+v, want %s", out, registry.CodeNoRoom)
	}
	room := registrytest.NewRoom(reg, registrytest.Scoreboard())
	defer room.Stop()
	changes, stop := reg.Subscribe()
	defer stop()
	acts, cancelActs := bus.Subscribe(16)
	defer cancelActs()

	app, out := reg.Launch(context.Background(), "voice", "Scoreboard")
	if !out.OK || app.AppID != "app_scoreboard" || len(app.Tools) != 1 || app.Tools[0].Name != "set_score" {
		t.Fatalf("launch: got %+v %+v, want the scoreboard with set_score", app, out)
	}
	select {
	case <-changes:
	case <-time.After(time.Second):
		t.Fatal("no change notice after launch")
	}
	if _, out := reg.Launch(context.Background(), "voice", "nothing"); out.Refused != "mini-app-not-found" {
		t.Fatalf("launch unknown: got %+v", out)
	}
	if apps := reg.Apps(); len(apps) != 1 || apps[0].Title != "Scoreboard" {
		t.Fatalf("Apps() = %+v, want the scoreboard", apps)
	}
	if out := reg.Close(context.Background(), "voice", "app_scoreboard"); !out.OK {
		t.Fatalf("close: got %+v", out)
	}
	if out := reg.Call(context.Background(), "voice", "app_scoreboard", "set_score", json.RawMessage(`{"team":"home","points":1}`)); out.Refused != toolcontract.CodeUnknownTool {
		t.Fatalf("call after close: got %+v, want unknown-tool", out)
	}
	var seen []string
	for len(acts) > 0 {
		ev := <-acts
		if a, ok := ev.Data.(registry.Activity); ok && ev.Name == registry.EventActivity {
			seen = append(seen, fmt.Sprintf("%s:%s:%v", a.Caller, a.Op, a.Outcome.OK))
		}
	}
	want := "voice:launch:true voice:launch:false voice:close:true voice:call:false"
	if got := strings.Join(seen, " "); got != want {
		t.Fatalf("activity = %q, want %q", got, want)
	}
}

func TestGoodbyeDropsTheRoomsApps(t *testing.T) {
	reg, room, _ := rig(t)
	room.Open(registrytest.Scoreboard())
	reg.Goodbye(room.ID)
	if apps := reg.Apps(); len(apps) != 0 {
		t.Fatalf("Apps() after goodbye = %+v, want none", apps)
	}
	if _, out := reg.Launch(context.Background(), "test", "scoreboard"); out.Refused != registry.CodeNoRoom {
		t.Fatalf("launch after the only room left: got %+v, want %s", out, registry.CodeNoRoom)
	}
}

func TestRegisterAppliesTheToolContract(t *testing.T) {
	reg := registry.New(events.NewBus())
	raws := []json.RawMessage{json.RawMessage(`{"name":"bad name","description":"","parameters":{"type":"object"}}`)}
	for i := 0; i < toolcontract.MaxTools+1; i++ {
		raws = append(raws, json.RawMessage(fmt.Sprintf(`{"name":"t%d","description":"","parameters":{"type":"object"}}`, i)))
	}
	verdicts, err := reg.Register("room", "app_x", "X", "x", raws)
	if err != nil {
		t.Fatal(err)
	}
	if verdicts[0].OK || verdicts[0].Refused != toolcontract.CodeInvalidToolName {
		t.Errorf("bad name verdict = %+v", verdicts[0])
	}
	if last := verdicts[len(verdicts)-1]; last.OK || last.Refused != toolcontract.CodeTooManyTools {
		t.Errorf("17th valid tool verdict = %+v, want too-many-tools", last)
	}
	if apps := reg.Apps(); len(apps) != 1 || len(apps[0].Tools) != toolcontract.MaxTools {
		t.Fatalf("registered %d tools, want %d", len(apps[0].Tools), toolcontract.MaxTools)
	}
	if _, err := reg.Register("", "app_x", "X", "x", nil); err == nil {
		t.Error("register without a room: got nil error")
	}
	if err := reg.Reply(registry.Reply{ID: "nobody"}); err == nil {
		t.Error("reply nobody waits for: got nil error")
	}
}
