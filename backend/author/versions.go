package author

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/voicebox/voicebox/backend/atomicfile"
	"github.com/voicebox/voicebox/backend/store"
)

// Where the Workshop keeps things, under the data folder.
const (
	// SandboxDir holds the written apps' homes, <data>/sandbox/<slug>/index.html: a sandbox root of the
	// store that only Voicebox writes (store.WrittenAppsDir; beside <data>/sandboxes, the person's), so a
	// written app is listed as a sandbox page, and saving it promotes it to the shelf like any page.
	SandboxDir = store.WrittenAppsDir
	// VersionsDir holds each app's versions, <data>/versions/<slug>/NNNN.html and index.json: outside the
	// app's home, because a folder app serves the files beside its index.html, and outside every root the
	// store walks, so no version is ever listed or served.
	VersionsDir = "versions"
	PageName    = "index.html" // a written app's page in its home
	indexName   = "index.json" // the version list, oldest first
)

// Bounds of the Workshop.
const (
	// MaxVersions is how many versions are kept per app; a write beyond it drops the oldest.
	MaxVersions = 30
	// MaxRequestRunes bounds the request text kept with a version (create_mini_app's description bound).
	MaxRequestRunes = 4000
	maxReasonRunes  = 500
	maxModelRunes   = 100
	// maxFoundBytes bounds a page changed outside the Workshop that a write keeps as a "found" version.
	maxFoundBytes = 8 << 20
	maxSlugBytes  = 80 // store.SlugOf's 64, a "-NNNN" suffix, room to spare
	maxSlugTries  = 1000
)

// Version sources: what made a version.
const (
	SourceCreate  = "create"  // the code model wrote the app
	SourceEdit    = "edit"    // the code model changed it
	SourceWrite   = "write"   // an MCP client handed the HTML over (write_mini_app)
	SourceCopy    = "copy"    // a copy of a workspace page or shelf app, made to edit it (never the original)
	SourceRevert  = "revert"  // Revert: a copy of an earlier version
	SourceRestore = "restore" // Restore: a copy of a chosen version
	SourceFound   = "found"   // the page as found on disk, changed outside the Workshop, kept before a write
)

// Version outcomes: how the host's check of the written app went ("" until it is checked, see Mark).
const (
	OutcomeOK          = "ok"
	OutcomeCheckFailed = "check-failed"
)

// VersionInfo describes one version. Write fills in Number, Time, Bytes and SHA256; the caller gives the
// rest. Request, Model and Reason are kept bounded (MaxRequestRunes, 100 and 500 characters).
type VersionInfo struct {
	Number  int       `json:"number"` // from 1, never reused for an app
	Time    time.Time `json:"time"`
	Source  string    `json:"source"`         // one of the Source constants
	From    int       `json:"from,omitempty"` // revert, restore: the version whose content this is
	Request string    `json:"request,omitempty"`
	Model   string    `json:"model,omitempty"`
	Outcome string    `json:"outcome,omitempty"` // OutcomeOK, OutcomeCheckFailed or "" (not checked)
	Reason  string    `json:"reason,omitempty"`  // why the check failed, short
	Bytes   int       `json:"bytes"`
	SHA256  string    `json:"sha256"` // of the content, hex
}

// Errors of the Workshop.
var (
	ErrNoEarlierVersion = errors.New("author: no earlier version to go back to")
	ErrNoVersion        = errors.New("author: no such version is kept")
	ErrBadSlug          = errors.New("author: not a slug of a written app")
)

