package desktop

import (
	"testing"

	"github.com/voicebox/voicebox/tests/mcpbench"
	"github.com/voicebox/voicebox/tests/testbin"
)

// TestBenchmarkMCP measures the MCP door of the real desktop window under Xvfb: an app's echo through
// `voicebox mcp` (stdio) beside the host verb list_mini_apps (the floor, in the same run), and throughput
// with 100 calls in flight (tests/mcpbench). It runs only with VOICEBOX_BENCH=1:
//
//	VOICEBOX_BENCH=1 go test -tags desktop,production,webkit2_41 -run TestBenchmarkMCP -v ./tests/desktop
func TestBenchmarkMCP(t *testing.T) {
	testbin.NeedBench(t, "MCP benchmark")
	s := startSession(t)
	b := newBox(t, s, map[string]string{mcpbench.EchoFile: mcpbench.EchoApp})
	b.start(t, nil)
	s.window(t, b.app)
	bin, err := testbin.Path()
	if err != nil {
		t.Fatal(err)
	}
	mcpbench.Report(t, "desktop", bin, b.data)
}
