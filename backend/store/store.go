package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/voicebox/voicebox/backend/events"
)

// Kind says whether an entry is a saved mini-app or a plain page.
type Kind string

// Kinds.
const (
	KindApp  Kind = "app"
	KindPage Kind = "page"
)

// Source says which root an entry was discovered in.
type Source string

// Sources.
const (
	SourceWorkspace Source = "workspace"
	SourceShelf     Source = "shelf"
	SourceSandbox   Source = "sandbox"
)

// Entry is one discovered mini-app or page.
type Entry struct {
	AppID         string `json:"appId"`
	Slug          string `json:"slug"`
	Title         string `json:"title"`
	FileName      string `json:"fileName"`
	Source        Source `json:"source"`
	Sandbox       string `json:"sandbox,omitempty"`
	StoragePath   string `json:"storagePath"`
	WorkspacePath string `json:"workspacePath,omitempty"`
	// Folder is the folder a folder app owns (its FolderEntry's folder); "" for a single page.
	Folder    string    `json:"folder,omitempty"`
	SizeBytes int64     `json:"sizeBytes"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	Kind      Kind      `json:"kind"`
	HTML      string    `json:"html,omitempty"`
}

// Roots configures where the store looks.
type Roots struct {
	// Workspace is the open folder ("" for none).
	Workspace string
	// Data is the app data folder: the shelf is <Data>/mini-apps and
	// <Data>/sandboxes is always a sandbox root.
	Data string
	// SandboxRoots are extra sandbox roots (folders whose subfolders are
	// sandbox homes); backend/config reads them from VOICEBOX_SANDBOX_HOMES.
	SandboxRoots []string
	// Trash is the person's home trash ($XDG_DATA_HOME/Trash) that deletes
	// move files to; "" keeps them in <Data>/trash only (trash.go).
	Trash string
}

// MaxHTMLBytes bounds every HTML read and write.
const MaxHTMLBytes = 16 << 20

const (
	maxMetaBytes   = 1 << 20
	titleScanBytes = 64 << 10
	maxTitleBytes  = 256
	// debounce is how long the watcher gathers events before applying them.
	debounce = 50 * time.Millisecond
)

// Errors. Every error returned by the store wraps one of these, and its
// message starts with the code.
var (
	ErrNotFound    = errors.New("mini-app-not-found")
	ErrNameTaken   = errors.New("mini-app-name-taken")
	ErrOutsideRoot = errors.New("path-outside-root")
	ErrInvalidName = errors.New("invalid-name")
	ErrTooLarge    = errors.New("file-too-large")
	// ErrNoShelf is returned by saves when Roots.Data was empty.
	ErrNoShelf = errors.New("no-shelf")
)

// NameTakenError is returned (as *NameTakenError) when a save would take a
// shelf name owned by a different app. Nothing has been written.
type NameTakenError struct {
	Name  string // the shelf name (slug) asked for
	Owner Entry  // the app that owns it
}

func (e *NameTakenError) Error() string {
	owner := e.Owner.AppID
	if owner == "" {
		owner = e.Owner.FileName
	}
	if e.Owner.Title != "" && e.Owner.Title != owner {
		return fmt.Sprintf("%s: the name %q belongs to app %s (%q)", ErrNameTaken, e.Name, owner, e.Owner.Title)
	}
	return fmt.Sprintf("%s: the name %q belongs to app %s", ErrNameTaken, e.Name, owner)
}

// Is makes errors.Is(err, ErrNameTaken) true.
func (e *NameTakenError) Is(target error) bool { return target == ErrNameTaken }

// Store is a live, classified view of the mini-app roots. All methods are
// safe for concurrent use.
type Store struct {
	// opMu serialises everything that touches the file system state below
	// (scans, event application, saves, deletes, SetWorkspace).
	opMu      sync.Mutex
	workspace string // absolute, cleaned ("" for none)
	wsReal    string // workspace with symlinks resolved
	data      string
	extra     []string
	roots     []*rootSpec
	rootSet   map[string]*rootSpec
	dirs      map[string]*dirState
	pending   map[string]string // missing root -> watched existing ancestor
	watcher   *fsnotify.Watcher
	watched   map[string]bool
	// tempsCleaned is set once stale temp files were swept from the shelf.
	tempsCleaned bool
	// trash is where deletes move files and how to undo them (trash.go).
	trash trashState

	// mu guards snap, wsPublic and scanned.
	mu       sync.RWMutex
	snap     *snapshot
	wsPublic string
	scanned  []ScannedRoot
	// firstScan is closed once the first scan is done: reads wait for it.
	firstScan chan struct{}

	subs events.Fanout[struct{}] // change notices, closed on cancel

	// watch loop bookkeeping.
	evMu     sync.Mutex
	evPaths  map[string]struct{}
	evFull   bool
	kick     chan struct{}
	stop     func()
	stopDone chan struct{}
}

// Open configures the roots and scans them once. It does not watch; call
// Watch for live updates. Missing roots (workspace, shelf, sandboxes) are
// fine.
func Open(r Roots) (*Store, error) {
	s, err := newStore(r)
	if err != nil {
		return nil, err
	}
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.configureRoots()
	s.fullScanLocked()
	close(s.firstScan)
	return s, nil
}

// OpenInBackground is Open with the scan on a goroutine of its own: it returns
// at once, every read (List, Resolve, Get…) waits for the scan, and every
// write comes after it (the scan holds the lock writes take). A start that
// has other work to do meanwhile (the desktop shows its window) does not wait
// for a large workspace.
func OpenInBackground(r Roots) (*Store, error) {
	s, err := newStore(r)
	if err != nil {
		return nil, err
	}
	s.opMu.Lock()
	s.configureRoots()
	go func() {
		defer s.opMu.Unlock()
		if beforeBackgroundScan != nil {
			beforeBackgroundScan()
		}
		s.fullScanLocked()
		close(s.firstScan)
	}()
	return s, nil
}

// beforeBackgroundScan, when set (tests only), runs on OpenInBackground's
// goroutine before its scan.
var beforeBackgroundScan func()

func newStore(r Roots) (*Store, error) {
	s := &Store{
		dirs:      map[string]*dirState{},
		pending:   map[string]string{},
		watched:   map[string]bool{},
		subs:      events.Fanout[struct{}]{CloseOnCancel: true},
		evPaths:   map[string]struct{}{},
		kick:      make(chan struct{}, 1),
		snap:      emptySnapshot(),
		firstScan: make(chan struct{}),
	}
	var err error
	if r.Workspace != "" {
		if s.workspace, err = absClean(r.Workspace); err != nil {
			return nil, err
		}
	}
	if r.Data != "" {
		if s.data, err = absClean(r.Data); err != nil {
			return nil, err
		}
	}
	for _, p := range r.SandboxRoots {
		if p == "" {
			continue
		}
		ap, err := absClean(p)
		if err != nil {
			return nil, err
		}
		s.extra = append(s.extra, ap)
	}
	s.trash = newTrashState(r.Trash, s.data)
	return s, nil
}

func absClean(p string) (string, error) {
	if containsNUL(p) {
		return "", fmt.Errorf("%w: path contains NUL", ErrInvalidName)
	}
	a, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.Clean(a), nil
}

// Workspace returns the current workspace folder ("" for none).
func (s *Store) Workspace() string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.wsPublic
}

// SetWorkspace switches the workspace (File > Open Folder) and rescans. The
// folder must exist; "" closes the workspace.
func (s *Store) SetWorkspace(dir string) error {
	ws := ""
	if dir != "" {
		var err error
		if ws, err = absClean(dir); err != nil {
			return err
		}
		fi, err := os.Stat(ws)
		if err != nil {
			return fmt.Errorf("open workspace: %w", err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%w: %s is not a folder", ErrInvalidName, ws)
		}
	}
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.workspace = ws
	s.configureRoots()
	s.fullScanLocked()
	return nil
}

// Rescan re-reads every root (titles of unchanged files come from cache).
func (s *Store) Rescan() error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.fullScanLocked()
	return nil
}

// List returns the current snapshot: apps first, then by title. No HTML, no
// disk I/O. The slice is a copy the caller may keep.
func (s *Store) List() []Entry {
	e := s.snapshot().entries
	out := make([]Entry, len(e))
	copy(out, e)
	return out
}

// Subscribe returns a channel that receives a (coalesced) notification after
// each change of the list, and a cancel function that closes it.
func (s *Store) Subscribe() (<-chan struct{}, func()) {
	return s.subs.Subscribe(1)
}

func (s *Store) notify() {
	s.subs.Send(struct{}{})
}
