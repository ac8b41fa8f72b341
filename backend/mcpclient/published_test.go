package mcpclient_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/mcpclient"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// publishedServer is the MCP Apps project's own example server, installed by npm from
// tests/mcpapps/package.json (docs/mcp-apps.md, "Tests").
const publishedServer = "../../tests/mcpapps/node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js"

// The published example server (TypeScript SDK, ext-apps 2.x) runs over stdio, negotiates, lists
// get-time with its view, serves the view as text/html;profile=mcp-app and answers a call.
func TestThePublishedExampleServer(t *testing.T) {
	script, err := filepath.Abs(publishedServer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil {
		if os.Getenv("VOICEBOX_REQUIRE_MCPAPPS") != "" {
			t.Fatalf("the example server is not installed (%v): run (cd tests/mcpapps && npm ci)", err)
		}
		t.Skipf("the example server is not installed: run (cd tests/mcpapps && npm ci) (%v)", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed (Debian package nodejs)")
	}
	m, _ := newManager(t, func(o *mcpclient.Options) { o.MaxRestarts = -1 })
	m.Start()
	if err := m.Add("basic", mcpclient.Server{Command: node, Args: []string{script, "--stdio"}}); err != nil {
		t.Fatal(err)
	}
	st := waitFor(t, m, "basic", "ready", func(s mcpclient.Status) bool { return ready(s) || s.State == mcpclient.StateFailed })
	if !ready(st) {
		t.Fatalf("the example server did not start: %s\n%s", st.Reason, st.Stderr)
	}
	i := slices.IndexFunc(st.Tools, func(x mcpclient.ToolStatus) bool { return x.Name == "get-time" })
	if i < 0 {
		t.Fatalf("no get-time: %+v", st.Tools)
	}
	tool := st.Tools[i]
	if tool.ResourceURI != "ui://get-time/mcp-app.html" || tool.Problem != "" || tool.Exposed != "mcp_basic__get-time" {
		t.Fatalf("get-time: %+v", tool)
	}

	ctx, cancel := context.WithTimeout(context.Background(), backstop)
	defer cancel()
	v, r := m.ReadResource(ctx, "basic", tool.ResourceURI)
	if r != nil {
		t.Fatal(r)
	}
	if v.MIMEType != mcpclient.ViewMIMEType || !strings.Contains(strings.ToLower(v.HTML[:min(len(v.HTML), 200)]), "<!doctype html") || len(v.HTML) < 10_000 {
		t.Fatalf("the view: %s, %d bytes, starting %.80q", v.MIMEType, len(v.HTML), v.HTML)
	}

	res, r := m.CallTool(ctx, "basic", "get-time", json.RawMessage(`{}`), mcpclient.Model)
	if r != nil {
		t.Fatal(r)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if _, err := time.Parse(time.RFC3339Nano, text); err != nil || res.IsError {
		t.Fatalf("get-time answered %q (%v)", text, err)
	}
	// the same tool from its own view (visibility defaults to model and app)
	if _, r := m.CallTool(ctx, "basic", "get-time", nil, mcpclient.ViewOf("basic")); r != nil {
		t.Fatal(r)
	}
	decls, _, err := m.Snapshot().Declarations(toolcontract.ProviderGemini)
	if err != nil || len(decls) != len(m.ModelTools()) {
		t.Fatalf("declarations: %d, %v", len(decls), err)
	}
}
