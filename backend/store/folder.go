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
// folder, and opens it when it does. It owns nothing but itself (nil, nil) unless it is the folder's
// FolderEntry and the folder looks like an app folder: not the home folder, not a file system root, and
// within MaxFolderFiles and MaxFolderBytes (counted as a shelf copy counts, reading at most that many
// entries). Otherwise an index.html opened from a Downloads or home folder would hand its siblings (the
// person's files) to the page.
func DocumentFolder(page string) (*Folder, error) {
	if filepath.Base(page) != FolderEntry {
		return nil, nil
	}
	dir := filepath.Dir(filepath.Clean(page))
	if filepath.Dir(dir) == dir {
		return nil, nil
	}
	if home, err := os.UserHomeDir(); err == nil && sameDir(home, dir) {
		return nil, nil
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	if _, err := planFolder(r); err != nil {
		r.Close()
		if errors.Is(err, ErrFolderTooLarge) || errors.Is(err, ErrTooLarge) || errors.Is(err, ErrUnsupportedFile) {
			return nil, nil
		}
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
