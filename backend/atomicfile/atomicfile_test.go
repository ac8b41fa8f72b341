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
		if IsTemp(e.Name()) || strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestIsTemp(t *testing.T) {
	for name, want := range map[string]bool{
		".settings.json.tmp-0123456789ab": true,
		".a.html.tmp-abcdefabcdef":        true,
		"settings.json.tmp-0123456789ab":  false, // not hidden
		".settings.json.tmp-0123":         false,
		".settings.json":                  false,
		"settings.json":                   false,
	} {
		if IsTemp(name) != want {
			t.Errorf("IsTemp(%q) = %v, want %v", name, !want, want)
		}
	}
}

func TestWriteInStaysInTheRoot(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Skip(err)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := WriteIn(r, "link/x.json", []byte("x"), 0o600); err == nil {
		t.Fatal("a write through a link out of the root succeeded")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("the write reached outside the root: %v", entries)
	}
}

func TestWriteFailsWithoutTouchingTarget(t *testing.T) {
	if err := Write(filepath.Join(t.TempDir(), "missing", "x"), []byte("x"), 0o644); err == nil {
		t.Fatal("write into a missing folder: got nil error, want one")
	}
}

// ReplaceDir puts a filled temporary folder in place: as a new name, and over an existing folder (whose
// old content goes, with no temporary left).
func TestReplaceDir(t *testing.T) {
	dir := t.TempDir()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fill := func(content string) string {
		tmp, err := TempName("app")
		if err != nil || !IsTemp(tmp) {
			t.Fatalf("TempName: %q %v", tmp, err)
		}
		if err := r.Mkdir(tmp, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteFile(tmp+"/"+content, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return tmp
	}
	for _, content := range []string{"first", "second"} {
		if err := ReplaceDir(r, fill(content), "app"); err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(filepath.Join(dir, "app"))
		if len(entries) != 1 || entries[0].Name() != content {
			t.Fatalf("app holds %v, want only %s", entries, content)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
	if err := ReplaceDir(r, fill("x"), "../app"); err == nil {
		t.Fatal("a name with a separator was accepted")
	}
}
