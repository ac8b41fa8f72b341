package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/voicebox/voicebox/backend/atomicfile"
)

// writeAtomic writes name inside r (the shelf root the store holds) with atomicfile.WriteIn: a hidden
// temp file in the same folder, fsync, rename over name, fsync of the folder. A crash at any point leaves
// either the old or the new file, never a mix, and nothing is written outside r.
func writeAtomic(r *os.Root, name string, data []byte) error {
	return atomicfile.WriteIn(r, name, data, 0o644)
}

// openShelfLocked opens the shelf folder, creating it (and fsyncing its
// parent) when create is set. Stale temp files of crashed saves are removed
// once per store.
func (s *Store) openShelfLocked(create bool) (*os.Root, *rootSpec, error) {
	rs := s.shelfRoot()
	if rs == nil {
		return nil, nil, fmt.Errorf("%w: no data folder is configured", ErrNoShelf)
	}
	if create {
		if _, err := os.Stat(rs.path); errors.Is(err, fs.ErrNotExist) {
			if err := os.MkdirAll(rs.path, 0o755); err != nil {
				return nil, nil, err
			}
			if pr, err := os.OpenRoot(filepath.Dir(rs.path)); err == nil {
				atomicfile.SyncRoot(pr)
				pr.Close()
			}
		}
	}
	r, err := os.OpenRoot(rs.path)
	if err != nil {
		return nil, nil, err
	}
	if !s.tempsCleaned {
		s.tempsCleaned = true
		cleanStaleTemps(r)
	}
	return r, rs, nil
}

// cleanStaleTemps removes temp files and folders left by a crashed save or
// delete (older than ten minutes, so a concurrent writer in another process
// is never disturbed).
func cleanStaleTemps(r *os.Root) {
	d, err := r.Open(".")
	if err != nil {
		return
	}
	des, _, _ := readDirCapped(d, maxDirEntries)
	d.Close()
	for _, de := range des {
		t := de.Type()
		if !(t.IsRegular() || t.IsDir()) || !atomicfile.IsTemp(de.Name()) {
			continue
		}
		if fi, err := de.Info(); err == nil && time.Since(fi.ModTime()) > 10*time.Minute {
			r.RemoveAll(de.Name())
		}
	}
}

