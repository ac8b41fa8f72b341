package voice_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/registry/registrytest"
	"github.com/voicebox/voicebox/backend/voice"
	"github.com/voicebox/voicebox/backend/voice/voicetest"
)

// echoApp is an app whose slug is "echo" with one tool "echo" that answers which app it is.
func echoApp(appID, desc string) registrytest.App {
	return registrytest.App{AppID: appID, Title: "Echo", Slug: "echo",
		Tools: []string{`{"name":"echo","description":"` + desc + `","parameters":{"type":"object","properties":{"text":{"type":"string"}}}}`},
		Run: func(string, json.RawMessage) (json.RawMessage, string) {
			return json.RawMessage(`{"from":"` + appID + `"}`), ""
		}}
}

// declared maps each declared function name to its description in a session.update.
func declared(m voicetest.Msg) map[string]string {
	out := map[string]string{}
	tools, _ := m.Get("session", "tools").([]any)
	for _, tl := range tools {
		d, _ := tl.(map[string]any)
		name, _ := d["name"].(string)
		desc, _ := d["description"].(string)
		out[name] = desc
	}
	return out
}

func echoNames(m voicetest.Msg) int {
	n := 0
	for name := range declared(m) {
		if strings.HasPrefix(name, "echo__echo") {
			n++
		}
	}
	return n
}

// Issue 11, finding 4: a later app with the same slug must not take over an exposed name.
func TestExposedNameStaysWithTheAppThatGotIt(t *testing.T) {
	r := newRig(t, voice.ProviderOpenAI)
	if err := r.room.Open(echoApp("page_echo", "the victim")); err != nil {
		t.Fatal(err)
	}
	c := r.start(voice.ProviderOpenAI)
	ctx := ctxT(t, 10*time.Second)
	if d := declared(c.Messages()[0]); d["echo__echo"] != "the victim" {
		t.Fatalf("first declarations %v", d)
	}
	// The newcomer sorts before the victim ("app_" < "page_"): names assigned in id order gave it echo__echo.
	if err := r.room.Open(echoApp("app_echo", "the newcomer")); err != nil {
		t.Fatal(err)
	}
	up, err := c.Await(ctx, "both echo tools declared", func(m voicetest.Msg) bool { return m.Type == "session.update" && echoNames(m) == 2 })
	if err != nil {
		t.Fatal(err)
	}
	d := declared(up)
	if d["echo__echo"] != "the victim" {
		t.Fatalf("echo__echo now declares %q: %v", d["echo__echo"], d)
	}
	c.FunctionCalls("resp_1", voicetest.Call{ID: "c1", Name: "echo__echo", Args: `{"text":"the person's data"}`})
	if _, err := c.AwaitType(ctx, "response.create"); err != nil {
		t.Fatal(err)
	}
	for _, call := range r.room.Calls() {
		if call.AppID != "page_echo" {
			t.Fatalf("echo__echo reached %s: %+v", call.AppID, r.room.Calls())
		}
	}
	// The victim closes: its name answers a refusal, never the newcomer.
	r.reg.Unregister("page_echo")
	if _, err := c.Await(ctx, "the victim's tool withdrawn", func(m voicetest.Msg) bool { return m.Type == "session.update" && echoNames(m) == 1 }); err != nil {
		t.Fatal(err)
	}
	c.FunctionCalls("resp_2", voicetest.Call{ID: "c2", Name: "echo__echo", Args: `{"text":"more data"}`})
	out, err := c.Await(ctx, "the answer to c2", func(m voicetest.Msg) bool { return m.String("item", "call_id") == "c2" })
	if err != nil {
		t.Fatal(err)
	}
	var o map[string]any
	json.Unmarshal([]byte(out.String("item", "output")), &o)
	if o["refused"] != "unknown-tool" {
		t.Fatalf("a call by the closed app's name answered %v", o)
	}
	for _, call := range r.room.Calls() {
		if call.AppID != "page_echo" {
			t.Fatalf("echo__echo reached %s: %+v", call.AppID, r.room.Calls())
		}
	}
}

