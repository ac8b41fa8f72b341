package e2e

// The floors that explain the Go ↔ room hop in TestBenchmarkMCP (issue 12; docs/performance.md, "MCP calls").

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"

	"github.com/voicebox/voicebox/tests/mcpbench"
)

// floorGap spaces the floors that stand for sequential MCP calls: between two echo calls the room idles
// for a list_mini_apps and the client's own work (about 5 ms), long enough for its processes to sleep.
const floorGap = 5 * time.Millisecond

// watchRoomSide records, in the room's page, how long the room holds each request from Go: from the
// request's message event on the channel's WebSocket (its timeStamp: when the renderer made the event, so
// after the socket and the process woke) to the reply's send, and the part of it until the channel's
// onmessage is done (the request parsed and posted to the bridge). It wraps WebSocket.prototype.send, which
// the channel's socket uses, and learns the socket from its first send (the launch's reply).
func watchRoomSide(t *testing.T, p page) {
	eval(t, p, nil, `const send = WebSocket.prototype.send, held = [], posted = [];
		let arrived = null, forwarded = null, watched = null;
		window.__benchRoom = {held, posted};
		WebSocket.prototype.send = function (data) {
			if (this.url.includes("/api/room/channel")) {
				if (arrived !== null && held.length < 2000) { held.push(performance.now() - arrived); posted.push(forwarded - arrived); }
				arrived = null;
				if (!watched) { watched = this; this.addEventListener("message", (e) => { arrived = e.timeStamp; forwarded = performance.now(); }); }
			}
			return send.call(this, data);
		};`)
}

// roomSideTimes returns what watchRoomSide held of mcpbench.Sequential's 500 measured echo calls (after
// its 50 warm-up echo calls; list_mini_apps never reaches the room).
func roomSideTimes(t *testing.T, p page) (held, posted mcpbench.Dist) {
	var r struct{ Held, Posted []float64 }
	eval(t, p, &r, `return window.__benchRoom;`)
	if len(r.Held) < 550 {
		t.Fatalf("the room held %d requests, want at least 550", len(r.Held))
	}
	return msDist(r.Held[50:550]), msDist(r.Posted[50:550])
}

// msDist is the distribution of durations in milliseconds, as a page measures them.
func msDist(ms []float64) mcpbench.Dist {
	d := make([]time.Duration, len(ms))
	for i, x := range ms {
		d[i] = time.Duration(x * float64(time.Millisecond))
	}
	return mcpbench.DistOf(d)
}

// hopFloors explains the Go ↔ room hop (issue 12) with floors measured in the same run, each request
// floorGap after the last answer: the room's own time per MCP request (watchRoomSide), the sandbox's relay
// started by a timer in the room's page, and the hop through the Tool Console's door (HTTP) instead of MCP.
// socketFloors adds the rest at the end of the run.
func hopFloors(t *testing.T, p page, s *server, appID string, held, posted mcpbench.Dist) {
	t.Helper()
	var timerRelay []float64
	eval(t, p, &timerRelay, `const d = [];
		for (let i = 0; i < 300; i++) {
			await new Promise((ok) => setTimeout(ok, %d));
			const t0 = performance.now();
			const o = await window.voicebox.callTool(%s, "echo", {text: "relay " + i});
			d.push(performance.now() - t0);
			if (!o.ok || o.result.text !== "relay " + i) throw new Error("bad result " + JSON.stringify(o));
		}
		return d;`, floorGap.Milliseconds(), js(appID))
	var callSpaced, appsSpaced []time.Duration
	for i := 0; i < 300; i++ {
		time.Sleep(floorGap)
		start := time.Now()
		var o outcome
		text := fmt.Sprintf("console %d", i)
		args, _ := json.Marshal(map[string]string{"text": text})
		s.call(t, &o, "RegistryService.Call", appID, "echo", json.RawMessage(args))
		var r struct{ Text string }
		if !o.OK || json.Unmarshal(o.Result, &r) != nil || r.Text != text {
			t.Fatalf("call %q answered %+v", text, o)
		}
		callSpaced = append(callSpaced, time.Since(start))
		time.Sleep(floorGap)
		start = time.Now()
		var v []any
		s.call(t, &v, "RegistryService.Apps")
		appsSpaced = append(appsSpaced, time.Since(start))
	}
	call, apps := mcpbench.DistOf(callSpaced), mcpbench.DistOf(appsSpaced)
	t.Logf("serve: floors of the hop, each request %v after the last answer unless back to back:", floorGap)
	t.Logf("  the room holds an MCP request (channel message event → reply sent): %s; of it, parsed and posted to the bridge: %s", held, posted)
	t.Logf("  the sandbox's relay started by a timer in the room's page: %s", msDist(timerRelay))
	t.Logf("  the hop through HTTP instead (RegistryService.Call echo − RegistryService.Apps): %.2f ms (%s vs %s)", call.P50-apps.P50, call, apps)
}

