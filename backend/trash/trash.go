// Package trash moves files and folders into a trash can and back, following the freedesktop.org Trash
// specification (https://specifications.freedesktop.org/trash-spec/latest/): a file manager lists what
// Voicebox deleted and can restore it, and Voicebox can undo its own deletes (docs/trash.md).
//
// # Which can
//
// A file only ever moves by a rename inside its own filesystem (it is never copied), to the first can
// that takes it:
//
//  1. the home trash (Bins.Home, $XDG_DATA_HOME/Trash) when it is on the file's filesystem;
//  2. otherwise, when Bins.Home is set, the can at the top directory of the file's filesystem:
//     $topdir/.Trash/$uid if an administrator made $topdir/.Trash (a real folder with the sticky bit),
//     else $topdir/.Trash-$uid (made 0700 when missing; it must be a real folder the user owns);
//  3. otherwise Bins.Fallback (Voicebox's own can, <data>/trash, laid out the same way) when it is on
//     the file's filesystem.
//
// If none takes it, Move refuses with ErrUnavailable and nothing has changed. With Bins.Home empty only
// the fallback is used (tests, and platforms without the freedesktop trash).
//
// # Layout
//
// A can holds files/ (what was moved, under a name unique in the can) and info/<name>.trashinfo:
//
//	[Trash Info]
//	Path=<the original path, percent-encoded: absolute, or relative to $topdir in a top-directory can>
//	DeletionDate=<local time, YYYY-MM-DDThh:mm:ss>
//
// The .trashinfo is created first, exclusively (it reserves the name, as the specification asks), then
// the file is renamed in without replacing anything. Folders move whole. The optional directorysizes
// cache is not written; readers do without it.
//
// # Back again
//
// Restore puts a batch back all or nothing: each item must still be the very file that went in (same
// device, inode, size and modification time, so a name the can reused after it was emptied is never
// mistaken for it), each
// original path must be free, and the renames never replace anything; if one fails, those already back
// return to the can.
package trash

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/voicebox/voicebox/backend/atomicfile"
)

// Refusals. Every error of this package that is not an I/O failure wraps one of these, and its message
// starts with the code.
var (
	// ErrUnavailable: no trash can on the file's filesystem could take it; nothing was moved.
	ErrUnavailable = errors.New("trash-unavailable")
	// ErrOccupied: something is at the original path again; nothing was restored.
	ErrOccupied = errors.New("restore-path-taken")
	// ErrGone: the item is no longer in the can (restored or emptied elsewhere); nothing was restored.
	ErrGone = errors.New("not-in-trash")
	// ErrNoFolder: the folder an item came from is gone; nothing was restored (callers that open the
	// folders report it).
	ErrNoFolder = errors.New("restore-folder-missing")
)

// Bins names the cans Move may use.
type Bins struct {
	// Home is the person's home trash ($XDG_DATA_HOME/Trash); "" uses Fallback only.
	Home string
	// Fallback is a can of Voicebox's own (<data>/trash), for a file no system can takes; "" for none.
	Fallback string
}

// Item is one thing moved into a can: where it came from and where it is now.
type Item struct {
	Original string // the absolute path it was moved from
	Trashed  string // <can>/files/<name>
	Dir      bool   // it is a folder
	info     string // <can>/info/<name>.trashinfo
	id       identity
}

// identity tells the item from another file given its name in the can later (an inode number is reused
// at once on most filesystems, so its size and modification time count too).
type identity struct {
	dev, ino uint64
	size     int64
	mtime    time.Time
}

func identify(fi fs.FileInfo) identity {
	dev, ino, _ := devIno(fi)
	id := identity{dev: dev, ino: ino, mtime: fi.ModTime()}
	if !fi.IsDir() {
		id.size = fi.Size()
	}
	return id
}

const (
	infoSuffix = ".trashinfo"
	nameMax    = 255 // bytes in one file name (Linux, and most filesystems)
	maxTries   = 1000
)

// errNotHere says a can cannot take the file (a different filesystem, or the can cannot be made or is
// unsafe); Move then tries the next one.
var errNotHere = errors.New("this can does not fit")

// can is one trash folder; top is set for a top-directory can, whose Path values are relative to it.
type can struct {
	dir, top string
}

