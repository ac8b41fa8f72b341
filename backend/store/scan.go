package store

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// fileRec is one .html file (or, on the shelf, one .meta.json) in a folder.
type fileRec struct {
	name    string
	size    int64
	mtime   time.Time
	btime   time.Time
	title   string
	symlink bool     // found by name, read through the root (see fileViaRoot)
	meta    *metaRec // for .meta.json files
	bad     bool     // failed to read: not listed
	tmpl    *item    // cached file-only part of its entry (see fileItem)
}

// dirState is the discovered content of one walked folder.
type dirState struct {
	rs      *rootSpec
	path    string
	rel     string // slash path relative to the root, "." for the root
	level   int
	files   map[string]*fileRec // .html files by name
	metas   map[string]*fileRec // shelf only: .meta.json by base name
	subdirs map[string]bool     // walked child folder names
}

// scanner walks folders and fills dirState values. File reads (titles,
// records) are queued and done in parallel at the end.
type scanner struct {
	s     *Store
	old   map[string]*dirState // cache of the previous state
	out   map[string]*dirState // where new states go
	jobs  []readJob
	roots []*os.Root
	// dirFiles are open folders that queued jobs read from (openat);
	// closed by runJobs, which runs whenever too many are open.
	dirFiles []*os.File
}

// maxOpenDirs bounds the folders kept open for queued reads.
const maxOpenDirs = 64

type readJob struct {
	root *os.Root
	dir  *os.File // the folder, for a single-component no-follow open; nil: go through root
	rel  string
	rec  *fileRec
	meta bool
}

func (sc *scanner) close() {
	sc.closeDirs()
	for _, r := range sc.roots {
		r.Close()
	}
	sc.roots = nil
}

func (sc *scanner) closeDirs() {
	for _, f := range sc.dirFiles {
		f.Close()
	}
	sc.dirFiles = nil
}

// scanRoot walks a whole root. It reports false when the root is missing.
func (sc *scanner) scanRoot(rs *rootSpec) bool {
	fi, err := os.Stat(rs.path)
	if err != nil || !fi.IsDir() {
		return false
	}
	r, err := os.OpenRoot(rs.path)
	if err != nil {
		return false
	}
	sc.roots = append(sc.roots, r)
	return sc.scanDir(r, rs, ".", 0, true) == nil
}

// scanDir reads one folder (watching it first, so nothing created after the
// read is missed) and recurses into child folders: all of them when
// recurseKnown, otherwise only those not already in sc.out.
func (sc *scanner) scanDir(r *os.Root, rs *rootSpec, rel string, level int, recurseKnown bool) error {
	abs := rs.path
	if rel != "." {
		abs = filepath.Join(rs.path, filepath.FromSlash(rel))
	}
	sc.s.watchDir(abs)
	f, err := r.Open(rel)
	if err != nil {
		return err
	}
	des, capped, err := readDirCapped(f, maxDirEntries)
	if err != nil {
		f.Close()
		return err
	}
	queued := len(sc.jobs)
	prev := sc.old[abs]
	ds := &dirState{rs: rs, path: abs, rel: rel, level: level, files: map[string]*fileRec{}, subdirs: map[string]bool{}}
	if rs.kind == rootShelf && level == 0 {
		ds.metas = map[string]*fileRec{}
	}
	var subdirs []string
	for _, de := range des {
		name := de.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		t := de.Type()
		switch {
		case t.IsDir():
			if level < rs.maxDirLevel() {
				child := filepath.Join(abs, name)
				if _, other := sc.s.rootSet[child]; !other {
					subdirs = append(subdirs, name)
				}
			}
		case ds.metas != nil && strings.HasSuffix(name, metaSuffix):
			if !t.IsRegular() {
				continue // records are never read through links
			}
			base := strings.TrimSuffix(name, metaSuffix)
			var old *fileRec
			if prev != nil && prev.metas != nil {
				old = prev.metas[base]
			}
			rec := fileFromCache(de, old)
			if rec == nil {
				rec = &fileRec{name: name}
				sc.jobs = append(sc.jobs, readJob{root: r, dir: f, rel: relJoin(rel, name), rec: rec, meta: true})
			}
			ds.metas[base] = rec
		case hasHTMLExt(name) && rs.listsFile(level, name):
			var old *fileRec
			if prev != nil {
				old = prev.files[name]
			}
			if t&fs.ModeSymlink != 0 {
				sc.fileViaRoot(r, ds, old, name)
				continue
			}
			if !t.IsRegular() {
				continue
			}
			rec := fileFromCache(de, old)
			if rec == nil {
				rec = &fileRec{name: name}
				sc.jobs = append(sc.jobs, readJob{root: r, dir: f, rel: relJoin(rel, name), rec: rec})
			}
			ds.files[name] = rec
		}
	}
	if capped && rs.ownsFolders(level) && ds.files[FolderEntry] == nil {
		// The bound cut the listing short: an app folder is still known by its
		// index.html, whatever its place in the folder.
		var old *fileRec
		if prev != nil {
			old = prev.files[FolderEntry]
		}
		sc.fileViaRoot(r, ds, old, FolderEntry)
	}
	if len(sc.jobs) > queued {
		sc.dirFiles = append(sc.dirFiles, f)
		if len(sc.dirFiles) >= maxOpenDirs {
			sc.runJobs()
		}
	} else {
		f.Close()
	}
	sc.out[abs] = ds
	for _, name := range subdirs {
		child := filepath.Join(abs, name)
		if !recurseKnown {
			if _, known := sc.out[child]; known {
				ds.subdirs[name] = true
				continue
			}
		}
		if err := sc.scanDir(r, rs, relJoin(rel, name), level+1, recurseKnown); err == nil {
			ds.subdirs[name] = true
		}
	}
	return nil
}