// Workshop is the home of written apps: <data>/sandboxes/<slug>/index.html, and their versions kept
// outside the app's folder in <data>/versions/<slug>/ (NNNN.html, the content of version NNNN, and
// index.json, the list of kept versions, oldest first).
//
// Rules:
//
//   - Slugs are store.SlugOf's: lower-case ASCII letters, digits and "-", starting with a letter or digit,
//     at most 80 bytes. Anything else (a separator, a dot, "..") is ErrBadSlug, so a slug is always one
//     plain folder name.
//   - Every file is reached through an os.Root opened on <data>/sandboxes or <data>/versions, as the store
//     reaches its roots, so nothing outside them is ever read or written. A home, version folder or page
//     that is a symbolic link, even one pointing inside, is refused: it could name another app's files.
//   - Every file is written atomically (backend/atomicfile). A write stores the version's content, then the
//     version list, then the page: a crash leaves the previous list and page, or the new list with the
//     page one version behind it (the list is the record; nothing is lost either way).
//   - A page changed on disk by someone else (its content is none of the kept versions) is kept as a
//     "found" version before a write, revert or restore replaces it.
//   - At most MaxVersions versions are kept per app; a write beyond that drops the oldest. Numbers keep
//     counting up.
//   - Versions survive restarts: everything is on disk, nothing is cached.
//
// One mutex serialises the Workshop's operations: two concurrent writes to one app both land, as two
// versions. NewSlug's folder creation is exclusive on disk, so two processes never get the same slug; but
// two processes writing one app could each number a version alike (the later list wins), so a host keeps
// one Workshop per data folder.
type Workshop struct {
	sandboxes, versions string // <data>/sandboxes and <data>/versions, absolute and clean
	sandboxesReal       string // sandboxes with its links resolved, for Owns
	mu                  sync.Mutex
}

// OpenWorkshop opens the Workshop of the data folder dataDir, creating <data>/sandboxes and
// <data>/versions when missing.
func OpenWorkshop(dataDir string) (*Workshop, error) {
	data, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, fmt.Errorf("author: data folder: %w", err)
	}
	w := &Workshop{sandboxes: filepath.Join(data, SandboxDir), versions: filepath.Join(data, VersionsDir)}
	for _, dir := range []string{w.sandboxes, w.versions} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("author: %w", err)
		}
	}
	w.sandboxesReal = w.sandboxes
	if real, err := filepath.EvalSymlinks(w.sandboxes); err == nil {
		w.sandboxesReal = real
	}
	return w, nil
}

// Root is <data>/sandboxes, the sandbox root that holds the written apps' homes.
func (w *Workshop) Root() string { return w.sandboxes }

// Path is the page of the app slug, <data>/sandboxes/<slug>/index.html, or "" for an invalid slug.
func (w *Workshop) Path(slug string) string {
	if !ValidSlug(slug) {
		return ""
	}
	return filepath.Join(w.sandboxes, slug, PageName)
}

// Owns says whether path is a written app's page, and which: <data>/sandboxes/<slug>/index.html (after
// cleaning; the data folder's links resolved or not) whose version list exists, so a page the person put
// in a sandbox home is not taken for one the Workshop wrote.
func (w *Workshop) Owns(path string) (slug string, ok bool) {
	if !filepath.IsAbs(path) {
		return "", false
	}
	p := filepath.Clean(path)
	home := filepath.Dir(p)
	slug = filepath.Base(home)
	if filepath.Base(p) != PageName || !ValidSlug(slug) {
		return "", false
	}
	if root := filepath.Dir(home); root != w.sandboxes && root != w.sandboxesReal {
		return "", false
	}
	vr, err := w.openDir(w.versions, slug, false)
	if err != nil {
		return "", false
	}
	defer vr.Close()
	if fi, err := vr.Lstat(indexName); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return slug, true
}

