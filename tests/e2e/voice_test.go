package e2e

// The live voice session end to end: the real `voicebox serve` binary talks to protocol-level fakes of
// OpenAI Realtime and Gemini Live (backend/voice/voicetest, reached through VOICEBOX_OPENAI_URL and
// VOICEBOX_GEMINI_URL), the room runs in headless Chromium with a fake microphone, and a real mini-app
// (testdata/scoreboard.html) is driven by the fake model's function calls.

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/voicebox/voicebox/backend/voice/voicetest"
)

const voiceKey = "sk-e2e-voice-key-0123456789"

// openVoiceChromium is openChromium with a fake microphone (a tone) that needs no permission prompt.
func openVoiceChromium(t *testing.T, url string) *chromiumPage {
	t.Helper()
	return openChromium(t, url,
		chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.Flag("use-fake-device-for-media-stream", true),
	)
}

// gesture runs a script as if the person had clicked (audio may start).
func gesture(t *testing.T, p *chromiumPage, out any, script string, args ...any) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](wrapScript(fmt.Sprintf(script, args...)), chromedp.EvalAwaitPromise, func(e *cdpruntime.EvaluateParams) {
		yes := true
		e.UserGesture = &yes
	}))
	if err != nil {
		return err
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// waitPage polls a script until it returns true, for at most 10 s.
func waitPage(t *testing.T, p page, what, script string) {
	t.Helper()
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, what, script)
}

func awaitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

type board struct{ Home, Away, Seen string }

func readBoard(t *testing.T, p page, appID string) board {
	t.Helper()
	o := callTool(t, p, appID, "read_board", map[string]any{})
	wantOK(t, "read_board", o, "")
	var b board
	json.Unmarshal(o.Result, &b)
	return b
}

func activityLines(t *testing.T, p page) []string {
	var lines []string
	eval(t, p, &lines, `return [...document.querySelectorAll("#activity-log li")].map((li) => li.textContent);`)
	return lines
}

