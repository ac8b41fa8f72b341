package httpapi

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/services"
)

// fixture is a real store on disk behind the real handler, served by a real HTTP server.
type fixture struct {
	srv       *httptest.Server
	workspace string
	data      string
	host      string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st, workspace, data := openStore(t, map[string]string{"notes.txt": "not html"})
	f := &fixture{workspace: workspace, data: data}
	f.srv, f.host = serve(t, func(host string) Options {
		return Options{
			Host:  host,
			Room:  fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>room</title>")}},
			Store: services.NewStoreService(st, nil),
			Bus:   events.NewBus(),
			Config: func() services.RoomConfig {
				return services.RoomConfig{Mode: "serve", Workspace: f.workspace, Guard: true}
			},
			Extra: func(mux *http.ServeMux) {
				mux.HandleFunc("POST /api/echo", func(w http.ResponseWriter, r *http.Request) {
					var v map[string]any
					if readJSON(w, r, 64<<10, http.StatusBadRequest, &v) {
						writeJSON(w, http.StatusOK, v)
					}
				})
			},
			RoomCSP: "default-src 'self'",
		}
	})
	return f
}

func (f *fixture) do(t *testing.T, c call) (int, map[string]any) {
	t.Helper()
	status, out, _ := send(t, f.srv, c)
	return status, out
}

// snapshot reads every file under the roots, so a test can prove a refusal changed nothing.
func (f *fixture) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, root := range []string{f.workspace, f.data} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				out[p] = string(b)
			}
			return nil
		})
	}
	return out
}

