// Package documents keeps the files the person opened on purpose (command line, second launch, drag and
// drop, File › Open File…, File › Open Folder as App…). The room can read only what is in this table, by
// id: it can never name a path of its own, so a compromised page cannot use the File Viewer to read the
// disk. A folder opened (named on the command line, dropped, picked as an app) is its index.html, marked
// Folder: the person made that folder an app, so the page owns the files beside it (store.DocumentFolder);
// an index.html opened as a file does not, unless it lies where folders are apps.
package documents

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/voicebox/voicebox/backend/store"
)

// MaxBytes bounds what one document may hold; it matches the room's request limit.
const MaxBytes = 16 << 20

var (
	ErrNotFound = errors.New("document-not-found")
	ErrNotHTML  = errors.New("not-html")
	ErrTooLarge = errors.New("file-too-large")
)

// Doc is one opened file. Title is the page's as the store names pages (store.TitleOf), read when it was
// opened; Content is filled only by Read.
type Doc struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Title     string `json:"title"`
	Path      string `json:"path"`
	SizeBytes int64  `json:"sizeBytes"`
	// Folder: the person opened the page's folder as an app (not only the page), so it owns that folder.
	Folder  bool   `json:"folder,omitempty"`
	Content string `json:"content,omitempty"`
}

// Table holds the opened documents of one run. It is safe for concurrent use.
type Table struct {
	mu     sync.Mutex
	byID   map[string]Doc
	byPath map[string]string
	order  []string
}

// NewTable returns an empty table.
func NewTable() *Table { return &Table{byID: map[string]Doc{}, byPath: map[string]string{}} }

// Open adds the named files (relative names resolve against dir). A folder among them is opened as an app:
// its index.html, marked Folder (store.CheckAppFolder says which folders can be). It returns what it
// opened and one error per path it refused; opening the same file twice returns the same document.
func (t *Table) Open(dir string, paths []string) ([]Doc, []error) {
	var docs []Doc
	var errs []error
	for _, p := range paths {
		d, err := t.open(dir, p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		docs = append(docs, d)
	}
	return docs, errs
}

func (t *Table) open(dir, p string) (Doc, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	asFolder := false
	if info, err := os.Stat(p); err == nil && info.IsDir() {
		if err := store.CheckAppFolder(p); err != nil {
			return Doc{}, err
		}
		p, asFolder = filepath.Join(p, store.FolderEntry), true
	}
	if ext := strings.ToLower(filepath.Ext(p)); ext != ".html" && ext != ".htm" {
		return Doc{}, fmt.Errorf("%w: %s is not an .html file", ErrNotHTML, p)
	}
	info, err := os.Stat(p)
	if err != nil {
		return Doc{}, fmt.Errorf("open %s: %w", p, err)
	}
	if !info.Mode().IsRegular() {
		return Doc{}, fmt.Errorf("%w: %s is not a regular file", ErrNotHTML, p)
	}
	if info.Size() > MaxBytes {
		return Doc{}, fmt.Errorf("%w: %s is larger than %d bytes", ErrTooLarge, p, MaxBytes)
	}
	head, _ := readRegular(p, titleScanBytes) // a page that cannot be read now is named by its file
	title := store.TitleOf(string(head), filepath.Base(p))
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.byPath[p]; ok {
		d := t.byID[id]
		d.SizeBytes, d.Title = info.Size(), title
		d.Folder = d.Folder || asFolder // opened as a folder once, it stays the person's app
		t.byID[id] = d
		return d, nil
	}
	d := Doc{ID: newID(), Name: filepath.Base(p), Title: title, Path: p, SizeBytes: info.Size(), Folder: asFolder}
	t.byID[d.ID] = d
	t.byPath[p] = d.ID
	t.order = append(t.order, d.ID)
	return d, nil
}

// List returns the opened documents, oldest first, without content.
func (t *Table) List() []Doc {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Doc, 0, len(t.order))
	for _, id := range t.order {
		out = append(out, t.byID[id])
	}
	return out
}

// Read returns a document with its current content from disk.
func (t *Table) Read(id string) (Doc, error) {
	t.mu.Lock()
	d, ok := t.byID[id]
	t.mu.Unlock()
	if !ok {
		return Doc{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	b, err := readRegular(d.Path, MaxBytes+1)
	if err != nil {
		return Doc{}, err
	}
	if len(b) > MaxBytes {
		return Doc{}, fmt.Errorf("%w: %s", ErrTooLarge, d.Path)
	}
	d.Content = string(b)
	d.SizeBytes = int64(len(b))
	return d, nil
}

// titleScanBytes is how much of a page is read for its title when it is opened.
const titleScanBytes = 64 << 10

// readRegular reads at most limit bytes of the regular file at path (a FIFO swapped in does not block).
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is no longer a regular file", ErrNotHTML, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}

func newID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return "doc_" + hex.EncodeToString(b[:])
}
