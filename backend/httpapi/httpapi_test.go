package httpapi

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/tests/testfs"
)

// Every bound method answers by name with its argument array, as the desktop's bindings do.
func TestCallsByName(t *testing.T) {
	f := newFixture(t)

	status, body := f.do(t, callTo("StoreService.List", `[]`))
	apps, _ := body["apps"].([]any)
	if status != 200 || len(apps) != 1 {
		t.Fatalf("list: got %d %v, want 200 and one page", status, body)
	}
	page := apps[0].(map[string]any)
	if page["kind"] != "page" || page["appId"] != "page_calc" || page["html"] != nil {
		t.Fatalf("list entry = %v, want page_calc of kind page without html", page)
	}
	for _, c := range []struct {
		what, method, args string
		status             int
		field, holds       string // the answer's field and what it holds
	}{
		{"get by title", "StoreService.Get", `["Calculator"]`, 200, "html", "1+1"},
		{"get unknown", "StoreService.Get", `["nothing"]`, 404, "error", "mini-app-not-found"},
		{"file", "StoreService.ReadFile", `["calc.html"]`, 200, "content", "Calculator"},
		{"file outside", "StoreService.ReadFile", `["../etc/passwd"]`, 400, "error", "path-outside-root"},
	} {
		status, body = f.do(t, callTo(c.method, c.args))
		if got, _ := body[c.field].(string); status != c.status || !strings.Contains(got, c.holds) {
			t.Fatalf("%s: got %d %v, want %d with %s holding %q", c.what, status, body, c.status, c.field, c.holds)
		}
	}

	// Save promotes the page; saving raw HTML under the same name is refused with the owner named.
	status, body = f.do(t, callTo("StoreService.Save", `[{"ref":"calc.html"}]`))
	if status != 200 || body["appId"] != "app_calc" || body["kind"] != "app" {
		t.Fatalf("save: got %d %v, want app_calc", status, body)
	}
	before := f.snapshot(t)
	status, body = f.do(t, callTo("StoreService.Save", `[{"name":"calc","html":"<title>other</title>"}]`))
	owner, _ := body["app"].(map[string]any)
	if status != 409 || body["error"] != "mini-app-name-taken" || owner["appId"] != "app_calc" {
		t.Fatalf("save taken: got %d %v, want 409 naming app_calc", status, body)
	}
	if !sameTree(before, f.snapshot(t)) {
		t.Fatal("a refused save changed files on disk")
	}
	status, body = f.do(t, callTo("StoreService.Save", `[{"ref":"calc.html","name":"x"}]`))
	if status != 400 || body["error"] != "bad-request" {
		t.Fatalf("save with two targets: got %d %v, want 400 bad-request", status, body)
	}
	status, body = f.do(t, callTo("StoreService.Delete", `["app_nope"]`))
	if status != 404 || body["error"] != "mini-app-not-found" {
		t.Fatalf("delete unknown: got %d %v, want 404", status, body)
	}
	status, body = f.do(t, callTo("StoreService.Delete", `["app_calc"]`))
	removed, _ := body["removed"].([]any)
	if status != 200 || len(removed) == 0 {
		t.Fatalf("delete: got %d %v, want the removed paths", status, body)
	}
	status, body = f.do(t, callTo("RoomService.Config", `[]`))
	if limits, _ := body["limits"].(map[string]any); status != 200 || body["mode"] != "serve" || limits["callTimeoutMs"] != float64(5000) || limits["launchTimeoutMs"] != float64(15000) {
		t.Fatalf("config: got %d %v", status, body)
	}

	// Arguments as Wails takes them: exactly one JSON value per parameter, of its type.
	for _, c := range []struct {
		c      call
		status int
		code   string
	}{
		{callTo("StoreService.Get", `[]`), 400, services.CodeBadRequest},
		{callTo("StoreService.Get", `["a","b"]`), 400, services.CodeBadRequest},
		{callTo("StoreService.Get", `[{"ref":"calc"}]`), 400, services.CodeBadRequest},
		{callTo("StoreService.Get", `{"ref":"calc"}`), 400, CodeBadJSON},
		{callTo("StoreService.Nothing", `[]`), 404, "not-found"},
		{callTo("storeService.List", `[]`), 404, "not-found"},
		{call{method: "GET", path: CallPrefix + "StoreService.List"}, 405, CodeMethod},
		{call{method: "GET", path: "/api/nothing"}, 404, "not-found"},
		{call{method: "GET", path: "/api/mini-apps"}, 404, "not-found"}, // the old hand-written routes are gone
	} {
		status, body := f.do(t, c.c)
		if status != c.status || body["error"] != c.code {
			t.Errorf("%s %s: got %d %v, want %d %s", c.c.method, c.c.path, status, body, c.status, c.code)
		}
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
	save := callTo("StoreService.Save", `[{"name":"x","html":"y"}]`)
	with := func(c call, ctype string, hdr map[string]string) call {
		c.ctype, c.header = ctype, hdr
		return c
	}
	big := callTo("StoreService.Save", `[{"name":"big","html":"`+strings.Repeat("a", MaxBody)+`"}]`)
	tests := []struct {
		name   string
		c      call
		status int
		code   string
	}{
		{"foreign Origin", with(save, "", map[string]string{"Origin": "http://evil.example"}), 403, CodeForbiddenOrigin},
		{"sandboxed app's Origin null", with(save, "text/plain", map[string]string{"Origin": "null"}), 403, CodeForbiddenOrigin},
		{"Origin null without a body", with(callTo("StoreService.List", ""), "", map[string]string{"Origin": "null"}), 403, CodeForbiddenOrigin},
		{"cross-site fetch metadata", with(callTo("StoreService.List", `[]`), "", map[string]string{"Sec-Fetch-Site": "cross-site"}), 403, CodeForbiddenOrigin},
		{"rebinding Host", with(callTo("StoreService.List", `[]`), "", map[string]string{"Host": "attacker.example:80"}), 403, CodeForbiddenHost},
		{"no secret", with(save, "", map[string]string{"Authorization": ""}), 401, CodeUnauthorized},
		{"text/plain body", with(save, "text/plain", nil), 415, CodeUnsupportedType},
		{"form body", with(callTo("StoreService.Save", `name=x`), "application/x-www-form-urlencoded", nil), 415, CodeUnsupportedType},
		{"over the shared limit", big, 413, CodeBodyTooLarge},
		{"not JSON", callTo("StoreService.Save", `[`), 400, CodeBadJSON},
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
	status, _ := f.do(t, with(callTo("StoreService.List", `[]`), "", map[string]string{"Origin": Origin(f.host)}))
	if status != 200 {
		t.Fatalf("own origin: got %d, want 200", status)
	}
}

// `voicebox serve`'s door to the trash: StoreService.Delete answers an undo token, StoreService.Restore
// takes it and brings the files back once; a path in use again is refused 409 with nothing changed.
func TestDeleteAndRestoreOverHTTP(t *testing.T) {
	f := newFixture(t)
	calc := filepath.Join(f.workspace, "calc.html")
	status, body := f.do(t, callTo("StoreService.Delete", `["page_calc"]`))
	undo, _ := body["undo"].(string)
	trashed, _ := body["trashed"].([]any)
	if status != 200 || undo == "" || len(trashed) != 1 || !strings.HasPrefix(trashed[0].(string), filepath.Join(f.data, "trash", "files")+"/") {
		t.Fatalf("delete: got %d %v, want an undo token and the data folder's trash", status, body)
	}
	if _, err := os.Stat(calc); err == nil {
		t.Fatal("calc.html is still there")
	}

	testfs.Write(t, calc, "<title>a new calc</title>")
	before := f.snapshot(t)
	status, body = f.do(t, callTo("StoreService.Restore", `[{"undo":"`+undo+`"}]`))
	if status != 409 || body["error"] != "restore-path-taken" || !sameTree(before, f.snapshot(t)) {
		t.Fatalf("restore over a new file: got %d %v, want 409 restore-path-taken and nothing changed", status, body)
	}
	os.Remove(calc)
	status, body = f.do(t, callTo("StoreService.Restore", `[{"undo":"`+undo+`"}]`))
	if b, _ := os.ReadFile(calc); status != 200 || string(b) != calcPage {
		t.Fatalf("restore: got %d %v and %q", status, body, b)
	}
	status, body = f.do(t, callTo("StoreService.Restore", `[{"undo":"`+undo+`"}]`))
	if status != 410 || body["error"] != "not-in-trash" {
		t.Fatalf("second restore: got %d %v, want 410 not-in-trash", status, body)
	}
	status, body = f.do(t, callTo("StoreService.Restore", `[{}]`))
	if status != 400 || body["error"] != "bad-request" {
		t.Fatalf("restore without a token: got %d %v", status, body)
	}
}
