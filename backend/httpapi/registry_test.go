package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/voicebox/voicebox/backend/documents"
	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/sandbox"
	"github.com/voicebox/voicebox/backend/services"
)

type regFixture struct {
	srv, box *httptest.Server
	host     string
	bus      *events.Bus
	reg      *registry.Registry
	sb       *sandbox.Server
}

func newRegFixture(t *testing.T) *regFixture {
	t.Helper()
	st, _, _ := openStore(t, nil)
	f := &regFixture{bus: events.NewBus()}
	f.reg = registry.New(f.bus)
	var boxHandler http.Handler
	f.box = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { boxHandler.ServeHTTP(w, r) }))
	t.Cleanup(f.box.Close)
	f.srv, f.host = serve(t, func(host string) Options {
		f.sb = sandbox.New(sandbox.Options{Hostname: "localhost", RoomOrigin: Origin(host)}, strings.TrimPrefix(f.box.URL, "http://"))
		boxHandler = f.sb
		return Options{
			Host:      host,
			Room:      fstest.MapFS{"index.html": {Data: []byte("room")}},
			Store:     services.NewStoreService(st, nil),
			Bus:       f.bus,
			Config:    func() services.RoomConfig { return services.RoomConfig{Mode: "serve", Guard: true} },
			Registry:  services.NewRegistryService(f.reg, f.sb),
			Sandbox:   services.NewSandboxService(f.sb, st, documents.NewTable()),
			RoomGrace: 100 * time.Millisecond,
		}
	})
	return f
}

func (f *regFixture) do(t *testing.T, method, path, body string, hdr map[string]string) (int, map[string]any) {
	t.Helper()
	status, out, _ := send(t, f.srv, call{method: method, path: path, body: body, header: hdr})
	return status, out
}

const echoTool = `{"name":"echo","description":"echo","parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}`