// readMetaIn reads <base>.meta.json from the shelf; nil when missing or
// unreadable.
func readMetaIn(r *os.Root, base string) *metaRec {
	f, err := r.OpenFile(base+metaSuffix, openReadFlags, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := statOpen(f)
	if err != nil || !st.mode.IsRegular() || st.size > maxMetaBytes {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(f, maxMetaBytes+1))
	if err != nil {
		return nil
	}
	m, err := parseMeta(b)
	if err != nil {
		return nil
	}
	return m
}

// refreshLocked re-reads the given folders (a root that just appeared is
// walked whole) and rebuilds the snapshot. Caller holds opMu.
func (s *Store) refreshLocked(dirs ...string) {
	var known []string
	for _, d := range dirs {
		if _, ok := s.dirs[d]; ok {
			known = append(known, d)
			continue
		}
		if rs := s.rootSet[d]; rs != nil {
			s.scanNewRootLocked(rs)
		}
	}
	if len(known) > 0 && !s.refreshDirsLocked(known) {
		s.fullScanLocked()
		return
	}
	s.rebuildLocked()
}

// scanNewRootLocked walks a root that was missing, if it exists now.
func (s *Store) scanNewRootLocked(rs *rootSpec) {
	sc := &scanner{s: s, old: map[string]*dirState{}, out: s.dirs}
	defer sc.close()
	if !sc.scanRoot(rs) {
		return
	}
	sc.runJobs()
	s.dropBadFiles()
	delete(s.pending, rs.path)
	s.syncWatches()
}

// shelfOwnerLocked returns the listed app that owns shelf name slug (a shelf
// app or a proven workspace app), or nil.
func (s *Store) shelfOwnerLocked(slug string) *item {
	for _, it := range s.snap.items {
		if it.Kind == KindApp && it.shelfBase != "" && it.Slug == slug {
			return it
		}
	}
	return nil
}

func nowAfter(prev time.Time) time.Time {
	now := time.Now().UTC()
	if !now.After(prev) {
		now = prev.Add(time.Millisecond)
	}
	return now
}

// SaveRef saves the file the caller named to the shelf. A workspace entry
// whose file name or workspace-relative path is ref wins; otherwise ref is
// resolved like Resolve.
//
//   - A page whose shelf name (the slug of its file name) is free is promoted:
//     <slug>.meta.json (appId app_<slug>, title, workspacePath for a workspace
//     page, createdAt, updatedAt) and then <slug>.html are written, so it is
//     app_<slug> from now on.
//   - A name owned by a different app is refused with *NameTakenError
//     (errors.Is ErrNameTaken) naming that app, and nothing is written. A
//     legacy record without workspacePath owns its name too.
//   - An app the caller owns (a proven workspace app, a shelf app, or a
//     sandbox page whose shelf record names it as its source) is updated:
//     createdAt kept, updatedAt bumped, content copied again.
func (s *Store) SaveRef(ref string) (Entry, error) {
	if err := checkRef(ref); err != nil {
		return Entry{}, err
	}
	s.opMu.Lock()
	defer s.opMu.Unlock()
	shelf := s.shelfRoot()
	if shelf == nil {
		return Entry{}, fmt.Errorf("%w: no data folder is configured", ErrNoShelf)
	}
	fresh := []string{shelf.path}
	if ws := s.workspaceRoot(); ws != nil {
		if rel, ok := relOfWorkspaceRef(ref); ok {
			fresh = append(fresh, filepath.Dir(filepath.Join(ws.path, filepath.FromSlash(rel))))
		} else {
			fresh = append(fresh, ws.path)
		}
	}
	s.refreshLocked(fresh...)
	target := saveTargetIn(s.snap, ref)
	if target == nil {
		return Entry{}, errNotFound(ref)
	}
	if target.Kind == KindApp {
		return s.resaveLocked(target)
	}
	return s.promoteLocked(target)
}

// saveTargetIn: a workspace entry named ref wins, then the lookup rules.
func saveTargetIn(snap *snapshot, ref string) *item {
	relRef, isRel := relOfWorkspaceRef(ref)
	if isRel {
		for _, it := range snap.items {
			if it.Source == SourceWorkspace && it.rel == relRef {
				return it
			}
		}
	}
	for _, it := range snap.items {
		if it.Source == SourceWorkspace && it.FileName == ref {
			return it
		}
	}
	return resolveIn(snap, ref)
}

func (s *Store) promoteLocked(page *item) (Entry, error) {
	src, err := readSource(page)
	if err != nil {
		return Entry{}, err
	}
	defer src.close()
	slug := page.Slug
	if owner := s.shelfOwnerLocked(slug); owner != nil {
		// Ours only when the record there names this very file.
		if owner.record != nil && page.Source == SourceSandbox && owner.record.SourcePath == page.StoragePath {
			return s.updateShelfLocked(owner, src, page.Title)
		}
		return Entry{}, &NameTakenError{Name: slug, Owner: owner.Entry}
	}
	m := &metaRec{metaNames: metaNames{Title: page.Title}}
	switch page.Source {
	case SourceWorkspace:
		m.WorkspacePath = page.rel
		m.WorkspaceRoot = s.workspace
	case SourceSandbox:
		m.SourcePath = page.StoragePath
	}
	return s.writeNewLocked(slug, src, m)
}

// writeNewLocked writes a new shelf app named slug from src with the record m (its id and times set
// here), once the name is free.
func (s *Store) writeNewLocked(slug string, src *saveSource, m *metaRec) (Entry, error) {
	r, err := s.openShelfForNewLocked(slug)
	if err != nil {
		return Entry{}, err
	}
	defer r.Close()
	c, err := src.stage(r, slug)
	if err != nil {
		return Entry{}, err
	}
	now := time.Now().UTC()
	m.AppID, m.CreatedAt, m.UpdatedAt = "app_"+slug, now, now
	if err := writeApp(r, slug, m, c); err != nil {
		return Entry{}, err
	}
	return s.afterShelfWriteLocked(slug)
}

// openShelfForNewLocked opens the shelf (creating it) to write a new app named slug there, once
// checkNameFreeLocked says the name is free.
func (s *Store) openShelfForNewLocked(slug string) (*os.Root, error) {
	if err := s.checkNameFreeLocked(slug); err != nil {
		return nil, err
	}
	r, _, err := s.openShelfLocked(true)
	return r, err
}

// checkNameFreeLocked refuses a shelf name whose .html or folder exists in
// any form, even one discovery does not list (a link, a file, a folder
// without index.html): nothing is overwritten.
func (s *Store) checkNameFreeLocked(slug string) error {
	for _, name := range []string{slug + ".html", slug} {
		p := filepath.Join(s.shelfRoot().path, name)
		if fi, err := os.Lstat(p); err == nil {
			return &NameTakenError{Name: slug, Owner: Entry{FileName: fi.Name(), Slug: slug, Source: SourceShelf, StoragePath: p}}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

func (s *Store) afterShelfWriteLocked(base string) (Entry, error) {
	shelf := s.shelfRoot()
	s.refreshLocked(shelf.path)
	for _, it := range s.snap.items {
		if it.Kind == KindApp && it.shelfBase == base {
			return it.Entry, nil
		}
	}
	return Entry{}, fmt.Errorf("%w: %s was written but is not listed", ErrNotFound, base)
}

// resaveLocked updates an app the caller owns.
func (s *Store) resaveLocked(app *item) (Entry, error) {
	if !app.proven {
		return s.updateShelfLocked(app, nil, "")
	}
	src, err := readSource(app)
	if err != nil {
		return Entry{}, err
	}
	defer src.close()
	title := extractTitle(src.html[:min(len(src.html), titleScanBytes)])
	return s.updateShelfLocked(app, src, title)
}

// updateShelfLocked rewrites the record of a listed app (createdAt kept,
// updatedAt bumped) and, when src is not nil, its shelf copy. The record on
// disk must still be the app's.
func (s *Store) updateShelfLocked(app *item, src *saveSource, title string) (Entry, error) {
	r, _, err := s.openShelfLocked(true)
	if err != nil {
		return Entry{}, err
	}
	defer r.Close()
	base := app.shelfBase
	cur := readMetaIn(r, base)
	if !recordStillOwned(app, cur) || (app.proven && !s.recordProves(cur, app.rel)) {
		s.refreshLocked(s.shelfRoot().path)
		return Entry{}, fmt.Errorf("%w: %s changed on disk; list again", ErrNotFound, app.AppID)
	}
	m := &metaRec{}
	if cur != nil {
		*m = *cur
	}
	if m.AppID == "" || !validAppID(m.AppID) {
		m.AppID = app.AppID
	}
	if title != "" {
		m.Title = title
	}
	if m.Title == "" {
		m.Title = app.Title
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = app.CreatedAt
	}
	prev := m.UpdatedAt
	if app.UpdatedAt.After(prev) {
		prev = app.UpdatedAt
	}
	m.UpdatedAt = nowAfter(prev)
	var c shelfCopy
	if src != nil {
		if c, err = src.stage(r, base); err != nil {
			return Entry{}, err
		}
	}
	if err := writeApp(r, base, m, c); err != nil {
		return Entry{}, err
	}
	return s.afterShelfWriteLocked(base)
}

// recordStillOwned: the record now on the shelf is the one the app was
// discovered with (matched by the appId inside it); an app discovered
// without a record owns a missing record or one with its own id.
func recordStillOwned(app *item, cur *metaRec) bool {
	if app.record != nil {
		return cur != nil && cur.AppID == app.record.AppID
	}
	return cur == nil || cur.AppID == app.AppID
}

// checkShelfName validates a shelf name given by a caller.
func checkShelfName(name string) (string, error) {
	n := strings.TrimSpace(name)
	switch {
	case n == "":
		return "", errInvalid("empty name")
	case containsNUL(n):
		return "", errInvalid("name contains NUL")
	case n == "." || n == "..":
		return "", errOutside(n)
	case strings.ContainsAny(n, `/\`) || filepath.IsAbs(n) || filepath.VolumeName(n) != "":
		if strings.Contains(n, "..") || filepath.IsAbs(n) || strings.HasPrefix(n, "/") {
			return "", errOutside(n)
		}
		return "", errInvalid(fmt.Sprintf("%q contains a path separator", n))
	}
	slug := Slugify(n)
	if slug == "" {
		return "", errInvalid(fmt.Sprintf("%q has no letter or digit to name a shelf file", n))
	}
	return slug, nil
}

// SaveHTML saves raw HTML (a page that is not a file) to the shelf as
// <slug of name>.html with its record. A name already on the shelf is
// refused with *NameTakenError and nothing is written; names with path
// separators, "..", NUL or no letter/digit are refused with ErrInvalidName
// or ErrOutsideRoot.
func (s *Store) SaveHTML(name, html string) (Entry, error) {
	slug, err := checkShelfName(name)
	if err != nil {
		return Entry{}, err
	}
	if len(html) > MaxHTMLBytes {
		return Entry{}, fmt.Errorf("%w: %d bytes (max %d)", ErrTooLarge, len(html), MaxHTMLBytes)
	}
	return s.saveNew(name, slug, &saveSource{html: []byte(html)})
}

// SaveFolder saves a folder app that is not in a root (an opened index.html
// that owns its folder, see DocumentFolder) to the shelf as the folder
// <slug of name>/ with its record, as SaveHTML saves a page: a name already
// on the shelf is refused with *NameTakenError, and the folder's bounds
// (MaxFolderFiles, MaxFolderBytes, links, FIFOs) are checked, all before
// anything is written. The caller keeps f open and closes it.
func (s *Store) SaveFolder(name string, f *Folder) (Entry, error) {
	slug, err := checkShelfName(name)
	if err != nil {
		return Entry{}, err
	}
	html, err := f.ReadPage(FolderEntry)
	if err != nil {
		return Entry{}, err
	}
	plan, err := planFolder(f.root)
	if err != nil {
		return Entry{}, err
	}
	return s.saveNew(name, slug, &saveSource{html: html, folder: f.root, plan: plan})
}

// saveNew writes a new shelf app named slug from src, once the name is free.
func (s *Store) saveNew(name, slug string, src *saveSource) (Entry, error) {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	shelf := s.shelfRoot()
	if shelf == nil {
		return Entry{}, fmt.Errorf("%w: no data folder is configured", ErrNoShelf)
	}
	s.refreshLocked(shelf.path)
	if owner := s.shelfOwnerLocked(slug); owner != nil {
		return Entry{}, &NameTakenError{Name: slug, Owner: owner.Entry}
	}
	title := titleOr(extractTitle(src.html[:min(len(src.html), titleScanBytes)]), strings.TrimSpace(name))
	return s.writeNewLocked(slug, src, &metaRec{metaNames: metaNames{Title: title}})
}
