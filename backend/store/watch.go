package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watch starts live discovery and returns once the watches are in place: every
// walked folder of every root is watched (folders appearing within the depth
// limits are added as they appear), a root that does not exist yet is waited
// for by watching its nearest existing ancestor, and events are applied after
// a short debounce (50 ms), so a change shows in List within half a second.
// A watcher overflow, a watcher error or an event on a root itself (removed,
// moved, recreated) triggers a full rescan. Watching stops when ctx is done
// or Close is called.
func (s *Store) Watch(ctx context.Context) error {
	s.opMu.Lock()
	if s.watcher != nil {
		s.opMu.Unlock()
		return errors.New("store: already watching")
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		s.opMu.Unlock()
		return err
	}
	s.watcher = w
	s.watched = map[string]bool{}
	// Rescan with the watcher in place: each folder is watched before it is
	// read, so nothing that changed since Open is missed.
	s.fullScanLocked()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	s.stop, s.stopDone = cancel, done
	s.opMu.Unlock()

	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.readEvents(ctx, w) }()
	go func() { defer wg.Done(); s.applyLoop(ctx) }()
	go func() {
		<-ctx.Done()
		w.Close()
		wg.Wait()
		s.opMu.Lock()
		if s.watcher == w {
			s.watcher = nil
			s.watched = map[string]bool{}
			s.stop, s.stopDone = nil, nil
		}
		s.opMu.Unlock()
		close(done)
	}()
	return nil
}

// Close stops watching (if watching) and waits for the watcher to finish.
func (s *Store) Close() error {
	s.opMu.Lock()
	stop, done := s.stop, s.stopDone
	s.opMu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	return nil
}

func (s *Store) readEvents(ctx context.Context, w *fsnotify.Watcher) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			s.noteEvent(ev.Name)
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			s.handleWatchError(err)
		}
	}
}

func (s *Store) noteEvent(name string) {
	s.evMu.Lock()
	s.evPaths[filepath.Clean(name)] = struct{}{}
	s.evMu.Unlock()
	s.kickLoop()
}

// handleWatchError reacts to a watcher error: an overflow
// (fsnotify.ErrEventOverflow) means events were lost, so the next apply is a
// full rescan; any other watcher error is treated the same way, to be safe.
func (s *Store) handleWatchError(err error) {
	if err == nil {
		return
	}
	s.evMu.Lock()
	s.evFull = true
	s.evMu.Unlock()
	s.kickLoop()
}

func (s *Store) kickLoop() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

func (s *Store) applyLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
		}
		t := time.NewTimer(debounce)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		s.processEvents()
	}
}

// processEvents applies the gathered events now.
func (s *Store) processEvents() {
	s.evMu.Lock()
	paths, full := s.evPaths, s.evFull
	s.evPaths, s.evFull = map[string]struct{}{}, false
	s.evMu.Unlock()
	if len(paths) == 0 && !full {
		return
	}
	s.opMu.Lock()
	defer s.opMu.Unlock()
	if !full {
		for p := range paths {
			if _, isRoot := s.rootSet[p]; isRoot {
				full = true
				break
			}
			for root := range s.pending {
				if isUnder(root, p) { // p is a missing root or one of its ancestors
					full = true
					break
				}
			}
			if full {
				break
			}
		}
	}
	if full {
		s.fullScanLocked()
		return
	}
	var dirs []string
	for p := range paths {
		if _, ok := s.dirs[p]; ok {
			dirs = append(dirs, p)
			delete(s.watched, p) // re-add: it may have been removed and recreated
		}
		if parent := filepath.Dir(p); parent != p {
			if _, ok := s.dirs[parent]; ok {
				dirs = append(dirs, parent)
			}
		}
	}
	if len(dirs) == 0 {
		return
	}
	if !s.refreshDirsLocked(dirs) {
		s.fullScanLocked()
		return
	}
	s.rebuildLocked()
}

// watchDir adds a watch on a folder about to be read. Caller holds opMu.
func (s *Store) watchDir(p string) {
	if s.watcher == nil || s.watched[p] {
		return
	}
	if err := s.watcher.Add(p); err == nil {
		s.watched[p] = true
	}
}

// syncWatches makes the watch set match the walked folders plus the nearest
// existing ancestor of each missing root. Caller holds opMu.
func (s *Store) syncWatches() {
	want := make(map[string]bool, len(s.dirs)+len(s.pending))
	for p := range s.dirs {
		want[p] = true
	}
	for root := range s.pending {
		anc := nearestExisting(root)
		s.pending[root] = anc
		if anc != "" {
			want[anc] = true
		}
	}
	if s.watcher == nil {
		return
	}
	for p := range want {
		s.watchDir(p)
	}
	for p := range s.watched {
		if !want[p] {
			s.watcher.Remove(p)
			delete(s.watched, p)
		}
	}
}

func nearestExisting(p string) string {
	for {
		parent := filepath.Dir(p)
		if parent == p {
			return ""
		}
		p = parent
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
	}
}
