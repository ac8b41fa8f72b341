package store

import (
	"path/filepath"
	"testing"
)

// OpenInBackground returns before its scan, yet nothing reads or writes the
// store before the scan is done: the scan is held at a gate here, and a List,
// a Resolve and a save started meanwhile must all see the scanned workspace.
// (A read that did not wait would see the empty store the scan has not filled.)
func TestOpenInBackgroundReadsWaitForTheScan(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.ws, "alpha.html"), "<!doctype html><title>Alpha</title>")
	write(t, filepath.Join(e.ws, "beta.html"), "<!doctype html><title>Beta</title>")
	gate := make(chan struct{})
	beforeBackgroundScan = func() { <-gate }
	t.Cleanup(func() { beforeBackgroundScan = nil })

	s, err := OpenInBackground(e.roots())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if got := s.Workspace(); got != e.ws {
		t.Fatalf("Workspace() = %q before the scan, want %q at once", got, e.ws)
	}
	lists := make(chan []Entry, 1)
	go func() { lists <- s.List() }()
	resolved := make(chan error, 1)
	go func() { _, err := s.Resolve("beta.html"); resolved <- err }()
	saved := make(chan error, 1)
	go func() { _, err := s.SaveRef("alpha.html"); saved <- err }()
	close(gate)

	if got := <-lists; len(got) != 2 {
		t.Fatalf("List during the scan: %d entries %+v, want the 2 pages", len(got), got)
	}
	if err := <-resolved; err != nil {
		t.Fatalf("Resolve(beta.html) during the scan: %v", err)
	}
	if err := <-saved; err != nil {
		t.Fatalf("SaveRef(alpha.html) during the scan: %v", err)
	}
}
