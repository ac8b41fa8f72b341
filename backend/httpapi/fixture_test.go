package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/backend/store"
	"github.com/voicebox/voicebox/tests/testfs"
)

// The fixtures' shared parts: a real store on disk, the real handler on a real HTTP server, and one way to
// send it a request.

// calcPage is the workspace page every fixture's store holds.
const calcPage = "<!doctype html><title>Calculator</title><p>1+1"

// openStore opens a real store over a new workspace holding calc.html and the given files (name →
// content), and a new data folder.
func openStore(t *testing.T, files map[string]string) (st *store.Store, workspace, data string) {
	t.Helper()
	workspace, data = t.TempDir(), t.TempDir()
	testfs.Write(t, filepath.Join(workspace, "calc.html"), calcPage)
	for name, content := range files {
		testfs.Write(t, filepath.Join(workspace, name), content)
	}
	st, err := store.Open(store.Roots{Workspace: workspace, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return st, workspace, data
}

// testSecret is the fixtures' run secret; send presents it unless told otherwise.
const testSecret = "test-secret-0123456789abcdef"

// serve runs New(options(host)) on a real HTTP server until the test ends. options gets the bound
// host:port, which the door checks every request against; the secret is testSecret.
func serve(t *testing.T, options func(host string) Options) (srv *httptest.Server, host string) {
	t.Helper()
	var handler http.Handler
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	host = strings.TrimPrefix(srv.URL, "http://")
	o := options(host)
	o.Secret = testSecret
	h, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	handler = h
	return srv, host
}

// served is the handler's real HTTP server and the host:port it is bound to (serve).
type served struct {
	srv  *httptest.Server
	host string
}

// testRoom is the room's files every fixture serves.
var testRoom = fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>room</title>")}}

// fixture is a real store on disk behind the real handler, served by a real HTTP server.
type fixture struct {
	served
	workspace string
	data      string
}

// RoomService is the configuration method every room has (host.RoomService in `voicebox serve`).
type RoomService struct{ workspace string }

func (r *RoomService) Config() (services.RoomConfig, error) {
	return services.NewRoomConfig("serve", r.workspace, ""), nil
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st, workspace, data := openStore(t, map[string]string{"notes.txt": "not html"})
	f := &fixture{workspace: workspace, data: data}
	f.srv, f.host = serve(t, func(host string) Options {
		return Options{
			Host:     host,
			Room:     testRoom,
			Bus:      events.NewBus(),
			Services: []any{services.NewStoreService(st, nil), &RoomService{workspace}},
			RoomCSP:  "default-src 'self'",
		}
	})
	return f
}

func (f *fixture) do(t *testing.T, c call) (int, map[string]any) {
	t.Helper()
	status, out, _ := send(t, f.srv, c)
	return status, out
}

// snapshot is the fixture's folders (tests/testfs), so a test can prove a refusal changed nothing.
func (f *fixture) snapshot(t *testing.T) map[string]string {
	t.Helper()
	return testfs.Tree(t, f.workspace, f.data)
}

func sameTree(a, b map[string]string) bool { return len(testfs.Changes(a, b)) == 0 }

// callTo is a call to a bound method by name with its arguments (a JSON array).
func callTo(name, args string) call {
	return call{method: "POST", path: CallPrefix + name, body: args}
}

// call is one request: a body is sent as ctype (application/json unless said); a "Host" header sets the
// request's Host; the secret goes as a bearer token unless header sets "Authorization" ("" sends none).
type call struct {
	method, path, body, ctype string
	header                    map[string]string
}

// send makes the request and returns the status, the body decoded when the response says it is JSON (it
// must be) and is an object, and the raw body.
func send(t *testing.T, srv *httptest.Server, c call) (int, map[string]any, []byte) {
	t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequest(c.method, srv.URL+c.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if c.body != "" {
		ct := c.ctype
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	req.Header.Set("Authorization", "Bearer "+testSecret)
	for k, v := range c.header {
		switch {
		case k == "Host":
			req.Host = v
		case v == "":
			req.Header.Del(k)
		default:
			req.Header.Set(k, v)
		}
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if !json.Valid(raw) {
			t.Fatalf("%s %s: body %q is not JSON", c.method, c.path, raw)
		}
		_ = json.Unmarshal(raw, &out) // an array or a value leaves out nil; the raw body has it
	}
	return res.StatusCode, out, raw
}
