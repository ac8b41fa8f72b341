package e2e

// The assistant writes and changes apps by voice (issue 25; docs/authoring.md), end to end: the real
// `voicebox serve` in Chromium, the fake OpenAI Realtime (backend/voice/voicetest) and the fake code model
// (backend/author/codemodel/codemodeltest), both reached through their base URLs. The code model's answers are
// real pages: their tools register through the SDK in the real sandbox, and the voice calls them.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/author/codemodel/codemodeltest"
	"github.com/voicebox/voicebox/backend/voice/voicetest"
)

// chessClockApp is what the fake code model writes for "make me a chess clock": two players' times, start,
// pause, switch and a state tool.
const chessClockApp = `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<title>Chess clock</title>
<style>
body { font-family: sans-serif; margin: 1rem; }
button { font-size: 1rem; padding: .5rem 1rem; }
@media (prefers-color-scheme: dark) { body { background: #111; color: #eee; } }
</style>
</head>
<body>
<h1>Chess clock</h1>
<p><span id="white">300</span> · <span id="black">300</span> · <span id="state">paused</span></p>
<button id="start">Start</button> <button id="pause">Pause</button>
<script>
const s = { white: 300, black: 300, turn: "white", running: false };
function show() {
  document.getElementById("white").textContent = s.white;
  document.getElementById("black").textContent = s.black;
  document.getElementById("state").textContent = s.running ? s.turn + " running" : "paused";
}
function start() { s.running = true; show(); return { ok: true, running: true }; }
function pause() { s.running = false; show(); return { ok: true, running: false }; }
document.getElementById("start").onclick = start;
document.getElementById("pause").onclick = pause;
const none = { type: "object", properties: {} };
navigator.modelContext.registerTool({ name: "start", description: "Start the clock", inputSchema: none, execute: async () => start() });
navigator.modelContext.registerTool({ name: "pause", description: "Pause the clock", inputSchema: none, execute: async () => pause() });
navigator.modelContext.registerTool({ name: "get_state", description: "The times and who is running", inputSchema: none, execute: async () => ({ ...s }) });
show();
</script>
</body>
</html>
`

// treeHash hashes every file under root (path and bytes): the workspace and the shelf before and after.
func treeHash(t *testing.T, roots ...string) string {
	t.Helper()
	var lines []string
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			lines = append(lines, p+" "+hex.EncodeToString(sum[:]))
			return nil
		})
	}
	sort.Strings(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:])
}

