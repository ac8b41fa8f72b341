package httpapi

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/backend/settings"
	"github.com/voicebox/voicebox/backend/voice"
	"github.com/voicebox/voicebox/backend/voice/voicetest"
)

type sessionFixture struct {
	served
	data string
	fake *voicetest.Server
	m    *voice.Manager
}

func newSessionFixture(t *testing.T) *sessionFixture {
	t.Helper()
	f := &sessionFixture{data: t.TempDir(), fake: voicetest.NewOpenAI("sk-right-key-123")}
	t.Cleanup(f.fake.Close)
	st, err := settings.Open(f.data)
	if err != nil {
		t.Fatal(err)
	}
	bus := events.NewBus()
	env := map[string]string{voice.EnvOpenAIURL: f.fake.URL()}
	getenv := func(k string) string { return env[k] }
	f.m = voice.New(voice.Config{Bus: bus, Registry: registry.New(bus), Settings: st, Getenv: getenv})
	t.Cleanup(f.m.Close)
	f.srv, f.host = serve(t, func(host string) Options {
		return Options{
			Host:     host,
			Room:     testRoom,
			Bus:      bus,
			Services: []any{services.NewSessionService(f.m), services.NewSettingsService(st, bus, getenv)},
			Voice:    f.m,
		}
	})
	return f
}

// do calls a method from the room's page (its Origin) and fails if the answer shows the key.
func (f *sessionFixture) do(t *testing.T, name, args string) (int, map[string]any) {
	t.Helper()
	c := callTo(name, args)
	c.header = map[string]string{"Origin": Origin(f.host)}
	status, v, raw := send(t, f.srv, c)
	if strings.Contains(string(raw), "sk-right-key") {
		t.Fatalf("%s leaked the key: %s", name, raw)
	}
	return status, v
}

func TestSettingsAreWriteOnlyForKeys(t *testing.T) {
	f := newSessionFixture(t)
	code, v := f.do(t, "SettingsService.Get", `[]`)
	if code != 200 || v["provider"] != "openai" || v["openai"].(map[string]any)["key"] != "not set" || v["gemini"].(map[string]any)["defaultModel"] != voice.DefaultGeminiModel {
		t.Fatalf("%d %v", code, v)
	}
	code, v = f.do(t, "SettingsService.Update", `[{"openaiKey":"sk-right-key-123","provider":"gemini","geminiModel":"gemini-live-test"}]`)
	if code != 200 || v["openai"].(map[string]any)["key"] != "set" || v["openai"].(map[string]any)["keySource"] != "settings" || v["provider"] != "gemini" || v["gemini"].(map[string]any)["model"] != "gemini-live-test" {
		t.Fatalf("%d %v", code, v)
	}
	fi, err := os.Stat(filepath.Join(f.data, settings.FileName))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings file: %v %v", fi.Mode(), err)
	}
	for _, bad := range []string{`{"provider":"claude"}`, `{"openaiKey":"has space"}`, `{"geminiModel":"<script>"}`} {
		if code, v := f.do(t, "SettingsService.Update", "["+bad+"]"); code != 400 || v["error"] != "bad-request" {
			t.Errorf("%s: %d %v", bad, code, v)
		}
	}
	// The shared door still applies: no JSON, no change.
	c := callTo("SettingsService.Update", `[{"openaiKey":""}]`)
	c.ctype = "text/plain"
	if status, _, _ := send(t, f.srv, c); status != http.StatusUnsupportedMediaType {
		t.Fatalf("text/plain: %d", status)
	}
	if code, v := f.do(t, "SettingsService.Update", `[{"openaiKey":""}]`); code != 200 || v["openai"].(map[string]any)["key"] != "not set" {
		t.Fatalf("clear: %d %v", code, v)
	}
}