func hasTool(m voicetest.Msg, name string) bool {
	names, _ := voicetest.ToolNames(m)
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

func TestVoiceEndToEnd(t *testing.T) {
	requireTool(t, "/usr/bin/chromium", "chromium")
	oa := voicetest.NewOpenAI(voiceKey)
	defer oa.Close()
	gm := voicetest.NewGemini(voiceKey)
	defer gm.Close()
	t.Setenv("VOICEBOX_OPENAI_URL", oa.URL())
	t.Setenv("VOICEBOX_GEMINI_URL", gm.URL())
	t.Setenv("OPENAI_API_KEY", voiceKey)
	t.Setenv("GEMINI_API_KEY", voiceKey)
	s := startServer(t)
	p := openVoiceChromium(t, s.url)
	openRoom(t, p)
	waitPage(t, p, "the session panel", `return !!(window.voicebox && window.voicebox.session && document.getElementById("session-start"));`)

	// The exposed name of the scoreboard's tool: <app slug>__<tool>, the slug as the store has it.
	var entry struct {
		AppID string `json:"appId"`
		Slug  string `json:"slug"`
	}
	s.call(t, &entry, "StoreService.Get", "scoreboard.html")
	setScore := strings.ReplaceAll(entry.Slug, ".", "_") + "__set_score"

	var scoreboard string
	t.Run("openai", func(t *testing.T) { scoreboard = voiceOpenAI(t, p, s, oa, setScore) })
	t.Run("gemini", func(t *testing.T) { voiceGemini(t, p, s, gm, setScore, scoreboard) })
	t.Run("refused key", func(t *testing.T) { voiceRefusedKey(t, p, s) })
}

func voiceOpenAI(t *testing.T, p *chromiumPage, s *server, fake *voicetest.Server, setScore string) string {
	var st struct {
		State    string `json:"state"`
		Provider string `json:"provider"`
	}
	if err := gesture(t, p, &st, `return await window.voicebox.session.start("openai");`); err != nil {
		t.Fatalf("start: %v", err)
	}
	if st.State != "listening" || st.Provider != "openai" {
		t.Fatalf("start resolved with %+v", st)
	}
	ctx := awaitCtx(t)
	c, err := fake.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Header.Get("Authorization") != "Bearer "+voiceKey {
		t.Fatal("the key did not reach the provider")
	}
	waitPage(t, p, "state listening", `return window.voicebox.session.state === "listening" && document.getElementById("session-state").textContent.startsWith("listening");`)
	var html string
	eval(t, p, &html, `return document.documentElement.outerHTML + JSON.stringify(window.voicebox.session.status);`)
	if strings.Contains(html, voiceKey) {
		t.Fatal("the key reached the room")
	}
	first := c.Messages()[0]
	if first.Type != "session.update" || !hasTool(first, "launch_mini_app") || hasTool(first, setScore) {
		t.Fatalf("first declaration: %s", first.Raw)
	}

	// "Open the scoreboard and give the home team three points", in one response.
	sent := time.Now()
	if err := c.FunctionCalls("resp_1",
		voicetest.Call{ID: "call_launch", Name: "launch_mini_app", Args: `{"ref":"scoreboard.html"}`},
		voicetest.Call{ID: "call_score", Name: setScore, Args: `{"team":"home","points":3}`},
	); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AwaitType(ctx, "response.create"); err != nil {
		t.Fatal(err)
	}
	oneTurn := time.Since(sent)
	msgs := c.Messages()
	launchOut, _ := voicetest.OutputFor(msgs, "call_launch")
	scoreOut, _ := voicetest.OutputFor(msgs, "call_score")
	if launchOut["ok"] != true || scoreOut["ok"] != true {
		t.Fatalf("launch %v, set_score %v", launchOut, scoreOut)
	}
	appID, _ := launchOut["result"].(map[string]any)["appId"].(string)
	declaredBefore := false
	for _, m := range msgs {
		if m.Type == "session.update" && hasTool(m, setScore) {
			declaredBefore = true
		}
		if m.Type == "response.create" {
			break
		}
	}
	if !declaredBefore {
		t.Fatalf("the new tools were not declared before the next response: %s", c.Summary())
	}
	if b := readBoard(t, p, appID); b.Home != "3" || b.Seen != "1" {
		t.Fatalf("the app shows %+v", b)
	}
	t.Logf("launch + set_score in one response: %s from the model's calls to the answers", oneTurn.Round(time.Millisecond))

	// Round trip of one tool call through Go, the room, the bridge and the app, measured at the fake model.
	var rtts []time.Duration
	for i := 0; i < 10; i++ {
		id := fmt.Sprintf("call_rtt_%d", i)
		start := time.Now()
		c.FunctionCalls(fmt.Sprintf("resp_rtt_%d", i), voicetest.Call{ID: id, Name: setScore, Args: `{"team":"away","points":1}`})
		if _, err := c.Await(ctx, id, func(m voicetest.Msg) bool {
			return m.Type == "conversation.item.create" && m.String("item", "call_id") == id
		}); err != nil {
			t.Fatal(err)
		}
		rtts = append(rtts, time.Since(start))
		c.AwaitType(ctx, "response.create")
	}
	sort.Slice(rtts, func(i, j int) bool { return rtts[i] < rtts[j] })
	t.Logf("tool call round trip (fake model → app → fake model), 10 calls: median %s, max %s", rtts[5].Round(100*time.Microsecond), rtts[9].Round(100*time.Microsecond))
	if b := readBoard(t, p, appID); b.Away != "10" || b.Seen != "11" {
		t.Fatalf("after 10 calls the app shows %+v", b)
	}

	// Bad arguments come back refused with the tool contract's codes, and the app never sees them.
	c.FunctionCalls("resp_bad",
		voicetest.Call{ID: "bad_type", Name: setScore, Args: `{"team":"home","points":"three"}`},
		voicetest.Call{ID: "bad_enum", Name: setScore, Args: `{"team":"referee","points":1}`},
		voicetest.Call{ID: "bad_tool", Name: "scoreboard__explode", Args: `{}`},
	)
	if _, err := c.AwaitType(ctx, "response.create"); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"bad_type": "invalid-argument-type", "bad_enum": "invalid-argument-enum", "bad_tool": "unknown-tool"} {
		out, _ := voicetest.OutputFor(c.Messages(), id)
		if out["ok"] != false || out["refused"] != want {
			t.Errorf("%s: %v, want refused %s", id, out, want)
		}
	}
	if out, _ := voicetest.OutputFor(c.Messages(), "bad_type"); out["path"] != "/points" {
		t.Errorf("bad_type path %v", out["path"])
	}
	if b := readBoard(t, p, appID); b.Home != "3" || b.Seen != "11" {
		t.Fatalf("refused calls reached the app: %+v", b)
	}

	// Every call is in the room's activity log: who, which tool, the arguments, the outcome.
	waitPage(t, p, "the activity log", `return [...document.querySelectorAll("#activity-log li")].some((li) => li.textContent.includes("voice:openai") && li.textContent.includes("invalid-argument-type"));`)
	found := false
	for _, l := range activityLines(t, p) {
		if strings.Contains(l, "voice:openai") && strings.Contains(l, "set_score") && strings.Contains(l, `{"team":"home","points":3}`) {
			found = true
		}
	}
	if !found {
		t.Fatalf("no activity line for the voice's set_score: %v", activityLines(t, p))
	}

	// Text in the same session; the model answers with audio and a transcript the room shows and plays.
	eval(t, p, nil, `await window.voicebox.session.sendText("what is the score?");`)
	item, err := c.AwaitType(ctx, "conversation.item.create")
	if err != nil || item.String("item", "content", "0", "text") != "what is the score?" {
		t.Fatalf("text: %v %s", err, item.Raw)
	}
	c.AwaitType(ctx, "response.create")
	pcm := make([]byte, 24000) // half a second at 24 kHz
	for i := range pcm {
		pcm[i] = byte(i * 7)
	}
	c.Speak("resp_speak", "Home three, away ten.", pcm)
	waitPage(t, p, "the model's audio to play", `return window.voicebox.session.playedBytes >= 24000;`)
	waitPage(t, p, "the transcript", `return [...document.querySelectorAll("#transcript li")].map((li) => li.textContent).join("|") .includes("Home three, away ten.");`)

	// The microphone: push-to-talk sends the fake device's audio, then commits the turn.
	waitPage(t, p, "the microphone", `return window.voicebox.session.mic === "on";`)
	eval(t, p, nil, `await window.voicebox.session.pushToTalk(true);`)
	time.Sleep(600 * time.Millisecond)
	eval(t, p, nil, `await window.voicebox.session.pushToTalk(false);`)
	if _, err := c.AwaitType(ctx, "input_audio_buffer.commit"); err != nil {
		var dbg any
		eval(t, p, &dbg, `const s = window.voicebox.session; return {sent: s.sentBytes, mic: s.mic, level: s.level, status: s.status, audio: s.audio};`)
		t.Fatalf("%v; room: %v", err, dbg)
	}
	// About 0.6 s at 24 kHz PCM16 is 28,800 bytes; allow for the mic's start and the key timing.
	if got := c.AudioBytes(); got < 12000 || got > 60000 {
		t.Fatalf("%d bytes of microphone audio upstream", got)
	}
	var level float64
	eval(t, p, &level, `return window.voicebox.session.level;`)
	if level <= 0 {
		t.Fatal("the level meter saw no sound from the fake microphone")
	}
	c.UserTranscript("item_in_1", "add one for the home team")
	waitPage(t, p, "the user's words", `return [...document.querySelectorAll("#transcript li.user")].some((li) => li.textContent.includes("add one for the home team"));`)

	// A tool change (the person closes the app) produces a new declaration.
	closeApp(t, p, appID)
	if _, err := c.Await(ctx, "session.update without the scoreboard", func(m voicetest.Msg) bool {
		names, ok := voicetest.ToolNames(m)
		return m.Type == "session.update" && ok && len(names) > 0 && !hasTool(m, setScore)
	}); err != nil {
		t.Fatal(err)
	}

	// A dropped socket reconnects with backoff; the transcript stays.
	var before int
	eval(t, p, &before, `return document.querySelectorAll("#transcript li").length;`)
	dropped := time.Now()
	c.Drop()
	c2, err := fake.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	waitPage(t, p, "listening again", `return window.voicebox.session.state === "listening";`)
	t.Logf("reconnected %s after the drop", time.Since(dropped).Round(time.Millisecond))
	var after int
	eval(t, p, &after, `return document.querySelectorAll("#transcript li").length;`)
	if after != before || before < 3 {
		t.Fatalf("transcript lines %d before the drop, %d after", before, after)
	}
	if _, err := c2.AwaitType(ctx, "conversation.item.create"); err != nil {
		t.Fatalf("the transcript was not replayed upstream: %v", err)
	}
	eval(t, p, nil, `await window.voicebox.session.sendText("still there?");`)
	if _, err := c2.AwaitType(ctx, "response.create"); err != nil {
		t.Fatal(err)
	}
	eval(t, p, nil, `await window.voicebox.session.stop();`)
	waitPage(t, p, "idle", `return window.voicebox.session.state === "idle";`)
	return appID
}

