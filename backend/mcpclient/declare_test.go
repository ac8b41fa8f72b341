package mcpclient_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/mcpclient"
	"github.com/voicebox/voicebox/backend/mcpclient/mcpclienttest"
	"github.com/voicebox/voicebox/backend/store"
	"github.com/voicebox/voicebox/backend/toolcontract"
	"github.com/voicebox/voicebox/backend/verbs"
)

func tool(t *testing.T, schema string) *mcpclient.Tool {
	t.Helper()
	tl := mcpclient.NewTool("s", &mcp.Tool{Name: "t", Description: "A tool.", InputSchema: json.RawMessage(schema)})
	if tl.Problem != "" {
		t.Fatalf("%s: %s", schema, tl.Problem)
	}
	return tl
}

// Schemas as servers' SDKs emit them: zod (TypeScript), pydantic (Python, $defs and $ref, recursion),
// hand-written draft-07, and shapes Gemini's subset cannot say.
var emitted = []string{
	mcpclienttest.BudgetSchema,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"when":{"type":"string","format":"date-time"},"n":{"type":"integer","format":"int64","exclusiveMinimum":0}}}`,
	`{"type":"object","$defs":{"Node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}},"required":["name"]}},"properties":{"root":{"$ref":"#/$defs/Node","description":"The tree."}},"required":["root"]}`,
	`{"type":"object","properties":{"v":{"type":["string","null"]},"w":{"oneOf":[{"type":"string"},{"type":"number"}]},"k":{"const":"fixed"},"m":{"type":"object","additionalProperties":{"type":"string"}},"a":{"type":"array"},"x":{},"e":{"enum":[1,2,3]}},"required":["m","v"]}`,
	`{"type":"object","allOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"boolean"}}}]}`,
	`{"type":"object","properties":{"q":{"type":"string"}},"anyOf":[{"required":["q"]},{"required":["r"]}]}`,
	`{"type":"object","properties":{"p":{"$ref":"https://example.com/remote.json#/x"}}}`,
	`{"type":"object"}`,
	deep(30),
}

func deep(n int) string {
	s := `{"type":"string"}`
	for i := 0; i < n; i++ {
		s = `{"type":"object","properties":{"d":` + s + `}}`
	}
	return s
}

// What Gemini's Schema takes (the fields this package emits are a subset of these).
var geminiFields = []string{"type", "description", "nullable", "enum", "format", "minimum", "maximum", "items", "properties", "required", "anyOf"}
var geminiTypes = []string{"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"}
var geminiFormats = []string{"enum", "date-time", "int32", "int64", "float", "double"}

// checkGemini walks a translated schema and reports anything Gemini's subset does not take, or a shape it
// refuses (an OBJECT with no properties, an ARRAY with no items), and returns its depth.
func checkGemini(t *testing.T, where string, v any) int {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: not an object: %v", where, v)
	}
	for k := range m {
		if !slices.Contains(geminiFields, k) {
			t.Errorf("%s: field %q is not Gemini's", where, k)
		}
	}
	if alts, ok := m["anyOf"].([]any); ok {
		d := 0
		for i, a := range alts {
			d = max(d, checkGemini(t, fmt.Sprintf("%s/anyOf/%d", where, i), a))
		}
		return d + 1
	}
	typ, _ := m["type"].(string)
	if !slices.Contains(geminiTypes, typ) {
		t.Errorf("%s: type %v", where, m["type"])
	}
	if f, ok := m["format"].(string); ok && !slices.Contains(geminiFormats, f) {
		t.Errorf("%s: format %q", where, f)
	}
	if e, ok := m["enum"].([]any); ok {
		for _, x := range e {
			if _, ok := x.(string); !ok {
				t.Errorf("%s: enum member %v is not a string", where, x)
			}
		}
	}
	depth := 1
	switch typ {
	case "OBJECT":
		props, _ := m["properties"].(map[string]any)
		if len(props) == 0 {
			t.Errorf("%s: an OBJECT without properties", where)
		}
		for k, p := range props {
			depth = max(depth, 1+checkGemini(t, where+"/"+k, p))
		}
		if rq, ok := m["required"].([]any); ok {
			for _, r := range rq {
				if props[r.(string)] == nil {
					t.Errorf("%s: required %v is not a property", where, r)
				}
			}
		}
	case "ARRAY":
		if m["items"] == nil {
			t.Errorf("%s: an ARRAY without items", where)
		} else {
			depth = 1 + checkGemini(t, where+"/items", m["items"])
		}
	}
	return depth
}

