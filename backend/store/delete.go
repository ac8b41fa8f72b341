package store

import (
	"fmt"
	"os"
	"path/filepath"
)

// Delete moves what the entry with exactly this id owns to the trash (trash.go) and says what it moved
// and how to undo it. Ownership is asked per artifact, never per name:
//
//   - the entry's own storagePath goes (for a page, its own file; a
//     symlinked page loses the link, never the target);
//   - the shelf artifacts <base>.html (or, for a folder app, the folder
//     <base>/ and everything in it) and <base>.meta.json go only when the
//     entry is an app and the record there is still that app's record
//     (matched by the appId inside it);
//   - a workspace file goes only when it is the page itself or a
//     workspace app whose record still proves it.
//
// A page sharing a name with a shelf app never touches the shelf, and a
// shelf app never touches the page. A workspace folder app (page or proven
// app) takes its own index.html, never the rest of the person's folder. If
// what is on disk no longer matches the listed entry, nothing moves and
// ErrNotFound is returned; if a move fails part way, what had moved comes
// back and the error is returned.
func (s *Store) Delete(id string) (Deleted, error) {
	if err := checkRef(id); err != nil {
		return Deleted{}, err
	}
	s.opMu.Lock()
	defer s.opMu.Unlock()
	it := s.snap.byID[id]
	if it == nil {
		return Deleted{}, errNotFound(id)
	}
	return s.deleteLocked(it)
}

// DeleteRef resolves ref with the lookup rules of Resolve (so a name shared
// by a page and an app means the app) and deletes that entry, as Delete.
func (s *Store) DeleteRef(ref string) (Deleted, error) {
	if err := checkRef(ref); err != nil {
		return Deleted{}, err
	}
	s.opMu.Lock()
	defer s.opMu.Unlock()
	it := resolveIn(s.snap, ref)
	if it == nil {
		return Deleted{}, errNotFound(ref)
	}
	return s.deleteLocked(it)
}

func (s *Store) deleteLocked(it *item) (Deleted, error) {
	id := it.AppID
	var moved []trashed
	touched := map[string]bool{}
	mv := func(rootPath, rel string, folder bool) error {
		m, ok, err := s.trashInRoot(rootPath, rel, folder)
		if err != nil {
			return err
		}
		if ok {
			moved = append(moved, m)
			touched[filepath.Dir(m.item.Original)] = true
		}
		return nil
	}
	refresh := func() {
		dirs := make([]string, 0, len(touched))
		for d := range touched {
			dirs = append(dirs, d)
		}
		s.refreshLocked(dirs...)
	}
	// failed brings back what had moved before err, so a delete changes all it owns or nothing.
	failed := func(err error) (Deleted, error) {
		if _, back := putBack(moved); back != nil {
			err = fmt.Errorf("%w (and what had moved stays in the trash: %v)", err, back)
		}
		refresh()
		return Deleted{}, err
	}
	stale := func() (Deleted, error) {
		if shelf := s.shelfRoot(); shelf != nil {
			s.refreshLocked(shelf.path, filepath.Dir(it.StoragePath))
		}
		return Deleted{}, fmt.Errorf("%w: %s changed on disk; nothing was deleted", ErrNotFound, id)
	}

	switch {
	case it.Kind == KindPage:
		if err := mv(it.rootPath, it.rel, false); err != nil {
			return failed(err)
		}
	default:
		shelf := s.shelfRoot()
		if shelf == nil {
			return Deleted{}, fmt.Errorf("%w: no data folder is configured", ErrNoShelf)
		}
		sr, err := os.OpenRoot(shelf.path)
		if err != nil {
			return stale()
		}
		cur := readMetaIn(sr, it.shelfBase)
		sr.Close()
		if !recordStillOwned(it, cur) {
			return stale()
		}
		if it.proven && !s.recordProves(cur, it.rel) {
			return stale()
		}
		// Own storagePath first (the workspace file of a proven app), then
		// the shelf copy (<base>.html or the folder <base>/), then the record.
		if it.proven {
			if err := mv(it.rootPath, it.rel, false); err != nil {
				return failed(err)
			}
		}
		copyName := it.shelfBase + ".html"
		if it.shelfDir {
			copyName = it.shelfBase
		}
		if err := mv(shelf.path, copyName, it.shelfDir); err != nil {
			return failed(err)
		}
		if cur != nil {
			if err := mv(shelf.path, it.shelfBase+metaSuffix, false); err != nil {
				return failed(err)
			}
		}
		touched[shelf.path] = true
	}
	refresh()
	if len(moved) == 0 {
		return Deleted{}, fmt.Errorf("%w: %s was already gone", ErrNotFound, id)
	}
	d := Deleted{Undo: s.trash.remember(moved)}
	for _, m := range moved {
		d.Removed = append(d.Removed, m.item.Original)
		d.Trashed = append(d.Trashed, m.item.Trashed)
	}
	return d, nil
}
