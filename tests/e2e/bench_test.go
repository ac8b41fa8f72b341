package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/voicebox/voicebox/tests/mcpbench"
	"github.com/voicebox/voicebox/tests/testbin"
)

// TestBenchmarkRoundTrip measures, in headless Chromium against the real binary, the tool-call round trip
// through window.voicebox.callTool (room → bridge → app and back, validated and bounded) beside the floor:
// a bare relay through the same frames and ports (room → bridge → app and back, no validation), measured in
// the same run; and launch-to-ready. It runs only with VOICEBOX_BENCH=1:
//
//	VOICEBOX_BENCH=1 go test -tags desktop,production,webkit2_41 -run TestBenchmarkRoundTrip -v ./tests/e2e
func TestBenchmarkRoundTrip(t *testing.T) {
	testbin.NeedBench(t, "round-trip benchmark")
	s := startServer(t)
	p := openChromium(t, s.url)
	openRoom(t, p)
	type dist struct {
		N    int     `json:"n"`
		P50  float64 `json:"p50"`
		P99  float64 `json:"p99"`
		Max  float64 `json:"max"`
		Mean float64 `json:"mean"`
	}
	var r struct {
		Calls, Floor, Launch dist
		Ratio                float64 `json:"ratio"`
	}
	eval(t, p, &r, `
		const v = window.voicebox;
		const stats = (a) => { const s = a.slice().sort((x, y) => x - y); const q = (f) => s[Math.floor(f * (s.length - 1))];
			return {n: s.length, p50: q(0.5), p99: q(0.99), max: s[s.length - 1], mean: s.reduce((x, y) => x + y, 0) / s.length}; };
		const lr = [];
		for (let k = 0; k < 10; k++) {
			const t = performance.now();
			const a = await v.launch("echo.html");
			lr.push(performance.now() - t);
			if (k < 9) await v.close(a.appId);
		}
		const id = v.apps().find((a) => a.title === "Echo Lab").appId;
		for (let i = 0; i < 200; i++) { await v.callTool(id, "echo", {text: "warm"}); await v.ping(id); }
		const calls = [], floor = [];
		for (let i = 0; i < 1000; i++) {
			let t = performance.now();
			const o = await v.callTool(id, "echo", {text: "hello " + i});
			calls.push(performance.now() - t);
			if (!o.ok || o.result.text !== "hello " + i) throw new Error("bad result " + JSON.stringify(o));
			t = performance.now();
			await v.ping(id);
			floor.push(performance.now() - t);
		}
		const Calls = stats(calls), Floor = stats(floor);
		return {Calls, Floor, Launch: stats(lr), ratio: Calls.p50 / Floor.p50};`)
	t.Logf("round trip (window.voicebox.callTool, echo): n=%d p50=%.2f ms p99=%.2f ms mean=%.3f ms max=%.2f ms", r.Calls.N, r.Calls.P50, r.Calls.P99, r.Calls.Mean, r.Calls.Max)
	t.Logf("floor (bare relay room→bridge→app→bridge→room): n=%d p50=%.2f ms p99=%.2f ms mean=%.3f ms", r.Floor.N, r.Floor.P50, r.Floor.P99, r.Floor.Mean)
	t.Logf("(performance.now() is coarsened to 0.1 ms in a page that is not cross-origin isolated)")
	t.Logf("ratio p50 round trip / floor: %.2f", r.Ratio)
	t.Logf("launch to ready: n=%d p50=%.1f ms p99=%.1f ms", r.Launch.N, r.Launch.P50, r.Launch.P99)
}

// TestBenchmarkMCP measures the MCP door in `voicebox serve` with the room in headless Chromium: an app's
// echo through `voicebox mcp` (stdio) beside the host verb list_mini_apps (the floor, in the same run), and
// throughput with 100 calls in flight (tests/mcpbench). It runs only with VOICEBOX_BENCH=1:
//
//	VOICEBOX_BENCH=1 go test -tags desktop,production,webkit2_41 -run TestBenchmarkMCP -v ./tests/e2e
func TestBenchmarkMCP(t *testing.T) {
	testbin.NeedBench(t, "MCP benchmark")
	s := startMCPServe(t)
	if err := os.WriteFile(filepath.Join(s.workspace, mcpbench.EchoFile), []byte(mcpbench.EchoApp), 0o644); err != nil {
		t.Fatal(err)
	}
	p := openChromium(t, s.url)
	openRoom(t, p)
	watchRoomSide(t, p)
	hop := mcpbench.Report(t, "serve", s.bin, s.data)
	held, posted := roomSideTimes(t, p)

	// The request channel alone, without MCP: the Tool Console's path (POST /api/call/RegistryService.Call,
	// Go → the room's WebSocket → the app → back) beside a method that never reaches the room.
	var apps []struct{ AppID, Title string }
	s.call(t, &apps, "RegistryService.Apps")
	if len(apps) != 1 {
		t.Fatalf("open apps: %+v", apps)
	}
	// The hop's own floor: the sandbox's relay (room → bridge → app and back), the same echo called from the
	// room's page; what the hop adds beyond it is the request channel's.
	var relay struct{ P50, P99 float64 }
	eval(t, p, &relay, `const d = [];
		for (let i = 0; i < 500; i++) {
			const t0 = performance.now();
			const o = await window.voicebox.callTool(%s, "echo", {text: "relay " + i});
			d.push(performance.now() - t0);
			if (!o.ok || o.result.text !== "relay " + i) throw new Error("bad result " + JSON.stringify(o));
		}
		d.sort((x, y) => x - y);
		return {P50: d[250], P99: d[495]};`, js(apps[0].AppID))
	t.Logf("serve: the sandbox's relay alone (the echo from the room's page, window.voicebox.callTool, sequential): p50=%.2f ms p99=%.2f ms; the hop beyond it at p50: %.2f ms", relay.P50, relay.P99, hop-relay.P50)
	hopFloors(t, p, s, apps[0].AppID, held, posted)
	rate, lat := mcpbench.Rate(t, 100, 5000, func(w, i int) error {
		text := fmt.Sprintf("worker %d call %d", w, i)
		var o outcome
		args, _ := json.Marshal(map[string]string{"text": text})
		if _, err := s.tryCall(&o, "RegistryService.Call", apps[0].AppID, "echo", json.RawMessage(args)); err != nil {
			return err
		}
		var r struct{ Text string }
		if !o.OK || json.Unmarshal(o.Result, &r) != nil || r.Text != text {
			return fmt.Errorf("call %q answered %+v", text, o)
		}
		return nil
	})
	floor, floorLat := mcpbench.Rate(t, 100, 5000, func(int, int) error {
		var v []any
		if status, err := s.tryCall(&v, "RegistryService.Apps"); err != nil || status != 200 || len(v) != 1 {
			return fmt.Errorf("RegistryService.Apps answered %d %v: %v", status, v, err)
		}
		return nil
	})
	mcpbench.Compare(t, "serve: throughput of the request channel alone, 100 in flight, 5000 RegistryService.Call (echo) vs RegistryService.Apps", rate, lat, floor, floorLat)
	socketFloors(t, p, s, hop, held)
}
