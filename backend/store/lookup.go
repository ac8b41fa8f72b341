package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

func errInvalid(msg string) error { return fmt.Errorf("%w: %s", ErrInvalidName, msg) }

func errOutside(p string) error {
	return fmt.Errorf("%w: %q would leave its root", ErrOutsideRoot, p)
}

func errNotFound(ref string) error {
	return fmt.Errorf("%w: no mini-app or page answers to %q", ErrNotFound, ref)
}

// checkRef refuses references that look like a way out of a root: empty,
// NUL, an absolute path or a ".." element. Titles may contain anything else;
// a reference is only ever compared with discovered entries, never used as a
// path.
func checkRef(ref string) error {
	if strings.TrimSpace(ref) == "" {
		return errInvalid("empty reference")
	}
	if containsNUL(ref) {
		return errInvalid("reference contains NUL")
	}
	sp := strings.ReplaceAll(ref, "\\", "/")
	if strings.HasPrefix(sp, "/") || filepath.IsAbs(ref) || filepath.VolumeName(ref) != "" {
		return errOutside(ref)
	}
	for _, el := range strings.Split(sp, "/") {
		if el == ".." {
			return errOutside(ref)
		}
	}
	return nil
}

// resolveIn applies the lookup steps to a snapshot.
func resolveIn(snap *snapshot, ref string) *item {
	if it := snap.byID[ref]; it != nil { // (1) exact id
		return it
	}
	relRef, isRel := relOfWorkspaceRef(ref)
	refSlug := SlugOf(ref)
	refTitle := strings.TrimSpace(ref)
	steps := []func(*item) bool{
		// (2) file name, or the workspace-relative path.
		func(it *item) bool {
			return it.FileName == ref || (isRel && it.Source == SourceWorkspace && it.rel == relRef)
		},
		// (3) the slug of the reference.
		func(it *item) bool { return it.Slug == refSlug },
		// (4) title, case-insensitively.
		func(it *item) bool { return strings.EqualFold(it.Title, refTitle) },
	}
	for _, match := range steps {
		// items are in priority order: apps first, so the first hit wins.
		for _, it := range snap.items {
			if match(it) {
				return it
			}
		}
	}
	return nil
}

// snapshot is the current snapshot, once the first scan is done.
func (s *Store) snapshot() *snapshot {
	<-s.firstScan
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.snap
}

// Resolve finds the entry a reference means: (1) exact id, (2) file name or
// workspace-relative path, (3) slug of the reference, (4) title,
// case-insensitively. The first step that matches anything decides, and
// within a step an app outranks a page. No HTML.
func (s *Store) Resolve(ref string) (Entry, error) {
	it, err := s.resolve(ref)
	if err != nil {
		return Entry{}, err
	}
	return it.Entry, nil
}

// resolve is Resolve's item (the entry and where it lies), or ErrNotFound.
func (s *Store) resolve(ref string) (*item, error) {
	if err := checkRef(ref); err != nil {
		return nil, err
	}
	it := resolveIn(s.snapshot(), ref)
	if it == nil {
		return nil, errNotFound(ref)
	}
	return it, nil
}

// Get is Resolve plus the HTML, read from disk through the entry's root
// (never through a link leaving it). Files over MaxHTMLBytes are refused
// with ErrTooLarge.
func (s *Store) Get(ref string) (Entry, error) {
	it, err := s.resolve(ref)
	if err != nil {
		return Entry{}, err
	}
	b, err := readInRoot(it.rootPath, it.rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Entry{}, fmt.Errorf("%w: %s is gone from disk", ErrNotFound, it.StoragePath)
		}
		return Entry{}, err
	}
	e := it.Entry
	e.HTML = string(b)
	e.SizeBytes = int64(len(b))
	return e, nil
}

// readInRoot reads root/rel through os.Root, bounded by MaxHTMLBytes.
func readInRoot(root, rel string) ([]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return readInOpenRoot(r, rel)
}

func readInOpenRoot(r *os.Root, rel string) ([]byte, error) {
	f, err := r.OpenFile(rel, openReadFlags, 0)
	if err != nil {
		if isEscape(err) {
			return nil, errOutside(rel)
		}
		return nil, err
	}
	defer f.Close()
	st, err := statOpen(f)
	if err != nil {
		return nil, err
	}
	if !st.mode.IsRegular() {
		return nil, errInvalid(rel + " is not a regular file")
	}
	return readPage(f, st.size, rel)
}

// readPage reads an open page of size bytes, bounded by MaxHTMLBytes (also
// when it grows while it is read).
func readPage(f *os.File, size int64, rel string) ([]byte, error) {
	if size > MaxHTMLBytes {
		return nil, fmt.Errorf("%w: %s is %d bytes (max %d)", ErrTooLarge, rel, size, MaxHTMLBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxHTMLBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxHTMLBytes {
		return nil, fmt.Errorf("%w: %s grew past %d bytes", ErrTooLarge, rel, MaxHTMLBytes)
	}
	return b, nil
}

// ReadWorkspaceFile reads a file of the workspace for the File Viewer. rel is
// relative to the workspace (an absolute path inside it is accepted too);
// anything that would leave the workspace, including through a symlink, is
// refused with ErrOutsideRoot. Files over MaxHTMLBytes: ErrTooLarge.
func (s *Store) ReadWorkspaceFile(rel string) ([]byte, error) {
	ws := s.Workspace()
	if ws == "" {
		return nil, fmt.Errorf("%w: no workspace is open", ErrNotFound)
	}
	if containsNUL(rel) {
		return nil, errInvalid("path contains NUL")
	}
	if filepath.IsAbs(rel) {
		r, err := filepath.Rel(ws, filepath.Clean(rel))
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
			return nil, errOutside(rel)
		}
		rel = r
	}
	c, err := cleanRel(rel)
	if err != nil {
		return nil, err
	}
	b, err := readInRoot(ws, c)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotFound, c, err)
	}
	return b, err
}
