//go:build unix

package documents

import (
	"errors"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestReadRefusesAFileSwappedForAFIFO(t *testing.T) {
	dir, page := tempPage(t, "p.html", "x")
	tab := NewTable()
	docs, _ := tab.Open(dir, []string{page})
	if len(docs) != 1 {
		t.Fatal("open failed")
	}
	os.Remove(page)
	if err := syscall.Mkfifo(page, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := tab.Read(docs[0].ID); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotHTML) {
			t.Fatalf("got %v, want ErrNotHTML", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read blocked on a FIFO")
	}
}