func sameTree(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestRoutes(t *testing.T) {
	f := newFixture(t)

	status, body := f.do(t, call{method: "GET", path: "/api/mini-apps"})
	apps, _ := body["apps"].([]any)
	if status != 200 || len(apps) != 1 {
		t.Fatalf("list: got %d %v, want 200 and one page", status, body)
	}
	page := apps[0].(map[string]any)
	if page["kind"] != "page" || page["appId"] != "page_calc" || page["html"] != nil {
		t.Fatalf("list entry = %v, want page_calc of kind page without html", page)
	}

	status, body = f.do(t, call{method: "GET", path: "/api/mini-apps?ref=Calculator"})
	if status != 200 || !strings.Contains(body["html"].(string), "1+1") {
		t.Fatalf("get by title: got %d %v, want the page with its html", status, body)
	}
	status, body = f.do(t, call{method: "GET", path: "/api/mini-apps?ref=nothing"})
	if status != 404 || body["error"] != "mini-app-not-found" {
		t.Fatalf("get unknown: got %d %v, want 404 mini-app-not-found", status, body)
	}

	status, body = f.do(t, call{method: "GET", path: "/api/file?path=calc.html"})
	if status != 200 || !strings.Contains(body["content"].(string), "Calculator") {
		t.Fatalf("file: got %d %v", status, body)
	}
	status, body = f.do(t, call{method: "GET", path: "/api/file?path=" + url.QueryEscape("../etc/passwd")})
	if status != 400 || body["error"] != "path-outside-root" {
		t.Fatalf("file outside: got %d %v, want 400 path-outside-root", status, body)
	}

	// Save promotes the page; saving raw HTML under the same name is refused with the owner named.
	status, body = f.do(t, call{method: "POST", path: "/api/mini-apps", body: `{"ref":"calc.html"}`})
	if status != 200 || body["appId"] != "app_calc" || body["kind"] != "app" {
		t.Fatalf("save: got %d %v, want app_calc", status, body)
	}
	before := f.snapshot(t)
	status, body = f.do(t, call{method: "POST", path: "/api/mini-apps", body: `{"name":"calc","html":"<title>other</title>"}`})
	owner, _ := body["app"].(map[string]any)
	if status != 409 || body["error"] != "mini-app-name-taken" || owner["appId"] != "app_calc" {
		t.Fatalf("save taken: got %d %v, want 409 naming app_calc", status, body)
	}
	if !sameTree(before, f.snapshot(t)) {
		t.Fatal("a refused save changed files on disk")
	}
	status, body = f.do(t, call{method: "POST", path: "/api/mini-apps", body: `{"ref":"calc.html","name":"x"}`})
	if status != 400 || body["error"] != "bad-request" {
		t.Fatalf("save with two targets: got %d %v, want 400 bad-request", status, body)
	}

	status, body = f.do(t, call{method: "DELETE", path: "/api/mini-apps?id=app_nope"})
	if status != 404 || body["error"] != "mini-app-not-found" {
		t.Fatalf("delete unknown: got %d %v, want 404", status, body)
	}
	status, body = f.do(t, call{method: "DELETE", path: "/api/mini-apps?id=app_calc"})
	removed, _ := body["removed"].([]any)
	if status != 200 || len(removed) == 0 {
		t.Fatalf("delete: got %d %v, want the removed paths", status, body)
	}

	status, body = f.do(t, call{method: "PUT", path: "/api/mini-apps", body: `{}`})
	if status != 405 || body["error"] != CodeMethod {
		t.Fatalf("PUT: got %d %v, want 405", status, body)
	}
	status, body = f.do(t, call{method: "GET", path: "/api/config"})
	if status != 200 || body["mode"] != "serve" {
		t.Fatalf("config: got %d %v", status, body)
	}
	status, body = f.do(t, call{method: "GET", path: "/api/nothing"})
	if status != 404 || body["error"] != "not-found" {
		t.Fatalf("unknown route: got %d %v, want 404 JSON", status, body)
	}
}

func TestRoomPageHeaders(t *testing.T) {
	f := newFixture(t)
	res, err := http.Get(f.srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	for k, want := range map[string]string{
		"Content-Security-Policy": "default-src 'self'",
		"X-Frame-Options":         "DENY",
		"X-Content-Type-Options":  "nosniff",
	} {
		if got := res.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if got := res.Header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Errorf("room sends CORS header %q, want none", got)
	}
}

func TestDoorRefusals(t *testing.T) {
	f := newFixture(t)
	big := `{"name":"big","html":"` + strings.Repeat("a", MaxBody) + `"}`
	tests := []struct {
		name   string
		c      call
		status int
		code   string
	}{
		{"foreign Origin", call{method: "POST", path: "/api/mini-apps", body: `{"name":"x","html":"y"}`,
			header: map[string]string{"Origin": "http://evil.example"}}, 403, CodeForbiddenOrigin},
		{"sandboxed app's Origin null", call{method: "POST", path: "/api/mini-apps", body: `{"name":"x","html":"y"}`,
			ctype: "text/plain", header: map[string]string{"Origin": "null"}}, 403, CodeForbiddenOrigin},
		{"Origin null on a GET", call{method: "GET", path: "/api/mini-apps", header: map[string]string{"Origin": "null"}}, 403, CodeForbiddenOrigin},
		{"cross-site fetch metadata", call{method: "GET", path: "/api/mini-apps?ref=calc", header: map[string]string{"Sec-Fetch-Site": "cross-site"}}, 403, CodeForbiddenOrigin},
		{"rebinding Host", call{method: "GET", path: "/api/mini-apps", header: map[string]string{"Host": "attacker.example:80"}}, 403, CodeForbiddenHost},
		{"text/plain body", call{method: "POST", path: "/api/mini-apps", body: `{"name":"x","html":"y"}`, ctype: "text/plain"}, 415, CodeUnsupportedType},
		{"form body", call{method: "POST", path: "/api/mini-apps", body: `name=x`, ctype: "application/x-www-form-urlencoded"}, 415, CodeUnsupportedType},
		{"over the shared limit", call{method: "POST", path: "/api/mini-apps", body: big}, 413, CodeBodyTooLarge},
		{"a route with its own limit", call{method: "POST", path: "/api/echo", body: `{"a":"` + strings.Repeat("a", 64<<10) + `"}`}, 400, CodeBodyTooLarge},
		{"not JSON", call{method: "POST", path: "/api/mini-apps", body: `{`}, 400, CodeBadJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := f.snapshot(t)
			status, body := f.do(t, tt.c)
			if status != tt.status || body["error"] != tt.code {
				t.Fatalf("got %d %v, want %d %s", status, body, tt.status, tt.code)
			}
			if msg, _ := body["message"].(string); msg == "" {
				t.Errorf("refusal without a message: %v", body)
			}
			if !sameTree(before, f.snapshot(t)) {
				t.Fatal("a refused request changed files on disk")
			}
		})
	}
	// The room's own origin passes.
	status, _ := f.do(t, call{method: "GET", path: "/api/mini-apps", header: map[string]string{"Origin": Origin(f.host)}})
	if status != 200 {
		t.Fatalf("own origin: got %d, want 200", status)
	}
}

// `voicebox serve`'s door to the trash: DELETE answers an undo token, POST /api/mini-apps/restore takes it
// and brings the files back once; a path in use again is refused 409 with nothing changed.
func TestDeleteAndRestoreOverHTTP(t *testing.T) {
	f := newFixture(t)
	calc := filepath.Join(f.workspace, "calc.html")
	status, body := f.do(t, call{method: "DELETE", path: "/api/mini-apps?id=page_calc"})
	undo, _ := body["undo"].(string)
	trashed, _ := body["trashed"].([]any)
	if status != 200 || undo == "" || len(trashed) != 1 || !strings.HasPrefix(trashed[0].(string), filepath.Join(f.data, "trash", "files")+"/") {
		t.Fatalf("delete: got %d %v, want an undo token and the data folder's trash", status, body)
	}
	if _, err := os.Stat(calc); err == nil {
		t.Fatal("calc.html is still there")
	}

	write(t, calc, "<title>a new calc</title>")
	before := f.snapshot(t)
	status, body = f.do(t, call{method: "POST", path: "/api/mini-apps/restore", body: `{"undo":"` + undo + `"}`})
	if status != 409 || body["error"] != "restore-path-taken" || !sameTree(before, f.snapshot(t)) {
		t.Fatalf("restore over a new file: got %d %v, want 409 restore-path-taken and nothing changed", status, body)
	}
	os.Remove(calc)
	status, body = f.do(t, call{method: "POST", path: "/api/mini-apps/restore", body: `{"undo":"` + undo + `"}`})
	if b, _ := os.ReadFile(calc); status != 200 || string(b) != calcPage {
		t.Fatalf("restore: got %d %v and %q", status, body, b)
	}
	status, body = f.do(t, call{method: "POST", path: "/api/mini-apps/restore", body: `{"undo":"` + undo + `"}`})
	if status != 410 || body["error"] != "not-in-trash" {
		t.Fatalf("second restore: got %d %v, want 410 not-in-trash", status, body)
	}
	status, body = f.do(t, call{method: "POST", path: "/api/mini-apps/restore", body: `{}`})
	if status != 400 || body["error"] != "bad-request" {
		t.Fatalf("restore without a token: got %d %v", status, body)
	}
}
