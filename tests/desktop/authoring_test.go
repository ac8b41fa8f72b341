package desktop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/author/codemodel/codemodeltest"
)

// dicePage is what the fake code model writes: a real page whose tools register through the SDK in the
// desktop's WebKitGTK.
const dicePage = `<!doctype html>
<html><head><meta charset="utf-8"><title>Dice</title>
<style>button { font-size: 1rem } @media (prefers-color-scheme: dark) { body { background: #111; color: #eee } }</style></head>
<body><h1>Dice</h1><p id="face">–</p><button id="roll">Roll</button>
<script>
let face = 0;
function roll() { face = 4; document.getElementById("face").textContent = face; return { face }; }
document.getElementById("roll").onclick = roll;
navigator.modelContext.registerTool({ name: "roll", description: "Roll the die", inputSchema: { type: "object", properties: {} }, execute: async () => roll() });
navigator.modelContext.registerTool({ name: "get_state", description: "The face shown", inputSchema: { type: "object", properties: {} }, execute: async () => ({ face }) });
</script>
</body></html>
`

// built is a build's answer over MCP.
type built struct {
	Status   string   `json:"status"`
	Version  int      `json:"version"`
	App      openApp  `json:"app"`
	Problems []string `json:"problems"`
}

// buildCall calls a verb that builds and reads its answer.
func buildCall(t *testing.T, cs *mcp.ClientSession, timeout time.Duration, name string, args any) built {
	t.Helper()
	text, refused := toolText(t, cs, timeout, name, args)
	return buildAnswer(t, text, refused)
}

func buildAnswer(t *testing.T, text string, refused bool) built {
	t.Helper()
	var b built
	if refused || json.Unmarshal([]byte(text), &b) != nil {
		t.Fatalf("build: %s (refused %v)", text, refused)
	}
	return b
}

// TestAuthoringInTheDesktop: in the desktop (WebKitGTK), with Gemini as the provider Settings name and its code
// model faked: create_mini_app over MCP writes the app, opens it in the window and answers its tools; a tool
// call reaches it; an edit by blocks reloads it in place with a new tool; revert brings version 1 back; and
// write_mini_app opens a page an MCP client wrote.
func TestAuthoringInTheDesktop(t *testing.T) {
	const key = "gm-test-key-desktop-authoring"
	code := codemodeltest.NewGemini(t)
	code.Key = key
	s := startSession(t)
	b := newBox(t, s, nil)
	if err := os.WriteFile(filepath.Join(b.data, "settings.json"), []byte(`{"provider":"gemini","cdnHosts":null}`), 0o600); err != nil {
		t.Fatal(err)
	}
	b.start(t, []string{"GEMINI_API_KEY=" + key, "VOICEBOX_GEMINI_API_URL=" + code.URL})
	s.window(t, b.app)
	cs := b.mcpClient(t)
	waitOpen(t, cs, 30*time.Second, "the room", func([]openApp) bool { return true })

	code.Queue(codemodeltest.Text("```html\n", dicePage, "```\n").WithThoughts("a die, a roll tool and a state tool"))
	var made built
	deadline := time.Now().Add(60 * time.Second)
	for {
		text, refused := toolText(t, cs, 90*time.Second, "create_mini_app", map[string]any{"description": "a die I can roll", "name": "Dice"})
		if refused && strings.Contains(text, `"no-room"`) && time.Now().Before(deadline) {
			time.Sleep(300 * time.Millisecond) // the window's room has not said hello yet: refused before the model is asked
			continue
		}
		made = buildAnswer(t, text, refused)
		break
	}
	if made.Status != "ready" || made.Version != 1 || len(made.App.Tools) != 2 {
		t.Fatalf("create: %+v", made)
	}
	if q := code.Requests()[0]; q.Key != key || !strings.Contains(q.System, "registerTool") {
		t.Fatalf("the code model's request: key %q, system %d bytes", q.Key, len(q.System))
	}
	text, refused := toolText(t, cs, 20*time.Second, toolNamed(t, made.App, "roll"), map[string]any{})
	if refused || text != `{"face":4}` {
		t.Fatalf("roll: %s (refused %v)", text, refused)
	}

	stateLine := `navigator.modelContext.registerTool({ name: "get_state", description: "The face shown", inputSchema: { type: "object", properties: {} }, execute: async () => ({ face }) });`
	code.Queue(codemodeltest.Text("<<<<<<< SEARCH\n" + stateLine + "\n=======\n" +
		`navigator.modelContext.registerTool({ name: "reset", description: "Clear the face", inputSchema: { type: "object", properties: {} }, execute: async () => { face = 0; return { face }; } });` + "\n" +
		stateLine + "\n>>>>>>> REPLACE\n"))
	edited := buildCall(t, cs, 90*time.Second, "edit_mini_app", map[string]any{"app": "Dice", "change": "add a reset"})
	if edited.Status != "ready" || edited.Version != 2 || edited.App.AppID != made.App.AppID || len(edited.App.Tools) != 3 {
		t.Fatalf("edit: %+v", edited)
	}
	apps := openApps(t, cs)
	if len(apps) != 1 {
		t.Fatalf("the edit opened another window: %+v", apps)
	}
	// The reloaded document is a new one: its state starts again.
	if text, _ := toolText(t, cs, 20*time.Second, toolNamed(t, edited.App, "get_state"), map[string]any{}); text != `{"face":0}` {
		t.Fatalf("after the edit get_state: %s", text)
	}

	reverted := buildCall(t, cs, 60*time.Second, "revert_mini_app", map[string]any{"app": "dice"})
	if reverted.Version != 3 || len(reverted.App.Tools) != 2 {
		t.Fatalf("revert: %+v", reverted)
	}
	if b, _ := os.ReadFile(filepath.Join(b.data, "sandbox", "dice", "index.html")); string(b) != dicePage {
		t.Fatal("revert did not bring version 1 back")
	}

	asked := len(code.Requests())
	wrote := buildCall(t, cs, 60*time.Second, "write_mini_app", map[string]any{"name": "Coin", "html": strings.ReplaceAll(strings.ReplaceAll(dicePage, "Dice", "Coin"), "roll", "flip")})
	if wrote.Status != "ready" || wrote.App.Title != "Coin" {
		t.Fatalf("write: %+v", wrote)
	}
	if text, refused := toolText(t, cs, 20*time.Second, toolNamed(t, wrote.App, "flip"), map[string]any{}); refused || text != `{"face":4}` {
		t.Fatalf("flip: %s (refused %v)", text, refused)
	}
	if len(code.Requests()) != asked {
		t.Fatal("write_mini_app asked the code model")
	}
	if n := len(code.Requests()); n != 2 {
		t.Fatalf("%d requests to the code model, want 2 (the create, the edit)", n)
	}
}
