package store

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/atomicfile"
)

// crashChildEnv makes the test binary act as the child of TestCrashMidSave.
const crashChildEnv = "VOICEBOX_STORE_CRASH_CHILD"

// crashHTML is a self-checking document: its header states the version and
// the body length, its trailer repeats the version.
func crashHTML(v, size int) string {
	body := strings.Repeat(fmt.Sprintf("%07d\n", v), size/8)
	return fmt.Sprintf("<!doctype html><title>v%d</title><!--len %d-->\n%s<!--end v%d-->", v, len(body), body, v)
}

var crashHead = regexp.MustCompile(`^<!doctype html><title>v(\d+)</title><!--len (\d+)-->\n`)

func checkCrashHTML(s string) error {
	m := crashHead.FindStringSubmatch(s)
	if m == nil {
		return fmt.Errorf("bad header: %.60q", s)
	}
	n, _ := strconv.Atoi(m[2])
	rest := s[len(m[0]):]
	trailer := "<!--end v" + m[1] + "-->"
	if len(rest) != n+len(trailer) || !strings.HasSuffix(rest, trailer) {
		return fmt.Errorf("v%s: truncated or mixed: %d bytes after header, want %d", m[1], len(rest), n+len(trailer))
	}
	return nil
}

// runCrashChild saves, re-saves and deletes in a loop until killed (or ten
// seconds pass, so a lost child never lingers).
func runCrashChild(dir string) {
	ws, data := filepath.Join(dir, "ws"), filepath.Join(dir, "data")
	s, err := Open(Roots{Workspace: ws, Data: data})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	fmt.Println("ready")
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		v := rng.Intn(1_000_000)
		size := 16<<10 + rng.Intn(512<<10)
		switch rng.Intn(4) {
		case 0:
			s.SaveHTML(fmt.Sprintf("gen-%d", rng.Intn(12)), crashHTML(v, size))
		case 1:
			p := filepath.Join(ws, fmt.Sprintf("p%d.html", rng.Intn(3)))
			os.WriteFile(p+".part", []byte(crashHTML(v, size)), 0o644)
			os.Rename(p+".part", p)
			s.Rescan()
			s.SaveRef(filepath.Base(p))
		case 2, 3:
			var apps []Entry
			for _, e := range s.List() {
				if e.Kind == KindApp {
					apps = append(apps, e)
				}
			}
			if len(apps) == 0 {
				continue
			}
			a := apps[rng.Intn(len(apps))]
			if rng.Intn(3) == 0 {
				s.Delete(a.AppID)
			} else {
				s.SaveRef(a.AppID)
			}
		}
	}
	os.Exit(0)
}

// TestCrashMidSave re-executes the test binary as a child that saves in a
// loop, SIGKILLs it at random points, and checks after every kill that the
// shelf is consistent: every listed entry is readable and complete, no temp
// file is listed, every record is whole JSON naming its own app.
func TestCrashMidSave(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("os.Executable: %v", err)
	}
	dir := t.TempDir()
	mkdir(t, filepath.Join(dir, "ws"))
	mkdir(t, filepath.Join(dir, "data"))
	shelf := filepath.Join(dir, "data", "mini-apps")
	iterations := 30
	if testing.Short() {
		iterations = 8
	}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	var leftovers, apps int
	for it := 0; it < iterations; it++ {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatalf("start child: %v", err)
		}
		ready := make(chan string, 1)
		go func() {
			line, _ := bufio.NewReader(out).ReadString('\n')
			ready <- line
		}()
		select {
		case line := <-ready:
			if strings.TrimSpace(line) != "ready" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child said %q, want ready", line)
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child did not start")
		}
		time.Sleep(time.Duration(rng.Intn(120)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatalf("kill: %v", err)
		}
		cmd.Wait()

		// Leftovers a crash may leave: temp files, an orphan record.
		des, _ := os.ReadDir(shelf)
		for _, de := range des {
			n := de.Name()
			if atomicfile.IsTemp(n) {
				leftovers++
			}
			if strings.HasSuffix(n, metaSuffix) && !strings.HasPrefix(n, ".") {
				b, _ := os.ReadFile(filepath.Join(shelf, n))
				var m map[string]any
				if err := json.Unmarshal(b, &m); err != nil {
					t.Fatalf("iteration %d: half-written record %s: %v", it, n, err)
				}
				if want := "app_" + strings.TrimSuffix(n, metaSuffix); m["appId"] != want {
					t.Fatalf("iteration %d: record %s names %v, want %s", it, n, m["appId"], want)
				}
				if !exists(filepath.Join(shelf, strings.TrimSuffix(n, metaSuffix)+".html")) {
					leftovers++
				}
			}
			if hasHTMLExt(n) && !strings.HasPrefix(n, ".") {
				if err := checkCrashHTML(read(t, filepath.Join(shelf, n))); err != nil {
					t.Fatalf("iteration %d: shelf file %s: %v", it, n, err)
				}
			}
		}
		s, err := Open(Roots{Workspace: filepath.Join(dir, "ws"), Data: filepath.Join(dir, "data")})
		if err != nil {
			t.Fatalf("iteration %d: Open: %v", it, err)
		}
		seen := map[string]bool{}
		for _, en := range s.List() {
			if seen[en.AppID] {
				t.Fatalf("iteration %d: duplicate id %s", it, en.AppID)
			}
			seen[en.AppID] = true
			if strings.HasPrefix(en.FileName, ".") || strings.Contains(en.FileName, ".tmp-") || strings.HasSuffix(en.FileName, ".part") {
				t.Fatalf("iteration %d: temp file listed: %s", it, en.FileName)
			}
			g, err := s.Get(en.AppID)
			if err != nil {
				t.Fatalf("iteration %d: Get(%s): %v", it, en.AppID, err)
			}
			if err := checkCrashHTML(g.HTML); err != nil {
				t.Fatalf("iteration %d: %s (%s): %v", it, en.AppID, en.StoragePath, err)
			}
			if en.Kind == KindApp {
				apps++
			}
		}
	}
	if apps == 0 {
		t.Fatalf("the child never saved an app before being killed: the test checked nothing")
	}
	t.Logf("%d kills, %d apps checked, %d crash leftovers seen (temp files / orphan records)", iterations, apps, leftovers)
}
