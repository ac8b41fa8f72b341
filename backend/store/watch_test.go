package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

func startWatch(t *testing.T, s *Store) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); s.Close() })
	if err := s.Watch(ctx); err != nil {
		t.Fatalf("Watch: got %v, want nil", err)
	}
}

func listed(s *Store, id string) func() bool {
	return func() bool { return hasID(s.List(), id) }
}

func gone(s *Store, id string) func() bool {
	return func() bool { return !hasID(s.List(), id) }
}

// drain empties a subscription channel.
func drain(ch <-chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

func TestWatchLive(t *testing.T) {
	e := newEnv(t)
	extra := filepath.Join(e.base, "extra") // does not exist yet
	write(t, filepath.Join(e.ws, "a.html"), page("A"))
	s := e.open(t, extra)
	ch, unsub := s.Subscribe()
	defer unsub()
	startWatch(t, s)
	drain(ch)
	const patience = 3 * time.Second

	// A new file in the workspace is listed without a restart (how fast: BenchmarkWatchLatency).
	write(t, filepath.Join(e.ws, "b.html"), page("B"))
	eventually(t, patience, "new workspace file listed", listed(s, "page_b"))
	select {
	case <-ch:
	case <-time.After(patience):
		t.Fatalf("no notification after a change")
	}

	// A new subfolder and its file; a file below the depth limit is not listed.
	write(t, filepath.Join(e.ws, "newsub", "c.html"), page("C"))
	eventually(t, patience, "file in new subfolder listed", listed(s, "page_c"))
	write(t, filepath.Join(e.ws, "newsub", "deep", "d.html"), page("D"))
	write(t, filepath.Join(e.ws, "newsub", "c2.html"), page("C2"))
	eventually(t, patience, "second file in subfolder listed", listed(s, "page_c2"))
	time.Sleep(150 * time.Millisecond)
	if hasID(s.List(), "page_d") {
		t.Fatalf("file at depth 2 of the workspace listed")
	}

	// Sandboxes folder created after start, with a new home.
	write(t, filepath.Join(e.sandboxes, "home1", "p.html"), page("P"))
	eventually(t, patience, "new sandbox home listed", listed(s, "page_p"))
	write(t, filepath.Join(e.sandboxes, "home1", "x", "y", "q.html"), page("Q"))
	eventually(t, patience, "file at depth 2 of a home listed", listed(s, "page_q"))
	if p := byID(t, s.List(), "page_p"); p.Sandbox != "home1" {
		t.Fatalf("sandbox: got %q, want home1", p.Sandbox)
	}
	write(t, filepath.Join(e.sandboxes, "home1", "x", "y", "z", "deep.html"), page("Deep"))
	time.Sleep(150 * time.Millisecond)
	if hasID(s.List(), "page_deep") {
		t.Fatalf("file at depth 3 of a home listed")
	}
	// A second home in the now existing sandboxes folder.
	write(t, filepath.Join(e.sandboxes, "home2", "p2.html"), page("P2"))
	eventually(t, patience, "second sandbox home listed", listed(s, "page_p2"))
	// The whole sandboxes root removed, then recreated.
	os.RemoveAll(e.sandboxes)
	eventually(t, patience, "removed root's files gone", func() bool { return gone(s, "page_p")() && gone(s, "page_p2")() })
	write(t, filepath.Join(e.sandboxes, "home3", "p3.html"), page("P3"))
	eventually(t, patience, "recreated sandboxes root listed", listed(s, "page_p3"))

	// An extra sandbox root that did not exist.
	write(t, filepath.Join(extra, "h2", "r.html"), page("R"))
	eventually(t, patience, "extra root listed", listed(s, "page_r"))

	// Edits and removals.
	write(t, filepath.Join(e.ws, "a.html"), page("A renamed"))
	eventually(t, patience, "title update", func() bool {
		for _, en := range s.List() {
			if en.AppID == "page_a" {
				return en.Title == "A renamed"
			}
		}
		return false
	})
	os.Remove(filepath.Join(e.ws, "b.html"))
	eventually(t, patience, "removed file gone", gone(s, "page_b"))
	os.RemoveAll(filepath.Join(e.ws, "newsub"))
	eventually(t, patience, "removed folder's files gone", func() bool { return gone(s, "page_c")() && gone(s, "page_c2")() })

	// Another process saves to the shelf (created now).
	other, err := Open(e.roots())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.SaveHTML("from other", page("Other")); err != nil {
		t.Fatal(err)
	}
	eventually(t, patience, "shelf app saved elsewhere listed", listed(s, "app_from-other"))

	// The workspace root moved away, then recreated.
	moved := filepath.Join(e.base, "ws-moved")
	if err := os.Rename(e.ws, moved); err != nil {
		t.Fatal(err)
	}
	eventually(t, patience, "moved root's files gone", gone(s, "page_a"))
	write(t, filepath.Join(moved, "ghost.html"), page("Ghost")) // old location: not watched any more
	write(t, filepath.Join(e.ws, "z.html"), page("Z"))
	eventually(t, patience, "recreated root listed", listed(s, "page_z"))
	write(t, filepath.Join(e.ws, "sub2", "z2.html"), page("Z2"))
	eventually(t, patience, "recreated root's new subfolder listed", listed(s, "page_z2"))
	if hasID(s.List(), "page_ghost") {
		t.Fatalf("file in the moved-away folder listed")
	}

	// Switching the workspace while watching.
	if err := s.SetWorkspace(moved); err != nil {
		t.Fatal(err)
	}
	eventually(t, patience, "switched workspace listed", func() bool { return listed(s, "page_ghost")() && gone(s, "page_z")() })
	write(t, filepath.Join(moved, "fresh.html"), page("Fresh"))
	eventually(t, patience, "new file in switched workspace", listed(s, "page_fresh"))
	write(t, filepath.Join(e.ws, "stale.html"), page("Stale"))
	time.Sleep(150 * time.Millisecond)
	if hasID(s.List(), "page_stale") {
		t.Fatalf("old workspace still watched")
	}
}

// TestWatchOverflowRescans: when the watcher reports an overflow, events
// were lost; the store rescans everything and rewatches.
func TestWatchOverflowRescans(t *testing.T) {
	e := newEnv(t)
	s := e.open(t)
	startWatch(t, s)
	// Blind the watcher on the workspace (as lost events would).
	s.opMu.Lock()
	s.watcher.Remove(e.ws)
	s.opMu.Unlock()
	write(t, filepath.Join(e.ws, "missed.html"), page("Missed"))
	time.Sleep(200 * time.Millisecond)
	if hasID(s.List(), "page_missed") {
		t.Fatalf("file listed without an event: the test cannot tell a rescan happened")
	}
	s.handleWatchError(fsnotify.ErrEventOverflow)
	eventually(t, 2*time.Second, "rescan after overflow", listed(s, "page_missed"))
	// The watch is back.
	write(t, filepath.Join(e.ws, "after.html"), page("After"))
	eventually(t, 2*time.Second, "watch restored", listed(s, "page_after"))
}

// Without a running watcher, the handler path still rescans when applied.
func TestOverflowHandlerWithoutWatcher(t *testing.T) {
	e := newEnv(t)
	s := e.open(t)
	write(t, filepath.Join(e.ws, "late.html"), page("Late"))
	s.processEvents()
	if hasID(s.List(), "page_late") {
		t.Fatalf("listed with no event and no rescan")
	}
	s.handleWatchError(fsnotify.ErrEventOverflow)
	s.processEvents()
	if !hasID(s.List(), "page_late") {
		t.Fatalf("overflow did not trigger a full rescan")
	}
	// A single event for a file refreshes its folder only.
	write(t, filepath.Join(e.ws, "one.html"), page("One"))
	s.noteEvent(filepath.Join(e.ws, "one.html"))
	s.processEvents()
	if !hasID(s.List(), "page_one") {
		t.Fatalf("event did not refresh its folder")
	}
}

func TestSubscribeCancel(t *testing.T) {
	e := newEnv(t)
	s := e.open(t)
	ch, cancel := s.Subscribe()
	if _, err := s.SaveHTML("one", page("One")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
	default:
		t.Fatalf("no notification after SaveHTML")
	}
	cancel()
	cancel() // idempotent
	if _, ok := <-ch; ok {
		t.Fatalf("channel still open after cancel")
	}
	if _, err := s.SaveHTML("two", page("Two")); err != nil {
		t.Fatal(err)
	}
	// A rescan that changes nothing does not notify.
	ch2, cancel2 := s.Subscribe()
	defer cancel2()
	s.Rescan()
	select {
	case <-ch2:
		t.Fatalf("notification without a change")
	default:
	}
}

// BenchmarkWatchLatency measures how long a new workspace file takes to reach List and subscribers: the
// room's tray updates on that notification, and the goal is well under half a second.
func BenchmarkWatchLatency(b *testing.B) {
	e := newEnv(b)
	s := e.open(b)
	ch, unsub := s.Subscribe()
	defer unsub()
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); s.Close() }()
	if err := s.Watch(ctx); err != nil {
		b.Fatal(err)
	}
	var worst time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		drain(ch)
		name := fmt.Sprintf("live%d", i)
		t0 := time.Now()
		write(b, filepath.Join(e.ws, name+".html"), page(name))
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			b.Fatalf("no notification for %s", name)
		}
		for !hasID(s.List(), "page_"+name) {
			time.Sleep(time.Millisecond)
		}
		if d := time.Since(t0); d > worst {
			worst = d
		}
	}
	b.ReportMetric(float64(worst.Milliseconds()), "worst-ms")
}
