// Package mcpclienttest is a small MCP Apps server, on the Go SDK's server API, for backend/mcpclient's
// tests: the edge cases a host meets in the wild, in one place. It serves over stdio as a child process
// (the test binary started again: ServeIfChild in TestMain, Command for its entry in the list) or over
// Streamable HTTP in-process (Handler, for httptest).
//
// What it offers (Tools and the resources beside them):
//
//   - get-budget-data: a hyphenated name, a JSON Schema 2020-12 input with $schema, anyOf, format,
//     pattern (one of them an ECMA-262 lookahead Go's regexp cannot compile), enum, additionalProperties
//     false; its view in _meta.ui.resourceUri; it answers with the arguments it received.
//   - refresh-budget: visibility ["app"] (views only); say_hello: visibility ["model"] (the model only).
//   - legacy_view: its view only in the deprecated flat _meta["ui/resourceUri"].
//   - broken_schema: an input schema whose $ref points outside it (never fetched: it cannot be called).
//   - crash: the process exits with status 3 after a line on stderr (stdio only).
//   - add_tool: adds added_later, so the server sends notifications/tools/list_changed.
//   - env: answers the value of an environment variable of the server's process.
//   - pid: the process's id; spawn: starts a child that sleeps and answers its id (for stopping tests).
//   - big_result: a 2 MiB text answer; fail: an answer with isError true.
//   - views: ViewURI (text, _meta.ui with CSP, permissions, domain, prefersBorder), BlobURI (base64 blob,
//     its _meta.ui only in resources/list), BigURI (5 MiB, must open), OverURI (one byte over 8 MiB),
//     PlainURI (text/html without the mcp-app profile).
package mcpclienttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Environment of a child server (see Command).
const (
	// EnvServe makes ServeIfChild serve; its value is the mode ("" is not serving): ModeNormal or
	// ModeCrashAtStart.
	EnvServe = "VOICEBOX_MCPTEST_SERVE"
	// EnvRecord names a file every request the server receives is appended to, one JSON line each
	// ({"method":…,"params":…}).
	EnvRecord = "VOICEBOX_MCPTEST_RECORD"
	// EnvStarts names a file one line is appended to at each start of the process.
	EnvStarts = "VOICEBOX_MCPTEST_STARTS"
)

// Modes of a child server.
const (
	ModeNormal       = "normal"
	ModeCrashAtStart = "crash-at-start" // writes CrashAtStartLine to stderr and exits 2 before any MCP
	ModeSleep        = "sleep"          // no MCP: sleeps until killed (what the spawn tool starts)
)

// Lines the server writes to stderr, for tests to find in the Manager's stderr tail.
const (
	CrashAtStartLine = "fatal: BUDGET_TOKEN is not set"
	CrashOnCallLine  = "crashing on purpose (the crash tool was called)"
)

// Views.
const (
	ViewURI  = "ui://budget/view.html"
	BlobURI  = "ui://budget/blob.html"
	BigURI   = "ui://budget/big.html"
	OverURI  = "ui://budget/over.html"
	PlainURI = "ui://budget/plain.html"
)

// ViewHTML is the text of ViewURI; BlobHTML the bytes of BlobURI.
const (
	ViewHTML = "<!doctype html><html><head><title>Budget</title></head><body><h1>Budget</h1></body></html>"
	BlobHTML = "<!doctype html><html><body><p>From a blob: caf\u00e9</p></body></html>"
)

// BigBytes is the size of BigURI; OverBytes of OverURI (mcpclient.MaxViewBytes + 1).
const (
	BigBytes  = 5 << 20
	OverBytes = 8<<20 + 1
)