func TestEveryProviderGetsADeclarationItTakes(t *testing.T) {
	for i, schema := range emitted {
		tl := mcpclient.NewTool("s", &mcp.Tool{Name: "t", Description: "A tool.", InputSchema: json.RawMessage(schema)})
		for _, provider := range []string{toolcontract.ProviderOpenAI, toolcontract.ProviderGemini} {
			raw, err := mcpclient.Declaration(provider, "mcp_s__t", tl)
			if err != nil {
				t.Fatalf("schema %d, %s: %v", i, provider, err)
			}
			var d map[string]any
			if err := json.Unmarshal(raw, &d); err != nil {
				t.Fatal(err)
			}
			if d["name"] != "mcp_s__t" || d["description"] != "A tool." {
				t.Errorf("schema %d, %s: %s", i, provider, raw)
			}
			p, _ := d["parameters"].(map[string]any)
			if provider == toolcontract.ProviderOpenAI {
				if d["type"] != "function" || p["type"] != "object" || p["properties"] == nil || p["$schema"] != nil {
					t.Errorf("schema %d for OpenAI: %s", i, raw)
				}
				continue
			}
			if p != nil {
				if depth := checkGemini(t, fmt.Sprintf("schema %d", i), p); depth > 12 {
					t.Errorf("schema %d for Gemini is %d deep", i, depth)
				}
			}
		}
	}
}

func TestGeminiTranslation(t *testing.T) {
	gem := func(schema string) map[string]any {
		raw, err := mcpclient.Declaration(toolcontract.ProviderGemini, "n", tool(t, schema))
		if err != nil {
			t.Fatal(err)
		}
		var d struct{ Parameters map[string]any }
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		return d.Parameters
	}
	props := func(p map[string]any) map[string]any { return p["properties"].(map[string]any) }
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }

	p := props(gem(mcpclienttest.BudgetSchema))
	for k, want := range map[string]string{
		"month":    `{"description":"Month as YYYY-MM Pattern: ^[0-9]{4}-[0-9]{2}$.","type":"STRING"}`,
		"email":    `{"description":"Format: email. Pattern: ^(?!\\.)[^@]+@[^@]+$.","type":"STRING"}`,
		"limit":    `{"maximum":100,"minimum":1,"nullable":true,"type":"INTEGER"}`,
		"category": `{"enum":["food","rent","fun"],"format":"enum","type":"STRING"}`,
		"tags":     `{"description":"Length: at most 5 items.","items":{"description":"Length: at least 1 characters.","type":"STRING"},"type":"ARRAY"}`,
	} {
		if got := js(p[k]); got != want {
			t.Errorf("%s:\n got %s\nwant %s", k, got, want)
		}
	}

	p = props(gem(emitted[3]))
	for k, want := range map[string]string{
		"v": `{"nullable":true,"type":"STRING"}`,
		"w": `{"anyOf":[{"type":"STRING"},{"type":"NUMBER"}]}`,
		"k": `{"enum":["fixed"],"format":"enum","type":"STRING"}`,
		"e": `{"description":"Allowed values: 1, 2, 3.","type":"INTEGER"}`,
	} {
		if got := js(p[k]); got != want && !(k == "e" && strings.Contains(got, "Allowed values: 1, 2, 3.")) {
			t.Errorf("%s:\n got %s\nwant %s", k, got, want)
		}
	}
	for _, gone := range []string{"m", "a", "x"} { // a map, an array without items, a schema of anything
		if p[gone] != nil {
			t.Errorf("%s should be left out: %s", gone, js(p[gone]))
		}
	}
	if rq := js(gem(emitted[3])["required"]); rq != `["v"]` {
		t.Errorf("required %s: m was left out, so it cannot be required", rq)
	}

	// pydantic's recursion: the tree is inlined once and stops where it recurs
	root := props(gem(emitted[2]))["root"].(map[string]any)
	if root["description"] != "The tree." || root["type"] != "OBJECT" {
		t.Fatalf("root: %s", js(root))
	}
	children := props(root)["children"]
	if children != nil {
		t.Fatalf("a recursive $ref went on: %s", js(children))
	}
	// allOf merged; constraint-only anyOf members leave the object as it is
	if got := js(gem(emitted[4])); got != `{"properties":{"a":{"type":"STRING"},"b":{"type":"BOOLEAN"}},"required":["a"],"type":"OBJECT"}` {
		t.Errorf("allOf: %s", got)
	}
	if got := js(gem(emitted[5])); got != `{"properties":{"q":{"type":"STRING"}},"type":"OBJECT"}` {
		t.Errorf("anyOf of required lists: %s", got)
	}
	// nothing to declare: no parameters at all (Gemini refuses an empty OBJECT)
	if p := gem(`{"type":"object"}`); p != nil {
		t.Errorf("an empty object: %s", js(p))
	}
}

func TestOpenAIGetsTheServersSchema(t *testing.T) {
	raw, err := mcpclient.Declaration(toolcontract.ProviderOpenAI, "mcp_s__t", tool(t, mcpclienttest.BudgetSchema))
	if err != nil {
		t.Fatal(err)
	}
	var d struct{ Parameters map[string]any }
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	_ = json.Unmarshal([]byte(mcpclienttest.BudgetSchema), &want)
	delete(want, "$schema")
	if !reflect.DeepEqual(d.Parameters, want) {
		t.Fatalf("OpenAI's parameters are not the server's schema less $schema:\n%s", raw)
	}
	ro := mcpclient.NewTool("s", &mcp.Tool{Name: "t", Description: "Reads.", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}})
	for _, p := range []string{toolcontract.ProviderOpenAI, toolcontract.ProviderGemini} {
		raw, _ := mcpclient.Declaration(p, "n", ro)
		if !strings.Contains(string(raw), "Read-only") {
			t.Errorf("%s: the read-only hint is not in the description: %s", p, raw)
		}
	}
	long := mcpclient.NewTool("s", &mcp.Tool{Name: "t", Description: strings.Repeat("é", 5000), InputSchema: json.RawMessage(`{"type":"object"}`)})
	raw, _ = mcpclient.Declaration(toolcontract.ProviderOpenAI, "n", long)
	var dl struct{ Description string }
	_ = json.Unmarshal(raw, &dl)
	if len(dl.Description) > mcpclient.MaxDescriptionBytes || !strings.HasPrefix(dl.Description, "éé") {
		t.Fatalf("a long description: %d bytes", len(dl.Description))
	}
}

