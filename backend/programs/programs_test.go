package programs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// put writes an executable file at root/rel and returns its path.
func put(t *testing.T, root, rel string) string {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWindowPathBesideOrInLib(t *testing.T) {
	build := t.TempDir() // a build folder: both in build/bin
	front := put(t, build, "bin/voicebox")
	window := put(t, build, "bin/voicebox-desktop")
	put(t, build, "lib/voicebox/voicebox-desktop") // beside wins over ../lib
	if got, err := WindowPath(front); err != nil || got != window {
		t.Fatalf("WindowPath(%s) = %q, %v; want %q", front, got, err, window)
	}

	usr := t.TempDir() // a package: /usr/bin and /usr/lib/voicebox
	front = put(t, usr, "bin/voicebox")
	window = put(t, usr, "lib/voicebox/voicebox-desktop")
	if got, err := WindowPath(front); err != nil || filepath.Clean(got) != window {
		t.Fatalf("WindowPath(%s) = %q, %v; want %q", front, got, err, window)
	}

	alone := put(t, t.TempDir(), "bin/voicebox")
	if err := os.Mkdir(filepath.Join(filepath.Dir(alone), Window), 0o755); err != nil { // a folder is no program
		t.Fatal(err)
	}
	got, err := WindowPath(alone)
	if err == nil || !strings.Contains(err.Error(), "the window's program is missing") || !strings.Contains(err.Error(), "voicebox serve") {
		t.Fatalf("WindowPath with no window's program = %q, %v; want an error naming where it looked and serve", got, err)
	}
}

func TestFrontPathNamesVoiceboxForTheWindow(t *testing.T) {
	usr := t.TempDir()
	front := put(t, usr, "bin/voicebox")
	window := put(t, usr, "lib/voicebox/voicebox-desktop")
	if got := FrontPath(window); got != front {
		t.Fatalf("FrontPath(%s) = %q, want %q", window, got, front)
	}
	if got := FrontPath(front); got != front {
		t.Fatalf("FrontPath(%s) = %q, want itself", front, got)
	}
	build := t.TempDir()
	front = put(t, build, "voicebox")
	window = put(t, build, "voicebox-desktop")
	if got := FrontPath(window); got != front {
		t.Fatalf("FrontPath(%s) = %q, want %q beside it", window, got, front)
	}
	lone := put(t, t.TempDir(), "voicebox-desktop") // started on its own (wails build): it names itself
	if got := FrontPath(lone); got != lone {
		t.Fatalf("FrontPath(%s) = %q, want itself", lone, got)
	}
}
