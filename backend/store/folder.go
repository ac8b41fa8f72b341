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

// FolderEntry is the page that makes a folder an app folder: the app is listed, launched and saved by it,
// and it owns the whole folder (see the package doc, "Folder apps").
const FolderEntry = "index.html"

// Bounds of folder apps, named once.
const (
	// MaxFolderFileBytes bounds one file of an app folder: the asset server refuses a bigger one without
	// reading it, and a shelf copy refuses to take it.
	MaxFolderFileBytes = 32 << 20
	// MaxFolderFiles bounds the files and folders of a shelf copy (and of an opened index.html's folder).
	MaxFolderFiles = 2000
	// MaxFolderBytes bounds the bytes of a shelf copy (and of an opened index.html's folder).
	MaxFolderBytes = 64 << 20
	// maxFolderDepth bounds how many folders deep a shelf copy goes.
	maxFolderDepth = 16
	// maxDirEntries bounds the entries a scan reads from one folder: a folder with 100,000 files costs
	// what one with 10,000 does (pages past the bound are not listed).
	maxDirEntries = 10000
)

// Folder is an app folder opened for serving. It holds the folder itself (an os.Root opened once, at
// launch), so renaming or replacing the path afterwards changes nothing, and every file is opened through
// it at request time: live edits show on reload, and nothing outside the folder is ever reached.
type Folder struct {
	root *os.Root
	path string
}

// Path is where the folder was when it was opened.
func (f *Folder) Path() string { return f.path }

// Close releases the folder; requests still being served finish first (os.Root counts its users).
func (f *Folder) Close() error { return f.root.Close() }

// Open opens rel, a slash-separated path inside the folder, for reading, and returns it with its size. It
// refuses, with ErrNotFound, a name ValidFolderPath refuses (dotfiles, "..", empty elements, backslashes,
// NUL), a link that leaves the folder or loops, and anything that is not a regular file: a FIFO is opened
// without blocking and refused by its type, never read. A file over MaxFolderFileBytes is refused with
// ErrTooLarge, unread. The type and size come from the open file, so a file swapped for a link or a FIFO
// between a check and the read cannot be served: there is no separate check.
func (f *Folder) Open(rel string) (*os.File, int64, error) {
	if !ValidFolderPath(rel) {
		return nil, 0, fmt.Errorf("%w: %q is not a file an app may load", ErrNotFound, rel)
	}
	file, err := f.root.OpenFile(rel, openReadFlags, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %s: %v", ErrNotFound, rel, err)
	}
	st, err := statOpen(file)
	if err != nil || !st.mode.IsRegular() {
		file.Close()
		return nil, 0, fmt.Errorf("%w: %s is not a regular file", ErrNotFound, rel)
	}
	if st.size > MaxFolderFileBytes {
		file.Close()
		return nil, 0, fmt.Errorf("%w: %s is %d bytes (max %d)", ErrTooLarge, rel, st.size, MaxFolderFileBytes)
	}
	return file, st.size, nil
}

// ReadPage reads a page of the folder (bounded by MaxHTMLBytes), as Open opens it.
func (f *Folder) ReadPage(rel string) ([]byte, error) {
	file, size, err := f.Open(rel)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return readPage(file, size, rel)
}

// ValidFolderPath says whether rel may name a file of an app folder: slash-separated, every element
// non-empty and not starting with "." (no dotfiles, no "." or ".."), and no backslash, colon or NUL
// anywhere (a Windows separator, drive or stream). Case does not matter to any of these rules.
func ValidFolderPath(rel string) bool {
	if rel == "" || strings.ContainsAny(rel, "\\:\x00") {
		return false
	}
	for _, el := range strings.Split(rel, "/") {
		if el == "" || el[0] == '.' {
			return false
		}
	}
	return true
}

// openFolderIn opens the folder rel of the root folder rootPath, never through a link that leaves it.
func openFolderIn(rootPath, rel string) (*Folder, error) {
	r, err := os.OpenRoot(rootPath)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	sub, err := r.OpenRoot(rel)
	if err != nil {
		if isEscape(err) {
			return nil, errOutside(rel)
		}
		return nil, err
	}
	return &Folder{root: sub, path: filepath.Join(rootPath, filepath.FromSlash(rel))}, nil
}

