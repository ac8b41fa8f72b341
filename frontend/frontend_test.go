package frontend

import (
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var (
	entryRE   = regexp.MustCompile(`<script type="module" src="([^"]+)"></script>`)
	preloadRE = regexp.MustCompile(`<link rel="modulepreload" href="([^"]+)">`)
	importRE  = regexp.MustCompile(`(?m)^\s*(?:import|export)\b[^"'\n]*?(?:from\s*)?["'](\./[^"']+)["']`)
)

// The room's first paint and boot do not wait for its module graph one import level at a time:
// index.html preloads every module its entry scripts import, directly or not, and nothing else.
func TestIndexPreloadsTheWholeModuleGraph(t *testing.T) {
	room := Room()
	index, err := fs.ReadFile(room, "index.html")
	if err != nil {
		t.Fatal(err)
	}
	entries := map[string]bool{}
	for _, m := range entryRE.FindAllStringSubmatch(string(index), -1) {
		entries[m[1]] = true
	}
	if len(entries) == 0 {
		t.Fatal("index.html has no module scripts")
	}
	imported := map[string]bool{}
	var visit func(p string)
	visit = func(p string) {
		src, err := fs.ReadFile(room, p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, m := range importRE.FindAllStringSubmatch(string(src), -1) {
			dep := path.Join(path.Dir(p), m[1])
			if !imported[dep] {
				imported[dep] = true
				visit(dep)
			}
		}
	}
	for e := range entries {
		visit(e)
	}
	var want, got []string
	for p := range imported {
		if !entries[p] {
			want = append(want, p)
		}
	}
	for _, m := range preloadRE.FindAllStringSubmatch(string(index), -1) {
		got = append(got, m[1])
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("index.html preloads %v; the entry scripts import %v", got, want)
	}
}