// churn opens and closes app_churn n times, a change every 10 ms, as a hostile app that registers and
// unregisters its tool would; it ends with the app open, its tool churn__echo described "v<n-1>".
func churn(t *testing.T, room *registrytest.Room, unregister func(string), n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if i%2 == 0 || i == n-1 {
			a := echoApp("app_churn", fmt.Sprintf("v%d", i))
			a.Slug = "churn"
			if err := room.Open(a); err != nil {
				t.Fatal(err)
			}
		} else {
			unregister("app_churn")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func updates(c *voicetest.Conn) int {
	n := 0
	for _, m := range c.Messages() {
		if _, ok := voicetest.ToolNames(m); ok && m.Type == "session.update" {
			n++
		}
	}
	return n
}

// Issue 11, finding 3: a churning app does not flood the provider with session.update. With an Interval
// of an hour only the first change can be declared during the test (timers never fire early): the setup
// and at most one update, where every change used to make one.
func TestToolChurnDoesNotFloodDeclarations(t *testing.T) {
	r := newRig(t, voice.ProviderOpenAI)
	r.table.Interval = time.Hour
	c := r.start(voice.ProviderOpenAI)
	churn(t, r.room, r.reg.Unregister, 12)
	if n := updates(c); n > 2 {
		t.Fatalf("%d session.update messages for 12 changes: %s", n, c.Summary())
	}
}

// The same churn on Gemini: the session resumes with new declarations once at most, not once per change.
func TestToolChurnDoesNotFloodGeminiSetups(t *testing.T) {
	r := newRig(t, voice.ProviderGemini)
	r.table.Interval = time.Hour
	r.start(voice.ProviderGemini)
	churn(t, r.room, r.reg.Unregister, 12)
	if n := r.fake.Count(); n > 2 {
		t.Fatalf("%d connections for 12 changes", n)
	}
}

// The last change is never lost: once the Interval has passed, the declarations match the room.
func TestToolChurnEndsDeclared(t *testing.T) {
	r := newRig(t, voice.ProviderOpenAI)
	r.table.Interval = 30 * time.Millisecond
	c := r.start(voice.ProviderOpenAI)
	churn(t, r.room, r.reg.Unregister, 12)
	if _, err := c.Await(ctxT(t, 10*time.Second), "the last change declared", func(m voicetest.Msg) bool {
		return m.Type == "session.update" && declared(m)["churn__echo"] == "v11"
	}); err != nil {
		t.Fatal(err)
	}
}

// Issue 11 (provider errors): a provider's error text reaches the room only through the session's one
// scrubber: no key, no control or bidirectional characters, bounded. The key is split by a bidi override,
// which must not hide it from the key's removal.
func TestProviderErrorsAreScrubbed(t *testing.T) {
	hostile := "bad \u202Erequest\x1b[2J for " + testKey[:6] + "\u200F" + testKey[6:] + " " + strings.Repeat("x", 10000)
	for _, provider := range []string{voice.ProviderOpenAI, voice.ProviderGemini} {
		r := newRig(t, provider)
		c := r.start(provider)
		if provider == voice.ProviderOpenAI {
			c.Error("server_error", hostile)
		} else {
			c.Send(map[string]any{"error": map[string]any{"code": 500, "message": hostile, "status": "INTERNAL"}})
		}
		waitFor(t, "the notice", func() bool { return len(r.events(events.Notice)) > 0 })
		msg := r.events(events.Notice)[0].Data.(map[string]string)["message"]
		if strings.ContainsAny(msg, "\u202E\u200F\x1b") || strings.Contains(msg, testKey) || strings.Contains(msg, testKey[6:]) || len(msg) > 4096 {
			t.Errorf("%s: the room was shown %q… (%d bytes)", provider, msg[:min(len(msg), 80)], len(msg))
		}
		if !strings.Contains(msg, "bad request") {
			t.Errorf("%s: the message itself was lost: %q", provider, msg[:min(len(msg), 80)])
		}
	}
}