func TestSessionAndAudioSocket(t *testing.T) {
	f := newSessionFixture(t)
	code, v := f.do(t, "SessionService.Start", `["openai"]`)
	if code != 400 || v["error"] != voice.CodeMissingKey {
		t.Fatalf("no key: %d %v", code, v)
	}
	f.do(t, "SettingsService.Update", `[{"openaiKey":"sk-wrong"}]`)
	if code, v := f.do(t, "SessionService.Start", `["openai"]`); code != 401 || v["error"] != voice.CodeKeyRefused {
		t.Fatalf("wrong key: %d %v", code, v)
	}
	f.do(t, "SettingsService.Update", `[{"openaiKey":"sk-right-key-123"}]`)
	if code, v := f.do(t, "SessionService.Start", `["openai"]`); code != 200 || v["state"] != "listening" || v["inputRate"] != float64(24000) {
		t.Fatalf("start: %d %v", code, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	up, err := f.fake.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}

	wsURL := "ws://" + f.host + AudioPath
	// Only the room's own page: no Origin, a foreign Origin and a bad rate are refused.
	for _, c := range []struct {
		origin, query string
		status        int
	}{{"", "?rate=48000", 403}, {"http://evil.example", "?rate=48000", 403}, {"null", "?rate=48000", 403}, {Origin(f.host), "?rate=1", 400}, {Origin(f.host), "", 400}} {
		h := http.Header{}
		h.Set("Authorization", "Bearer "+testSecret)
		if c.origin != "" {
			h.Set("Origin", c.origin)
		}
		_, res, err := websocket.Dial(ctx, wsURL+c.query, &websocket.DialOptions{HTTPHeader: h})
		if err == nil || res == nil || res.StatusCode != c.status {
			t.Errorf("origin %q %q: %v %v", c.origin, c.query, err, res)
		}
	}
	h := http.Header{}
	h.Set("Origin", Origin(f.host))
	h.Set("Authorization", "Bearer "+testSecret)
	ws, _, err := websocket.Dial(ctx, wsURL+"?rate=48000", &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	_, hello, err := ws.Read(ctx)
	if err != nil || !strings.Contains(string(hello), `"outputRate":24000`) {
		t.Fatalf("hello %s %v", hello, err)
	}
	ws.Write(ctx, websocket.MessageText, []byte(`{"type":"ptt","down":true}`))
	for i := 0; i < 5; i++ {
		ws.Write(ctx, websocket.MessageBinary, make([]byte, 9600)) // 100 ms at 48 kHz
	}
	ws.Write(ctx, websocket.MessageText, []byte(`{"type":"ptt","down":false}`))
	if _, err := up.AwaitType(ctx, "input_audio_buffer.commit"); err != nil {
		t.Fatal(err)
	}
	// Every frame sent before the release arrived before the commit.
	if got := up.AudioBytes(); got < 23900 || got > 24100 {
		t.Fatalf("%d bytes upstream before the commit", got)
	}
	// Relay latency, both ways, on loopback: one 40 ms chunk at the provider's rate goes up as one append;
	// the model's first audio delta comes down as one binary frame.
	t0 := time.Now()
	ws.Write(ctx, websocket.MessageText, []byte(`{"type":"ptt","down":true}`))
	ws.Write(ctx, websocket.MessageBinary, make([]byte, 3840)) // 40 ms at 48 kHz
	if _, err := up.Await(ctx, "append", func(m voicetest.Msg) bool { return m.Type == "input_audio_buffer.append" }); err != nil {
		t.Fatal(err)
	}
	upLatency := time.Since(t0)
	ws.Write(ctx, websocket.MessageText, []byte(`{"type":"ptt","down":false}`))
	up.AwaitType(ctx, "response.create")
	t1 := time.Now()
	up.Speak("r1", "hi", make([]byte, 4800))
	n := 0
	for n < 4800 {
		typ, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if typ == websocket.MessageBinary {
			if n == 0 {
				t.Logf("relay latency on loopback: microphone frame → provider append %s; provider audio delta → room frame %s", upLatency.Round(10*time.Microsecond), time.Since(t1).Round(10*time.Microsecond))
			}
			n += len(b)
		}
	}
	if code, _ := f.do(t, "SessionService.SendText", `["hello"]`); code != 200 {
		t.Fatal(code)
	}
	if code, _ := f.do(t, "SessionService.Transcript", `[]`); code != 200 {
		t.Fatal(code)
	}
	// An odd frame is not PCM16: the socket closes with a reason.
	ws.Write(ctx, websocket.MessageBinary, []byte{1, 2, 3})
	for {
		if _, _, err := ws.Read(ctx); err != nil {
			if websocket.CloseStatus(err) != websocket.StatusUnsupportedData {
				t.Fatalf("odd frame: %v", err)
			}
			break
		}
	}
	if code, v := f.do(t, "SessionService.Stop", `[]`); code != 200 || v["state"] != "idle" {
		t.Fatalf("stop %d %v", code, v)
	}
	if code, v := f.do(t, "SessionService.SendText", `["hello"]`); code != 409 || v["error"] != voice.CodeNotRunning {
		t.Fatalf("text after stop %d %v", code, v)
	}
}