// GetApp is Get plus the folder the entry owns, opened for serving (nil when it owns nothing but itself:
// a single page). The caller closes the folder.
func (s *Store) GetApp(ref string) (Entry, *Folder, error) {
	e, err := s.Get(ref)
	if err != nil {
		return Entry{}, nil, err
	}
	it := s.snapshot().byID[e.AppID]
	if it == nil || it.folderRel == "" {
		return e, nil, nil
	}
	f, err := openFolderIn(it.rootPath, it.folderRel)
	if err != nil {
		return Entry{}, nil, err
	}
	return e, f, nil
}

// DocumentFolder decides whether a file the person opened (command line, drop, File › Open File…) owns its
// folder, and opens it when it does (nil, nil: it owns nothing but itself). Only a folder the person made
// an app owns its files (the package doc, "Folder apps"):
//
//   - asFolder: the person opened the folder itself (File › Open Folder as App…, a folder dropped on the
//     window or named on the command line: backend/documents);
//   - or the page's folder lies below the workspace, the shelf or a sandbox root (a sandbox home or a
//     folder in one), where folders are apps.
//
// Anywhere else (~/Downloads, the desktop, a mail attachment's folder) an index.html owns nothing but
// itself: the files beside it are the person's, and a page that guessed their names would read them. Even
// an owned folder must look like an app's (CheckAppFolder); one that does not leaves the page alone.
func (s *Store) DocumentFolder(page string, asFolder bool) (*Folder, error) {
	if filepath.Base(page) != FolderEntry {
		return nil, nil
	}
	dir := filepath.Dir(filepath.Clean(page))
	if !asFolder && !s.appPlace(dir) {
		return nil, nil
	}
	f, err := openAppFolder(dir)
	if errors.Is(err, ErrNotAppFolder) || errors.Is(err, ErrFolderTooLarge) || errors.Is(err, ErrTooLarge) || errors.Is(err, ErrUnsupportedFile) {
		return nil, nil
	}
	return f, err
}

// appPlace says whether dir lies below one of the store's roots (the workspace, the shelf, a sandbox
// root), comparing real paths: a link in the workspace to ~/Downloads does not make Downloads an app.
func (s *Store) appPlace(dir string) bool {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	for _, r := range s.Scanned() {
		root, err := filepath.EvalSymlinks(r.Path)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(root, real); err == nil && rel != "." && rel != ".." &&
			!strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// CheckAppFolder says why dir cannot be an app folder the person opens as one, or nil: it must hold an
// index.html (a regular file), must not be the home folder or a file system root, and must be within
// MaxFolderFiles and MaxFolderBytes (counted as a shelf copy counts, reading at most that many entries).
func CheckAppFolder(dir string) error {
	f, err := openAppFolder(dir)
	if err != nil {
		return err
	}
	return f.Close()
}

// openAppFolder opens dir as an app folder after CheckAppFolder's checks.
func openAppFolder(dir string) (*Folder, error) {
	dir = filepath.Clean(dir)
	if filepath.Dir(dir) == dir {
		return nil, fmt.Errorf("%w: %s is the root of a file system", ErrNotAppFolder, dir)
	}
	if home, err := os.UserHomeDir(); err == nil && sameDir(home, dir) {
		return nil, fmt.Errorf("%w: %s is the home folder: its files are the person's", ErrNotAppFolder, dir)
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	if st, err := r.Stat(FolderEntry); err != nil || !st.Mode().IsRegular() {
		r.Close()
		return nil, fmt.Errorf("%w: %s has no %s", ErrNotAppFolder, dir, FolderEntry)
	}
	if _, err := planFolder(r); err != nil {
		r.Close()
		return nil, err
	}
	return &Folder{root: r, path: dir}, nil
}

func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// readDirCapped reads at most max entries of an open folder (in chunks, so a huge folder is never read
// whole). full reports that the folder had more.
func readDirCapped(d *os.File, max int) (des []fs.DirEntry, full bool, err error) {
	for len(des) <= max {
		chunk, err := d.ReadDir(256)
		des = append(des, chunk...)
		if err == io.EOF || (err == nil && len(chunk) == 0) {
			return des, false, nil
		}
		if err != nil {
			return des, false, err
		}
	}
	return des[:max], true, nil
}
