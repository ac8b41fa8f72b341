package store

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/voicebox/voicebox/backend/trash"
)

// Deletion moves each artifact an entry owns to a trash can (backend/trash: the freedesktop.org Trash,
// or <Data>/trash) instead of unlinking it, and remembers the move so Restore can put exactly those
// artifacts back (docs/trash.md). Which artifacts a delete takes is delete.go's business alone.

// dataTrash is Voicebox's own can under the data folder, for files no system can takes.
const dataTrash = "trash"

// maxUndo is how many deletes Restore remembers. The memory is the running process's only: after a
// restart the person restores from the Trash itself, whose .trashinfo names each original path.
const maxUndo = 64

// Deleted is what a delete moved to the trash, and the token that brings it back.
type Deleted struct {
	Removed []string // the paths gone from their places, in the order they were moved
	Trashed []string // where each one is now (an entry of a can's files/), in the same order
	Undo    string   // what Restore takes
}

// trashed is one artifact a delete moved: its root and path there, and where it went.
type trashed struct {
	root, rel string
	item      trash.Item
}

// trashState is the store's cans and its record of recent deletes (guarded by opMu).
type trashState struct {
	bins  trash.Bins
	order []string             // tokens, oldest first
	undo  map[string][]trashed // token -> artifacts in the order they were moved
}

func newTrashState(home, data string) trashState {
	if home != "" {
		home, _ = filepath.Abs(home)
	}
	st := trashState{bins: trash.Bins{Home: home}, undo: map[string][]trashed{}}
	if data != "" {
		st.bins.Fallback = filepath.Join(data, dataTrash)
	}
	return st
}

// remember records a delete and returns its token, forgetting the oldest beyond maxUndo.
func (t *trashState) remember(moved []trashed) string {
	var b [16]byte
	rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	t.undo[token] = moved
	t.order = append(t.order, token)
	for len(t.order) > maxUndo {
		delete(t.undo, t.order[0])
		t.order = t.order[1:]
	}
	return token
}

func (t *trashState) forget(token string) {
	delete(t.undo, token)
	t.order = slices.DeleteFunc(t.order, func(s string) bool { return s == token })
}

// trashInRoot moves root/rel to a trash can without following links out of root (a link as the last
// element moves itself, never its target). folder says whether rel must be a folder (a folder app's
// copy) or must not be one. It reports false when rel was already gone.
func (s *Store) trashInRoot(root, rel string, folder bool) (trashed, bool, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return trashed{}, false, nil
		}
		return trashed{}, false, err
	}
	defer r.Close()
	name := filepath.FromSlash(rel)
	fi, err := r.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return trashed{}, false, nil
	case isEscape(err):
		return trashed{}, false, errOutside(rel)
	case err != nil:
		return trashed{}, false, err
	case fi.IsDir() && !folder:
		return trashed{}, false, errInvalid(rel + " is a folder")
	case !fi.IsDir() && folder:
		return trashed{}, false, errInvalid(rel + " is not a folder")
	}
	dir, err := r.Open(filepath.Dir(name))
	if err != nil {
		if isEscape(err) {
			return trashed{}, false, errOutside(rel)
		}
		return trashed{}, false, err
	}
	defer dir.Close()
	it, err := s.trash.bins.Move(dir, filepath.Join(root, filepath.Dir(name)), filepath.Base(name))
	if errors.Is(err, fs.ErrNotExist) {
		return trashed{}, false, nil
	}
	if err != nil {
		return trashed{}, false, err
	}
	return trashed{root: root, rel: rel, item: it}, true, nil
}

// putBack restores moved artifacts, last moved first (a shelf record before the .html it describes, the
// order a save writes them in), all or none, and returns the folders it touched.
func putBack(moved []trashed) ([]string, error) {
	var targets []trash.Target
	var closers []func() error
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	var dirs []string
	for _, m := range slices.Backward(moved) {
		r, err := os.OpenRoot(m.root)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", trash.ErrNoFolder, m.root, err)
		}
		closers = append(closers, r.Close)
		sub := filepath.Dir(filepath.FromSlash(m.rel))
		dir, err := r.Open(sub)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", trash.ErrNoFolder, filepath.Join(m.root, sub), err)
		}
		closers = append(closers, dir.Close)
		targets = append(targets, trash.Target{Dir: dir, Item: m.item})
		dirs = append(dirs, filepath.Join(m.root, sub))
	}
	return dirs, trash.Restore(targets)
}

// Restore puts back what the delete with this token moved to the trash, exactly that and all of it, and
// returns the restored paths. It refuses, with nothing changed, when an original path is taken again
// (trash.ErrOccupied), when something is no longer in the trash or the token is unknown (trash.ErrGone),
// or when a folder it came from is gone (trash.ErrNoFolder). A refused restore can be tried again.
func (s *Store) Restore(token string) ([]string, error) {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	moved := s.trash.undo[token]
	if moved == nil {
		return nil, fmt.Errorf("%w: no delete to undo for %q", trash.ErrGone, token)
	}
	dirs, err := putBack(moved)
	if err != nil {
		return nil, err
	}
	s.trash.forget(token)
	s.refreshLocked(dirs...)
	paths := make([]string, len(moved))
	for i, m := range moved {
		paths[i] = m.item.Original
	}
	return paths, nil
}
