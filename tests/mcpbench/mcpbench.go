// Package mcpbench measures the MCP door's round trip against the real binary, the way an MCP client sees
// it: the official Go MCP SDK's client runs `voicebox mcp` over stdio (which forwards to the running
// Voicebox), calls an open app's echo tool and, as the floor measured in the same run, the host verb
// list_mini_apps (answered in Go, it never reaches the room). What the echo costs above the floor is the
// Go ↔ room hop. tests/e2e (serve, with the room in headless Chromium) and tests/desktop (the window under
// Xvfb) run it with VOICEBOX_BENCH=1 (`make bench`). It prints figures and never asserts on timing; it
// fails only when an answer is wrong, lost or crossed.
package mcpbench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/mcpdoor"
)

// EchoApp is the mini-app the benchmark calls: one tool that answers its text.
const EchoApp = `<!doctype html>
<html><head><meta charset="utf-8"><title>Bench Echo</title></head>
<body><h1>Bench Echo</h1><script>
window.webMcp.registerTool({
  name: "echo", description: "Echo the text back",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  execute: ({ text }) => ({ text }),
});
window.webMcp.ready();
</script></body></html>
`

// EchoFile is the name the benchmark gives EchoApp in the workspace.
const EchoFile = "bench-echo.html"

// Stdio connects a client to `bin mcp --data data`.
func Stdio(t testing.TB, bin, data string) *mcp.ClientSession {
	return StdioWith(t, bin, data, nil)
}