// ValidSlug says whether s is a slug as store.SlugOf makes them (plus NewSlug's "-N" suffix): 1 to 80
// bytes of a-z, 0-9 and "-", not starting with "-".
func ValidSlug(s string) bool {
	if s == "" || len(s) > maxSlugBytes || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// NewSlug reserves a fresh slug for an app titled title: store.SlugOf(title), or with "-2", "-3", … when
// <data>/sandboxes/<slug> or <data>/versions/<slug> exists. It creates the empty home folder, exclusively,
// so two concurrent calls (in this process or another) never get the same slug.
func (w *Workshop) NewSlug(title string) (string, error) {
	base := store.SlugOf(title)
	if !ValidSlug(base) {
		return "", fmt.Errorf("%w: %q", ErrBadSlug, base)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	sr, err := os.OpenRoot(w.sandboxes)
	if err != nil {
		return "", fmt.Errorf("author: %w", err)
	}
	defer sr.Close()
	vr, err := os.OpenRoot(w.versions)
	if err != nil {
		return "", fmt.Errorf("author: %w", err)
	}
	defer vr.Close()
	for i := 1; i <= maxSlugTries; i++ {
		slug := base
		if i > 1 {
			slug = fmt.Sprintf("%s-%d", base, i)
		}
		if _, err := vr.Lstat(slug); !errors.Is(err, os.ErrNotExist) {
			continue // versions of an app whose home is gone: the name stays theirs
		}
		err := sr.Mkdir(slug, 0o755)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("author: reserve %s: %w", slug, err)
		}
		return slug, nil
	}
	return "", fmt.Errorf("author: no free slug for %q after %d tries", base, maxSlugTries)
}

// Discard gives back a slug NewSlug reserved for a build that wrote nothing: its empty home goes. A home
// with anything in it, or an app with versions, stays as it is.
func (w *Workshop) Discard(slug string) error {
	if !ValidSlug(slug) {
		return fmt.Errorf("%w: %q", ErrBadSlug, slug)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	vr, err := os.OpenRoot(w.versions)
	if err != nil {
		return fmt.Errorf("author: %w", err)
	}
	defer vr.Close()
	if _, err := vr.Lstat(slug); !errors.Is(err, os.ErrNotExist) {
		return nil // it has versions: it is an app
	}
	sr, err := os.OpenRoot(w.sandboxes)
	if err != nil {
		return fmt.Errorf("author: %w", err)
	}
	defer sr.Close()
	if err := sr.Remove(slug); err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EEXIST) {
		return fmt.Errorf("author: discard %s: %w", slug, err)
	}
	return nil
}

// Write atomically writes html as the app's page and records it as a new version, whose number it
// returns; the previous content stays available as the version before. v gives the version's Source
// (create, edit, write or copy), Request, Model and, when known, Outcome and Reason. The home is created
// when missing. html must be at most MaxPageBytes; Write does not judge it as HTML (CheckPage does).
func (w *Workshop) Write(slug string, html []byte, v VersionInfo) (int, error) {
	switch v.Source {
	case SourceCreate, SourceEdit, SourceWrite, SourceCopy:
	default:
		return 0, fmt.Errorf("author: a write's source is create, edit, write or copy, not %q", v.Source)
	}
	if len(html) > MaxPageBytes {
		return 0, fmt.Errorf("author: the page is %d bytes, over the %d-byte bound", len(html), MaxPageBytes)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	a, err := w.open(slug, true)
	if err != nil {
		return 0, err
	}
	defer a.close()
	if _, err := a.keepFound(); err != nil {
		return 0, err
	}
	v.From = 0
	return a.write(html, v)
}

// Versions lists the app's kept versions, newest first (none for an app never written).
func (w *Workshop) Versions(slug string) ([]VersionInfo, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	a, err := w.open(slug, false)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer a.close()
	list, err := a.readIndex()
	if err != nil {
		return nil, err
	}
	out := make([]VersionInfo, len(list))
	for i, v := range list {
		out[len(list)-1-i] = v
	}
	return out, nil
}

// Read returns the content of version n, ErrNoVersion when it is not kept.
func (w *Workshop) Read(slug string, n int) ([]byte, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	a, err := w.open(slug, false)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s has no versions", ErrNoVersion, slug)
	}
	if err != nil {
		return nil, err
	}
	defer a.close()
	list, err := a.readIndex()
	if err != nil {
		return nil, err
	}
	for _, v := range list {
		if v.Number == n {
			return a.readVersion(v)
		}
	}
	return nil, fmt.Errorf("%w: %s version %d", ErrNoVersion, slug, n)
}

// Current returns the app's page as it is on disk (at most 8 MiB; a link or a non-regular file is
// refused).
func (w *Workshop) Current(slug string) ([]byte, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	a, err := w.open(slug, false)
	if err != nil {
		return nil, err
	}
	defer a.close()
	return readRegular(a.home, PageName, maxFoundBytes)
}

// Revert goes back one version: it writes the version before the current one as a new version (source
// "revert"), so a revert is itself undone by Restore. "The version before" walks back in time like an
// editor's undo: after a write it is the newest earlier version; after a revert it is the one before the
// version that revert brought back, so reverting twice goes back two steps. Versions whose content is the
// current page's are skipped (going back to them would change nothing). ErrNoEarlierVersion when there
// is none.
func (w *Workshop) Revert(slug string) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	a, page, list, err := w.history(slug, ErrNoEarlierVersion)
	if err != nil {
		return 0, err
	}
	defer a.close()
	if len(list) == 0 {
		return 0, fmt.Errorf("%w: %s has no versions", ErrNoEarlierVersion, slug)
	}
	cur := list[len(list)-1]
	anchor := cur.Number
	if cur.Source == SourceRevert {
		anchor = cur.From
	}
	for i := len(list) - 1; i >= 0; i-- {
		if v := list[i]; v.Number < anchor && v.SHA256 != page && v.SHA256 != cur.SHA256 {
			return a.copyOf(v, SourceRevert)
		}
	}
	return 0, fmt.Errorf("%w: %s", ErrNoEarlierVersion, slug)
}

