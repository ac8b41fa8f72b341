package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/coder/websocket"

	"github.com/voicebox/voicebox/backend/documents"
	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/sandbox"
	"github.com/voicebox/voicebox/backend/services"
)

type regFixture struct {
	srv, box *httptest.Server
	host     string
	reg      *registry.Registry
	sb       *sandbox.Server
}

func newRegFixture(t *testing.T, grace time.Duration) *regFixture {
	t.Helper()
	st, _, _ := openStore(t, nil)
	f := &regFixture{reg: registry.New(events.NewBus())}
	var boxHandler http.Handler
	f.box = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { boxHandler.ServeHTTP(w, r) }))
	t.Cleanup(f.box.Close)
	f.srv, f.host = serve(t, func(host string) Options {
		f.sb = sandbox.New(sandbox.Options{Hostname: "localhost", RoomOrigin: Origin(host)}, strings.TrimPrefix(f.box.URL, "http://"))
		boxHandler = f.sb
		rs := services.NewRegistryService(exposed.New(f.reg), f.sb)
		return Options{
			Host:      host,
			Room:      fstest.MapFS{"index.html": {Data: []byte("room")}},
			Bus:       events.NewBus(),
			Services:  []any{rs, services.NewSandboxService(f.sb, st, documents.NewTable())},
			Registry:  rs,
			RoomGrace: grace,
		}
	})
	return f
}

func (f *regFixture) do(t *testing.T, c call) (int, map[string]any) {
	t.Helper()
	status, out, _ := send(t, f.srv, c)
	return status, out
}

// room connects a room page's request channel, as the room's transport does: a page's WebSocket carries no
// header of its own, so the secret goes as a subprotocol.
func (f *regFixture) room(t *testing.T, ctx context.Context, id string) *websocket.Conn {
	t.Helper()
	h := http.Header{}
	h.Set("Origin", Origin(f.host))
	ws, _, err := websocket.Dial(ctx, "ws://"+f.host+ChannelPath+"?room="+id, &websocket.DialOptions{HTTPHeader: h,
		Subprotocols: []string{RoomProtocol, SecretProtocol(testSecret)}})
	if err != nil {
		t.Fatal(err)
	}
	if ws.Subprotocol() != RoomProtocol {
		t.Fatalf("the channel selected the subprotocol %q, want %q (never the secret's)", ws.Subprotocol(), RoomProtocol)
	}
	t.Cleanup(func() { ws.CloseNow() })
	return ws
}

const echoTool = `{"name":"echo","description":"echo","parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`

// RegistryService.Register keeps its own 64 KiB bound with 400 body-too-large (docs/sandbox.md, Bounds);
// every other method keeps the door's 413; the door runs first.
func TestRegisterBodyBound(t *testing.T) {
	f := newRegFixture(t, 0)
	status, out, raw := send(t, f.srv, callTo("RegistryService.Register", `["r1","app_x","X","x",[`+echoTool+`,{"name":"bad name"}]]`))
	var v []map[string]any
	if status != 200 || json.Unmarshal(raw, &v) != nil || len(v) != 2 || v[0]["ok"] != true || v[1]["refused"] != "invalid-tool-name" {
		t.Fatalf("register: %d %v %s", status, out, raw)
	}
	pad := func(n int) string {
		base := `["r1","app_x","","",[],""]`
		return strings.Replace(base, `,""]`, `,"`+strings.Repeat("x", n-len(base))+`"]`, 1)
	}
	// Exactly at the bound the body is read (and the extra argument refused); one byte over is 400.
	if status, body := f.do(t, callTo("RegistryService.Register", pad(MaxRegisterBody))); status != 400 || body["error"] != services.CodeBadRequest {
		t.Fatalf("at the bound: %d %v", status, body)
	}
	if status, body := f.do(t, callTo("RegistryService.Register", pad(MaxRegisterBody+1))); status != 400 || body["error"] != CodeBodyTooLarge {
		t.Fatalf("over the bound: %d %v", status, body)
	}
	big := `["app_x","echo",{"text":"` + strings.Repeat("x", MaxBody) + `"}]`
	if status, body := f.do(t, callTo("RegistryService.Call", big)); status != 413 || body["error"] != CodeBodyTooLarge {
		t.Fatalf("the door's bound: %d %v", status, body)
	}
	for name, hdr := range map[string]map[string]string{
		"origin null":   {"Origin": "null"},
		"bridge origin": {"Origin": f.box.URL},
		"cross-site":    {"Sec-Fetch-Site": "cross-site"},
		"wrong host":    {"Host": "evil.example"},
		"no secret":     {"Authorization": ""},
	} {
		c := callTo("RegistryService.Register", pad(MaxRegisterBody+10))
		c.header = hdr
		if status, body := f.do(t, c); status == 400 || status == 200 {
			t.Errorf("%s: %d %v reached the method", name, status, body)
		}
	}
	if status, body := f.do(t, callTo("RegistryService.Unregister", `["app_x"]`)); status != 200 {
		t.Fatalf("unregister: %d %v", status, body)
	}
	if apps := f.reg.Apps(); len(apps) != 0 {
		t.Fatalf("apps after unregister: %v", apps)
	}
}