// Move moves the entry name (a file, a link or a folder) of the open folder dir, whose path is dirPath,
// into a can on its own filesystem (see the package comment) and returns where it went.
func (b Bins) Move(dir *os.File, dirPath, name string) (Item, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, filepath.Separator) {
		return Item{}, fmt.Errorf("trash: %q is not a name in a folder", name)
	}
	fi, err := dir.Stat()
	if err != nil {
		return Item{}, err
	}
	dev, _, known := devIno(fi)
	var tried []string
	for _, pick := range b.order(dirPath, dev, known) {
		c, err := pick()
		if err != nil {
			tried = append(tried, err.Error())
			continue
		}
		it, err := c.put(dir, dirPath, name)
		if errors.Is(err, errNotHere) {
			tried = append(tried, err.Error())
			continue
		}
		return it, err
	}
	if len(tried) == 0 {
		tried = append(tried, "no trash is configured")
	}
	return Item{}, fmt.Errorf("%w: %s stays where it is: %s", ErrUnavailable, filepath.Join(dirPath, name), strings.Join(tried, "; "))
}

// order lists the cans to try, in the package comment's order, each opened (made) only when reached.
func (b Bins) order(dirPath string, dev uint64, known bool) []func() (can, error) {
	var out []func() (can, error)
	own := func(path, what string) func() (can, error) {
		return func() (can, error) {
			if known && !sameDevice(path, dev) {
				return can{}, fmt.Errorf("%w: the %s %s is on another filesystem", errNotHere, what, path)
			}
			if err := makeCan(path); err != nil {
				return can{}, fmt.Errorf("%w: the %s %s: %v", errNotHere, what, path, err)
			}
			return can{dir: path}, nil
		}
	}
	if b.Home != "" && known {
		out = append(out, own(b.Home, "home trash"))
		if !sameDevice(b.Home, dev) {
			out = append(out, func() (can, error) { return topCan(topDir(dirPath, dev)) })
		}
	}
	if b.Fallback != "" {
		out = append(out, own(b.Fallback, "data folder's trash"))
	}
	return out
}

// makeCan makes files/ and info/ of a can the person owns (the home trash, the fallback).
func makeCan(dir string) error {
	for _, sub := range []string{"files", "info"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return err
		}
	}
	return nil
}

// put reserves a name with the .trashinfo, then renames the entry in under it.
func (c can) put(dir *os.File, dirPath, name string) (Item, error) {
	files, err := os.Open(filepath.Join(c.dir, "files"))
	if err != nil {
		return Item{}, fmt.Errorf("%w: %v", errNotHere, err)
	}
	defer files.Close()
	original := filepath.Join(dirPath, name)
	value := original
	if c.top != "" {
		real := original
		if r, err := filepath.EvalSymlinks(dirPath); err == nil {
			real = filepath.Join(r, name)
		}
		rel, err := filepath.Rel(c.top, real)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return Item{}, fmt.Errorf("%w: %s is not under %s", errNotHere, real, c.top)
		}
		value = rel
	}
	body := "[Trash Info]\nPath=" + escapePath(filepath.ToSlash(value)) + "\nDeletionDate=" + time.Now().Format("2006-01-02T15:04:05") + "\n"
	for i := 1; i <= maxTries; i++ {
		cand := nameInCan(name, i)
		info := filepath.Join(c.dir, "info", cand+infoSuffix)
		f, err := os.OpenFile(info, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return Item{}, fmt.Errorf("%w: %v", errNotHere, err)
		}
		if werr := atomicfile.WriteClose(f, []byte(body)); werr != nil {
			os.Remove(info)
			return Item{}, fmt.Errorf("%w: %v", errNotHere, werr)
		}
		err = renameNoReplace(dir, name, files, cand)
		if err != nil {
			os.Remove(info)
			switch {
			case errors.Is(err, fs.ErrExist): // a file in files/ without its info: take the next name
				continue
			case isCrossDevice(err):
				return Item{}, fmt.Errorf("%w: %v", errNotHere, err)
			}
			return Item{}, err
		}
		it := Item{Original: original, Trashed: filepath.Join(c.dir, "files", cand), info: info}
		if fi, err := os.Lstat(it.Trashed); err == nil {
			it.Dir, it.id = fi.IsDir(), identify(fi)
		}
		return it, nil
	}
	return Item{}, fmt.Errorf("%w: no free name for %s in %s", errNotHere, name, c.dir)
}

