package cli

import (
	"errors"
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want Command
	}{
		{"no arguments opens the window", nil, Command{Mode: ModeDesktop}},
		{"files", []string{"a.html", "b.html"}, Command{Mode: ModeDesktop, Files: []string{"a.html", "b.html"}}},
		{"flags among files", []string{"a.html", "--workspace", "/w", "b.html", "--data=/d"},
			Command{Mode: ModeDesktop, Workspace: "/w", Data: "/d", Files: []string{"a.html", "b.html"}}},
		{"double dash keeps dashed names", []string{"--", "--odd.html"}, Command{Mode: ModeDesktop, Files: []string{"--odd.html"}}},
		{"serve defaults", []string{"serve"}, Command{Mode: ModeServe, Addr: DefaultAddr}},
		{"serve flags", []string{"serve", "--addr", "127.0.0.1:0", "--workspace", "w", "--data", "d", "--mcp"},
			Command{Mode: ModeServe, Addr: "127.0.0.1:0", Workspace: "w", Data: "d", MCP: true}},
		{"tool check passes its arguments through", []string{"tool", "check", "t.json", "--args", "a.json"},
			Command{Mode: ModeToolCheck, Rest: []string{"t.json", "--args", "a.json"}}},
		{"mcp print config", []string{"mcp", "--print-config", "--data", "/d"}, Command{Mode: ModeMCP, PrintMCP: "stdio", Data: "/d"}},
		{"mcp print the HTTP config", []string{"mcp", "--print-config=http"}, Command{Mode: ModeMCP, PrintMCP: "http"}},
		{"mcp print the stdio config by name", []string{"mcp", "--print-config=stdio"}, Command{Mode: ModeMCP, PrintMCP: "stdio"}},
		{"help", []string{"--help"}, Command{Mode: ModeHelp}},
		{"version", []string{"--version"}, Command{Mode: ModeVersion}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.args)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.args, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q) = %+v, want %+v", tt.args, got, tt.want)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "extra"},
		{"serve", "--nope"},
		{"tool"},
		{"tool", "lint"},
		{"--workspace"},
		{"mcp", "file.html"},
		{"mcp", "--print-config=sse"},
		{""},
	} {
		if _, err := Parse(args); !errors.Is(err, ErrUsage) {
			t.Errorf("Parse(%q) error = %v, want ErrUsage", args, err)
		}
	}
}
