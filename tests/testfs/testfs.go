// Package testfs holds the file steps the package tests share (as tests/testbin holds the binary's): write a
// file, its folder made first, or read one, failing the test on an error; and take a tree of folders before
// and after an operation that must change nothing on disk, and list what changed.
package testfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// Write writes content to path, making its folder first.
func Write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Files writes each of files (a slash-separated path under dir → its content).
func Files(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		Write(t, filepath.Join(dir, filepath.FromSlash(name)), content)
	}
}

// Read returns what path holds.
func Read(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return string(b)
}

// Tree maps every path under the roots, the roots included, to what it is: "dir", "link:<target>",
// "file:<content>", or the type of anything else (a FIFO is never opened). A root that does not exist adds
// nothing; what vanishes during the walk is left out; any other error fails the test.
func Tree(t testing.TB, roots ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil {
				err = add(out, p, d)
			}
			if errors.Is(err, fs.ErrNotExist) {
				return nil // vanished during the walk (or no root at all)
			}
			return err
		})
		if err != nil {
			t.Fatalf("tree of %s: %v", root, err)
		}
	}
	return out
}

func add(out map[string]string, p string, d fs.DirEntry) error {
	switch {
	case d.Type()&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err == nil {
			out[p] = "link:" + target
		}
		return err
	case d.IsDir():
		out[p] = "dir"
	case d.Type().IsRegular():
		b, err := os.ReadFile(p)
		if err == nil {
			out[p] = "file:" + string(b)
		}
		return err
	default:
		out[p] = d.Type().String()
	}
	return nil
}

// Changes lists how after differs from before, sorted: "added <path>", "removed <path>", "changed <path>".
func Changes(before, after map[string]string) []string {
	var out []string
	for p, was := range before {
		switch is, ok := after[p]; {
		case !ok:
			out = append(out, "removed "+p)
		case is != was:
			out = append(out, "changed "+p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			out = append(out, "added "+p)
		}
	}
	sort.Strings(out)
	return out
}
