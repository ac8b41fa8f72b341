package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/registry/registrytest"
)

func echoApp(appID string) registrytest.App {
	return registrytest.App{AppID: appID, Title: "Echo", Slug: "echo",
		Tools: []string{`{"name":"echo","description":"echo","parameters":{"type":"object","properties":{"text":{"type":"string"}}}}`}}
}

// waitTools polls tools/list until ok accepts it.
func waitTools(t *testing.T, cs *mcp.ClientSession, what string, ok func(map[string]*mcp.Tool) bool) map[string]*mcp.Tool {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		tools := toolNames(t, cs)
		if ok(tools) {
			return tools
		}
		if time.Now().After(deadline) {
			t.Fatalf("tools/list never showed %s: %v", what, keys(tools))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func echoCount(tools map[string]*mcp.Tool) int {
	n := 0
	for name := range tools {
		if strings.HasPrefix(name, "echo__echo") {
			n++
		}
	}
	return n
}

// Issue 11, finding 4: a later app with the same slug must not take over an exposed name.
func TestExposedNameStaysWithTheAppThatGotIt(t *testing.T) {
	h := start(t)
	cs := h.connect(t, "victim-client", nil)
	openInRoom(t, h.room, echoApp("page_echo"))
	waitTools(t, cs, "echo__echo", func(m map[string]*mcp.Tool) bool { return m["echo__echo"] != nil })
	// The newcomer sorts before the victim ("app_" < "page_"): names assigned in id order gave it echo__echo.
	openInRoom(t, h.room, echoApp("app_echo"))
	tools := waitTools(t, cs, "both echo tools", func(m map[string]*mcp.Tool) bool { return echoCount(m) == 2 })
	if d := tools["echo__echo"].Description; !strings.Contains(d, "page_echo") {
		t.Fatalf("echo__echo now stands for %q", d)
	}
	if res := call(t, cs, "echo__echo", map[string]any{"text": "the person's data"}); res.IsError || lastCall(h.room).AppID != "page_echo" {
		t.Fatalf("echo__echo reached %+v", lastCall(h.room))
	}
	// The victim closes: its name answers a refusal, never the newcomer.
	h.reg.Unregister("page_echo")
	waitTools(t, cs, "the victim's tool withdrawn", func(m map[string]*mcp.Tool) bool {
		for _, tl := range m {
			if strings.Contains(tl.Description, "page_echo") {
				return false
			}
		}
		return echoCount(m) == 1
	})
	before := len(h.room.Calls())
	res := call(t, cs, "echo__echo", map[string]any{"text": "more data"})
	if r := refusedWith(t, res); r.Refused != "unknown-tool" || len(h.room.Calls()) != before {
		t.Fatalf("a call by the closed app's name: %+v, reached %+v", r, h.room.Calls()[before:])
	}
}

// churn opens and closes app_churn n times, a change every 10 ms, as a hostile app that registers and
// unregisters its tool would; it ends with the app open, its tool churn__echo described "v<n-1>".
func churn(t *testing.T, h *harness, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if i%2 == 0 || i == n-1 {
			a := echoApp("app_churn")
			a.Slug = "churn"
			a.Tools = []string{fmt.Sprintf(`{"name":"echo","description":"v%d","parameters":{"type":"object"}}`, i)}
			openInRoom(t, h.room, a)
		} else {
			h.reg.Unregister("app_churn")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Issue 11, finding 3: a churning app does not flood MCP clients with list_changed. With an Interval of
// an hour only the first change can be listed during the test (timers never fire early): one
// list_changed at most, where every change used to make one.
func TestToolChurnDoesNotFloodListChanged(t *testing.T) {
	h := startThrottled(t, time.Hour)
	var changed atomic.Int32
	h.connect(t, "watcher", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed.Add(1)
	}})
	churn(t, h, 12)
	if n := changed.Load(); n > 1 {
		t.Fatalf("%d list_changed notifications for 12 changes", n)
	}
}

// The last change is never lost: once the Interval has passed, tools/list matches the room.
func TestToolChurnEndsListed(t *testing.T) {
	h := startThrottled(t, 30*time.Millisecond)
	cs := h.connect(t, "watcher", nil)
	churn(t, h, 12)
	waitTools(t, cs, "the last change", func(m map[string]*mcp.Tool) bool {
		return m["churn__echo"] != nil && strings.HasSuffix(m["churn__echo"].Description, " v11")
	})
}
