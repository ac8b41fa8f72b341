package mcpserver

import (
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/registry/registrytest"
)

// An app's tool annotations (readOnlyHint…) reach the MCP client as the tool's annotations.
func TestToolAnnotationsReachTheClient(t *testing.T) {
	h := start(t)
	openInRoom(t, h.room, registrytest.App{AppID: "app_board", Title: "Board", Slug: "board", Tools: []string{
		`{"name": "look", "description": "Read the board", "parameters": {"type": "object"}, "annotations": {"readOnlyHint": true, "openWorldHint": false}}`,
	}})
	cs := h.connect(t, "annotations-test", nil)
	deadline := time.Now().Add(10 * time.Second)
	for {
		tl := toolNames(t, cs)["board__look"]
		if tl != nil {
			a := tl.Annotations
			if a == nil || !a.ReadOnlyHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
				t.Fatalf("annotations %+v, want readOnlyHint true and openWorldHint false", a)
			}
			if s := toolNames(t, cs)["scoreboard__reset"]; s == nil || s.Annotations != nil {
				t.Fatalf("a tool without annotations got %+v", s)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("board__look never appeared in tools/list")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
