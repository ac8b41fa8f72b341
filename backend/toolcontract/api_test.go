package toolcontract

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

func mustTool(t *testing.T, decl string) *Tool {
	t.Helper()
	tool, r := ValidateTool([]byte(decl))
	if r != nil {
		t.Fatalf("%s: %v", decl, r)
	}
	return tool
}

func TestRefusalIsAnError(t *testing.T) {
	var r *Refusal
	if r.Err() != nil {
		t.Fatal("nil refusal must give a nil error interface")
	}
	r = &Refusal{Refused: CodeUnknownTool, Message: `unknown tool "x"`}
	var err error = r.Err()
	var got *Refusal
	if !errors.As(err, &got) || got.Error() != `unknown-tool: unknown tool "x"` {
		t.Fatalf("error %v", err)
	}
	b, _ := json.Marshal(r)
	if string(b) != `{"refused":"unknown-tool","path":"","message":"unknown tool \"x\""}` {
		t.Fatalf("json %s", b)
	}
}

func TestNormalizedDeclaration(t *testing.T) {
	tool := mustTool(t, `{"name":"t","description":"d","annotations":{"x":1},"inputSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":1.0e0,"maximum":2E1,"enum":[2.0, 3]},"s":{"type":"string","minLength":2.0,"description":"<&>"}}}}`)
	b := tool.Parameters
	want := `{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":20,"enum":[2,3]},"s":{"type":"string","minLength":2,"description":"<&>"}}}`
	if tool.Name != "t" || tool.Description != "d" || string(b) != want {
		t.Fatalf("normalized\n got %s\nwant %s", b, want)
	}
}

func TestNilAndUnknownToolFailClosed(t *testing.T) {
	var nilTool *Tool
	if r := nilTool.ValidateArgs([]byte(`{}`)); r == nil || r.Refused != CodeUnknownTool {
		t.Fatalf("nil tool: %v", r)
	}
	if r := (&Tool{Name: "hand-made"}).ValidateArgs([]byte(`{}`)); r == nil || r.Refused != CodeUnknownTool {
		t.Fatalf("unvalidated tool: %v", r)
	}
	tool := mustTool(t, benchSetScoreDecl)
	if _, r := ValidateCall([]*Tool{nil, tool}, "SET_SCORE", benchSetScoreArgs); r == nil || r.Refused != CodeUnknownTool {
		t.Fatalf("lookup is case-sensitive: %v", r)
	}
	if got, r := ValidateCall([]*Tool{nil, tool}, "set_score", benchSetScoreArgs); r != nil || got != tool {
		t.Fatalf("call: %v", r)
	}
}

func TestOutputAndTimeout(t *testing.T) {
	if CheckOutput(make([]byte, MaxOutputBytes)) != nil || CheckOutput(make([]byte, MaxOutputBytes+1)).Refused != CodeOutputOverBudget {
		t.Fatal("output budget")
	}
	if r := TimeoutRefusal(); r.Refused != CodeToolTimeout || r.Message != "tool execution timed out after 5000ms" {
		t.Fatal(r)
	}
}

func TestVerdictJSON(t *testing.T) {
	_, vs := RegisterAll([]json.RawMessage{json.RawMessage(benchSetScoreDecl), json.RawMessage(benchSetScoreDecl), json.RawMessage(`[]`)})
	b, _ := json.Marshal(vs)
	want := `[{"name":"set_score","ok":true},{"name":"set_score","ok":false,"refused":"duplicate-tool","path":"/name","message":"tool \"set_score\" is already registered by this app"},{"name":"","ok":false,"refused":"invalid-tool-name","message":"tool declaration must be a JSON object"}]`
	if string(b) != want {
		t.Fatalf("verdicts\n got %s\nwant %s", b, want)
	}
}

func TestBridgeJSEmbedded(t *testing.T) {
	disk, err := os.ReadFile("toolcontract.js")
	if err != nil || !bytes.Equal(disk, BridgeJS) || !bytes.Contains(BridgeJS, []byte("VoiceboxToolContract")) {
		t.Fatal("BridgeJS is not toolcontract.js")
	}
	if len(metaSchemaJSON) == 0 {
		t.Fatal("no meta-schema")
	}
}

// TestNodeTwin runs the JavaScript twin on the same vectors when node is
// available, so `go test` alone notices drift.
func TestNodeTwin(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not in PATH")
	}
	out, err := exec.Command(node, "--test", "toolcontract.test.mjs").CombinedOutput()
	if err != nil {
		t.Fatalf("node --test failed: %v\n%s", err, out)
	}
}

