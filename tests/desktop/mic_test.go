package desktop

// The microphone in the real binary, with WebKit's mock capture devices (VOICEBOX_MOCK_CAPTURE=1): the
// room gets it (the person starts a voice session against a fake OpenAI Realtime server and holds Space:
// the mock microphone's audio reaches the provider), a mini-app's frame does not, before or after.

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/voice/voicetest"
)

const micKey = "sk-desktop-mic-0123456789"

func askMic(t *testing.T, cs *mcp.ClientSession, tool string) string {
	t.Helper()
	r := askJSON[struct {
		Result string `json:"result"`
	}](t, cs, tool)
	t.Logf("the frame asked for the microphone: %s", r.Result)
	return r.Result
}

func TestMicrophoneOnlyForTheRoom(t *testing.T) {
	t.Parallel()
	oa := voicetest.NewOpenAI(micKey)
	defer oa.Close()
	s := startSession(t)
	b := newBox(t, s, testdata(t, "micprobe.html"))
	b.start(t, []string{"VOICEBOX_MOCK_CAPTURE=1", "VOICEBOX_OPENAI_URL=" + oa.URL(), "OPENAI_API_KEY=" + micKey})
	win := s.window(t, b.app)
	if _, ok := b.waitLog(t, "guard: mock capture devices enabled", 10*time.Second); !ok {
		t.Fatal("the guard did not enable the mock capture devices")
	}
	cs := b.mcpClient(t)
	probe := launchApp(t, cs, "micprobe.html")
	mic := toolNamed(t, probe, "mic")

	// 1. The frame asks first.
	if got := askMic(t, cs, mic); strings.HasPrefix(got, "ok") {
		t.Errorf("the mini-app's frame got the microphone: %s", got)
	}

	// 2. The person starts a session (the room's Start button, top right) and holds Space to talk.
	_, width := pointer{t: t, s: s, win: win}.geometry()
	if out, err := s.run(t, 5*time.Second, "xdotool", "mousemove", "--window", win, strconv.Itoa(width-44), "171", "click", "1"); err != nil {
		t.Fatalf("click Start: %v %s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	conn, err := oa.Accept(ctx)
	if err != nil {
		s.keepScreenshot(t, "mic-start.png")
		t.Fatalf("the session did not start (no connection to the fake provider; did the click hit Start?): %v", err)
	}
	if _, ok := b.waitLog(t, "guard: granted the microphone to the room", 10*time.Second); !ok {
		s.keepScreenshot(t, "mic-room.png")
		t.Fatal("the room was not granted the microphone")
	}
	if out, err := s.run(t, 5*time.Second, "xdotool", "mousemove", "--window", win, "600", "700", "keydown", "space"); err != nil {
		t.Fatalf("xdotool keydown: %v %s", err, out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for conn.AudioBytes() < 4800 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	s.run(t, 5*time.Second, "xdotool", "keyup", "space")
	if n := conn.AudioBytes(); n < 4800 {
		s.keepScreenshot(t, "mic-audio.png")
		t.Fatalf("the provider got %d bytes of audio from the room's microphone, want some (messages: %s)", n, conn.Summary())
	}
	t.Logf("the provider got %d bytes of the room's (mock) microphone", conn.AudioBytes())

	// 3. The frame asks again while the room holds the microphone.
	grants := strings.Count(b.output(), "granted the microphone")
	if got := askMic(t, cs, mic); strings.HasPrefix(got, "ok") {
		t.Errorf("the mini-app's frame got the microphone after the room: %s", got)
	}
	if n := strings.Count(b.output(), "granted the microphone"); n != grants {
		t.Errorf("the guard granted the microphone %d more time(s) while the frame asked", n-grants)
	}
}
