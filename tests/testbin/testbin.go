// Package testbin gives black-box tests the real voicebox binary: the one named by VOICEBOX_BIN (what
// `make test` builds once), or a fresh build of the module for a lone `go test`; and a virtual X server to
// run it (or a browser) in.
package testbin

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/programs"
)

// Tags are the build tags of a real desktop build on Linux.
const Tags = "desktop,production,webkit2_41"

var (
	once  sync.Once
	path  string
	dir   string
	built error
)

// Root returns the module's root: the nearest folder above the working directory (a test runs in its
// package's folder) that holds a go.mod. Not runtime.Caller: under -trimpath (the gate builds everything
// with it, so the tests share the release build's compiled packages) it names no folder on disk.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Path returns the binary, building it on first use if VOICEBOX_BIN is unset.
func Path() (string, error) {
	once.Do(func() {
		if p := os.Getenv("VOICEBOX_BIN"); p != "" {
			path = p
			if _, err := os.Stat(p); err != nil {
				built = fmt.Errorf("VOICEBOX_BIN=%s: %w", p, err)
			}
			return
		}
		root, err := Root()
		if err != nil {
			built = err
			return
		}
		if dir, err = os.MkdirTemp("", "voicebox-bin-"); err != nil {
			built = err
			return
		}
		// Both programs side by side, stripped, as `make build` builds them (tests/packaging packages them):
		// the window's, then voicebox, without cgo, which becomes it for the window (backend/programs).
		path = filepath.Join(dir, programs.Front)
		built = Build(root, "-trimpath", "-ldflags", "-s -w", "-o", filepath.Join(dir, programs.Window), ".")
		if built == nil {
			built = build(root, []string{"CGO_ENABLED=0"}, "-trimpath", "-ldflags", "-s -w", "-o", path, "./cmd/voicebox")
		}
	})
	return path, built
}

// Window returns the window's program beside Path's (voicebox-desktop).
func Window() (string, error) {
	p, err := Path()
	if err != nil {
		return "", err
	}
	return programs.WindowPath(p)
}

// Build runs `go build -tags Tags args…` in dir ("" for the current folder) with the toolchain that runs
// the tests (GOROOT's go, else go on PATH).
func Build(dir string, args ...string) error { return build(dir, nil, args...) }

func build(dir string, env []string, args ...string) error {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	cmd := exec.Command(goTool, append([]string{"build", "-tags", Tags}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// Cleanup removes a binary this package built; call it from TestMain after m.Run.
func Cleanup() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}

// Main runs the package's tests and removes a binary this package built; call it as TestMain's body.
func Main(m *testing.M) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

// NeedBench skips the test unless VOICEBOX_BENCH=1: the benchmarks of the real binary run on purpose
// (`make bench`), never in `make test`. what names the benchmark in the skip.
func NeedBench(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("VOICEBOX_BENCH") != "1" {
		t.Skip("set VOICEBOX_BENCH=1 to run the " + what)
	}
}

// Need fails the test, with the apt package to install, when one of the tools (name → Debian package) is
// not on PATH. `make test` installs them all (scripts/deps.sh test).
func Need(t testing.TB, tools map[string]string) {
	t.Helper()
	for bin, pkg := range tools {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is missing: apt-get install %s (make test installs it)", bin, pkg)
		}
	}
}

// Xvfb runs a virtual X server of the test's own (1280×860, no TCP) until the test ends, and returns its
// DISPLAY. The caller checks that Xvfb is installed.
func Xvfb(t testing.TB) string { return XvfbSized(t, 1280, 860) }

// XvfbSized is Xvfb with a screen of w×h (a window of the room's largest checked size must fit on it).
// It returns once the server has accepted an X client. -noreset: by default the server resets when its
// last client leaves, and a client connecting meanwhile is refused (the desktop suite's first window failed
// "failed to init GTK" twice in some thirty gate runs, its display reported and no other client known).
func XvfbSized(t testing.TB, w, h int) string {
	t.Helper()
	n := Daemon(t, "Xvfb", "-displayfd", "3", "-screen", "0", fmt.Sprintf("%dx%dx24", w, h), "-nolisten", "tcp", "-noreset")
	var err error
	for range 100 {
		if err = xHandshake(n); err == nil {
			return ":" + n
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("Xvfb :%s reported its display but refuses X clients: %v", n, err)
	return ""
}

// xHandshake opens an X connection to display n on its Unix socket and reads the server's answer to the
// connection setup (X11 protocol, "Connection Setup"): 1 is Success.
func xHandshake(n string) error {
	c, err := net.DialTimeout("unix", "/tmp/.X11-unix/X"+n, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	// Little-endian, protocol 11.0, no authorization.
	if _, err := c.Write([]byte{'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0}); err != nil {
		return err
	}
	var status [1]byte
	if _, err := io.ReadFull(c, status[:]); err != nil {
		return err
	}
	if status[0] != 1 {
		return fmt.Errorf("connection setup answered %d, want 1 (Success)", status[0])
	}
	return nil
}

// Daemon starts a program that reports where it listens on file descriptor 3 (Xvfb's -displayfd,
// dbus-daemon's --print-address=3), returns that first line, and stops the program when the test ends.
func Daemon(t testing.TB, name string, args ...string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	w.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		t.Fatalf("%s did not report where it listens: %v", name, err)
	}
	return strings.TrimSpace(line)
}