// StdioWith is Stdio with the client's options (its notification handlers).
func StdioWith(t testing.TB, bin, data string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "voicebox-bench", Version: "1.0"}, opts)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "mcp", "--data", data)}, nil)
	if err != nil {
		t.Fatalf("voicebox mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// HTTP connects a client straight to the running Voicebox's MCP server (Streamable HTTP), as the
// discovery file in data names it: no `voicebox mcp` in between.
func HTTP(t testing.TB, data string) *mcp.ClientSession {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(data, "mcp.json"))
	var d struct {
		URL   string `json:"url"`
		Token string `json:"token"`
	}
	if err != nil || json.Unmarshal(raw, &d) != nil {
		t.Fatalf("discovery file: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "voicebox-bench-http", Version: "1.0"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: d.URL, HTTPClient: &http.Client{Transport: &mcpdoor.BearerTransport{Token: d.Token}}}, nil)
	if err != nil {
		t.Fatalf("MCP over HTTP: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Launch opens EchoFile through MCP and returns the echo tool's exposed name.
func Launch(t testing.TB, cs *mcp.ClientSession) string {
	t.Helper()
	tools := LaunchFile(t, cs, EchoFile)
	for _, n := range tools {
		if strings.HasSuffix(n, "__echo") {
			return n
		}
	}
	t.Fatalf("launch_mini_app: no echo tool in %v", tools)
	return ""
}

// LaunchFile opens a workspace file through MCP (retrying while no room has said hello yet) and returns
// its tools' exposed names.
func LaunchFile(t testing.TB, cs *mcp.ClientSession, file string) []string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		text, refused, err := call(cs, "launch_mini_app", map[string]any{"ref": file})
		if err == nil && !refused {
			var a struct {
				Tools []string `json:"tools"`
			}
			if json.Unmarshal([]byte(text), &a) != nil {
				t.Fatalf("launch_mini_app %s: %s", file, text)
			}
			return a.Tools
		}
		if time.Now().After(deadline) {
			t.Fatalf("launch_mini_app %s: %s (refused %v, %v)", file, text, refused, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func call(cs *mcp.ClientSession, name string, args any) (string, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", false, err
	}
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String(), res.IsError, nil
}

// echoOnce calls the echo tool with a text of its own and checks that exactly that text came back.
func echoOnce(cs *mcp.ClientSession, tool, text string) error {
	out, refused, err := call(cs, tool, map[string]any{"text": text})
	if err != nil {
		return err
	}
	var r struct {
		Text string `json:"text"`
	}
	if refused || json.Unmarshal([]byte(out), &r) != nil {
		return fmt.Errorf("echo %q answered %s (refused %v)", text, out, refused)
	}
	if r.Text != text {
		return fmt.Errorf("crossed: echo %q answered %q", text, r.Text)
	}
	return nil
}

// Dist is a latency distribution in milliseconds.
type Dist struct {
	N             int
	P50, P99, Max float64
}

// DistOf is the distribution of d (which it sorts).
func DistOf(d []time.Duration) Dist {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	ms := func(x time.Duration) float64 { return float64(x.Microseconds()) / 1000 }
	q := func(f float64) float64 { return ms(d[int(f*float64(len(d)-1))]) }
	return Dist{N: len(d), P50: q(0.5), P99: q(0.99), Max: ms(d[len(d)-1])}
}

func (d Dist) String() string {
	return fmt.Sprintf("n=%d p50=%.2f ms p99=%.2f ms max=%.1f ms", d.N, d.P50, d.P99, d.Max)
}

// Sequential alternates n echo calls with n list_mini_apps calls (after a warm-up) on one client.
func Sequential(t testing.TB, cs *mcp.ClientSession, tool string, n int) (echo, floor Dist) {
	t.Helper()
	for i := 0; i < 50; i++ {
		if err := echoOnce(cs, tool, fmt.Sprintf("warm %d", i)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := call(cs, "list_mini_apps", map[string]any{}); err != nil {
			t.Fatal(err)
		}
	}
	var e, f []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		if err := echoOnce(cs, tool, fmt.Sprintf("hello %d", i)); err != nil {
			t.Fatal(err)
		}
		e = append(e, time.Since(start))
		start = time.Now()
		if _, refused, err := call(cs, "list_mini_apps", map[string]any{}); err != nil || refused {
			t.Fatalf("list_mini_apps: refused %v, %v", refused, err)
		}
		f = append(f, time.Since(start))
	}
	return DistOf(e), DistOf(f)
}

// Rate runs total calls of one, inFlight at a time, and returns calls per second and the latency of each.
// Every call must succeed (one checks its own answer: lost or crossed answers fail the run).
func Rate(t testing.TB, inFlight, total int, one func(worker, i int) error) (float64, Dist) {
	t.Helper()
	var next atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	var failures []string
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < inFlight; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)); i <= total; i = int(next.Add(1)) {
				s := time.Now()
				err := one(w, i)
				d := time.Since(s)
				mu.Lock()
				lat = append(lat, d)
				if err != nil {
					failures = append(failures, err.Error())
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if len(failures) > 0 {
		t.Fatalf("%d of %d calls failed, lost or crossed; first: %s", len(failures), total, failures[0])
	}
	return float64(total) / elapsed.Seconds(), DistOf(lat)
}

// Throughput is Rate over MCP: 25 calls in flight on each client, of the echo tool (each answer must carry
// its own call's text) or, as the floor, of list_mini_apps.
func Throughput(t testing.TB, clients []*mcp.ClientSession, tool string, total int) (float64, Dist) {
	t.Helper()
	return Rate(t, 25*len(clients), total, func(w, i int) error {
		cs := clients[w%len(clients)]
		if tool != "list_mini_apps" {
			return echoOnce(cs, tool, fmt.Sprintf("worker %d call %d", w, i))
		}
		if _, refused, err := call(cs, tool, map[string]any{}); err != nil || refused {
			return fmt.Errorf("list_mini_apps: refused %v, %v", refused, err)
		}
		return nil
	})
}

// Compare logs a throughput measured beside its floor, in the same run.
func Compare(t testing.TB, what string, rate float64, lat Dist, floor float64, floorLat Dist) {
	t.Helper()
	t.Logf("%s: %.0f calls/s, none lost or crossed (latency %s); floor %.0f calls/s (latency %s); ratio %.2f", what, rate, lat, floor, floorLat, rate/floor)
}

// Report runs the whole benchmark and logs it: sequential echo beside the floor, then 4 clients × 25 in
// flight. It returns the Go ↔ room hop at p50 (ms).
func Report(t testing.TB, mode, bin, data string) (hop float64) {
	t.Helper()
	cs := Stdio(t, bin, data)
	tool := Launch(t, cs)
	echo, floor := Sequential(t, cs, tool, 500)
	hop = echo.P50 - floor.P50
	t.Logf("%s: MCP tools/call %s over `voicebox mcp` (stdio), sequential: %s", mode, tool, echo)
	t.Logf("%s: floor, host verb list_mini_apps (never reaches the room):  %s", mode, floor)
	t.Logf("%s: the Go ↔ room hop at p50: %.2f ms (echo − floor); ratio echo/floor at p50: %.2f", mode, hop, echo.P50/floor.P50)
	clients := []*mcp.ClientSession{cs}
	for len(clients) < 4 {
		clients = append(clients, Stdio(t, bin, data))
	}
	throughput := func(door string, clients []*mcp.ClientSession) {
		rate, lat := Throughput(t, clients, tool, 2000)
		floor, floorLat := Throughput(t, clients, "list_mini_apps", 2000)
		Compare(t, fmt.Sprintf("%s: throughput over %s, 4 clients × 25 calls in flight, 2000 echo calls vs list_mini_apps", mode, door), rate, lat, floor, floorLat)
	}
	throughput("`voicebox mcp` (stdio)", clients)
	var direct []*mcp.ClientSession
	for len(direct) < 4 {
		direct = append(direct, HTTP(t, data))
	}
	throughput("MCP Streamable HTTP", direct)
	return hop
}
