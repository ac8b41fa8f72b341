package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"testing"

	wailsassets "github.com/wailsapp/wails/v2/pkg/assetserver"

	"github.com/voicebox/voicebox/backend/documents"
	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/frontend"
)

// What Wails serves at wails://wails is the embedded room only: no handler that could serve a store file,
// a workspace page or an opened document (anything served there would get the room's origin and so the
// window's IPC).
func TestRoomAssetServerServesOnlyTheEmbeddedRoom(t *testing.T) {
	opts, err := roomAssetServer("http://127.0.0.1:41234", "ws://127.0.0.1:41235", func() roomBoot { return roomBoot{} })
	if err != nil {
		t.Fatal(err)
	}
	if opts.Handler != nil {
		t.Fatal("the room's asset server has a Handler: files outside the embedded room could be served from wails://")
	}
	// Every embedded file is part of the room itself: markup, styles, scripts.
	err = fs.WalkDir(frontend.Room(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch path.Ext(p) {
		case ".js", ".css":
		case ".json":
			if p != "shortcuts.json" { // the room's one list of keyboard shortcuts (menu.go reads it too)
				t.Errorf("unexpected embedded data %s", p)
			}
		case ".html":
			if p != "index.html" {
				t.Errorf("an HTML document besides the room's index is embedded: %s", p)
			}
		default:
			t.Errorf("unexpected embedded file %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	h, err := wailsassets.NewAssetHandler(*opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	get := func(method, p string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "http://wails.localhost"+p, nil)
		req.URL.Path = p // keep dot segments as a page could send them
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for _, p := range []string{"/", "/index.html", "/src/registry.js", "/style.css"} {
		rec := get(http.MethodGet, p)
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s: %d", p, rec.Code)
		}
		if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "frame-src http://127.0.0.1:41234") || !strings.Contains(csp, "frame-ancestors 'none'") ||
			!strings.Contains(csp, "connect-src 'self' ws://127.0.0.1:41235;") {
			t.Errorf("GET %s: CSP %q", p, csp)
		}
	}
	for _, p := range []string{
		"/mini-apps/keepme.html", "/keepme.html", "/hello.html", "/workspace/hello.html",
		"/app/0123", "/bridge/0123", "/sandbox/bridge.js", "/sandbox/sdk.js",
		"/../go.mod", "/../../etc/hostname", "/src/../../app.go", "/%2e%2e/go.mod", "/main.go", "/backend/sandbox/bridge.js",
	} {
		if rec := get(http.MethodGet, p); rec.Code == http.StatusOK {
			t.Errorf("GET %s: %d, want no such file", p, rec.Code)
		}
	}
	if rec := get(http.MethodPost, "/index.html"); rec.Code == http.StatusOK {
		t.Errorf("POST: %d", rec.Code)
	}
}

// The room's document carries its boot data (desktopboot.go) inside its boot element, as JSON that no file
// name can break out of: a name that closes the element stays text in it.
func TestRoomDocumentCarriesItsBootData(t *testing.T) {
	hostile := `a</script><script>alert(1)</script><!--.html`
	boot := roomBoot{Config: services.NewRoomConfig("desktop", "/w", "http://127.0.0.1:41234"),
		Opened: []documents.Doc{{ID: "d1", Name: hostile, Path: "/w/" + hostile}}}
	h := roomHandler(t, boot)
	for _, p := range []string{"/", "/index.html"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://wails.localhost"+p, nil))
		page := rec.Body.String()
		if rec.Code != http.StatusOK || !strings.Contains(rec.Header().Get("Content-Security-Policy"), "frame-src http://127.0.0.1:41234") {
			t.Fatalf("GET %s: %d, CSP %q", p, rec.Code, rec.Header().Get("Content-Security-Policy"))
		}
		open := `<script id="voicebox-boot" type="application/json">`
		_, rest, ok := strings.Cut(page, open)
		if !ok {
			t.Fatalf("GET %s: no boot element in\n%s", p, page)
		}
		data, _, _ := strings.Cut(rest, "</script>")
		var got roomBoot
		if err := json.Unmarshal([]byte(data), &got); err != nil {
			t.Fatalf("GET %s: the boot element holds %q: %v", p, data, err)
		}
		if len(got.Opened) != 1 || got.Opened[0].Name != hostile || got.Config.Workspace != "/w" || got.Config.Limits != boot.Config.Limits {
			t.Errorf("GET %s: boot data %+v, want %+v", p, got, boot)
		}
	}
	// Control: the same data without encoding/json's HTML escaping ends the element inside the name.
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(boot); err != nil {
		t.Fatal(err)
	}
	if cut, _, _ := strings.Cut(raw.String(), "</script>"); json.Valid([]byte(cut)) {
		t.Fatal("the control: the hostile name did not end the element")
	}
}

// roomHandler is what Wails serves at wails://wails with boot as the room's boot data (roomAssetServer).
func roomHandler(t *testing.T, boot roomBoot) http.Handler {
	t.Helper()
	opts, err := roomAssetServer("http://127.0.0.1:41234", "ws://127.0.0.1:41235", func() roomBoot { return boot })
	if err != nil {
		t.Fatal(err)
	}
	h, err := wailsassets.NewAssetHandler(*opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
