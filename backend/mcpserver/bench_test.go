package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/mcpdoor"
	"github.com/voicebox/voicebox/backend/registry/registrytest"
)

// BenchmarkDoor is the Go side of an MCP call with 100 in flight, without a browser: MCP Streamable HTTP
// (a client as `voicebox mcp` makes one) to this server, then the registry and the room double's request
// channel (registrytest), which echoes. The floor, in the same run, is list_mini_apps, a host verb that
// never reaches the room. tests/mcpbench measures the same with the real room (docs/performance.md).
func BenchmarkDoor(b *testing.B) {
	h := start(b)
	openInRoom(b, h.room, registrytest.App{AppID: "app_echo", Title: "Echo", Slug: "echo",
		Tools: []string{`{"name":"echo","description":"Echo the text back","parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`},
		Run:   func(_ string, args json.RawMessage) (json.RawMessage, string) { return args, "" }})
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: &http.Client{Transport: &mcpdoor.BearerTransport{Token: testToken}}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	for _, tool := range []string{"list_mini_apps", "echo__echo"} {
		b.Run(tool, func(b *testing.B) {
			var n atomic.Int64
			b.SetParallelism(50) // × GOMAXPROCS (2 on the reference machine): 100 in flight
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					text := fmt.Sprint(n.Add(1))
					args := map[string]any{}
					if tool != "list_mini_apps" {
						args["text"] = text
					}
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
					if err != nil {
						b.Fatal(err)
					}
					if res.IsError || tool != "list_mini_apps" && res.Content[0].(*mcp.TextContent).Text != `{"text":"`+text+`"}` {
						b.Fatalf("%s %s answered %+v", tool, text, res.Content[0])
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
		})
	}
}