// socketFloors is the last of the floors, measured once every other figure is in: a bare WebSocket round trip
// between a Go test server and the room's page, and the relay started by that socket's message. The room's
// CSP (connect-src 'self') refuses the test server's port, so the browser bypasses CSP from the room's next
// load on, and the echo app opens again in the reloaded room; nothing else is measured that way.
func socketFloors(t *testing.T, p *chromiumPage, s *server, hop float64, held mcpbench.Dist) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 60*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, func(ctx context.Context, t *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, t, cdppage.SetBypassCSP, cdppage.SetBypassCSPParams{Enabled: true})
	}); err != nil {
		t.Fatalf("chromium: bypass CSP: %v", err)
	}
	// A reload: the room's address differs from the printed one by its fragment alone (the room took the
	// secret out), so navigating there would not load the page again; the tab's sessionStorage keeps it.
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatalf("chromium: bypass CSP and reload the room: %v", err)
	}
	openRoom(t, p)
	var appID string
	eval(t, p, &appID, `return (await window.voicebox.launch(%s)).appId;`, js(mcpbench.EchoFile))
	sock := openBenchSocket(t, p, appID)
	wsSpaced, wsBack, relayGo := sock.roundTrips(t, "echo", floorGap), sock.roundTrips(t, "echo", 0), sock.roundTrips(t, "relay", floorGap)
	var relayPage []float64
	eval(t, p, &relayPage, `return window.__benchSocket.relayed;`)
	t.Logf("serve: floors through a test server's socket (CSP bypassed in a reloaded room), each request %v after the last answer unless back to back:", floorGap)
	t.Logf("  a bare WebSocket round trip Go ↔ the room's page (it echoes at once): %s; back to back: %s", wsSpaced, wsBack)
	t.Logf("  the relay started by that socket's message: Go sees %s; the page, message event → answered: %s", relayGo, msDist(relayPage))
	t.Logf("  the MCP hop %.2f ms at p50 = room side %.2f + bare WebSocket %.2f + the rest (Go: registry, JSON, goroutines) %.2f",
		hop, held.P50, wsSpaced.P50, hop-held.P50-wsSpaced.P50)
}

// benchSocket is a WebSocket between a Go test server and the room's page (test-only: not a route of the
// binary). The page echoes each message at once, or, for a message "relay …", after the echo app answered
// it through window.voicebox.callTool.
type benchSocket struct {
	c   *websocket.Conn
	ctx context.Context
	n   int
}

func openBenchSocket(t *testing.T, p page, appID string) *benchSocket {
	t.Helper()
	conns := make(chan *websocket.Conn, 1)
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
		if err != nil {
			return
		}
		conns <- c
		<-done
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(done) })
	eval(t, p, nil, `const ws = new WebSocket(%s), relayed = [];
		window.__benchSocket = {ws, relayed};
		ws.onmessage = async (e) => {
			if (e.data.startsWith("relay ")) {
				const o = await window.voicebox.callTool(%s, "echo", {text: e.data});
				relayed.push(performance.now() - e.timeStamp);
				if (!o.ok || o.result.text !== e.data) return;
			}
			ws.send(e.data);
		};
		await new Promise((ok, no) => { ws.onopen = ok; ws.onerror = () => no(new Error("the bench socket failed")); });`,
		js("ws"+strings.TrimPrefix(srv.URL, "http")), js(appID))
	select {
	case c := <-conns:
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(func() { cancel(); c.CloseNow() })
		return &benchSocket{c: c, ctx: ctx}
	case <-time.After(10 * time.Second):
		t.Fatal("the room's page did not connect to the bench socket")
		return nil
	}
}

// roundTrips times 300 round trips of kind ("echo": a message the size of a request; "relay"), each gap
// after the last answer.
func (b *benchSocket) roundTrips(t *testing.T, kind string, gap time.Duration) mcpbench.Dist {
	t.Helper()
	var d []time.Duration
	for i := 0; i < 300; i++ {
		time.Sleep(gap)
		b.n++
		msg := fmt.Sprintf(`[{"id":"q%d","room":"room-0123456789abcdef0123456789abcdef","op":"call","appId":"a-0123456789abcdef","tool":"echo","args":{"text":"hello"}}]`, b.n)
		if kind == "relay" {
			msg = fmt.Sprintf("relay %d", b.n)
		}
		start := time.Now()
		if err := b.c.Write(b.ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		_, got, err := b.c.Read(b.ctx)
		if err != nil || string(got) != msg {
			t.Fatalf("bench socket: sent %q, got %q, %v", msg, got, err)
		}
		d = append(d, time.Since(start))
	}
	return mcpbench.DistOf(d)
}
