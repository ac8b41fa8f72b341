// Package testbin gives black-box tests the real voicebox binary: the one named by VOICEBOX_BIN (what
// `make test` builds once), or a fresh build of the module for a lone `go test`.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

// Tags are the build tags of a real desktop build on Linux.
const Tags = "desktop,production,webkit2_41"

var (
	once  sync.Once
	path  string
	dir   string
	built error
)

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
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		var err error
		if dir, err = os.MkdirTemp("", "voicebox-bin-"); err != nil {
			built = err
			return
		}
		path = filepath.Join(dir, "voicebox")
		cmd := exec.Command("go", "build", "-tags", Tags, "-o", path, ".")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			built = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	return path, built
}

// Cleanup removes a binary this package built; call it from TestMain after m.Run.
func Cleanup() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}
