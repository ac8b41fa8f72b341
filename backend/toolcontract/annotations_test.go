package toolcontract

import (
	"encoding/json"
	"strings"
	"testing"
)

// annotationCases: a declaration's annotations → what normalization keeps (the JavaScript twin's test in
// toolcontract.test.mjs has the same table).
var annotationCases = []struct{ in, want string }{
	{`{"readOnlyHint":true,"x":1}`, `{"readOnlyHint":true}`},
	{`{"readOnlyHint":"true","destructiveHint":0,"openWorldHint":null,"idempotentHint":{},"untrustedContentHint":""}`,
		`{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false,"untrustedContentHint":false}`},
	{`"yes"`, ``},
	{`{}`, ``},
	{`{"title":"t","consequentialHint":true}`, ``},
}

func TestAnnotationsKeepHintsOnly(t *testing.T) {
	for _, c := range annotationCases {
		tool := mustTool(t, `{"name":"t","description":"d","parameters":{"type":"object"},"annotations":`+c.in+`}`)
		if got := tool.Annotations.JSON(); got != c.want {
			t.Errorf("annotations %s: got %q, want %q", c.in, got, c.want)
		}
	}
	if tool := mustTool(t, `{"name":"t","description":"d","parameters":{"type":"object"}}`); tool.Annotations != nil || tool.Annotations.ReadOnly() {
		t.Fatalf("no annotations: %+v", tool.Annotations)
	}
}

// readOnlyHint reaches a voice model: neither provider has a field for it, so it joins the description.
func TestReadOnlyHintInDeclarations(t *testing.T) {
	ro := mustTool(t, `{"name":"look","description":"Read the board","parameters":{"type":"object"},"annotations":{"readOnlyHint":true}}`)
	rw := mustTool(t, `{"name":"set","description":"Set the board","parameters":{"type":"object"},"annotations":{"readOnlyHint":false}}`)
	for _, provider := range []string{ProviderOpenAI, ProviderGemini} {
		decls, _, err := declare(provider, []AppTools{{AppID: "app_b", Slug: "b", Tools: []*Tool{ro, rw}}})
		if err != nil {
			t.Fatal(err)
		}
		var d [2]struct{ Description string }
		for i := range d {
			_ = json.Unmarshal(decls[i], &d[i])
		}
		if d[0].Description != "Read the board "+readOnlyNote || strings.Contains(d[1].Description, readOnlyNote) {
			t.Errorf("%s: %q / %q", provider, d[0].Description, d[1].Description)
		}
	}
}