// fileViaRoot adds the .html file name of ds found by its name rather than
// by a listed entry (a link, or a FolderEntry past the listing bound): it is
// stat'ed and read through the root, following links only inside it.
func (sc *scanner) fileViaRoot(r *os.Root, ds *dirState, old *fileRec, name string) {
	fi, err := r.Stat(relJoin(ds.rel, name))
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	if old != nil && old.symlink && old.size == fi.Size() && old.mtime.Equal(fi.ModTime()) {
		ds.files[name] = old
		return
	}
	rec := &fileRec{name: name, symlink: true}
	sc.jobs = append(sc.jobs, readJob{root: r, rel: relJoin(ds.rel, name), rec: rec})
	ds.files[name] = rec
}

// fileFromCache returns the previous record when the file's size and mtime
// are unchanged, nil when it must be read.
func fileFromCache(de fs.DirEntry, old *fileRec) *fileRec {
	if old == nil || old.symlink || old.bad {
		return nil
	}
	// Folders opened through os.Root stat their entries while listing, so
	// Info costs no system call here.
	size, mtime, err := statEntry(de)
	if err != nil || size != old.size || !mtime.Equal(old.mtime) {
		return nil
	}
	return old
}

// runJobs performs the queued reads, in parallel when there are many.
func (sc *scanner) runJobs() {
	jobs := sc.jobs
	sc.jobs = nil
	defer sc.closeDirs()
	if len(jobs) == 0 {
		return
	}
	workers := runtime.GOMAXPROCS(0)
	if workers > 4 {
		workers = 4
	}
	if len(jobs) < 32 || workers < 2 {
		buf := make([]byte, titleScanBytes)
		for _, j := range jobs {
			j.run(buf)
		}
		return
	}
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, titleScanBytes)
			for {
				mu.Lock()
				i := next
				next += 16
				mu.Unlock()
				if i >= len(jobs) {
					return
				}
				end := min(i+16, len(jobs))
				for _, j := range jobs[i:end] {
					j.run(buf)
				}
			}
		}()
	}
	wg.Wait()
}

func (j readJob) run(buf []byte) {
	var st openStat
	var n int
	var err error
	if j.dir != nil {
		st, n, err = readHeadAt(j.dir, j.root, j.rel, buf)
	} else {
		st, n, err = readHeadRoot(j.root, j.rel, buf)
	}
	if err != nil || !st.mode.IsRegular() {
		j.rec.bad = true
		return
	}
	j.rec.size, j.rec.mtime, j.rec.btime = st.size, st.mtime, st.btime
	if !j.meta {
		j.rec.title = extractTitle(buf[:n])
		return
	}
	if st.size > maxMetaBytes {
		j.rec.bad = true
		return
	}
	b := buf[:n]
	if int64(n) < st.size { // larger than the buffer: read it whole
		r, err := j.root.OpenFile(j.rel, openReadFlags, 0)
		if err != nil {
			j.rec.bad = true
			return
		}
		b, err = io.ReadAll(io.LimitReader(r, maxMetaBytes+1))
		r.Close()
		if err != nil {
			j.rec.bad = true
			return
		}
	}
	m, err := parseMeta(b)
	if err != nil {
		j.rec.bad = true
		return
	}
	j.rec.meta = m
}