func voiceGemini(t *testing.T, p *chromiumPage, s *server, fake *voicetest.Server, setScore, _ string) {
	var st struct {
		State      string `json:"state"`
		InputRate  int    `json:"inputRate"`
		OutputRate int    `json:"outputRate"`
	}
	if err := gesture(t, p, &st, `return await window.voicebox.session.start("gemini");`); err != nil {
		t.Fatalf("start: %v", err)
	}
	if st.State != "listening" || st.InputRate != 16000 || st.OutputRate != 24000 {
		t.Fatalf("%+v", st)
	}
	ctx := awaitCtx(t)
	c, err := fake.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	setup := c.Messages()[0]
	if setup.Type != "setup" || !hasTool(setup, "launch_mini_app") || hasTool(setup, setScore) {
		t.Fatalf("setup %s", setup.Raw)
	}
	time.Sleep(100 * time.Millisecond) // the fake offers handle-1 after setupComplete

	// One turn: launch, then the new tool (through call_mini_app_tool, as Gemini fixed its tools at setup).
	eval(t, p, nil, `await window.voicebox.session.sendText("open the scoreboard and give away two");`)
	c.AwaitType(ctx, "clientContent")
	c.ToolCall(voicetest.Call{ID: "g_launch", Name: "launch_mini_app", Args: `{"ref":"Scoreboard"}`})
	if _, err := c.AwaitType(ctx, "toolResponse"); err != nil {
		t.Fatal(err)
	}
	lr, _ := voicetest.ResponseFor(c.Messages(), "g_launch")
	out, _ := lr["response"].(map[string]any)["output"].(map[string]any)
	appID, _ := out["appId"].(string)
	if appID == "" {
		t.Fatalf("launch %v", lr)
	}
	c.ToolCall(
		voicetest.Call{ID: "g_score", Name: "call_mini_app_tool", Args: fmt.Sprintf(`{"name":%q,"arguments":"{\"team\":\"away\",\"points\":2}"}`, setScore)},
		voicetest.Call{ID: "g_bad", Name: "call_mini_app_tool", Args: fmt.Sprintf(`{"name":%q,"arguments":"{\"team\":\"away\"}"}`, setScore)},
	)
	if _, err := c.AwaitType(ctx, "toolResponse"); err != nil {
		t.Fatal(err)
	}
	good, _ := voicetest.ResponseFor(c.Messages(), "g_score")
	if good["response"].(map[string]any)["output"] == nil {
		t.Fatalf("g_score %v", good)
	}
	bad, _ := voicetest.ResponseFor(c.Messages(), "g_bad")
	if e, _ := bad["response"].(map[string]any)["error"].(map[string]any); e["refused"] != "missing-argument" {
		t.Fatalf("g_bad %v", bad)
	}
	if b := readBoard(t, p, appID); b.Away != "2" || b.Seen != "1" {
		t.Fatalf("the app shows %+v", b)
	}
	if fake.Count() != 1 {
		t.Fatal("the session reconnected in the middle of the turn")
	}
	// At the end of the turn the session resumes with the new declarations.
	c.ModelTurn("Away has two.", make([]byte, 4800))
	c2, err := fake.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	setup2, err := c2.AwaitType(ctx, "setup")
	if err != nil {
		t.Fatal(err)
	}
	if !hasTool(setup2, setScore) || setup2.String("setup", "sessionResumption", "handle") != "handle-1" {
		t.Fatalf("resumed setup %s", setup2.Raw)
	}
	waitPage(t, p, "listening", `return window.voicebox.session.state === "listening";`)

	// After the resume the app's tool is one of the session's own functions.
	c2.ToolCall(voicetest.Call{ID: "g_direct", Name: setScore, Args: `{"team":"home","points":5}`})
	if _, err := c2.AwaitType(ctx, "toolResponse"); err != nil {
		t.Fatal(err)
	}
	if b := readBoard(t, p, appID); b.Home != "5" {
		t.Fatalf("direct call after resume: %+v", b)
	}
	waitPage(t, p, "the Gemini activity", `return [...document.querySelectorAll("#activity-log li")].some((li) => li.textContent.includes("voice:gemini") && li.textContent.includes("missing-argument"));`)
	eval(t, p, nil, `await window.voicebox.session.stop();`)
	closeApp(t, p, appID)
}

