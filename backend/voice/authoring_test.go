package voice_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/author/authortest"
	"github.com/voicebox/voicebox/backend/author/codemodel/codemodeltest"
	"github.com/voicebox/voicebox/backend/registry/registrytest"
	"github.com/voicebox/voicebox/backend/voice"
	"github.com/voicebox/voicebox/backend/voice/voicetest"
)

// The written app as the room double opens it: the store names <data>/sandbox/chess-clock/index.html
// page_chess-clock (a folder of the written apps' root), and its page declares start.
var chessClock = registrytest.App{AppID: "page_chess-clock", Title: "Chess clock", Slug: "chess-clock",
	Tools: []string{`{"name":"start","description":"Start the clock","parameters":{"type":"object","properties":{}}}`}}

const chessClockPage = "<!doctype html>\n<html><head><title>Chess clock</title></head>\n<body><button>Start</button>\n" +
	"<script>navigator.modelContext.registerTool({name:'start',description:'Start the clock',inputSchema:{type:'object',properties:{}},execute:async()=>({ok:true})});</script>\n</body></html>\n"

// authorRig is a session rig whose verbs can write apps: a real store and workshop in t.TempDir, a code model
// fake that answers chessClockPage, and the room double, which opens the written app as chessClock.
func authorRig(t *testing.T, provider string) *rig {
	t.Helper()
	return newRigWith(t, provider, func(r *rig, cfg *voice.Config) {
		a, code := authortest.New(t, r.reg, r.bus, testKey)
		code.Queue(codemodeltest.Text("```html\n" + chessClockPage + "```"))
		cfg.Author = a
	}, chessClock)
}

// OpenAI: create_mini_app answers at once ("building"); when the app is open the session adds a system
// message naming the app and its tools (declared first, with session.update), then asks for a response.
func TestOpenAICreateAnswersAtOnceThenTellsTheApp(t *testing.T) {
	r := authorRig(t, voice.ProviderOpenAI)
	c := r.start(voice.ProviderOpenAI)
	ctx := ctxT(t, 30*time.Second)
	c.FunctionCalls("resp_1", voicetest.Call{ID: "call_create", Name: "create_mini_app", Args: `{"description":"make me a chess clock with two players"}`})
	if _, err := c.AwaitType(ctx, "response.create"); err != nil {
		t.Fatal(err)
	}
	first, _ := voicetest.OutputFor(c.Messages(), "call_create")
	res, _ := first["result"].(map[string]any)
	if first["ok"] != true || res["status"] != "building" || res["name"] != "Chess clock" || res["job"] == "" {
		t.Fatalf("the first answer %v", first)
	}
	late, err := c.Await(ctx, "the late message", func(m voicetest.Msg) bool {
		return m.Type == "conversation.item.create" && m.String("item", "role") == "system"
	})
	if err != nil {
		t.Fatal(err)
	}
	text := late.String("item", "content", "0", "text")
	if !strings.Contains(text, `"Chess clock"`) || !strings.Contains(text, "chess-clock__start") {
		t.Fatalf("the late message does not name the app and its tool: %s", text)
	}
	// Then a response is asked for, and by then the app's tool is declared (session.update).
	isLate := func(m voicetest.Msg) bool {
		return m.Type == "conversation.item.create" && m.String("item", "role") == "system"
	}
	if _, err := c.Await(ctx, "a response after the message", func(voicetest.Msg) bool {
		seen := false
		for _, m := range c.Messages() {
			seen = seen || isLate(m)
			if seen && m.Type == "response.create" {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	declared, lateAt, asked := -1, -1, -1
	for i, m := range c.Messages() {
		if names, ok := voicetest.ToolNames(m); ok && m.Type == "session.update" && contains(names, "chess-clock__start") && declared < 0 {
			declared = i
		}
		if isLate(m) && lateAt < 0 {
			lateAt = i
		}
		if lateAt >= 0 && m.Type == "response.create" && asked < 0 {
			asked = i
		}
	}
	if declared < 0 || declared > asked {
		t.Fatalf("the app's tool was not declared before the late response (declared at %d, response at %d)", declared, asked)
	}
}

// Gemini: create_mini_app is declared NON_BLOCKING; its first response says building and will continue; the
// build's end is the call's last response (willContinue false) on the connection it was made on.
func TestGeminiCreateIsAnAsynchronousFunction(t *testing.T) {
	r := authorRig(t, voice.ProviderGemini)
	c := r.start(voice.ProviderGemini)
	ctx := ctxT(t, 30*time.Second)
	setup := c.Messages()[0]
	decls, _ := setup.Get("setup", "tools", "0", "functionDeclarations").([]any)
	nonBlocking := map[string]bool{}
	for _, d := range decls {
		m := d.(map[string]any)
		nonBlocking[m["name"].(string)] = m["behavior"] == "NON_BLOCKING"
	}
	if !nonBlocking["create_mini_app"] || !nonBlocking["edit_mini_app"] || nonBlocking["launch_mini_app"] {
		t.Fatalf("NON_BLOCKING declarations: %v", nonBlocking)
	}
	r.m.SendText("make me a chess clock")
	c.ToolCall(voicetest.Call{ID: "fc_create", Name: "create_mini_app", Args: `{"description":"a chess clock with two players"}`})
	responses := func() []map[string]any {
		var out []map[string]any
		for _, m := range c.Messages() {
			if m.Type != "toolResponse" {
				continue
			}
			frs, _ := m.Get("toolResponse", "functionResponses").([]any)
			for _, fr := range frs {
				if f := fr.(map[string]any); f["id"] == "fc_create" {
					out = append(out, f)
				}
			}
		}
		return out
	}
	if _, err := c.Await(ctx, "the last response", func(voicetest.Msg) bool { return len(responses()) == 2 }); err != nil {
		t.Fatalf("%v: %v", err, responses())
	}
	rs := responses()
	first, last := rs[0], rs[1]
	out0, _ := first["response"].(map[string]any)["output"].(map[string]any)
	if first["willContinue"] != true || first["scheduling"] != "WHEN_IDLE" || out0["status"] != "building" {
		t.Fatalf("first response %v", first)
	}
	out1, _ := last["response"].(map[string]any)["output"].(map[string]any)
	app, _ := out1["app"].(map[string]any)
	if last["willContinue"] != false || out1["status"] != "ready" || app["title"] != "Chess clock" ||
		!strings.Contains(strings.ToLower(toJSON(app["tools"])), "chess-clock__start") {
		t.Fatalf("last response %v", last)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
