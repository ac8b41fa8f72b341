package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Delete removes the entry whose id is exactly id and returns the paths it
// removed. Ownership is asked per artifact, never per name:
//
//   - the entry's own storagePath is removed (for a page, its own file; a
//     symlinked page loses the link, never the target);
//   - the shelf artifacts <base>.html (or, for a folder app, the folder
//     <base>/ and everything in it) and <base>.meta.json are removed only
//     when the entry is an app and the record there is still that app's
//     record (matched by the appId inside it);
//   - a workspace file is removed only when it is the page itself or a
//     workspace app whose record still proves it.
//
// A page sharing a name with a shelf app never touches the shelf, and a
// shelf app never touches the page. A workspace folder app (page or proven
// app) removes its own index.html, never the rest of the person's folder. If what is on disk no longer matches the
// listed entry, nothing is removed and ErrNotFound is returned.
func (s *Store) Delete(id string) ([]string, error) {
	if err := checkRef(id); err != nil {
		return nil, err
	}
	s.opMu.Lock()
	defer s.opMu.Unlock()
	it := s.snap.byID[id]
	if it == nil {
		return nil, errNotFound(id)
	}
	return s.deleteLocked(it)
}

// DeleteRef resolves ref with the lookup rules of Resolve (so a name shared
// by a page and an app means the app) and deletes that entry, as Delete.
func (s *Store) DeleteRef(ref string) ([]string, error) {
	if err := checkRef(ref); err != nil {
		return nil, err
	}
	s.opMu.Lock()
	defer s.opMu.Unlock()
	it := resolveIn(s.snap, ref)
	if it == nil {
		return nil, errNotFound(ref)
	}
	return s.deleteLocked(it)
}

func (s *Store) deleteLocked(it *item) ([]string, error) {
	id := it.AppID
	var removed []string
	touched := map[string]bool{}
	rm := func(rootPath, rel string, folder bool) error {
		abs := filepath.Join(rootPath, filepath.FromSlash(rel))
		ok, err := removeInRoot(rootPath, rel, folder)
		if err != nil {
			return err
		}
		if ok {
			removed = append(removed, abs)
			touched[filepath.Dir(abs)] = true
		}
		return nil
	}
	stale := func() ([]string, error) {
		if shelf := s.shelfRoot(); shelf != nil {
			s.refreshLocked(shelf.path, filepath.Dir(it.StoragePath))
		}
		return nil, fmt.Errorf("%w: %s changed on disk; nothing was deleted", ErrNotFound, id)
	}

	switch {
	case it.Kind == KindPage:
		if err := rm(it.rootPath, it.rel, false); err != nil {
			return removed, err
		}
	default:
		shelf := s.shelfRoot()
		if shelf == nil {
			return nil, fmt.Errorf("%w: no data folder is configured", ErrNoShelf)
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
			if err := rm(it.rootPath, it.rel, false); err != nil {
				return removed, err
			}
		}
		copyName := it.shelfBase + ".html"
		if it.shelfDir {
			copyName = it.shelfBase
		}
		if err := rm(shelf.path, copyName, it.shelfDir); err != nil {
			return removed, err
		}
		if cur != nil {
			if err := rm(shelf.path, it.shelfBase+metaSuffix, false); err != nil {
				return removed, err
			}
		}
		touched[shelf.path] = true
	}
	dirs := make([]string, 0, len(touched))
	for d := range touched {
		dirs = append(dirs, d)
	}
	s.refreshLocked(dirs...)
	if len(removed) == 0 {
		return nil, fmt.Errorf("%w: %s was already gone", ErrNotFound, id)
	}
	return removed, nil
}

// removeInRoot removes root/rel without following links out of root (the
// last element, if a link, is removed itself): a file, or with folder a
// folder and everything in it (removeFolderInRoot), never the other. It
// reports false when it was already gone.
func removeInRoot(root, rel string, folder bool) (bool, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	defer r.Close()
	if folder {
		return removeFolderInRoot(r, rel)
	}
	fi, err := r.Lstat(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if isEscape(err) {
			return false, errOutside(rel)
		}
		return false, err
	}
	if fi.IsDir() {
		return false, errInvalid(rel + " is a folder")
	}
	if err := r.Remove(rel); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if isEscape(err) {
			return false, errOutside(rel)
		}
		return false, err
	}
	return true, nil
}