// BudgetSchema is get-budget-data's input schema, as TypeScript and Python SDKs emit them.
const BudgetSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "month": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}$", "description": "Month as YYYY-MM"},
    "email": {"type": "string", "format": "email", "pattern": "^(?!\\.)[^@]+@[^@]+$"},
    "limit": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 100}, {"type": "null"}]},
    "category": {"type": "string", "enum": ["food", "rent", "fun"]},
    "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}, "maxItems": 5}
  },
  "required": ["month"],
  "additionalProperties": false,
  "$defs": {"tag": {"type": "string", "minLength": 1}}
}`

// Options shape a server.
type Options struct {
	// Record, when set, receives every request the server receives: its method and params as JSON.
	Record func(method string, params json.RawMessage)
	// Exit ends the process for the crash tool (stdio children); nil means crash is refused.
	Exit func(code int)
}

// NewServer returns the server with every tool and view above.
func NewServer(o Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "budget-test", Version: "1.2.3"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}, Resources: &mcp.ResourceCapabilities{}},
	})
	if o.Record != nil {
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if b, err := json.Marshal(req.GetParams()); err == nil {
					o.Record(method, b)
				}
				return next(ctx, method, req)
			}
		})
	}
	ui := func(kv ...any) mcp.Meta {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return mcp.Meta{"ui": m}
	}
	text := func(format string, a ...any) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, a...)}}}
	}
	obj := json.RawMessage(`{"type":"object"}`)

	s.AddTool(&mcp.Tool{Name: "get-budget-data", Description: "The budget of one month.", InputSchema: json.RawMessage(BudgetSchema),
		Meta: ui("resourceUri", ViewURI), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r := text("received %s", req.Params.Arguments)
			r.StructuredContent = map[string]any{"received": json.RawMessage(req.Params.Arguments)}
			return r, nil
		})
	s.AddTool(&mcp.Tool{Name: "refresh-budget", Description: "Refresh the view's data.", InputSchema: obj,
		Meta: ui("resourceUri", ViewURI, "visibility", []string{"app"})},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("refreshed"), nil
		})
	s.AddTool(&mcp.Tool{Name: "say_hello", Description: "Greets someone.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		Meta:        ui("visibility", []string{"model"})},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Name string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return text("hello, %s", in.Name), nil
		})
	s.AddTool(&mcp.Tool{Name: "legacy_view", Description: "A tool whose view is in the deprecated flat key.", InputSchema: obj,
		Meta: mcp.Meta{"ui/resourceUri": BlobURI}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("legacy"), nil })
	s.AddTool(&mcp.Tool{Name: "broken_schema", Description: "Its schema refers outside itself.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"https://schemas.invalid/x.json"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("should not run"), nil
		})
	s.AddTool(&mcp.Tool{Name: "crash", Description: "Ends the server's process.", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if o.Exit == nil {
				return nil, fmt.Errorf("crash works over stdio only")
			}
			fmt.Fprintln(os.Stderr, CrashOnCallLine)
			o.Exit(3)
			return nil, nil
		})
	var once sync.Once
	s.AddTool(&mcp.Tool{Name: "add_tool", Description: "Adds the tool added_later.", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			once.Do(func() {
				s.AddTool(&mcp.Tool{Name: "added_later", Description: "Added by add_tool.", InputSchema: obj},
					func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("late"), nil })
			})
			return text("added"), nil
		})
	s.AddTool(&mcp.Tool{Name: "env", Description: "The value of an environment variable of this process.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Name string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			v, ok := os.LookupEnv(in.Name)
			if !ok {
				return text("<unset>"), nil
			}
			return text("%s", v), nil
		})
	s.AddTool(&mcp.Tool{Name: "pid", Description: "This process's id.", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("%d", os.Getpid()), nil
		})
	s.AddTool(&mcp.Tool{Name: "spawn", Description: "Starts a child process that sleeps; answers its id.", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			exe, err := os.Executable()
			if err != nil {
				return nil, err
			}
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), EnvServe+"="+ModeSleep, EnvStarts+"=")
			if err := cmd.Start(); err != nil {
				return nil, err
			}
			go func() { _ = cmd.Wait() }()
			return text("%d", cmd.Process.Pid), nil
		})
	s.AddTool(&mcp.Tool{Name: "big_result", Description: "Answers 2 MiB of text.", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("%s", strings.Repeat("x", 2<<20)), nil
		})
	s.AddTool(&mcp.Tool{Name: "fail", Description: "Answers an error result.", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r := text("the budget service is down")
			r.IsError = true
			return r, nil
		})

	view := func(uri, mimeType string, meta mcp.Meta, content func() *mcp.ResourceContents) {
		s.AddResource(&mcp.Resource{URI: uri, Name: uri, MIMEType: mimeType, Meta: meta},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				c := content()
				c.URI, c.MIMEType = uri, mimeType
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
			})
	}
	const profile = "text/html;profile=mcp-app"
	view(ViewURI, profile, nil, func() *mcp.ResourceContents {
		return &mcp.ResourceContents{Text: ViewHTML, Meta: ui(
			"csp", map[string]any{
				"connectDomains":  []string{"https://api.example.com", "https://evil.example.com; script-src *"},
				"resourceDomains": []string{"https://cdn.example.com", "https://*.cdn.example.net"},
				"frameDomains":    []string{"https://www.youtube.com"},
			},
			"permissions", map[string]any{"microphone": map[string]any{}, "clipboardWrite": map[string]any{}},
			"domain", "budget.example",
			"prefersBorder", true)}
	})
	view(BlobURI, "text/html; profile=mcp-app", ui("prefersBorder", false), func() *mcp.ResourceContents {
		return &mcp.ResourceContents{Blob: []byte(BlobHTML)}
	})
	view(BigURI, profile, nil, func() *mcp.ResourceContents {
		return &mcp.ResourceContents{Text: sized(BigBytes)}
	})
	view(OverURI, profile, nil, func() *mcp.ResourceContents {
		return &mcp.ResourceContents{Text: sized(OverBytes)}
	})
	view(PlainURI, "text/html", nil, func() *mcp.ResourceContents {
		return &mcp.ResourceContents{Text: ViewHTML}
	})
	return s
}

// sized is an HTML document of exactly n bytes.
func sized(n int) string {
	head, tail := "<!doctype html><html><body><!--", "--></body></html>"
	return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
}

// Handler serves NewServer(o) over Streamable HTTP.
func Handler(o Options) http.Handler {
	s := NewServer(o)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

// Request is one line of the EnvRecord file.
type Request struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// ServeIfChild serves over stdio and exits when EnvServe is set (call it first in TestMain); otherwise
// it returns at once.
func ServeIfChild() {
	mode := os.Getenv(EnvServe)
	if mode == "" {
		return
	}
	if p := os.Getenv(EnvStarts); p != "" {
		appendLine(p, mode)
	}
	switch mode {
	case ModeCrashAtStart:
		fmt.Fprintln(os.Stderr, CrashAtStartLine)
		os.Exit(2)
	case ModeSleep:
		select {}
	}
	o := Options{Exit: os.Exit}
	if p := os.Getenv(EnvRecord); p != "" {
		o.Record = func(method string, params json.RawMessage) {
			b, _ := json.Marshal(Request{Method: method, Params: params})
			appendLine(p, string(b))
		}
	}
	fmt.Fprintln(os.Stderr, "budget-test: serving on stdio")
	if err := NewServer(o).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "budget-test:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func appendLine(path, line string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

// Command is the list entry's command, args and env for a child server in mode: this test binary again
// (running no test of its own), with EnvServe, and EnvRecord and EnvStarts when record or starts are
// not "".
func Command(mode, record, starts string) (command string, args []string, env map[string]string) {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	env = map[string]string{EnvServe: mode}
	if record != "" {
		env[EnvRecord] = record
	}
	if starts != "" {
		env[EnvStarts] = starts
	}
	return exe, []string{"-test.run=^$"}, env
}