// lateMessage waits for the session's system message about a build, and the response it asks for.
func lateMessage(t *testing.T, ctx context.Context, c *voicetest.Conn, after int) string {
	t.Helper()
	var text string
	if _, err := c.Await(ctx, "the build's message", func(voicetest.Msg) bool {
		for _, m := range c.Messages()[after:] {
			if m.Type == "conversation.item.create" && m.String("item", "role") == "system" {
				text = m.String("item", "content", "0", "text")
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("%v\n%s", err, c.Summary())
	}
	return text
}

func TestVoiceWritesAndChangesAnApp(t *testing.T) {
	requireTool(t, "/usr/bin/chromium", "chromium")
	oa := voicetest.NewOpenAI(voiceKey)
	defer oa.Close()
	code := codemodeltest.NewOpenAI(t)
	code.Key = voiceKey // the voice provider's key writes the code too
	t.Setenv("VOICEBOX_OPENAI_URL", oa.URL())
	t.Setenv("OPENAI_API_KEY", voiceKey)
	t.Setenv("VOICEBOX_OPENAI_API_URL", code.URL)
	s := startServer(t)
	if err := os.WriteFile(filepath.Join(s.workspace, "notes.html"), []byte(strings.ReplaceAll(strings.ReplaceAll(chessClockApp, "Chess clock", "Notes"), "start", "begin")), 0o644); err != nil {
		t.Fatal(err)
	}
	untouched := treeHash(t, s.workspace, filepath.Join(s.data, "mini-apps"))
	p := openVoiceChromium(t, s.url)
	openRoom(t, p)
	waitPage(t, p, "the session panel", `return !!(window.voicebox && window.voicebox.session && document.getElementById("session-start"));`)
	if err := gesture(t, p, nil, `return await window.voicebox.session.start("openai");`); err != nil {
		t.Fatalf("start: %v", err)
	}
	// Each step has its own backstop: a build waits 2 s after its app opens (author.CheckWindow).
	step := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		t.Cleanup(cancel)
		return ctx
	}
	ctx := step()
	c, err := oa.Accept(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// "Make me a chess clock": answered at once, the app opens when written, the voice hears its tools.
	code.Queue(codemodeltest.Text("Here is your clock.\n```html\n", chessClockApp[:900], chessClockApp[900:], "```\n"))
	c.FunctionCalls("resp_create", voicetest.Call{ID: "call_create", Name: "create_mini_app", Args: `{"description":"make me a chess clock with two players and a pause button"}`})
	if _, err := c.AwaitType(ctx, "response.create"); err != nil {
		t.Fatal(err)
	}
	first, _ := voicetest.OutputFor(c.Messages(), "call_create")
	if res, _ := first["result"].(map[string]any); first["ok"] != true || res["status"] != "building" {
		t.Fatalf("create answered %v", first)
	}
	msg := lateMessage(t, step(), c, 0)
	if !strings.Contains(msg, `"Chess clock"`) || !strings.Contains(msg, "chess-clock__start") || !strings.Contains(msg, "chess-clock__pause") {
		t.Fatalf("the voice was told: %s", msg)
	}
	waitPage(t, p, "the written app open with its tools", `return window.voicebox.apps().some((a) => a.title === "Chess clock" && a.ready && a.tools.length === 3);`)
	page := filepath.Join(s.data, "sandbox", "chess-clock", "index.html")
	if b, err := os.ReadFile(page); err != nil || string(b) != chessClockApp {
		t.Fatalf("the written page (%v) is not the code model's document", err)
	}

	// "Start the clock": the new app's tool, like any other app's.
	n := len(c.Messages())
	c.FunctionCalls("resp_start", voicetest.Call{ID: "call_start", Name: "chess-clock__start", Args: `{}`})
	if _, err := c.Await(step(), "the start call's output", func(voicetest.Msg) bool {
		_, ok := voicetest.OutputFor(c.Messages()[n:], "call_start")
		return ok
	}); err != nil {
		t.Fatal(err)
	}
	if out, _ := voicetest.OutputFor(c.Messages(), "call_start"); out["ok"] != true || !strings.Contains(toJSONString(out["result"]), `"running":true`) {
		t.Fatalf("start: %v", out)
	}

	// "Make the buttons bigger and add a 5-minute preset": blocks, applied in place; the window reloads with the
	// new tool, which reaches the voice.
	code.Queue(codemodeltest.Text("<<<<<<< SEARCH\nbutton { font-size: 1rem; padding: .5rem 1rem; }\n=======\nbutton { font-size: 2rem; padding: 1rem 2rem; }\n>>>>>>> REPLACE\n" +
		"<<<<<<< SEARCH\nshow();\n</script>\n=======\nnavigator.modelContext.registerTool({ name: \"preset_5_minutes\", description: \"Set both clocks to 5 minutes\", inputSchema: none, execute: async () => { s.white = s.black = 300; show(); return { ok: true }; } });\nshow();\n</script>\n>>>>>>> REPLACE\n"))
	n = len(c.Messages())
	c.FunctionCalls("resp_edit", voicetest.Call{ID: "call_edit", Name: "edit_mini_app", Args: `{"app":"Chess clock","change":"make the buttons bigger and add a 5-minute preset"}`})
	msg = lateMessage(t, step(), c, n)
	if !strings.Contains(msg, "chess-clock__preset_5_minutes") {
		t.Fatalf("after the edit the voice was told: %s", msg)
	}
	waitPage(t, p, "one window, reloaded with four tools", `const a = window.voicebox.apps().filter((a) => a.title === "Chess clock"); return a.length === 1 && a[0].ready && a[0].tools.length === 4 && a[0].loads >= 2 && document.querySelectorAll(".mini-app-window").length === 1;`)
	if b, _ := os.ReadFile(page); !strings.Contains(string(b), "font-size: 2rem") {
		t.Fatal("the edit is not on disk")
	}

	// "Undo that": the previous version, reloaded where it is.
	n = len(c.Messages())
	c.FunctionCalls("resp_revert", voicetest.Call{ID: "call_revert", Name: "revert_mini_app", Args: `{"app":"chess-clock"}`})
	if _, err := c.Await(step(), "the revert's output", func(voicetest.Msg) bool {
		_, ok := voicetest.OutputFor(c.Messages()[n:], "call_revert")
		return ok
	}); err != nil {
		t.Fatal(err)
	}
	if out, _ := voicetest.OutputFor(c.Messages(), "call_revert"); out["ok"] != true {
		t.Fatalf("revert: %v", out)
	}
	if b, _ := os.ReadFile(page); string(b) != chessClockApp {
		t.Fatal("revert did not bring the first version back")
	}
	waitPage(t, p, "the reverted app with three tools", `return window.voicebox.apps().some((a) => a.title === "Chess clock" && a.ready && a.tools.length === 3);`)

	// A workspace page is changed as a copy; the person's files and the shelf stay as they were.
	code.Queue(codemodeltest.Text("<<<<<<< SEARCH\n<h1>Notes</h1>\n=======\n<h1>My notes</h1>\n>>>>>>> REPLACE\n"))
	n = len(c.Messages())
	c.FunctionCalls("resp_copy", voicetest.Call{ID: "call_copy", Name: "edit_mini_app", Args: `{"app":"notes.html","change":"call it My notes"}`})
	msg = lateMessage(t, step(), c, n)
	if !strings.Contains(msg, "is built and open") {
		t.Fatalf("editing the workspace page: %s", msg)
	}

	// A truncated answer builds nothing and the voice is told so.
	code.Queue(codemodeltest.Truncated("<!doctype html><html><body><script>"))
	n = len(c.Messages())
	c.FunctionCalls("resp_trunc", voicetest.Call{ID: "call_trunc", Name: "create_mini_app", Args: `{"description":"a very long app","name":"Long"}`})
	msg = lateMessage(t, step(), c, n)
	if !strings.Contains(msg, "could not be built") || !strings.Contains(msg, "code-model-truncated") {
		t.Fatalf("a truncated build: %s", msg)
	}
	if _, err := os.Stat(filepath.Join(s.data, "sandbox", "long", "index.html")); !os.IsNotExist(err) {
		t.Fatalf("a truncated build wrote a page: %v", err)
	}
	if got := treeHash(t, s.workspace, filepath.Join(s.data, "mini-apps")); got != untouched {
		t.Fatal("the workspace or the shelf changed")
	}
	if len(code.Requests()) != 4 {
		t.Fatalf("%d requests to the code model, want 4", len(code.Requests()))
	}
	for _, q := range code.Requests() {
		if q.Key != voiceKey {
			t.Fatal("the code model did not get the provider's key")
		}
	}
	var html string
	eval(t, p, &html, `return document.documentElement.outerHTML;`)
	if strings.Contains(html, voiceKey) {
		t.Fatal("the key reached the room")
	}
}

func toJSONString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