// readHeadRoot opens rel through the root (links followed only inside it),
// stats it and reads up to len(buf) bytes of a regular file.
func readHeadRoot(root *os.Root, rel string, buf []byte) (openStat, int, error) {
	f, err := root.OpenFile(rel, openReadFlags, 0)
	if err != nil {
		return openStat{}, 0, err
	}
	defer f.Close()
	st, err := statOpen(f)
	if err != nil || !st.mode.IsRegular() {
		return st, 0, err
	}
	n, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return st, n, err
}

// fullScanLocked rescans every root and rebuilds the snapshot. Caller holds
// opMu.
func (s *Store) fullScanLocked() {
	for attempt := 0; ; attempt++ {
		oldWatched := s.watched
		if s.watcher != nil {
			// Re-add every watch: a folder removed and recreated lost its
			// watch without our bookkeeping knowing.
			s.watched = map[string]bool{}
		}
		sc := &scanner{s: s, old: s.dirs, out: map[string]*dirState{}}
		pending := map[string]string{}
		for _, rs := range s.roots {
			if !sc.scanRoot(rs) {
				pending[rs.path] = ""
			}
		}
		sc.runJobs()
		sc.close()
		s.dirs = sc.out
		s.dropBadFiles()
		s.pending = pending
		s.syncWatches()
		if s.watcher != nil {
			for p := range oldWatched {
				if !s.watched[p] {
					s.watcher.Remove(p)
				}
			}
		}
		// A root created between its check and the watch on its ancestor
		// would be missed: look again.
		appeared := false
		for root := range pending {
			if fi, err := os.Stat(root); err == nil && fi.IsDir() {
				appeared = true
			}
		}
		if !appeared || attempt >= 2 {
			break
		}
	}
	s.rebuildLocked()
}

// refreshDirsLocked re-reads the given folders (not their known children),
// dropping folders that are gone. It reports false when a full rescan is
// needed instead (a root vanished or appeared). Caller holds opMu.
func (s *Store) refreshDirsLocked(paths []string) bool {
	sort.Strings(paths)
	sc := &scanner{s: s, out: s.dirs}
	old := map[string]*dirState{}
	sc.old = old
	rootsOpen := map[*rootSpec]*os.Root{}
	defer sc.close()
	done := map[string]bool{}
	for _, p := range paths {
		if done[p] {
			continue
		}
		done[p] = true
		ds, ok := s.dirs[p]
		if !ok {
			continue
		}
		r := rootsOpen[ds.rs]
		if r == nil {
			var err error
			r, err = os.OpenRoot(ds.rs.path)
			if err != nil {
				return false // the root itself is gone
			}
			rootsOpen[ds.rs] = r
			sc.roots = append(sc.roots, r)
		}
		old[p] = ds
		delete(s.dirs, p)
		err := sc.scanDir(r, ds.rs, ds.rel, ds.level, false)
		nds := s.dirs[p]
		if err != nil || nds == nil {
			if ds.rel == "." {
				return false
			}
			s.dirs[p] = ds // restore, so its whole subtree is dropped
			s.dropSubtree(p)
			if parent := s.dirs[filepath.Dir(p)]; parent != nil {
				delete(parent.subdirs, filepath.Base(p))
			}
			continue
		}
		// Children that disappeared.
		for name := range ds.subdirs {
			if !nds.subdirs[name] {
				s.dropSubtree(filepath.Join(p, name))
			}
		}
	}
	sc.runJobs()
	s.dropBadFiles()
	s.syncWatches()
	return true
}

func (s *Store) dropSubtree(p string) {
	ds := s.dirs[p]
	if ds == nil {
		return
	}
	delete(s.dirs, p)
	for name := range ds.subdirs {
		s.dropSubtree(filepath.Join(p, name))
	}
}

// dropBadFiles forgets files whose read failed (vanished, escaped, not
// regular) so they are read again next time.
func (s *Store) dropBadFiles() {
	for _, ds := range s.dirs {
		for n, f := range ds.files {
			if f.bad {
				delete(ds.files, n)
			}
		}
		for n, f := range ds.metas {
			if f.bad || f.meta == nil {
				delete(ds.metas, n)
			}
		}
	}
}