// nameInCan is the i-th name tried for name: name itself, then "stem.2.ext", "stem.3.ext", …, cut so
// that the .trashinfo's name still fits in one file name.
func nameInCan(name string, i int) string {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	if stem == "" || len(ext) > 32 { // ".bashrc", or no real extension: count on the whole name
		stem, ext = name, ""
	}
	if i > 1 {
		ext = "." + strconv.Itoa(i) + ext
	}
	if over := len(stem) + len(ext) + len(infoSuffix) - nameMax; over > 0 {
		cut := len(stem) - over
		for cut > 0 && !utf8Start(stem[cut]) {
			cut--
		}
		stem = stem[:max(cut, 0)]
	}
	return stem + ext
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// escapePath percent-encodes a slash-separated path for a .trashinfo's Path: every byte but the
// unreserved ones (letters, digits, - . _ ~) and "/" (the specification's URI escaping).
func escapePath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~', c == '/':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// sameDevice says whether path (or, while it does not exist yet, its nearest existing folder) is on dev.
func sameDevice(path string, dev uint64) bool {
	for p := path; ; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil {
			d, _, ok := devIno(fi)
			return ok && d == dev
		}
		if filepath.Dir(p) == p {
			return false
		}
	}
}

// topDir is the top directory of the filesystem dev that holds dirPath: the highest folder above it
// (symbolic links resolved) still on dev.
func topDir(dirPath string, dev uint64) string {
	cur := dirPath
	if r, err := filepath.EvalSymlinks(dirPath); err == nil {
		cur = r
	}
	for {
		parent := filepath.Dir(cur)
		if parent == cur {
			return cur
		}
		fi, err := os.Stat(parent)
		if err != nil {
			return cur
		}
		if d, _, ok := devIno(fi); !ok || d != dev {
			return cur
		}
		cur = parent
	}
}

// topCan finds or makes the user's can at a filesystem's top directory: $top/.Trash/$uid when $top/.Trash
// is a real folder with the sticky bit (the specification forbids it otherwise), else $top/.Trash-$uid.
func topCan(top string) (can, error) {
	uid := strconv.Itoa(os.Getuid())
	if fi, err := os.Lstat(filepath.Join(top, ".Trash")); err == nil && fi.IsDir() && fi.Mode()&fs.ModeSticky != 0 {
		dir := filepath.Join(top, ".Trash", uid)
		if ownFolder(dir) == nil {
			return can{dir: dir, top: top}, nil
		}
	}
	dir := filepath.Join(top, ".Trash-"+uid)
	if err := ownFolder(dir); err != nil {
		return can{}, fmt.Errorf("%w: the trash of %s: %v", errNotHere, top, err)
	}
	return can{dir: dir, top: top}, nil
}

// ownFolder makes dir (0700) when missing and checks that it, files/ and info/ are real folders the
// user owns: a link or someone else's folder planted there is never used.
func ownFolder(dir string) error {
	for _, p := range []string{dir, filepath.Join(dir, "files"), filepath.Join(dir, "info")} {
		if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a folder", p)
		}
		if uid, ok := owner(fi); ok && uid != os.Getuid() {
			return fmt.Errorf("%s belongs to user %d", p, uid)
		}
	}
	return nil
}

// Target is an item to put back and the open folder it came from.
type Target struct {
	Dir  *os.File
	Item Item
}

// Restore puts every item back where it came from, or none: see the package comment.
func Restore(ts []Target) error {
	for _, t := range ts {
		fi, err := os.Lstat(t.Item.Trashed)
		if err != nil {
			return fmt.Errorf("%w: %s is no longer in the trash", ErrGone, t.Item.Original)
		}
		if identify(fi) != t.Item.id {
			return fmt.Errorf("%w: %s in the trash is another file now", ErrGone, t.Item.Trashed)
		}
		if taken, err := present(t.Dir, filepath.Base(t.Item.Original)); err != nil {
			return err
		} else if taken {
			return fmt.Errorf("%w: %s exists again; nothing was restored", ErrOccupied, t.Item.Original)
		}
	}
	for i, t := range ts {
		if err := t.move(false); err != nil {
			for j := i - 1; j >= 0; j-- {
				ts[j].move(true)
			}
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("%w: %s exists again; nothing was restored", ErrOccupied, t.Item.Original)
			}
			return err
		}
	}
	for _, t := range ts {
		os.Remove(t.Item.info)
	}
	return nil
}

// move renames the item out of the can to its original place, or (toCan) back into the can.
func (t Target) move(toCan bool) error {
	files, err := os.Open(filepath.Dir(t.Item.Trashed))
	if err != nil {
		return err
	}
	defer files.Close()
	inCan, original := filepath.Base(t.Item.Trashed), filepath.Base(t.Item.Original)
	if toCan {
		return renameNoReplace(t.Dir, original, files, inCan)
	}
	return renameNoReplace(files, inCan, t.Dir, original)
}

// Info is the path of the item's .trashinfo.
func (it Item) Info() string { return it.info }