func voiceRefusedKey(t *testing.T, p *chromiumPage, s *server) {
	// A key in Settings wins over the environment; this one the provider refuses.
	var view map[string]any
	s.call(t, &view, "SettingsService.Update", map[string]any{"geminiKey": "wrong-key"})
	if g := view["gemini"].(map[string]any); g["key"] != "set" || g["keySource"] != "settings" {
		t.Fatalf("%v", view)
	}
	b, _ := json.Marshal(view)
	if strings.Contains(string(b), "wrong-key") {
		t.Fatal("Settings returned the key")
	}
	var res struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	eval(t, p, &res, `try { await window.voicebox.session.start("gemini"); return {}; } catch (e) { return {code: e.code, message: e.message}; }`)
	if res.Code != "key-refused" || !strings.Contains(res.Message, "API key") {
		t.Fatalf("%+v", res)
	}
	waitPage(t, p, "the error state", `return window.voicebox.session.state === "error" && document.getElementById("session-message").textContent.includes("refused the API key");`)
	s.call(t, nil, "SettingsService.Update", map[string]any{"geminiKey": ""})
}

// TestVoiceWebKit runs the session panel in WebKitGTK, the desktop's engine (served, so without the mic):
// a typed turn, the model's function calls reaching the app, its audio and transcript in the room.
func TestVoiceWebKit(t *testing.T) {
	oa := voicetest.NewOpenAI(voiceKey)
	defer oa.Close()
	t.Setenv("VOICEBOX_OPENAI_URL", oa.URL())
	t.Setenv("OPENAI_API_KEY", voiceKey)
	s := startServer(t)
	p := openWebKit(t, s.url)
	openRoom(t, p)
	waitPage(t, p, "the session panel", `return !!(window.voicebox && window.voicebox.session);`)
	var st struct {
		State string `json:"state"`
	}
	eval(t, p, &st, `return await window.voicebox.session.start("openai");`)
	if st.State != "listening" {
		t.Fatalf("%+v", st)
	}
	ctx := awaitCtx(t)
	c, err := oa.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var entry struct {
		Slug string `json:"slug"`
	}
	s.call(t, &entry, "StoreService.Get", "scoreboard.html")
	setScore := entry.Slug + "__set_score"
	eval(t, p, nil, `await window.voicebox.session.sendText("open the scoreboard, one for away");`)
	c.AwaitType(ctx, "response.create")
	c.FunctionCalls("r1",
		voicetest.Call{ID: "w_launch", Name: "launch_mini_app", Args: `{"ref":"scoreboard.html"}`},
		voicetest.Call{ID: "w_score", Name: setScore, Args: `{"team":"away","points":1}`},
		voicetest.Call{ID: "w_bad", Name: setScore, Args: `{"team":"away","points":true}`},
	)
	if _, err := c.AwaitType(ctx, "response.create"); err != nil {
		t.Fatal(err)
	}
	launchOut, _ := voicetest.OutputFor(c.Messages(), "w_launch")
	appID, _ := launchOut["result"].(map[string]any)["appId"].(string)
	if out, _ := voicetest.OutputFor(c.Messages(), "w_bad"); out["refused"] != "invalid-argument-type" {
		t.Fatalf("w_bad %v", out)
	}
	if b := readBoard(t, p, appID); b.Away != "1" || b.Seen != "1" {
		t.Fatalf("the app shows %+v", b)
	}
	c.Speak("r2", "Away has one.", make([]byte, 9600))
	waitPage(t, p, "audio and transcript", `return window.voicebox.session.playedBytes >= 9600 && [...document.querySelectorAll("#transcript li")].some((li) => li.textContent.includes("Away has one."));`)
	eval(t, p, nil, `document.getElementById("open-settings").click();`)
	waitPage(t, p, "the Settings dialog", `return document.getElementById("settings-dialog").open && document.getElementById("settings-openai-key-state").textContent.includes("set") && !!document.querySelector("#settings-mcp #mcp-settings");`)
	eval(t, p, nil, `await window.voicebox.session.stop();`)
}
