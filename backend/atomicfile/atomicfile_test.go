package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplacesAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	for _, content := range []string{"first", "second, longer"} {
		if err := Write(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != content {
			t.Fatalf("got %q, %v; want %q", got, err, content)
		}
	}
	info, _ := os.Stat(p)
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), TempPrefix) {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestWriteFailsWithoutTouchingTarget(t *testing.T) {
	if err := Write(filepath.Join(t.TempDir(), "missing", "x"), []byte("x"), 0o644); err == nil {
		t.Fatal("write into a missing folder: got nil error, want one")
	}
}
