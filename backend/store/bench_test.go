package store

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The benchmark tree: 10,000 workspace files (2,000 in the root, 200 in each
// of 40 subfolders, every subfolder also has an index.html so ids need
// disambiguation), 1,000 shelf apps with records (100 of them proving a
// workspace file), 20 sandbox homes with 5 files each over levels 1-3.
// Generated once per test process and removed by TestMain.
const (
	benchRootFiles   = 2000
	benchSubdirs     = 40
	benchPerSubdir   = 200 // including first.html
	benchShelfApps   = 1000
	benchProven      = 100
	benchHomes       = 20
	benchFilesInHome = 5
)

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
)

type benchTree struct{ ws, data string }

func (bt benchTree) roots() Roots { return Roots{Workspace: bt.ws, Data: bt.data} }

func cleanupBenchTree() {
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
}

func benchHTML(title string) []byte {
	return []byte(fmt.Sprintf("<!doctype html>\n<html><head><meta charset=\"utf-8\">\n<title>%s</title>\n<style>body{font-family:sans-serif}</style></head>\n<body><h1>%s</h1><p>%s</p></body></html>\n",
		title, title, bytes.Repeat([]byte("lorem ipsum "), 30)))
}

func getBenchTree(b *testing.B) benchTree {
	b.Helper()
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "voicebox-store-bench-")
		if benchErr != nil {
			return
		}
		benchErr = generateBenchTree(benchDir)
	})
	if benchErr != nil {
		b.Fatalf("bench tree: %v", benchErr)
	}
	return benchTree{ws: filepath.Join(benchDir, "ws"), data: filepath.Join(benchDir, "data")}
}

func generateBenchTree(dir string) error {
	ws := filepath.Join(dir, "ws")
	shelf := filepath.Join(dir, "data", "mini-apps")
	sandboxes := filepath.Join(dir, "data", "sandboxes")
	wf := func(p string, data []byte) error {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	}
	n := 0
	for i := 0; i < benchRootFiles; i++ {
		if err := wf(filepath.Join(ws, fmt.Sprintf("page-%05d.html", n)), benchHTML(fmt.Sprintf("Page %d", n))); err != nil {
			return err
		}
		n++
	}
	for d := 0; d < benchSubdirs; d++ {
		sub := filepath.Join(ws, fmt.Sprintf("folder-%02d", d))
		// No index.html: that would make the folder one folder app, and its pages would not be listed.
		if err := wf(filepath.Join(sub, "first.html"), benchHTML(fmt.Sprintf("First %d", d))); err != nil {
			return err
		}
		for i := 1; i < benchPerSubdir; i++ {
			if err := wf(filepath.Join(sub, fmt.Sprintf("page-%05d.html", n)), benchHTML(fmt.Sprintf("Page %d", n))); err != nil {
				return err
			}
			n++
		}
	}
	for i := 0; i < benchShelfApps; i++ {
		base := fmt.Sprintf("app-%04d", i)
		if err := wf(filepath.Join(shelf, base+".html"), benchHTML(fmt.Sprintf("App %d", i))); err != nil {
			return err
		}
		wp := ""
		if i < benchProven {
			wp = fmt.Sprintf(`,"workspacePath":"page-%05d.html","workspaceRoot":%q`, i, ws)
		}
		meta := fmt.Sprintf(`{"appId":"app_%s","title":"App %d"%s,"createdAt":"2025-01-01T00:00:00Z","updatedAt":"2025-01-02T00:00:00Z"}`, base, i, wp)
		if err := wf(filepath.Join(shelf, base+".meta.json"), []byte(meta)); err != nil {
			return err
		}
	}
	for h := 0; h < benchHomes; h++ {
		home := filepath.Join(sandboxes, fmt.Sprintf("home-%02d", h))
		rels := []string{"a.html", "b.html", "x/c.html", "x/y/d.html", "x/y/e.html"}
		for _, r := range rels[:benchFilesInHome] {
			if err := wf(filepath.Join(home, filepath.FromSlash(r)), benchHTML("Sandbox "+r)); err != nil {
				return err
			}
		}
	}
	return nil
}

const benchWant = benchRootFiles + benchSubdirs*benchPerSubdir + benchShelfApps - benchProven + benchHomes*benchFilesInHome

// openBench opens a store over the bench tree.
func openBench(b *testing.B) (*Store, benchTree) {
	b.Helper()
	bt := getBenchTree(b)
	s, err := Open(bt.roots())
	if err != nil {
		b.Fatal(err)
	}
	return s, bt
}

// checkEntries fails unless s lists every entry of the bench tree.
func checkEntries(b *testing.B, s *Store) {
	b.Helper()
	if got := len(s.List()); got != benchWant {
		b.Fatalf("entries: got %d, want %d", got, benchWant)
	}
}

// BenchmarkColdScan: Open (walk, stat, read every title and record,
// classify) with no cache. The OS page cache is warm after the first run.
func BenchmarkColdScan(b *testing.B) {
	bt := getBenchTree(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := Open(bt.roots())
		if err != nil {
			b.Fatal(err)
		}
		checkEntries(b, s)
	}
	b.ReportMetric(float64(benchWant), "entries")
}

// BenchmarkWarmList: List on an opened store (a copy of the snapshot).
func BenchmarkWarmList(b *testing.B) {
	s, _ := openBench(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		checkEntries(b, s)
	}
}

// BenchmarkWarmRescan: a full Rescan with the title cache warm (stat only).
func BenchmarkWarmRescan(b *testing.B) {
	s, _ := openBench(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Rescan()
	}
}

// BenchmarkResolveTitle: the slowest lookup path (a title, step 4).
func BenchmarkResolveTitle(b *testing.B) {
	s, _ := openBench(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Resolve("sandbox x/y/e.html"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFindBaseline: find(1) listing the same .html files (no reading),
// fork/exec included, for the ratio with BenchmarkColdScan.
func BenchmarkFindBaseline(b *testing.B) {
	bt := getBenchTree(b)
	if _, err := exec.LookPath("find"); err != nil {
		b.Skip("find(1) not installed")
	}
	wantFiles := benchRootFiles + benchSubdirs*benchPerSubdir + benchShelfApps + benchHomes*benchFilesInHome
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := exec.Command("find", bt.ws, filepath.Join(bt.data, "mini-apps"), filepath.Join(bt.data, "sandboxes"),
			"-maxdepth", "4", "-name", "*.html").Output()
		if err != nil {
			b.Fatal(err)
		}
		if got := bytes.Count(out, []byte("\n")); got != wantFiles {
			b.Fatalf("find: got %d files, want %d", got, wantFiles)
		}
	}
	b.ReportMetric(float64(wantFiles), "files")
}

// BenchmarkIncrementalChange: the cost of applying one watcher event for a
// file in the workspace root (2,000 entries in that folder): re-read that
// folder, read the changed file, rebuild the snapshot.
func BenchmarkIncrementalChange(b *testing.B) {
	s, bt := openBench(b)
	p := filepath.Join(bt.ws, "page-00500.html")
	orig, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	defer os.WriteFile(p, orig, 0o644)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.WriteFile(p, benchHTML(fmt.Sprintf("Changed %d", i)), 0o644)
		b.StartTimer()
		s.noteEvent(p)
		s.processEvents()
	}
	b.StopTimer()
	if en, err := s.Resolve("page_page-00500"); err != nil || en.Title != fmt.Sprintf("Changed %d", b.N-1) {
		b.Fatalf("change not applied: %+v %v", en, err)
	}
}
