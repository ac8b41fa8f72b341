package voice_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/mcpclient"
	"github.com/voicebox/voicebox/backend/mcpclient/mcpclienttest"
	"github.com/voicebox/voicebox/backend/voice"
	"github.com/voicebox/voicebox/backend/voice/voicetest"
)

// serversRig is a session rig with one of the person's MCP servers ready: mcpclienttest's budget server over
// Streamable HTTP, named "budget" in the list.
func serversRig(t *testing.T, provider string) *rig {
	t.Helper()
	srv := httptest.NewServer(mcpclienttest.Handler(mcpclienttest.Options{}))
	t.Cleanup(srv.Close)
	m := mcpclient.New(mcpclient.Options{DataDir: t.TempDir(), Version: "test", Interval: time.Millisecond,
		Backoff: func(int) time.Duration { return 0 }})
	t.Cleanup(m.Close)
	m.Start()
	if err := m.Add("budget", mcpclient.Server{URL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t, 30*time.Second)
	changes, stop := m.Changes()
	defer stop()
	for len(m.Snapshot().Tools) == 0 {
		select {
		case <-changes:
		case <-ctx.Done():
			t.Fatalf("the server never became ready: %+v", m.Servers())
		}
	}
	return newRigWith(t, provider, func(_ *rig, cfg *voice.Config) { cfg.Servers = m })
}

// The voice sees the servers' model-visible tools beside the verbs (named mcp_<server>__<tool>), never an
// app-only one, and a call reaches the server through the checks: arguments against its own schema.
func TestServerToolsReachTheVoice(t *testing.T) {
	r := serversRig(t, voice.ProviderOpenAI)
	c := r.start(voice.ProviderOpenAI)
	ctx := ctxT(t, 30*time.Second)
	names, _ := voicetest.ToolNames(c.Messages()[0])
	if !contains(names, "mcp_budget__say_hello") || !contains(names, "mcp_budget__get-budget-data") || !contains(names, "launch_mini_app") {
		t.Fatalf("declared %v", names)
	}
	if contains(names, "mcp_budget__refresh-budget") {
		t.Fatal("an app-only tool reached the voice")
	}
	c.FunctionCalls("resp_1",
		voicetest.Call{ID: "call_hello", Name: "mcp_budget__say_hello", Args: `{"name":"Ada"}`},
		voicetest.Call{ID: "call_bad", Name: "mcp_budget__say_hello", Args: `{}`},
		voicetest.Call{ID: "call_hidden", Name: "mcp_budget__refresh-budget", Args: `{}`},
	)
	if _, err := c.AwaitType(ctx, "response.create"); err != nil {
		t.Fatal(err)
	}
	hello, _ := voicetest.OutputFor(c.Messages(), "call_hello")
	if hello["ok"] != true || !strings.Contains(toJSON(hello["result"]), "hello, Ada") {
		t.Fatalf("say_hello: %v", hello)
	}
	if bad, _ := voicetest.OutputFor(c.Messages(), "call_bad"); bad["ok"] != false || bad["refused"] != "missing-argument" {
		t.Fatalf("say_hello without a name: %v", bad)
	}
	if hidden, _ := voicetest.OutputFor(c.Messages(), "call_hidden"); hidden["ok"] != false || hidden["refused"] != "unknown-tool" {
		t.Fatalf("the app-only tool: %v", hidden)
	}
	waitFor(t, "the server call in the activity log", func() bool {
		for _, ev := range r.events("activity") {
			if strings.Contains(toJSON(ev.Data), "mcp:budget") && strings.Contains(toJSON(ev.Data), "say_hello") {
				return true
			}
		}
		return false
	})
}
