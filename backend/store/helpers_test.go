package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/tests/testfs"
)

// env is a fresh workspace + data folder in t.TempDir. The shelf and the
// sandboxes folder are not created.
type env struct {
	base, ws, data, shelf, sandboxes string
}

func newEnv(t testing.TB) env {
	t.Helper()
	base := t.TempDir()
	e := env{
		base:      base,
		ws:        filepath.Join(base, "ws"),
		data:      filepath.Join(base, "data"),
		shelf:     filepath.Join(base, "data", "mini-apps"),
		sandboxes: filepath.Join(base, "data", "sandboxes"),
	}
	mkdir(t, e.ws)
	mkdir(t, e.data)
	return e
}

// otherWorkspace makes a second workspace folder beside e's, holding pages (file name → title).
func (e env) otherWorkspace(t testing.TB, pages map[string]string) string {
	t.Helper()
	other := filepath.Join(e.base, "other")
	mkdir(t, other)
	for name, title := range pages {
		write(t, filepath.Join(other, name), page(title))
	}
	return other
}

func (e env) roots(extra ...string) Roots {
	return Roots{Workspace: e.ws, Data: e.data, SandboxRoots: extra}
}

func (e env) open(t testing.TB, extra ...string) *Store {
	t.Helper()
	s, err := Open(e.roots(extra...))
	if err != nil {
		t.Fatalf("Open: got error %v, want nil", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mkdir(t testing.TB, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

// write, read and tree are the shared file steps (tests/testfs).
var (
	write = testfs.Write
	read  = testfs.Read
	tree  = testfs.Tree
)

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func page(title string) string {
	return "<!doctype html><html><head><title>" + title + "</title></head><body>" + title + "</body></html>"
}

// writeMeta writes a shelf record from a map (so tests control every field).
func writeMeta(t testing.TB, shelf, base string, m map[string]any) {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(shelf, base+".meta.json"), string(b))
}

func readMetaMap(t testing.TB, p string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(read(t, p)), &m); err != nil {
		t.Fatalf("meta %s: %v", p, err)
	}
	return m
}

func byID(t testing.TB, list []Entry, id string) Entry {
	t.Helper()
	for _, e := range list {
		if e.AppID == id {
			return e
		}
	}
	t.Fatalf("no entry %q in %v", id, ids(list))
	return Entry{}
}

func hasID(list []Entry, id string) bool {
	for _, e := range list {
		if e.AppID == id {
			return true
		}
	}
	return false
}

func ids(list []Entry) []string {
	out := make([]string, len(list))
	for i, e := range list {
		out[i] = e.AppID
	}
	sort.Strings(out)
	return out
}

// sameTree fails the test for every path that appeared, disappeared or changed between two trees.
func sameTree(t testing.TB, before, after map[string]string) {
	t.Helper()
	for _, c := range testfs.Changes(before, after) {
		t.Errorf("tree: %s", c)
	}
}

func wantErr(t testing.TB, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("got error %v, want %v", err, want)
	}
	if !strings.HasPrefix(err.Error(), want.Error()) {
		t.Fatalf("error %q does not start with code %q", err.Error(), want.Error())
	}
}

// eventually polls cond for up to d.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not true after %v", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func dump(list []Entry) string {
	var b bytes.Buffer
	for _, e := range list {
		fmt.Fprintf(&b, "  %s kind=%s src=%s sb=%s title=%q file=%s wp=%s\n", e.AppID, e.Kind, e.Source, e.Sandbox, e.Title, e.FileName, e.WorkspacePath)
	}
	return b.String()
}
