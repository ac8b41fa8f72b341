package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// caseFolderApp: a folder app (testdata/pizza, copied into the workspace while the room runs) loads its
// own script, module, style, image, JSON and .wasm; it cannot fetch the person's file beside its folder;
// a same-folder link and a same-folder form navigate inside its frame and the new page's tools replace
// the old; saved to the shelf, it is copied with its folder and listed once.
func caseFolderApp(t *testing.T, p page, s *server) {
	dir := filepath.Join(s.workspace, "pizza")
	copyTree(t, "testdata/pizza", dir)
	const secret = "pepperoni-secret: the person's own file"
	if err := os.WriteFile(filepath.Join(s.workspace, "secret.txt"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the folder app in the page list",
		`return [...document.querySelectorAll("#page-list .name")].some((n) => n.textContent === "Pizza Folder");`)
	app := launch(t, p, "pizza")
	if got := strings.Join(app.names(), ","); got != "next,state" {
		t.Fatalf("tools %s", got)
	}
	o := callTool(t, p, app.AppID, "state", map[string]any{})
	wantOK(t, "state", o, "")
	var st struct {
		Script, Module, Color, Logo, Path string
		Data                              map[string]any
		Wasm                              struct {
			Bytes int
			Valid bool
			Sum   any
		}
		Sibling map[string]string
	}
	if err := json.Unmarshal(o.Result, &st); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: folder app state: %s", p.name(), o.Result)
	if st.Script != "script.js ran" || st.Module != "mozzarella" || st.Color != "rgb(200, 30, 40)" || st.Logo != "3x2" ||
		!reflect.DeepEqual(st.Data, map[string]any{"slices": 8.0, "topping": "basil"}) || st.Path != "index.html" {
		t.Errorf("the page did not load its folder: %+v", st)
	}
	if st.Wasm.Bytes != 41 || !st.Wasm.Valid || st.Wasm.Sum != 5.0 {
		t.Errorf("wasm: %+v", st.Wasm)
	}
	for k, v := range st.Sibling {
		if v != "refused" && v != "status 404" {
			t.Errorf("fetch of the file beside the folder (%s): %s", k, v)
		}
	}
	if len(st.Sibling) != 4 {
		t.Errorf("sibling probes: %v", st.Sibling)
	}

	// A same-folder link, then a same-folder form: each new page's tools replace the old page's.
	wantOK(t, "next", callTool(t, p, app.AppID, "next", map[string]any{}), `"going"`)
	waitTools(t, p, app.AppID, "order,page2_state")
	wantOK(t, "page2", callTool(t, p, app.AppID, "page2_state", map[string]any{}), `{"page":"page2.html"}`)
	wantRefused(t, "the first page's tool", callTool(t, p, app.AppID, "state", map[string]any{}), "unknown-tool", "")
	wantOK(t, "order", callTool(t, p, app.AppID, "order", map[string]any{"tree": "birch"}), `"submitting"`)
	waitTools(t, p, app.AppID, "forest_state")
	wantOK(t, "forest", callTool(t, p, app.AppID, "forest_state", map[string]any{}), `{"page":"forest.html","tree":"birch"}`)
	closeApp(t, p, app.AppID)

	// Saved to the shelf: the folder is copied beside its record, and the app is listed once.
	var saved struct {
		AppID  string `json:"appId"`
		Folder string `json:"folder"`
	}
	if code := s.call(t, &saved, "StoreService.Save", map[string]any{"ref": "pizza"}); code != 200 || saved.AppID != "app_pizza" || saved.Folder != dir {
		t.Fatalf("save: %d %+v", code, saved)
	}
	for _, f := range []string{"pizza/index.html", "pizza/lib/topping.js", "pizza/add.wasm", "pizza.meta.json"} {
		if _, err := os.Stat(filepath.Join(s.data, "mini-apps", filepath.FromSlash(f))); err != nil {
			t.Errorf("shelf copy: %v", err)
		}
	}
	var list struct {
		Apps []struct {
			AppID  string `json:"appId"`
			Title  string `json:"title"`
			Folder string `json:"folder"`
			Kind   string `json:"kind"`
		} `json:"apps"`
	}
	s.call(t, &list, "StoreService.List")
	n := 0
	for _, a := range list.Apps {
		if strings.HasPrefix(a.Title, "Pizza") {
			n++
			if a.AppID != "app_pizza" || a.Kind != "app" || a.Folder != dir {
				t.Errorf("listed as %+v", a)
			}
		}
	}
	if n != 1 {
		t.Errorf("the folder app is listed %d times, want once: %+v", n, list.Apps)
	}
	app = launch(t, p, "app_pizza")
	wantOK(t, "the saved app runs", callTool(t, p, app.AppID, "next", map[string]any{}), `"going"`)
	closeApp(t, p, app.AppID)
}

// waitTools waits until the app's tools are exactly names (sorted, comma-separated).
func waitTools(t *testing.T, p page, appID, names string) {
	t.Helper()
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "tools "+names, `
		const a = window.voicebox.apps().find((x) => x.appId === `+js(appID)+`);
		return !!a && a.ready && window.voicebox.tools().filter((x) => x.appId === `+js(appID)+`).map((x) => x.name).sort().join(",") === `+js(names)+`;`)
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		copyFile(t, p, filepath.Join(to, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