func TestSchemasThatDoNotCompileMakeAToolThatCannotBeCalled(t *testing.T) {
	for _, c := range []struct{ schema, says string }{
		{`{"type":"object","properties":{"p":{"$ref":"https://example.com/remote.json#/x"}}}`, "example.com"},
		{`{"type":"object","properties":{"p":{"$ref":"file:///etc/passwd"}}}`, "/etc/passwd"},
		{`{"type":"object","properties":{"p":{"$ref":"#/$defs/missing"}}}`, "missing"},
		{`{"type":"object","properties":{"p":{"type":"strang"}}}`, "does not compile"},
		{`[1,2]`, "not a JSON object"},
		{`{"type":"object","patternProperties":{"(?=a)":{"type":"string"}}}`, "does not compile"},
	} {
		tl := mcpclient.NewTool("s", &mcp.Tool{Name: "t", InputSchema: json.RawMessage(c.schema)})
		if tl.Callable() || !strings.Contains(tl.Problem, c.says) {
			t.Errorf("%s: callable %v, problem %q (want it to say %q)", c.schema, tl.Callable(), tl.Problem, c.says)
			continue
		}
		if _, r := tl.ValidateArgs([]byte(`{}`)); r == nil || r.Refused != mcpclient.CodeToolUnusable {
			t.Errorf("%s: a call was not refused: %v", c.schema, r)
		}
	}
	for _, name := range []string{"", "a\u202eb", "tab\there", strings.Repeat("n", 129)} {
		if tl := mcpclient.NewTool("s", &mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}); tl.Callable() || tl.Problem == "" {
			t.Errorf("a tool named %q can be called", name)
		}
	}
	// an unknown $schema is read as 2020-12, never fetched
	tl := mcpclient.NewTool("s", &mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"$schema":"https://schemas.invalid/custom","type":"object","properties":{"a":{"type":"string"}}}`)})
	if !tl.Callable() {
		t.Fatalf("an unknown $schema: %s", tl.Problem)
	}
	if _, r := tl.ValidateArgs([]byte(`{"a":1}`)); r == nil || r.Refused != toolcontract.CodeInvalidArgumentType {
		t.Fatalf("its schema is not checked: %v", r)
	}
	// no schema at all: an object of anything
	tl = mcpclient.NewTool("s", &mcp.Tool{Name: "t"})
	if b, r := tl.ValidateArgs(nil); r != nil || string(b) != `{}` {
		t.Fatalf("no schema: %s %v", b, r)
	}
}

// A tool keeps the numbers it was given, digit for digit, after the check encodes them again.
func TestArgumentsReachTheServerAsChecked(t *testing.T) {
	tl := tool(t, `{"type":"object","properties":{"n":{"type":"number"},"s":{"type":"string"}}}`)
	b, r := tl.ValidateArgs([]byte(` {"n": 12345678901234567890.5e-3, "s": "caf\u00e9 \ud83d\ude00"} `))
	if r != nil {
		t.Fatal(r)
	}
	if string(b) != `{"n":12345678901234567890.5e-3,"s":"café 😀"}` {
		t.Fatalf("sent %s", b)
	}
}

func TestNoAppToolOrVerbIsNamedLikeAServerTool(t *testing.T) {
	for _, v := range verbs.For(verbs.Voice | verbs.MCP) {
		if mcpclient.IsServerToolName(v.Name()) {
			t.Errorf("verb %s is named like a server tool", v.Name())
		}
	}
	// Apps named to look like servers: the names the room gives their tools never start with mcp_.
	var apps []toolcontract.AppTools
	for i, name := range []string{"mcp_budget", "MCP budget", "mcp.budget", "mcp__budget", "mcp", "mcp-budget", "_mcp_x"} {
		apps = append(apps, toolcontract.AppTools{AppID: fmt.Sprintf("app_%d", i), Slug: store.SlugOf(name),
			Tools: []*toolcontract.Tool{{Name: "get-budget-data"}, {Name: "_x"}}})
	}
	apps = append(apps, toolcontract.AppTools{AppID: "app_mcp_budget", Tools: []*toolcontract.Tool{{Name: "t"}}}) // no slug: the id
	for key, name := range toolcontract.NewNamer().Assign(apps) {
		if mcpclient.IsServerToolName(name) {
			t.Errorf("app %v is exposed as %q, a server tool's name", key, name)
		}
	}
}
