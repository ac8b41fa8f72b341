package mcpclient

import (
	"strings"
	"testing"
)

func tools(pairs ...string) []*Tool {
	var out []*Tool
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, &Tool{Server: pairs[i], Name: pairs[i+1]})
	}
	return out
}

func TestExposedNames(t *testing.T) {
	n := newNamer()
	got := n.assign(tools("budget", "get-budget-data", "My Server!", "a.b", "My Server!", "a_b", "_x", "t", "é", "t",
		"budget", strings.Repeat("long", 30)))
	want := map[ToolRef]string{
		{"budget", "get-budget-data"}: "mcp_budget__get-budget-data",
		{"My Server!", "a.b"}:         "mcp_My_Server___a_b",
		{"_x", "t"}:                   "mcp_s_x__t",
		{"é", "t"}:                    "mcp_s____t",
	}
	for ref, name := range want {
		if got[ref] != name {
			t.Errorf("%v: %q, want %q", ref, got[ref], name)
		}
	}
	// "a.b" and "a_b" map alike: the one named second gets a suffix of its own
	ab := got[ToolRef{"My Server!", "a_b"}]
	if !strings.HasPrefix(ab, "mcp_My_Server___a_b_") || len(ab) != len("mcp_My_Server___a_b_")+8 {
		t.Errorf("the second of two names that map alike: %q", ab)
	}
	long := got[ToolRef{"budget", strings.Repeat("long", 30)}]
	if len(long) != 64 || !strings.HasPrefix(long, "mcp_budget__longlong") {
		t.Errorf("a long name: %q (%d bytes)", long, len(long))
	}
	seen := map[string]bool{}
	for ref, name := range got {
		if !IsServerToolName(name) || len(name) > 64 || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			t.Errorf("%v: %q is not a name both providers take in the server tools' form", ref, name)
		}
		if seen[name] {
			t.Errorf("%q given twice", name)
		}
		seen[name] = true
	}

	// A name stays with its tool: while its server is down, another server whose name maps alike gets a
	// suffixed name, and the first gets its own back when it returns.
	first := n.assign(tools("budget!", "t"))[ToolRef{"budget!", "t"}]
	if first != "mcp_budget___t" {
		t.Fatalf("budget!: %q", first)
	}
	n.assign(nil) // budget! is down
	other := n.assign(tools("budget?", "t"))[ToolRef{"budget?", "t"}]
	if other == first || !strings.HasPrefix(other, first+"_") {
		t.Errorf("budget? took %q while budget! holds %q", other, first)
	}
	both := n.assign(tools("budget?", "t", "budget!", "t"))
	if both[ToolRef{"budget!", "t"}] != first || both[ToolRef{"budget?", "t"}] != other {
		t.Errorf("names moved: %v", both)
	}
}