func TestToolsRouteBodyBound(t *testing.T) {
	f := newRegFixture(t)
	ok := `{"room":"r1","appId":"app_x","title":"X","tools":[` + echoTool + `,{"name":"bad name"}]}`
	status, body := f.do(t, "POST", "/api/mini-app/tools", ok, nil)
	if status != 200 {
		t.Fatalf("register: %d %v", status, body)
	}
	v := body["verdicts"].([]any)
	if len(v) != 2 || v[0].(map[string]any)["ok"] != true || v[1].(map[string]any)["refused"] != "invalid-tool-name" {
		t.Fatalf("verdicts %v", v)
	}
	// Exactly at the bound is fine; one byte over is 400 body-too-large (this route only).
	pad := func(n int) string {
		base := `{"room":"r1","appId":"app_x","title":"","tools":[],"pad":""}`
		return strings.Replace(base, `"pad":""`, `"pad":"`+strings.Repeat("x", n-len(base))+`"`, 1)
	}
	if status, body := f.do(t, "POST", "/api/mini-app/tools", pad(MaxToolsBody), nil); status != 200 {
		t.Fatalf("at the bound: %d %v", status, body)
	}
	status, body = f.do(t, "POST", "/api/mini-app/tools", pad(MaxToolsBody+1), nil)
	if status != 400 || body["error"] != "body-too-large" {
		t.Fatalf("over the bound: %d %v", status, body)
	}
	// Every other route keeps the door's 413.
	big := `{"appId":"app_x","tool":"echo","args":{"text":"` + strings.Repeat("x", MaxBody) + `"}}`
	status, body = f.do(t, "POST", "/api/mini-app/call", big, nil)
	if status != 413 || body["error"] != "body-too-large" {
		t.Fatalf("shared door bound: %d %v", status, body)
	}
	// The door runs first: a foreign or sandboxed origin, a cross-site fetch or a form body never reach the route.
	for name, c := range map[string]struct {
		hdr    map[string]string
		status int
		code   string
	}{
		"origin null":   {map[string]string{"Origin": "null"}, 403, CodeForbiddenOrigin},
		"bridge origin": {map[string]string{"Origin": f.box.URL}, 403, CodeForbiddenOrigin},
		"cross-site":    {map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, CodeForbiddenOrigin},
		"same-site":     {map[string]string{"Sec-Fetch-Site": "same-site"}, 403, CodeForbiddenOrigin},
		"text/plain":    {map[string]string{"Content-Type": "text/plain"}, 415, CodeUnsupportedType},
		"wrong host":    {map[string]string{"Host": "evil.example"}, 403, CodeForbiddenHost},
	} {
		req, _ := http.NewRequest("POST", f.srv.URL+"/api/mini-app/tools", strings.NewReader(pad(MaxToolsBody+10)))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range c.hdr {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		res, err := f.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		_ = json.NewDecoder(res.Body).Decode(&out)
		res.Body.Close()
		if res.StatusCode != c.status || out["error"] != c.code {
			t.Errorf("%s: %d %v, want %d %s", name, res.StatusCode, out, c.status, c.code)
		}
	}
	if _, body := f.do(t, "GET", "/api/mini-app/tools", "", nil); len(body["apps"].([]any)) != 1 {
		t.Fatalf("apps: %v", body)
	}
	if status, _ := f.do(t, "DELETE", "/api/mini-app/tools?appId=app_x", "", nil); status != 200 {
		t.Fatal("unregister")
	}
	if _, body := f.do(t, "GET", "/api/mini-app/tools", "", nil); len(body["apps"].([]any)) != 0 {
		t.Fatalf("apps after unregister: %v", body)
	}
}

func TestCallThroughTheRoom(t *testing.T) {
	f := newRegFixture(t)
	if status, body := f.do(t, "POST", "/api/mini-app/tools", `{"room":"r1","appId":"app_x","title":"X","slug":"x","tools":[`+echoTool+`]}`, nil); status != 200 {
		t.Fatalf("register: %d %v", status, body)
	}
	// The room: answer every request for r1 through the reply route.
	evs, cancel := f.bus.Subscribe(16)
	defer cancel()
	go func() {
		for ev := range evs {
			req, ok := ev.Data.(registry.Request)
			if ev.Name != registry.EventRequest || !ok || req.Room != "r1" {
				continue
			}
			var args map[string]string
			_ = json.Unmarshal(req.Args, &args)
			rep, _ := json.Marshal(registry.Reply{ID: req.ID, OK: true, Result: json.RawMessage(`{"echo":` + mustJSON(args["text"]) + `}`)})
			res, err := http.Post(f.srv.URL+"/api/registry/reply", "application/json", strings.NewReader(string(rep)))
			if err == nil {
				res.Body.Close()
			}
		}
	}()
	status, body := f.do(t, "POST", "/api/mini-app/call", `{"appId":"app_x","tool":"echo","args":{"text":"hi"}}`, nil)
	if status != 200 || body["ok"] != true || body["result"].(map[string]any)["echo"] != "hi" {
		t.Fatalf("call: %d %v", status, body)
	}
	// Go validates before anything reaches the room.
	_, body = f.do(t, "POST", "/api/mini-app/call", `{"appId":"app_x","tool":"echo","args":{}}`, nil)
	if body["refused"] != "missing-argument" {
		t.Fatalf("missing argument: %v", body)
	}
	_, body = f.do(t, "POST", "/api/mini-app/call", `{"appId":"app_y","tool":"echo","args":{}}`, nil)
	if body["refused"] != "unknown-tool" {
		t.Fatalf("unknown app: %v", body)
	}
	if status, body := f.do(t, "POST", "/api/registry/reply", `{"id":"nobody","ok":true}`, nil); status != 400 {
		t.Fatalf("stray reply: %d %v", status, body)
	}
	_, body = f.do(t, "GET", "/api/mini-app/declarations?provider=openai", "", nil)
	if d := body["declarations"].([]any); len(d) != 1 || d[0].(map[string]any)["name"] != "x__echo" {
		t.Fatalf("declarations: %v", body)
	}
	if status, _ := f.do(t, "GET", "/api/mini-app/declarations?provider=nope", "", nil); status != 400 {
		t.Fatalf("unknown provider: %d", status)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestPrepareAndRelease(t *testing.T) {
	f := newRegFixture(t)
	status, body := f.do(t, "POST", "/api/sandbox/prepare", `{"room":"r1","ref":"calc.html"}`, nil)
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
	if status, _ := f.do(t, "POST", "/api/sandbox/release", `{"launchId":"`+body["launchId"].(string)+`"}`, nil); status != 200 {
		t.Fatal("release")
	}
	if res, _ := http.Get(bridgeURL); res.StatusCode != 404 {
		t.Fatalf("bridge after release: %d", res.StatusCode)
	}
	_, body = f.do(t, "POST", "/api/sandbox/prepare", `{"html":"<title>Dropped</title><p>x","name":"My Page.html"}`, nil)
	if body["appId"] != "local_my-page" || body["title"] != "Dropped" || body["source"] != "html" {
		t.Fatalf("prepare html: %v", body)
	}
	for _, bad := range []string{`{}`, `{"ref":"calc.html","html":"x"}`, `{"document":"d1","ref":"x"}`} {
		if status, body := f.do(t, "POST", "/api/sandbox/prepare", bad, nil); status != 400 {
			t.Errorf("prepare %s: %d %v", bad, status, body)
		}
	}
	if status, body := f.do(t, "POST", "/api/sandbox/prepare", `{"ref":"nope.html"}`, nil); status != 404 || body["error"] != "mini-app-not-found" {
		t.Errorf("prepare unknown ref: %d %v", status, body)
	}
	if status, body := f.do(t, "POST", "/api/sandbox/prepare", `{"document":"nope"}`, nil); status != 404 {
		t.Errorf("prepare unknown document: %d %v", status, body)
	}
}

// A room's event stream ending (the page closed or reloaded) says goodbye: its apps leave Go's registry and
// its launch tokens are revoked.
func TestEventStreamGoodbye(t *testing.T) {
	f := newRegFixture(t)
	l := f.sb.Add(sandbox.Launch{Room: "r9", AppID: "app_x", HTML: "x"})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", f.srv.URL+"/api/events?room=r9", nil)
	res, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(res.Body).ReadString('\n')
	if !strings.HasPrefix(line, ": voicebox") {
		t.Fatalf("stream: %q", line)
	}
	if status, body := f.do(t, "POST", "/api/mini-app/tools", `{"room":"r9","appId":"app_x","title":"X","tools":[`+echoTool+`]}`, nil); status != 200 {
		t.Fatalf("register: %d %v", status, body)
	}
	// A reconnect within the grace period keeps the room.
	open := func() (*http.Response, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", f.srv.URL+"/api/events?room=r9", nil)
		res, err := f.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = bufio.NewReader(res.Body).ReadString('\n')
		return res, cancel
	}
	cancel()
	res.Body.Close()
	res2, cancel2 := open()
	time.Sleep(300 * time.Millisecond)
	if len(f.reg.Apps()) != 1 {
		t.Fatal("a reconnecting room lost its apps")
	}
	cancel2()
	res2.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for len(f.reg.Apps()) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the room's apps outlived its event stream")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, ok := f.sb.Lookup(l.Token); ok {
		t.Fatal("the room's launch token outlived its event stream")
	}
}
