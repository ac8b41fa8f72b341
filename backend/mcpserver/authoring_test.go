package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/author"
	"github.com/voicebox/voicebox/backend/author/authortest"
	"github.com/voicebox/voicebox/backend/author/codemodel/codemodeltest"
	"github.com/voicebox/voicebox/backend/registry/registrytest"
	"github.com/voicebox/voicebox/backend/verbs"
)

const dicePage = "<!doctype html>\n<html><head><title>Dice</title></head>\n<body><button>Roll</button>\n" +
	"<script>navigator.modelContext.registerTool({name:'roll',description:'Roll the die',inputSchema:{type:'object',properties:{}},execute:async()=>({face:4})});</script>\n</body></html>\n"

// startAuthoring is the MCP harness with an author: a real store and workshop in t.TempDir and a code model
// fake. The room double opens the written app <data>/sandbox/dice/index.html (the store's page_dice) as an
// app with the tool roll.
func startAuthoring(t *testing.T) (*harness, *codemodeltest.Server) {
	t.Helper()
	var code *codemodeltest.Server
	h := startWith(t, 0, nil, func(h *harness, o *Options) {
		o.Author, code = authortest.New(t, h.reg, h.bus, "sk-test")
	})
	h.room.Add(registrytest.App{AppID: "page_dice", Title: "Dice", Slug: "dice",
		Tools: []string{`{"name":"roll","description":"Roll the die","parameters":{"type":"object","properties":{}}}`},
		Run:   func(string, json.RawMessage) (json.RawMessage, string) { return json.RawMessage(`{"face":4}`), "" }})
	return h, code
}

// An MCP client that writes HTML itself hands it over with write_mini_app, then drives it: the answer names
// the app's tools as tools/list does, and a call reaches the app.
func TestWriteMiniAppThenCallIt(t *testing.T) {
	h, code := startAuthoring(t)
	cs := h.connect(t, "claude-ai", nil)
	res := call(t, cs, verbs.Write, map[string]any{"name": "Dice", "html": dicePage})
	if res.IsError {
		t.Fatalf("write: %s", text(t, res))
	}
	var built struct {
		Status string `json:"status"`
		App    struct {
			AppID string   `json:"appId"`
			Tools []string `json:"tools"`
		} `json:"app"`
		Version int `json:"version"`
	}
	if err := json.Unmarshal([]byte(text(t, res)), &built); err != nil {
		t.Fatal(err)
	}
	if built.Status != "ready" || built.Version != 1 || len(built.App.Tools) != 1 || built.App.Tools[0] != "dice__roll" {
		t.Fatalf("write answered %s", text(t, res))
	}
	if toolNames(t, cs)["dice__roll"] == nil {
		t.Fatal("tools/list lacks the written app's tool")
	}
	roll := call(t, cs, "dice__roll", map[string]any{})
	if roll.IsError || !strings.Contains(text(t, roll), `"face":4`) {
		t.Fatalf("roll: %s", text(t, roll))
	}
	if len(code.Requests()) != 0 {
		t.Fatal("write_mini_app asked the code model")
	}
	// Over the page bound: refused with the argument's path, nothing written.
	big := call(t, cs, verbs.Write, map[string]any{"name": "Big", "html": strings.Repeat("x", author.MaxPageBytes+1)})
	if r := refusedWith(t, big); r.Refused != "invalid-argument-length" && r.Refused != "invalid-tool-arguments" {
		t.Fatalf("a page over 64 KiB: %+v", r)
	}
}

// create_mini_app over MCP waits for the build and answers the app; a client that asked for progress hears
// how the build goes, and a client that cancels the request cancels the build (the code model's request is
// aborted).
func TestCreateOverMCPWaitsWithProgressAndCancels(t *testing.T) {
	h, code := startAuthoring(t)
	code.Queue(codemodeltest.Text("```html\n" + strings.Replace(dicePage, "<title>Dice", "<title>Dice", 1) + "```"))
	cs := h.connect(t, "cursor", nil)
	res := call(t, cs, verbs.Create, map[string]any{"description": "a die to roll", "name": "Dice"})
	if res.IsError || !strings.Contains(text(t, res), `"status":"ready"`) || !strings.Contains(text(t, res), "dice__roll") {
		t.Fatalf("create answered %s", text(t, res))
	}

	code.Queue(codemodeltest.Hang("<!doctype html><html><body>"))
	progress := make(chan *mcp.ProgressNotificationParams, 16)
	slow := h.connect(t, "slow", &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		select {
		case progress <- r.Params:
		default:
		}
	}})
	cctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: verbs.Create, Arguments: map[string]any{"description": "a clock"}}
		p.SetProgressToken("build-1")
		_, err := slow.CallTool(cctx, p)
		done <- err
	}()
	select {
	case p := <-progress:
		if p.ProgressToken != "build-1" || !strings.Contains(p.Message, "writing") {
			t.Fatalf("progress %+v", p)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no progress notification while the build ran")
	}
	cancel()
	select {
	case <-code.Gone():
	case <-time.After(30 * time.Second):
		t.Fatal("the client's cancel did not abort the code model's request")
	}
	<-done
}