// history opens slug's app for going back: the page's hash as it is now (kept as a found version if it
// changed outside), and the version list. An app with no versions is none (w.mu is held).
func (w *Workshop) history(slug string, none error) (a *app, page string, list []VersionInfo, err error) {
	a, err = w.open(slug, false)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", nil, fmt.Errorf("%w: %s has no versions", none, slug)
	}
	if err != nil {
		return nil, "", nil, err
	}
	if page, err = a.keepFound(); err == nil {
		list, err = a.readIndex()
	}
	if err != nil {
		a.close()
		return nil, "", nil, err
	}
	return a, page, list, nil
}

// Restore makes kept version n current again, written as a new version (source "restore"); when n's
// content is already the page, nothing is written and n is returned. ErrNoVersion when
// n is not kept.
func (w *Workshop) Restore(slug string, n int) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	a, page, list, err := w.history(slug, ErrNoVersion)
	if err != nil {
		return 0, err
	}
	defer a.close()
	for _, v := range list {
		if v.Number != n {
			continue
		}
		if v.SHA256 == page {
			return n, nil
		}
		return a.copyOf(v, SourceRestore)
	}
	return 0, fmt.Errorf("%w: %s version %d", ErrNoVersion, slug, n)
}

// Mark records how the host's check of version n went (OutcomeOK or OutcomeCheckFailed, with a short
// reason): the check runs after the write, once the app is launched.
func (w *Workshop) Mark(slug string, n int, outcome, reason string) error {
	if outcome != OutcomeOK && outcome != OutcomeCheckFailed {
		return fmt.Errorf("author: outcome %q is neither %q nor %q", outcome, OutcomeOK, OutcomeCheckFailed)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	a, err := w.open(slug, false)
	if err != nil {
		return err
	}
	defer a.close()
	list, err := a.readIndex()
	if err != nil {
		return err
	}
	for i := range list {
		if list[i].Number == n {
			list[i].Outcome, list[i].Reason = outcome, clipRunes(reason, maxReasonRunes)
			return a.writeIndex(list)
		}
	}
	return fmt.Errorf("%w: %s version %d", ErrNoVersion, slug, n)
}

// app is one app's two folders, opened for one operation (the Workshop's mutex held).
type app struct {
	slug           string
	home, versions *os.Root
}

func (a *app) close() {
	a.home.Close()
	a.versions.Close()
}

// open opens the app's home and version folder, creating them when create is set. A missing folder is
// an os.ErrNotExist error.
func (w *Workshop) open(slug string, create bool) (*app, error) {
	if !ValidSlug(slug) {
		return nil, fmt.Errorf("%w: %q", ErrBadSlug, slug)
	}
	home, err := w.openDir(w.sandboxes, slug, create)
	if err != nil {
		return nil, err
	}
	versions, err := w.openDir(w.versions, slug, create)
	if err != nil {
		home.Close()
		return nil, err
	}
	return &app{slug: slug, home: home, versions: versions}, nil
}

// openDir opens the folder name directly inside parent as a root of its own. A link there is refused,
// even one that stays inside parent: it could name another app's folder.
func (w *Workshop) openDir(parent, name string, create bool) (*os.Root, error) {
	pr, err := os.OpenRoot(parent)
	if err != nil {
		return nil, fmt.Errorf("author: %w", err)
	}
	defer pr.Close()
	if create {
		if err := pr.Mkdir(name, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("author: %w", err)
		}
	}
	fi, err := pr.Lstat(name)
	if err != nil {
		return nil, fmt.Errorf("author: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("author: %s is not a plain folder (a link or a file), refused", filepath.Join(parent, name))
	}
	r, err := pr.OpenRoot(name)
	if err != nil {
		return nil, fmt.Errorf("author: %w", err)
	}
	if opened, err := r.Stat("."); err != nil || !os.SameFile(fi, opened) { // swapped for a link meanwhile
		r.Close()
		return nil, fmt.Errorf("author: %s changed while it was opened, refused", filepath.Join(parent, name))
	}
	return r, nil
}

type indexFile struct {
	Slug     string        `json:"slug"`
	Versions []VersionInfo `json:"versions"` // oldest first
}

// readIndex reads the version list: empty when there is none yet; an error when it is unreadable, so a
// write never replaces a list it could not read.
func (a *app) readIndex() ([]VersionInfo, error) {
	data, err := readRegular(a.versions, indexName, 1<<20)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var idx indexFile
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("author: the version list of %s is unreadable: %w", a.slug, err)
	}
	return idx.Versions, nil
}

func (a *app) writeIndex(list []VersionInfo) error {
	data, err := json.MarshalIndent(indexFile{Slug: a.slug, Versions: list}, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(a.versions, indexName, data); err != nil {
		return fmt.Errorf("author: write the version list of %s: %w", a.slug, err)
	}
	return nil
}

func versionName(n int) string { return fmt.Sprintf("%04d.html", n) }

func (a *app) readVersion(v VersionInfo) ([]byte, error) {
	data, err := readRegular(a.versions, versionName(v.Number), maxFoundBytes)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != v.SHA256 {
		return nil, fmt.Errorf("author: version %d of %s does not match its record", v.Number, a.slug)
	}
	return data, nil
}

// write records html as a new version and makes it the page: the version's file, the list, the page, in
// that order (see Workshop). The caller checked the bounds.
func (a *app) write(html []byte, v VersionInfo) (int, error) {
	list, err := a.readIndex()
	if err != nil {
		return 0, err
	}
	sum := sha256.Sum256(html)
	v.Number = 1
	if len(list) > 0 {
		v.Number = list[len(list)-1].Number + 1
	}
	v.Time = time.Now().UTC().Truncate(time.Millisecond)
	v.Bytes, v.SHA256 = len(html), hex.EncodeToString(sum[:])
	v.Request = clipRunes(v.Request, MaxRequestRunes)
	v.Model = clipRunes(v.Model, maxModelRunes)
	v.Reason = clipRunes(v.Reason, maxReasonRunes)
	if err := writeAtomic(a.versions, versionName(v.Number), html); err != nil {
		return 0, fmt.Errorf("author: write version %d of %s: %w", v.Number, a.slug, err)
	}
	next := append(list, v)
	if len(next) > MaxVersions {
		next = next[len(next)-MaxVersions:]
	}
	if err := a.writeIndex(next); err != nil {
		return 0, err
	}
	if err := writeAtomic(a.home, PageName, html); err != nil {
		// The page is as it was: put the list back as it was too (best effort; the list is the record).
		if len(list) > 0 {
			a.writeIndex(list)
		} else {
			a.versions.Remove(indexName)
		}
		return 0, fmt.Errorf("author: write the page of %s: %w", a.slug, err)
	}
	a.sweep(next)
	return v.Number, nil
}

// copyOf writes kept version v again as a new version of the given source.
func (a *app) copyOf(v VersionInfo, source string) (int, error) {
	data, err := a.readVersion(v)
	if err != nil {
		return 0, err
	}
	return a.write(data, VersionInfo{Source: source, From: v.Number, Request: v.Request, Model: v.Model, Outcome: v.Outcome, Reason: v.Reason})
}

// keepFound records the page on disk as a "found" version when its content is none of the kept
// versions (someone changed it outside the Workshop), so the write that follows never loses it, and
// returns the page's SHA-256 ("" when there is no page). A page that is a link or not a regular file is
// refused.
func (a *app) keepFound() (string, error) {
	page, err := readRegular(a.home, PageName, maxFoundBytes)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	list, err := a.readIndex()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(page)
	h := hex.EncodeToString(sum[:])
	for _, v := range list {
		if v.SHA256 == h {
			return h, nil
		}
	}
	_, err = a.write(page, VersionInfo{Source: SourceFound})
	return h, err
}

// sweep removes what the kept list does not name from the version folder: dropped versions, a version
// file a crash left before its list was written, and atomicfile's temporary files. Errors are ignored:
// a leftover is retried by the next write.
func (a *app) sweep(kept []VersionInfo) {
	keep := map[string]bool{indexName: true}
	for _, v := range kept {
		keep[versionName(v.Number)] = true
	}
	d, err := a.versions.Open(".")
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(MaxVersions * 4)
	d.Close()
	for _, name := range names {
		if keep[name] {
			continue
		}
		num, isHTML := strings.CutSuffix(name, ".html")
		if _, err := strconv.Atoi(num); (isHTML && err == nil) || atomicfile.IsTemp(name) {
			a.versions.Remove(name)
		}
	}
}

// writeAtomic is how every file is written; tests replace it to simulate a write cut short.
var writeAtomic = func(r *os.Root, name string, data []byte) error {
	return atomicfile.WriteIn(r, name, data, 0o644)
}

// readRegular reads name inside r: a regular file (not a link, a FIFO or a device), at most limit bytes.
// The open never blocks on a FIFO swapped in after the check.
func readRegular(r *os.Root, name string, limit int64) ([]byte, error) {
	fi, err := r.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("author: %s is not a regular file (a link, a folder or a device), refused", name)
	}
	flags := os.O_RDONLY
	if runtime.GOOS != "windows" { // a FIFO cannot be made there; elsewhere it would block the open
		flags |= syscall.O_NONBLOCK
	}
	f, err := r.OpenFile(name, flags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("author: %s is not a regular file, refused", name)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("author: %s is over %d bytes, refused", name, limit)
	}
	return data, nil
}

// clipRunes bounds s to n characters, invalid UTF-8 replaced.
func clipRunes(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	var b bytes.Buffer
	for _, r := range s {
		if n == 0 {
			break
		}
		b.WriteRune(r)
		n--
	}
	return b.String() + "…"
}