var openAIName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
var geminiName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`)

// declare names the tools with a fresh Namer, so the same set of apps always yields the same names
// whatever their order.
func declare(provider string, apps []AppTools) ([]json.RawMessage, map[string]Exposed, error) {
	return FunctionDeclarations(provider, apps, NewNamer().Assign(apps))
}

func TestFunctionDeclarations(t *testing.T) {
	score := mustTool(t, benchSetScoreDecl)
	long := mustTool(t, `{"name":"`+strings.Repeat("x", 64)+`","description":"long","parameters":{"type":"object"}}`)
	rich := mustTool(t, `{"name":"rich","description":"","parameters":{"type":"object","additionalProperties":false,"properties":{
		"level":{"type":"integer","enum":[1,2,3],"minimum":1,"title":"Level"},
		"word":{"type":"string","minLength":1,"maxLength":20},
		"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}},
		"free":{"type":"object"},
		"pos":{"type":"object","properties":{"x":{"type":"number","maximum":5}},"required":["x"],"additionalProperties":false}},
		"required":["level","free"]}}`)
	apps := []AppTools{
		{AppID: "app_scoreboard", Slug: "scoreboard", Tools: []*Tool{score, rich, score}},
		{AppID: "scoreboard", Tools: []*Tool{score, nil}},                    // same slug: clash
		{AppID: "9 lives!", Tools: []*Tool{long}},                            // bad slug, long name
		{AppID: "app_scoreboard", Slug: "scoreboard", Tools: []*Tool{score}}, // repeated app
	}
	for _, provider := range []string{ProviderOpenAI, ProviderGemini} {
		decls, names, err := declare(provider, apps)
		if err != nil {
			t.Fatal(err)
		}
		if len(decls) != 4 || len(names) != 4 {
			t.Fatalf("%s: %d decls, %d names", provider, len(decls), len(names))
		}
		seen := map[string]bool{}
		for _, d := range decls {
			var v map[string]any
			if err := json.Unmarshal(d, &v); err != nil {
				t.Fatal(err)
			}
			name := v["name"].(string)
			if !openAIName.MatchString(name) || !geminiName.MatchString(name) || seen[name] {
				t.Errorf("%s: bad or repeated name %q", provider, name)
			}
			seen[name] = true
			if _, ok := names[name]; !ok {
				t.Errorf("%s: %q does not map back", provider, name)
			}
			if provider == ProviderOpenAI && v["type"] != "function" {
				t.Errorf("openai declaration %s", d)
			}
		}
		if names["scoreboard__set_score"] != (Exposed{AppID: "app_scoreboard", Tool: "set_score"}) {
			t.Errorf("%s: names %v", provider, names)
		}
		// deterministic whatever the order of apps
		rev := []AppTools{apps[3], apps[2], apps[1], apps[0]}
		_, names2, _ := declare(provider, rev)
		for n, e := range names {
			if names2[n] != e {
				t.Errorf("%s: order-dependent name %q", provider, n)
			}
		}
		if provider == ProviderGemini {
			var sb strings.Builder
			for _, d := range decls {
				sb.Write(d)
				sb.WriteByte('\n')
			}
			all := sb.String()
			for _, banned := range []string{"additionalProperties", `"title"`, "minLength", "maxLength", `"free"`, `"object"`, `"string"`} {
				if strings.Contains(all, banned) {
					t.Errorf("gemini declarations contain %s:\n%s", banned, all)
				}
			}
			var richDecl string
			for _, d := range decls {
				if strings.Contains(string(d), "rich") {
					richDecl = string(d)
				}
			}
			want := `{"name":"scoreboard__rich","description":"","parameters":{"type":"OBJECT","properties":{"level":{"type":"INTEGER","description":"Level Allowed values: 1, 2, 3.","minimum":1},"word":{"type":"STRING","description":"Length: 1 to 20 characters."},"tags":{"type":"ARRAY","items":{"type":"STRING","format":"enum","enum":["a","b"]}},"pos":{"type":"OBJECT","properties":{"x":{"type":"NUMBER","maximum":5}},"required":["x"]}},"required":["level"]}}`
			if richDecl != want {
				t.Errorf("gemini rich\n got %s\nwant %s", richDecl, want)
			}
			if strings.Contains(all, `"long","parameters"`) {
				t.Errorf("a tool without properties must omit parameters for gemini:\n%s", all)
			}
		}
	}
	if _, _, err := declare("claude", apps); err == nil {
		t.Fatal("unknown provider accepted")
	}
	// The name a single tool gets when nothing clashes with it.
	exposedName := func(appID, tool string) string {
		_, m, _ := declare(ProviderOpenAI, []AppTools{{AppID: appID, Tools: []*Tool{{Name: tool}}}})
		for n := range m {
			return n
		}
		return ""
	}
	if got := exposedName("app_x", "do"); got != "app_x__do" {
		t.Fatalf("ExposedName %q", got)
	}
	if got := exposedName("x", strings.Repeat("y", 64)); len(got) != 64 || !openAIName.MatchString(got) {
		t.Fatalf("long ExposedName %q", got)
	}
}