// A call goes down the room's request channel and its reply comes back up; a reply is matched to its
// request by id and counts only on the channel of the room it was sent to.
func TestCallThroughTheRoomChannel(t *testing.T) {
	f := newRegFixture(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws := f.room(t, ctx, "r1")
	other := f.room(t, ctx, "r2")
	if status, body := f.do(t, callTo("RegistryService.Register", `["r1","app_x","X","x",[`+echoTool+`]]`)); status != 200 {
		t.Fatalf("register: %d %v", status, body)
	}
	answerRoom(ctx, ws, func(req registry.Request) registry.Reply {
		// A reply nobody waits for settles nothing and leaves the channel open; another room cannot
		// answer the call; then r1 does (the reply names a foreign room: ignored).
		stray, _ := json.Marshal([]registry.Reply{{ID: "nobody", OK: true}})
		_ = ws.Write(ctx, websocket.MessageText, stray)
		wrong, _ := json.Marshal([]registry.Reply{{ID: req.ID, OK: true, Result: json.RawMessage(`"crossed"`)}})
		_ = other.Write(ctx, websocket.MessageText, wrong)
		time.Sleep(20 * time.Millisecond)
		return registry.Reply{ID: req.ID, Room: "r2", OK: true, Result: echoOf(req)}
	})
	status, body := f.do(t, callTo("RegistryService.Call", `["app_x","echo",{"text":"hi"}]`))
	if status != 200 || body["ok"] != true || body["result"].(map[string]any)["echo"] != "hi" {
		t.Fatalf("call: %d %v", status, body)
	}
	// Go validates before anything reaches the room.
	if _, body = f.do(t, callTo("RegistryService.Call", `["app_x","echo",{}]`)); body["refused"] != "missing-argument" {
		t.Fatalf("missing argument: %v", body)
	}
	if _, body = f.do(t, callTo("RegistryService.Call", `["app_y","echo",{}]`)); body["refused"] != "unknown-tool" {
		t.Fatalf("unknown app: %v", body)
	}
	_, _, raw := send(t, f.srv, callTo("RegistryService.FunctionDeclarations", `["openai"]`))
	if !strings.Contains(string(raw), `"name":"x__echo"`) {
		t.Fatalf("declarations: %s", raw)
	}
	if status, _ := f.do(t, callTo("RegistryService.FunctionDeclarations", `["nope"]`)); status != 400 {
		t.Fatalf("unknown provider: %d", status)
	}
	// The channel is for the room's page: no Origin, no room id, no secret are refused before an upgrade.
	for name, c := range map[string]struct {
		origin, path, auth string
		status             int
	}{
		"no origin": {"", ChannelPath + "?room=r3", "Bearer " + testSecret, 403},
		"foreign":   {"http://evil.example", ChannelPath + "?room=r3", "Bearer " + testSecret, 403},
		"no room":   {Origin(f.host), ChannelPath, "Bearer " + testSecret, 400},
		"no secret": {Origin(f.host), ChannelPath + "?room=r3", "", 401},
	} {
		h := http.Header{}
		if c.origin != "" {
			h.Set("Origin", c.origin)
		}
		if c.auth != "" {
			h.Set("Authorization", c.auth)
		}
		_, res, err := websocket.Dial(ctx, "ws://"+f.host+c.path, &websocket.DialOptions{HTTPHeader: h})
		if err == nil || res == nil || res.StatusCode != c.status {
			t.Errorf("%s: %v %v, want %d", name, err, res, c.status)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestPrepareAndRelease(t *testing.T) {
	f := newRegFixture(t, 0)
	status, body := f.do(t, callTo("SandboxService.Prepare", `[{"room":"r1","ref":"calc.html"}]`))
	if status != 200 || body["appId"] != "page_calc" || body["title"] != "Calculator" || body["bridgeOrigin"] != f.box.URL {
		t.Fatalf("prepare: %d %v", status, body)
	}
	bridgeURL := body["bridgeURL"].(string)
	if !strings.HasPrefix(bridgeURL, f.box.URL+"/bridge/") {
		t.Fatalf("bridge URL %s", bridgeURL)
	}
	if res, err := http.Get(bridgeURL); err != nil || res.StatusCode != 200 {
		t.Fatalf("bridge: %v %v", err, res)
	}
	if status, _ := f.do(t, callTo("SandboxService.Release", `["`+body["launchId"].(string)+`"]`)); status != 200 {
		t.Fatal("release")
	}
	if res, _ := http.Get(bridgeURL); res.StatusCode != 404 {
		t.Fatalf("bridge after release: %d", res.StatusCode)
	}
	_, body = f.do(t, callTo("SandboxService.Prepare", `[{"html":"<title>Dropped</title><p>x","name":"My Page.html"}]`))
	if body["appId"] != "local_my-page" || body["title"] != "Dropped" || body["source"] != "html" {
		t.Fatalf("prepare html: %v", body)
	}
	for _, bad := range []string{`{}`, `{"ref":"calc.html","html":"x"}`, `{"document":"d1","ref":"x"}`} {
		if status, body := f.do(t, callTo("SandboxService.Prepare", "["+bad+"]")); status != 400 {
			t.Errorf("prepare %s: %d %v", bad, status, body)
		}
	}
	if status, body := f.do(t, callTo("SandboxService.Prepare", `[{"ref":"nope.html"}]`)); status != 404 || body["error"] != "mini-app-not-found" {
		t.Errorf("prepare unknown ref: %d %v", status, body)
	}
}

// A room whose channel closed and did not come back within the grace period has gone: its apps leave
// Go's registry and its launch tokens are revoked. A second channel open when the first closes keeps it.
func TestChannelGoodbye(t *testing.T) {
	const grace = 50 * time.Millisecond
	f := newRegFixture(t, grace)
	l := f.sb.Add(sandbox.Launch{Room: "r9", AppID: "app_x", HTML: "x"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first := f.room(t, ctx, "r9")
	if status, body := f.do(t, callTo("RegistryService.Register", `["r9","app_x","X","x",[`+echoTool+`]]`)); status != 200 {
		t.Fatalf("register: %d %v", status, body)
	}
	second := f.room(t, ctx, "r9")
	first.Close(websocket.StatusNormalClosure, "")
	time.Sleep(4 * grace) // longer than the grace: a goodbye would have come by now
	if len(f.reg.Apps()) != 1 {
		t.Fatal("a room with a channel still open lost its apps")
	}
	second.Close(websocket.StatusNormalClosure, "")
	for len(f.reg.Apps()) != 0 {
		time.Sleep(10 * time.Millisecond) // the goodbye comes a grace period after the last channel closed
	}
	if _, ok := f.sb.Lookup(l.Token); ok {
		t.Fatal("the room's launch token outlived its channel")
	}
}

// A room page's WebSockets carry the secret as a subprotocol (a page cannot give them a header); the
// server selects RoomProtocol, never echoing the secret. A wrong secret, or one outside a WebSocket's
// opening request, opens nothing.
func TestSocketsTakeTheSecretAsASubprotocol(t *testing.T) {
	f := newRegFixture(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dial := func(protocols ...string) (*websocket.Conn, *http.Response, error) {
		h := http.Header{}
		h.Set("Origin", Origin(f.host))
		return websocket.Dial(ctx, "ws://"+f.host+ChannelPath+"?room=r1", &websocket.DialOptions{HTTPHeader: h, Subprotocols: protocols})
	}
	ws, _, err := dial(RoomProtocol, SecretProtocol(testSecret))
	if err != nil {
		t.Fatalf("with the secret as a subprotocol: %v", err)
	}
	if ws.Subprotocol() != RoomProtocol {
		t.Errorf("selected %q, want %q", ws.Subprotocol(), RoomProtocol)
	}
	ws.CloseNow()
	for _, protocols := range [][]string{nil, {RoomProtocol}, {RoomProtocol, SecretProtocol("wrong")}, {RoomProtocol, SecretProtocol(testSecret + "x")}, {RoomProtocol, "voicebox.secret.!!"}} {
		_, res, err := dial(protocols...)
		if err == nil || res == nil || res.StatusCode != 401 {
			t.Errorf("subprotocols %q: %v (%v), want 401", protocols, err, res)
		}
	}
	// The subprotocol is no bearer token for a plain request.
	status, _ := f.do(t, call{method: "POST", path: CallPrefix + "RegistryService.Apps", body: `[]`,
		header: map[string]string{"Authorization": "", "Sec-WebSocket-Protocol": SecretProtocol(testSecret)}})
	if status != 401 {
		t.Errorf("a plain request with the secret's subprotocol: %d, want 401", status)
	}
}
