package voice_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/registry/registrytest"
	"github.com/voicebox/voicebox/backend/settings"
	"github.com/voicebox/voicebox/backend/toolcontract"
	"github.com/voicebox/voicebox/backend/verbs"
	"github.com/voicebox/voicebox/backend/voice"
	"github.com/voicebox/voicebox/backend/voice/pcm"
	"github.com/voicebox/voicebox/backend/voice/voicetest"
)

const testKey = "sk-test-secret-key-0123456789"

type rig struct {
	t     *testing.T
	bus   *events.Bus
	reg   *registry.Registry
	table *exposed.Table // set its Interval before start
	room  *registrytest.Room
	fake  *voicetest.Server
	m     *voice.Manager
	evs   <-chan events.Event
	mu    sync.Mutex
	seen  []events.Event
	unsub func()
}

func newRig(t *testing.T, provider string, shelf ...registrytest.App) *rig {
	t.Helper()
	return newRigWith(t, provider, nil, shelf...)
}

// newRigWith is newRig with more of the session's configuration (with, when not nil, changes it).
func newRigWith(t *testing.T, provider string, with func(r *rig, cfg *voice.Config), shelf ...registrytest.App) *rig {
	t.Helper()
	r := &rig{t: t, bus: events.NewBus()}
	r.reg = registry.New(r.bus)
	r.table = exposed.New(r.reg)
	r.room = registrytest.NewRoom(r.reg, shelf...)
	if provider == voice.ProviderGemini {
		r.fake = voicetest.NewGemini(testKey)
	} else {
		r.fake = voicetest.NewOpenAI(testKey)
	}
	env := map[string]string{voice.EnvOpenAIKey: testKey, voice.EnvGeminiKey: testKey,
		voice.EnvOpenAIURL: r.fake.URL(), voice.EnvGeminiURL: r.fake.URL()}
	cfg := voice.Config{Bus: r.bus, Registry: r.reg, Exposed: r.table, Getenv: func(k string) string { return env[k] },
		Backoff: func(int) time.Duration { return 20 * time.Millisecond }, SetupTimeout: 5 * time.Second}
	if with != nil {
		with(r, &cfg)
	}
	r.m = voice.New(cfg)
	ch, unsub := r.bus.Subscribe(4096)
	r.unsub = unsub
	go func() {
		for ev := range ch {
			r.mu.Lock()
			r.seen = append(r.seen, ev)
			r.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		r.m.Close()
		r.fake.Close()
		r.room.Stop()
		r.unsub()
	})
	return r
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// hear reads n bytes of the model's audio from audio; it fails if ctx ends first.
func hear(t *testing.T, ctx context.Context, audio <-chan []byte, n int) []byte {
	t.Helper()
	var got []byte
	for len(got) < n {
		select {
		case b := <-audio:
			got = append(got, b...)
		case <-ctx.Done():
			t.Fatalf("got %d of %d bytes of audio", len(got), n)
		}
	}
	return got
}

// scoreboardRig is a rig with the scoreboard app open and a session of provider started.
func scoreboardRig(t *testing.T, provider string) (*rig, *voicetest.Conn) {
	t.Helper()
	r := newRig(t, provider)
	if err := r.room.Open(registrytest.Scoreboard()); err != nil {
		t.Fatal(err)
	}
	return r, r.start(provider)
}

// start starts the session and returns the fake's side of the connection.
func (r *rig) start(provider string) *voicetest.Conn {
	r.t.Helper()
	ctx := ctxT(r.t, 5*time.Second)
	if _, err := r.m.Start(ctx, provider); err != nil {
		r.t.Fatalf("start %s: %v", provider, err)
	}
	return r.accept(ctx)
}

// accept takes the session's next connection to the fake provider.
func (r *rig) accept(ctx context.Context) *voicetest.Conn {
	r.t.Helper()
	c, err := r.fake.Accept(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}

// awaitType waits for the client's next message of type typ on c.
func awaitType(t *testing.T, ctx context.Context, c *voicetest.Conn, typ string) voicetest.Msg {
	t.Helper()
	m, err := c.AwaitType(ctx, typ)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (r *rig) events(name string) []events.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []events.Event
	for _, e := range r.seen {
		if e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

func (r *rig) waitState(state string) voice.Status {
	r.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if st := r.m.Status(); st.State == state {
			return st
		}
		time.Sleep(5 * time.Millisecond)
	}
	r.t.Fatalf("state %q never came; status %+v", state, r.m.Status())
	return voice.Status{}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if ok() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestOpenAISetupDeclaresVerbsAndOpenTools(t *testing.T) {
	r, c := scoreboardRig(t, voice.ProviderOpenAI)
	if got := c.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Fatalf("Authorization header %q", got)
	}
	msgs := c.Messages()
	if len(msgs) == 0 || msgs[0].Type != "session.update" {
		t.Fatalf("first client event must be session.update, got %s", c.Summary())
	}
	up := msgs[0]
	if up.String("session", "type") != "realtime" {
		t.Fatalf("GA session.update needs session.type=realtime: %s", up.Raw)
	}
	if rate := up.Get("session", "audio", "input", "format", "rate"); rate != float64(24000) {
		t.Fatalf("input rate %v", rate)
	}
	if typ := up.String("session", "audio", "output", "format", "type"); typ != "audio/pcm" {
		t.Fatalf("output format %q", typ)
	}
	if up.Get("session", "audio", "input", "turn_detection") != nil {
		t.Fatal("push-to-talk (the default) must switch server VAD off")
	}
	names, _ := voicetest.ToolNames(up)
	for _, want := range []string{"launch_mini_app", "list_mini_apps", "close_mini_app", "save_page_to_shelf", "scoreboard__set_score"} {
		if !contains(names, want) {
			t.Errorf("%s not declared: %v", want, names)
		}
	}
	if contains(names, "call_mini_app_tool") {
		t.Error("call_mini_app_tool is only for Gemini (OpenAI re-declares with session.update)")
	}
	tools, _ := up.Get("session", "tools").([]any)
	for _, tl := range tools {
		d := tl.(map[string]any)
		if d["type"] != "function" || d["parameters"] == nil {
			t.Errorf("OpenAI tool shape {type:function,name,description,parameters}: %v", d)
		}
	}
	st := r.m.Status()
	if st.State != voice.StateListening || st.Provider != "openai" || st.InputRate != 24000 || st.OutputRate != 24000 || st.Tools != len(verbs.For(verbs.VoiceOpenAI))+1 {
		t.Fatalf("status %+v", st)
	}
}

func TestOpenAIFunctionCallRunsAndAnswers(t *testing.T) {
	r, c := scoreboardRig(t, voice.ProviderOpenAI)
	ctx := ctxT(t, 5*time.Second)
	if err := c.FunctionCalls("resp_1", voicetest.Call{ID: "call_1", Name: "scoreboard__set_score", Args: `{"team":"home","points":3}`}); err != nil {
		t.Fatal(err)
	}
	out, err := c.Await(ctx, "function_call_output", func(m voicetest.Msg) bool {
		return m.Type == "conversation.item.create" && m.String("item", "type") == "function_call_output"
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.String("item", "call_id") != "call_1" {
		t.Fatalf("output for %q", out.String("item", "call_id"))
	}
	var answer map[string]any
	json.Unmarshal([]byte(out.String("item", "output")), &answer)
	if answer["ok"] != true || answer["result"].(map[string]any)["currentScore"] != float64(3) {
		t.Fatalf("answer %v", answer)
	}
	if _, err := c.AwaitType(ctx, "response.create"); err != nil {
		t.Fatal(err)
	}
	calls := r.room.Calls()
	if len(calls) != 1 || calls[0].AppID != "app_scoreboard" || calls[0].Tool != "set_score" || string(calls[0].Args) != `{"team":"home","points":3}` {
		t.Fatalf("the app saw %+v", calls)
	}
	waitFor(t, "activity", func() bool { return len(r.events(registry.EventActivity)) > 0 })
	a := r.events(registry.EventActivity)[0].Data.(registry.Activity)
	if a.Caller != "voice:openai" || a.Tool != "set_score" || !a.Outcome.OK || string(a.Args) != `{"team":"home","points":3}` {
		t.Fatalf("activity %+v", a)
	}
}

func TestOpenAIBadArgumentsRefusedBeforeDispatch(t *testing.T) {
	r, c := scoreboardRig(t, voice.ProviderOpenAI)
	ctx := ctxT(t, 5*time.Second)
	c.FunctionCalls("resp_1",
		voicetest.Call{ID: "c_type", Name: "scoreboard__set_score", Args: `{"team":"home","points":"three"}`},
		voicetest.Call{ID: "c_enum", Name: "scoreboard__set_score", Args: `{"team":"visitors","points":1}`},
		voicetest.Call{ID: "c_missing", Name: "scoreboard__set_score", Args: `{"team":"home"}`},
		voicetest.Call{ID: "c_json", Name: "scoreboard__set_score", Args: `{"team":`},
		voicetest.Call{ID: "c_unknown", Name: "scoreboard__explode", Args: `{}`},
	)
	if _, err := c.AwaitType(ctx, "response.create"); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{
		"c_type":    {"invalid-argument-type", "/points"},
		"c_enum":    {"invalid-argument-enum", "/team"},
		"c_missing": {"missing-argument", "/points"},
		"c_json":    {"invalid-tool-arguments", ""},
		"c_unknown": {"unknown-tool", ""},
	}
	for id, w := range want {
		out, found := voicetest.OutputFor(c.Messages(), id)
		if !found {
			t.Fatalf("no output for %s", id)
		}
		if out["ok"] != false || out["refused"] != w[0] || (w[1] != "" && out["path"] != w[1]) {
			t.Errorf("%s: %v, want refused %s at %s", id, out, w[0], w[1])
		}
	}
	if calls := r.room.Calls(); len(calls) != 0 {
		t.Fatalf("refused calls reached the app: %+v", calls)
	}
	// One response.create for the whole response, after all five outputs.
	var order []string
	for _, m := range c.Messages() {
		if m.Type == "conversation.item.create" || m.Type == "response.create" {
			order = append(order, m.Type)
		}
	}
	if len(order) != 6 || order[5] != "response.create" {
		t.Fatalf("order %v", order)
	}
}

func TestOpenAILaunchThenToolInOneResponse(t *testing.T) {
	r := newRig(t, voice.ProviderOpenAI, registrytest.Scoreboard())
	c := r.start(voice.ProviderOpenAI)
	ctx := ctxT(t, 5*time.Second)
	first := c.Messages()[0]
	if names, _ := voicetest.ToolNames(first); contains(names, "scoreboard__set_score") {
		t.Fatal("scoreboard is not open yet")
	}
	// "Open the scoreboard and give the home team three points": both calls in one response.
	c.FunctionCalls("resp_1",
		voicetest.Call{ID: "call_launch", Name: "launch_mini_app", Args: `{"ref":"scoreboard"}`},
		voicetest.Call{ID: "call_score", Name: "scoreboard__set_score", Args: `{"team":"home","points":3}`},
	)
	if _, err := c.AwaitType(ctx, "response.create"); err != nil {
		t.Fatal(err)
	}
	launch, _ := voicetest.OutputFor(c.Messages(), "call_launch")
	res, _ := launch["result"].(map[string]any)
	tools, _ := res["tools"].([]any)
	if launch["ok"] != true || res["appId"] != "app_scoreboard" || len(tools) != 1 || tools[0].(map[string]any)["name"] != "scoreboard__set_score" || tools[0].(map[string]any)["parameters"] == nil {
		t.Fatalf("launch answer %v", launch)
	}
	score, _ := voicetest.OutputFor(c.Messages(), "call_score")
	if score["ok"] != true {
		t.Fatalf("set_score after launch: %v", score)
	}
	if calls := r.room.Calls(); len(calls) != 1 || calls[0].Tool != "set_score" {
		t.Fatalf("room calls %+v", calls)
	}
	// The new tools were declared (session.update) before the model's next response.
	var order []string
	for _, m := range c.Messages() {
		switch m.Type {
		case "session.update":
			if names, ok := voicetest.ToolNames(m); ok && contains(names, "scoreboard__set_score") {
				order = append(order, "declare")
			}
		case "response.create":
			order = append(order, "response.create")
		}
	}
	if len(order) < 2 || order[0] != "declare" || order[len(order)-1] != "response.create" {
		t.Fatalf("declare must precede response.create: %v", order)
	}
	// Launch is logged as activity by the registry, with the voice as caller.
	waitFor(t, "launch activity", func() bool {
		for _, e := range r.events(registry.EventActivity) {
			if a := e.Data.(registry.Activity); a.Op == registry.OpLaunch && a.Caller == "voice:openai" && a.Outcome.OK {
				return true
			}
		}
		return false
	})
}

func TestOpenAIToolChangeRedeclares(t *testing.T) {
	r := newRig(t, voice.ProviderOpenAI)
	c := r.start(voice.ProviderOpenAI)
	ctx := ctxT(t, 5*time.Second)
	r.room.Open(registrytest.Scoreboard())
	m, err := c.Await(ctx, "session.update with the scoreboard", func(m voicetest.Msg) bool {
		names, ok := voicetest.ToolNames(m)
		return m.Type == "session.update" && ok && contains(names, "scoreboard__set_score")
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.String("session", "type") != "realtime" {
		t.Fatalf("%s", m.Raw)
	}
	r.reg.Unregister("app_scoreboard")
	if _, err := c.Await(ctx, "session.update without it", func(m voicetest.Msg) bool {
		names, ok := voicetest.ToolNames(m)
		return m.Type == "session.update" && ok && !contains(names, "scoreboard__set_score") && contains(names, "launch_mini_app")
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "tool count", func() bool { return r.m.Status().Tools == len(verbs.For(verbs.VoiceOpenAI)) })
}

func TestOpenAICancelledResponseCancelsCall(t *testing.T) {
	r := newRig(t, voice.ProviderOpenAI)
	r.room.Open(registrytest.Scoreboard())
	r.room.Hang(true)
	c := r.start(voice.ProviderOpenAI)
	ctx := ctxT(t, 5*time.Second)
	// The call starts before the response is done; the person interrupts and the response is cancelled.
	c.Send(map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_x", "status": "in_progress"}})
	c.Send(map[string]any{"type": "response.output_item.done", "response_id": "resp_x", "item": map[string]any{
		"id": "it", "type": "function_call", "call_id": "call_x", "name": "scoreboard__set_score", "arguments": `{"team":"away","points":1}`}})
	waitFor(t, "the call to reach the app", func() bool { return len(r.room.Calls()) == 1 })
	c.ResponseDone("resp_x", "cancelled", nil)
	out, err := c.Await(ctx, "output", func(m voicetest.Msg) bool { return m.String("item", "type") == "function_call_output" })
	if err != nil {
		t.Fatal(err)
	}
	var o map[string]any
	json.Unmarshal([]byte(out.String("item", "output")), &o)
	if o["refused"] != toolcontract.CodeCancelled {
		t.Fatalf("cancelled call answered %v", o)
	}
	time.Sleep(100 * time.Millisecond)
	for _, m := range c.Messages() {
		if m.Type == "response.create" {
			t.Fatal("a cancelled response must not ask for another")
		}
	}
}

func TestOpenAIAudioPushToTalk(t *testing.T) {
	r := newRig(t, voice.ProviderOpenAI)
	c := r.start(voice.ProviderOpenAI)
	ctx := ctxT(t, 5*time.Second)
	frame := make([]byte, 4800*2) // 100 ms at 48 kHz
	if err := r.m.SendAudio(frame, 48000); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if c.AudioBytes() != 0 {
		t.Fatal("audio went up while push-to-talk was not held")
	}
	r.m.PushToTalk(true)
	if _, err := c.AwaitType(ctx, "input_audio_buffer.clear"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ { // half a second
		if err := r.m.SendAudio(frame, 48000); err != nil {
			t.Fatal(err)
		}
	}
	r.m.PushToTalk(false)
	if _, err := c.AwaitType(ctx, "input_audio_buffer.commit"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AwaitType(ctx, "response.create"); err != nil {
		t.Fatal(err)
	}
	// 500 ms at 24 kHz PCM16 = 24,000 bytes, in 40 ms appends of 1,920 bytes (the last one partial).
	if got := c.AudioBytes(); got < 23900 || got > 24100 {
		t.Fatalf("received %d bytes of audio, want about 24000", got)
	}
	n := 0
	for _, m := range c.Messages() {
		if m.Type == "input_audio_buffer.append" {
			n++
		}
	}
	if n != 13 {
		t.Fatalf("%d appends, want 12 whole 40 ms chunks and the rest", n)
	}
	if err := r.m.SendAudio([]byte{1, 2, 3}, 48000); err == nil {
		t.Fatal("odd frame accepted")
	}
	var e *voice.Error
	if err := r.m.SendAudio(frame, 1000); !errors.As(err, &e) || e.Code != voice.CodeBadAudio {
		t.Fatalf("1 kHz: %v", err)
	}
}

func TestOpenAIAlwaysListeningMode(t *testing.T) {
	r := newRig(t, voice.ProviderOpenAI)
	c := r.start(voice.ProviderOpenAI)
	ctx := ctxT(t, 5*time.Second)
	if err := r.m.SetMode(voice.ModeAlways); err != nil {
		t.Fatal(err)
	}
	up, err := c.Await(ctx, "turn detection", func(m voicetest.Msg) bool {
		return m.Type == "session.update" && m.Get("session", "audio", "input", "turn_detection") != nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if up.String("session", "audio", "input", "turn_detection", "type") != "server_vad" {
		t.Fatalf("%s", up.Raw)
	}
	r.m.SendAudio(make([]byte, 960*2), 24000)
	if _, err := c.AwaitType(ctx, "input_audio_buffer.append"); err != nil {
		t.Fatal(err)
	}
	if err := r.m.SetMode("sometimes"); err == nil {
		t.Fatal("unknown mode accepted")
	}
}

func tone(n int) []byte {
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(8000 * math.Sin(float64(i)/5))
	}
	return pcm.PCMBytes(s)
}

func TestOpenAIAudioOutAndTranscript(t *testing.T) {
	for _, beta := range []bool{false, true} {
		t.Run(fmt.Sprintf("beta=%v", beta), func(t *testing.T) {
			r := newRig(t, voice.ProviderOpenAI)
			r.fake.Beta = beta
			audio, stop := r.m.SubscribeAudio()
			defer stop()
			c := r.start(voice.ProviderOpenAI)
			if err := r.m.SendText("what is the score?"); err != nil {
				t.Fatal(err)
			}
			ctx := ctxT(t, 5*time.Second)
			item, err := c.AwaitType(ctx, "conversation.item.create")
			if err != nil {
				t.Fatal(err)
			}
			if item.String("item", "content", "0", "type") != "input_text" || item.String("item", "content", "0", "text") != "what is the score?" {
				t.Fatalf("%s", item.Raw)
			}
			c.AwaitType(ctx, "response.create")
			pcm := tone(12000) // half a second at 24 kHz
			c.Speak("resp_1", "Home leads three to nothing.", pcm)
			got := hear(t, ctx, audio, len(pcm))
			if string(got) != string(pcm) {
				t.Fatal("audio changed on the way")
			}
			waitFor(t, "final assistant line", func() bool {
				lines := r.m.Transcript()
				return len(lines) == 2 && lines[1].Final
			})
			lines := r.m.Transcript()
			if lines[0].Role != "user" || lines[0].Text != "what is the score?" || lines[1].Role != "assistant" || lines[1].Text != "Home leads three to nothing." {
				t.Fatalf("transcript %+v", lines)
			}
			r.waitState(voice.StateListening)
		})
	}
}

func TestOpenAIMissingAndRefusedKey(t *testing.T) {
	bus := events.NewBus()
	reg := registry.New(bus)
	fake := voicetest.NewOpenAI(testKey)
	defer fake.Close()
	env := map[string]string{voice.EnvOpenAIURL: fake.URL()}
	m := voice.New(voice.Config{Bus: bus, Registry: reg, Getenv: func(k string) string { return env[k] }})
	defer m.Close()
	ctx := ctxT(t, 5*time.Second)
	var e *voice.Error
	if _, err := m.Start(ctx, "openai"); !errors.As(err, &e) || e.Code != voice.CodeMissingKey || !strings.Contains(e.Message, "OPENAI_API_KEY") {
		t.Fatalf("missing key: %v", err)
	}
	if st := m.Status(); st.State != voice.StateError || st.Code != voice.CodeMissingKey {
		t.Fatalf("status %+v", st)
	}
	env[voice.EnvOpenAIKey] = "sk-wrong-key-0000"
	if _, err := m.Start(ctx, "openai"); !errors.As(err, &e) || e.Code != voice.CodeKeyRefused {
		t.Fatalf("refused key: %v", err)
	}
	if strings.Contains(m.Status().Message, "sk-wrong") {
		t.Fatal("the key leaked into the status")
	}
	if _, err := m.Start(ctx, "claude"); !errors.As(err, &e) || e.Code != voice.CodeUnknownProvider {
		t.Fatalf("unknown provider: %v", err)
	}
}

func TestKeysFromSettingsWinOverEnvironment(t *testing.T) {
	dir := t.TempDir()
	st, err := settings.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	bus := events.NewBus()
	fake := voicetest.NewOpenAI("sk-from-settings")
	defer fake.Close()
	env := map[string]string{voice.EnvOpenAIKey: "sk-from-env", voice.EnvOpenAIURL: fake.URL()}
	m := voice.New(voice.Config{Bus: bus, Registry: registry.New(bus), Settings: st, Getenv: func(k string) string { return env[k] }})
	defer m.Close()
	if src := m.Keys()["openai"]; src != "env" {
		t.Fatalf("source %q", src)
	}
	st.Update(func(v *settings.Values) { v.OpenAIKey = "sk-from-settings"; v.Provider = "openai" })
	if src := m.Keys()["openai"]; src != "settings" {
		t.Fatalf("source %q", src)
	}
	if _, err := m.Start(ctxT(t, 5*time.Second), ""); err != nil {
		t.Fatalf("settings key, settings provider: %v", err)
	}
}

func TestOpenAIReconnectKeepsTranscriptAndReplaysIt(t *testing.T) {
	r := newRig(t, voice.ProviderOpenAI)
	c := r.start(voice.ProviderOpenAI)
	ctx := ctxT(t, 5*time.Second)
	r.m.SendText("remember the number seven")
	c.AwaitType(ctx, "response.create")
	c.Speak("resp_1", "Seven, noted.", nil)
	waitFor(t, "two lines", func() bool { l := r.m.Transcript(); return len(l) == 2 && l[1].Final })

	c.Drop()
	c2 := r.accept(ctx)
	r.waitState(voice.StateListening)
	// The states went connecting (with an attempt) and back.
	reconnecting := false
	for _, e := range r.events(voice.EventState) {
		if st := e.Data.(voice.Status); st.State == voice.StateConnecting && st.Attempt == 1 && strings.Contains(st.Message, "reconnecting") {
			reconnecting = true
		}
	}
	if !reconnecting {
		t.Fatal("no reconnecting state was shown")
	}
	if l := r.m.Transcript(); len(l) != 2 || l[0].Text != "remember the number seven" {
		t.Fatalf("transcript lost: %+v", l)
	}
	// The new upstream conversation gets the transcript back as context.
	var replay []string
	for len(replay) < 2 {
		m, err := c2.AwaitType(ctx, "conversation.item.create")
		if err != nil {
			t.Fatal(err)
		}
		replay = append(replay, m.String("item", "role")+":"+m.String("item", "content", "0", "type")+":"+m.String("item", "content", "0", "text"))
	}
	if strings.Join(replay, "|") != "user:input_text:remember the number seven|assistant:output_text:Seven, noted." {
		t.Fatalf("replay %v", replay)
	}
	// And the session works on the new socket.
	if err := r.m.SendText("and now?"); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.AwaitType(ctx, "response.create"); err != nil {
		t.Fatal(err)
	}
}

func TestReconnectGivesUpWithReadableError(t *testing.T) {
	r := newRig(t, voice.ProviderOpenAI)
	c := r.start(voice.ProviderOpenAI)
	r.fake.Close()
	c.Drop()
	st := r.waitState(voice.StateError)
	if st.Code != voice.CodeConnectionLost || !strings.Contains(st.Message, "could not be restored") {
		t.Fatalf("status %+v", st)
	}
}

func TestStopAndStatus(t *testing.T) {
	r := newRig(t, voice.ProviderOpenAI)
	c := r.start(voice.ProviderOpenAI)
	if err := r.m.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	case <-time.After(3 * time.Second):
		t.Fatal("the upstream socket stayed open after Stop")
	}
	if st := r.m.Status(); st.State != voice.StateIdle {
		t.Fatalf("%+v", st)
	}
	var e *voice.Error
	if err := r.m.SendText("hello"); !errors.As(err, &e) || e.Code != voice.CodeNotRunning {
		t.Fatalf("%v", err)
	}
}

// --- Gemini ---------------------------------------------------------------------------------------------

func TestGeminiSetupAndToolCall(t *testing.T) {
	r, c := scoreboardRig(t, voice.ProviderGemini)
	if c.Query.Get("key") != testKey {
		t.Fatalf("key param %q", c.Query.Get("key"))
	}
	setup := c.Messages()[0]
	if setup.Type != "setup" || setup.String("setup", "model") != "models/"+voice.DefaultGeminiModel {
		t.Fatalf("%s", setup.Raw)
	}
	if setup.String("setup", "generationConfig", "responseModalities", "0") != "AUDIO" || setup.Get("setup", "sessionResumption") == nil {
		t.Fatalf("%s", setup.Raw)
	}
	names, _ := voicetest.ToolNames(setup)
	for _, want := range []string{"launch_mini_app", "list_mini_apps", "close_mini_app", "save_page_to_shelf", "call_mini_app_tool", "scoreboard__set_score"} {
		if !contains(names, want) {
			t.Errorf("%s not declared: %v", want, names)
		}
	}
	if st := r.m.Status(); st.InputRate != 16000 || st.OutputRate != 24000 {
		t.Fatalf("%+v", st)
	}
	ctx := ctxT(t, 5*time.Second)
	c.ToolCall(
		voicetest.Call{ID: "fc_1", Name: "scoreboard__set_score", Args: `{"team":"home","points":3}`},
		voicetest.Call{ID: "fc_2", Name: "scoreboard__set_score", Args: `{"team":"home","points":"3"}`},
	)
	if _, err := c.AwaitType(ctx, "toolResponse"); err != nil {
		t.Fatal(err)
	}
	ok1, _ := voicetest.ResponseFor(c.Messages(), "fc_1")
	if ok1["name"] != "scoreboard__set_score" || ok1["response"].(map[string]any)["output"].(map[string]any)["currentScore"] != float64(3) {
		t.Fatalf("fc_1 %v", ok1)
	}
	bad, _ := voicetest.ResponseFor(c.Messages(), "fc_2")
	refusal := bad["response"].(map[string]any)["error"].(map[string]any)
	if refusal["refused"] != "invalid-argument-type" || refusal["path"] != "/points" {
		t.Fatalf("fc_2 %v", bad)
	}
	if calls := r.room.Calls(); len(calls) != 1 {
		t.Fatalf("the refused call reached the app: %+v", calls)
	}
}

func TestGeminiCancellation(t *testing.T) {
	r := newRig(t, voice.ProviderGemini)
	r.room.Open(registrytest.Scoreboard())
	r.room.Hang(true)
	c := r.start(voice.ProviderGemini)
	c.ToolCall(voicetest.Call{ID: "fc_slow", Name: "scoreboard__set_score", Args: `{"team":"home","points":1}`})
	waitFor(t, "the call to reach the app", func() bool { return len(r.room.Calls()) == 1 })
	c.CancelCalls("fc_slow")
	waitFor(t, "cancelled activity", func() bool {
		for _, e := range r.events(registry.EventActivity) {
			if a := e.Data.(registry.Activity); a.Outcome.Refused == toolcontract.CodeCancelled {
				return true
			}
		}
		return false
	})
	time.Sleep(100 * time.Millisecond)
	if _, found := voicetest.ResponseFor(c.Messages(), "fc_slow"); found {
		t.Fatal("a cancelled call was answered")
	}
}

func TestGeminiToolChangeResumesWithNewDeclarations(t *testing.T) {
	r := newRig(t, voice.ProviderGemini)
	c := r.start(voice.ProviderGemini)
	ctx := ctxT(t, 5*time.Second)
	waitFor(t, "the handle", func() bool { return true })
	time.Sleep(50 * time.Millisecond) // the fake offers handle-1 right after setupComplete
	r.room.Open(registrytest.Scoreboard())
	c2 := r.accept(ctx)
	setup := awaitType(t, ctx, c2, "setup")
	if h := setup.String("setup", "sessionResumption", "handle"); h != "handle-1" {
		t.Fatalf("resumed with handle %q", h)
	}
	names, _ := voicetest.ToolNames(setup)
	if !contains(names, "scoreboard__set_score") {
		t.Fatalf("new setup declares %v", names)
	}
	select {
	case <-c.Done():
	case <-time.After(3 * time.Second):
		t.Fatal("the old connection was not closed")
	}
	st := r.waitState(voice.StateListening)
	if !st.Resumed || st.Tools != len(verbs.For(verbs.VoiceGemini))+1 {
		t.Fatalf("%+v", st)
	}
}

func TestGeminiLaunchThenToolInOneTurn(t *testing.T) {
	r := newRig(t, voice.ProviderGemini, registrytest.Scoreboard())
	c := r.start(voice.ProviderGemini)
	ctx := ctxT(t, 5*time.Second)
	r.m.SendText("open the scoreboard and give the home team three points")
	if _, err := c.AwaitType(ctx, "clientContent"); err != nil {
		t.Fatal(err)
	}
	// Mid-turn, the session must not drop the turn to re-declare: the new tool is reached through
	// call_mini_app_tool, and the session resumes with the new declarations when the turn ends.
	c.ToolCall(voicetest.Call{ID: "fc_launch", Name: "launch_mini_app", Args: `{"ref":"Scoreboard"}`})
	if _, err := c.AwaitType(ctx, "toolResponse"); err != nil {
		t.Fatal(err)
	}
	launch, _ := voicetest.ResponseFor(c.Messages(), "fc_launch")
	out := launch["response"].(map[string]any)["output"].(map[string]any)
	if out["appId"] != "app_scoreboard" || out["tools"].([]any)[0].(map[string]any)["name"] != "scoreboard__set_score" {
		t.Fatalf("launch %v", launch)
	}
	c.ToolCall(voicetest.Call{ID: "fc_score", Name: "call_mini_app_tool", Args: `{"name":"scoreboard__set_score","arguments":"{\"team\":\"home\",\"points\":3}"}`})
	if _, err := c.AwaitType(ctx, "toolResponse"); err != nil {
		t.Fatal(err)
	}
	score, _ := voicetest.ResponseFor(c.Messages(), "fc_score")
	if score["response"].(map[string]any)["output"].(map[string]any)["currentScore"] != float64(3) {
		t.Fatalf("score %v", score)
	}
	if r.fake.Count() != 1 {
		t.Fatal("the session reconnected mid-turn")
	}
	c.ModelTurn("Done: home has three.", tone(2400))
	c2 := r.accept(ctx)
	setup, _ := c2.AwaitType(ctx, "setup")
	if names, _ := voicetest.ToolNames(setup); !contains(names, "scoreboard__set_score") {
		t.Fatalf("after the turn: %v", names)
	}
}

func TestGeminiAudioBothWays(t *testing.T) {
	r := newRig(t, voice.ProviderGemini)
	audio, stop := r.m.SubscribeAudio()
	defer stop()
	c := r.start(voice.ProviderGemini)
	ctx := ctxT(t, 5*time.Second)
	r.m.PushToTalk(true)
	for i := 0; i < 5; i++ {
		r.m.SendAudio(make([]byte, 4800*2), 48000) // 100 ms at 48 kHz
	}
	r.m.PushToTalk(false)
	end, err := c.Await(ctx, "audioStreamEnd", func(m voicetest.Msg) bool { return m.Get("realtimeInput", "audioStreamEnd") == true })
	if err != nil {
		t.Fatal(err)
	}
	_ = end
	var first voicetest.Msg
	for _, m := range c.Messages() {
		if m.String("realtimeInput", "audio", "mimeType") != "" {
			first = m
			break
		}
	}
	if first.String("realtimeInput", "audio", "mimeType") != "audio/pcm;rate=16000" {
		t.Fatalf("%s", first.Raw)
	}
	// 500 ms at 16 kHz = 16,000 bytes.
	if got := c.AudioBytes(); got < 15900 || got > 16100 {
		t.Fatalf("%d bytes, want about 16000", got)
	}
	c.InputTranscript("hello ")
	c.InputTranscript("there")
	pcm := tone(4800)
	c.ModelTurn("Hi!", pcm)
	hear(t, ctx, audio, len(pcm))
	waitFor(t, "final lines", func() bool {
		l := r.m.Transcript()
		return len(l) == 2 && l[0].Final && l[1].Final
	})
	l := r.m.Transcript()
	if l[0].Role != "user" || l[0].Text != "hello there" || l[1].Role != "assistant" || l[1].Text != "Hi!" {
		t.Fatalf("%+v", l)
	}
}

func TestGeminiRefusedKeyAndGoAway(t *testing.T) {
	bus := events.NewBus()
	fake := voicetest.NewGemini(testKey)
	defer fake.Close()
	env := map[string]string{voice.EnvGeminiKey: "wrong", voice.EnvGeminiURL: fake.URL()}
	m := voice.New(voice.Config{Bus: bus, Registry: registry.New(bus), Getenv: func(k string) string { return env[k] }})
	defer m.Close()
	var e *voice.Error
	if _, err := m.Start(ctxT(t, 5*time.Second), "gemini"); !errors.As(err, &e) || e.Code != voice.CodeKeyRefused || !strings.Contains(e.Message, "API key not valid") {
		t.Fatalf("%v", err)
	}

	r := newRig(t, voice.ProviderGemini)
	c := r.start(voice.ProviderGemini)
	time.Sleep(50 * time.Millisecond)
	c.GoAway("10s")
	c2 := r.accept(ctxT(t, 5*time.Second))
	setup, _ := c2.AwaitType(ctxT(t, 5*time.Second), "setup")
	if setup.String("setup", "sessionResumption", "handle") != "handle-1" {
		t.Fatalf("%s", setup.Raw)
	}
}

func TestGeminiDropWithoutHandleReplaysTranscript(t *testing.T) {
	r := newRig(t, voice.ProviderGemini)
	r.fake.NoResumption = true
	c := r.start(voice.ProviderGemini)
	ctx := ctxT(t, 5*time.Second)
	r.m.SendText("my name is Ada")
	c.AwaitType(ctx, "clientContent")
	c.ModelTurn("Hello Ada.", nil)
	waitFor(t, "lines", func() bool { l := r.m.Transcript(); return len(l) == 2 && l[1].Final })
	c.Close(websocket.StatusInternalError, "boom")
	c2 := r.accept(ctx)
	cc := awaitType(t, ctx, c2, "clientContent")
	if cc.Get("clientContent", "turnComplete") != false || cc.String("clientContent", "turns", "0", "parts", "0", "text") != "my name is Ada" || cc.String("clientContent", "turns", "1", "role") != "model" {
		t.Fatalf("%s", cc.Raw)
	}
	if setup := c2.Messages()[0]; setup.Get("setup", "sessionResumption", "handle") != nil {
		t.Fatal("no handle was offered")
	}
}

func TestOpenAIUserLineKeepsItsPlaceAndErrorsAreScrubbed(t *testing.T) {
	r := newRig(t, voice.ProviderOpenAI)
	c := r.start(voice.ProviderOpenAI)
	ctx := ctxT(t, 5*time.Second)
	r.m.PushToTalk(true)
	r.m.SendAudio(make([]byte, 1920), 24000)
	r.m.PushToTalk(false)
	c.AwaitType(ctx, "response.create") // the fake answered the commit with input_audio_buffer.committed
	c.Speak("resp_1", "Sure.", nil)
	waitFor(t, "the answer", func() bool { l := r.m.Transcript(); return len(l) == 2 && l[1].Final })
	// The transcription of the person's words arrives after the answer, as it does upstream.
	c.UserTranscript("item_in_1", "turn it up")
	waitFor(t, "the user's words", func() bool { return r.m.Transcript()[0].Text == "turn it up" })
	l := r.m.Transcript()
	if l[0].Role != "user" || !l[0].Final || l[1].Text != "Sure." {
		t.Fatalf("%+v", l)
	}
	c.Error("invalid_api_key", "Incorrect API key provided: sk-proj-****************abcd. You can find your API key at …")
	waitFor(t, "the notice", func() bool { return len(r.events(events.Notice)) > 0 })
	msg := r.events(events.Notice)[0].Data.(map[string]string)["message"]
	if strings.Contains(msg, "abcd") || !strings.Contains(msg, "Incorrect API key provided: ***") {
		t.Fatalf("notice %q", msg)
	}
}
