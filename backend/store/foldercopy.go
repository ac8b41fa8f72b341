package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"

	"github.com/voicebox/voicebox/backend/atomicfile"
)

// A shelf copy of a folder app holds what the asset server would serve from the folder, nothing more:
// dotfiles and dot-folders are left out (they are never served). Anything else that cannot be copied
// faithfully refuses the whole save with nothing written: a FIFO, socket or device (ErrUnsupportedFile), a
// link that leaves the folder, loops or names a folder (ErrUnsupportedFile), a file over MaxFolderFileBytes
// (ErrTooLarge), more than MaxFolderFiles entries, more than MaxFolderBytes or more than maxFolderDepth
// levels (ErrFolderTooLarge). A link to a file inside the folder is copied as that file.

var (
	// ErrFolderTooLarge: a folder app over MaxFolderFiles, MaxFolderBytes or maxFolderDepth.
	ErrFolderTooLarge = errors.New("folder-too-large")
	// ErrUnsupportedFile: a folder app holds something that is not a file or folder (a FIFO, a device, a
	// link that leaves the folder or loops).
	ErrUnsupportedFile = errors.New("unsupported-file")
	// ErrNotAppFolder: a folder the person asked to open as an app cannot be one (no index.html, the home
	// folder, a file system root).
	ErrNotAppFolder = errors.New("not-an-app-folder")
)

// folderPlan is what a copy of a folder will hold, walked before anything is written.
type folderPlan struct {
	dirs  []string   // slash paths, parents first
	files []planFile // slash paths
	bytes int64
}

type planFile struct {
	rel  string
	size int64
}

// planFolder walks src (bounded by MaxFolderFiles entries read, maxFolderDepth levels, MaxFolderBytes)
// and says what a copy holds. It reads no file's content.
func planFolder(src *os.Root) (*folderPlan, error) {
	p := &folderPlan{}
	entries := 0
	var walk func(rel string, depth int) error
	walk = func(rel string, depth int) error {
		if depth > maxFolderDepth {
			return fmt.Errorf("%w: %s is more than %d folders deep", ErrFolderTooLarge, rel, maxFolderDepth)
		}
		d, err := src.Open(rel)
		if err != nil {
			return err
		}
		des, full, err := readDirCapped(d, MaxFolderFiles-entries)
		d.Close()
		if err != nil {
			return err
		}
		if full {
			return fmt.Errorf("%w: more than %d files and folders", ErrFolderTooLarge, MaxFolderFiles)
		}
		for _, de := range des {
			name := de.Name()
			if name[0] == '.' {
				continue
			}
			entries++
			if entries > MaxFolderFiles {
				return fmt.Errorf("%w: more than %d files and folders", ErrFolderTooLarge, MaxFolderFiles)
			}
			child := name
			if rel != "." {
				child = rel + "/" + name
			}
			switch t := de.Type(); {
			case t.IsDir():
				p.dirs = append(p.dirs, child)
				if err := walk(child, depth+1); err != nil {
					return err
				}
			case t.IsRegular() || t&fs.ModeSymlink != 0:
				fi, err := src.Stat(child) // a link is followed, inside the folder only
				if err != nil {
					return fmt.Errorf("%w: %s: %v", ErrUnsupportedFile, child, err)
				}
				if !fi.Mode().IsRegular() {
					return fmt.Errorf("%w: %s is a link to something other than a file", ErrUnsupportedFile, child)
				}
				if fi.Size() > MaxFolderFileBytes {
					return fmt.Errorf("%w: %s is %d bytes (max %d)", ErrTooLarge, child, fi.Size(), MaxFolderFileBytes)
				}
				p.bytes += fi.Size()
				if p.bytes > MaxFolderBytes {
					return fmt.Errorf("%w: more than %d bytes", ErrFolderTooLarge, MaxFolderBytes)
				}
				p.files = append(p.files, planFile{rel: child, size: fi.Size()})
			default:
				return fmt.Errorf("%w: %s is a %s", ErrUnsupportedFile, child, typeName(t))
			}
		}
		return nil
	}
	if err := walk(".", 0); err != nil {
		return nil, err
	}
	return p, nil
}

func typeName(t fs.FileMode) string {
	switch {
	case t&fs.ModeNamedPipe != 0:
		return "FIFO"
	case t&fs.ModeSocket != 0:
		return "socket"
	case t&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// stagedFolder is a copy of a folder app written under a temporary name on the shelf, not yet in place.
type stagedFolder struct {
	shelf *os.Root
	tmp   string
}

// stageFolder copies what plan lists from src into a new temporary folder on the shelf (every file and
// folder synced). The content is read through src with the same open as the asset server's, so a file
// swapped for a FIFO or a link out of the folder after the walk is refused, and a file that grew past the
// bounds stops the copy. On any error the temporary folder is removed.
func stageFolder(shelf *os.Root, name string, src *os.Root, plan *folderPlan) (_ *stagedFolder, err error) {
	tmp, err := atomicfile.TempName(name)
	if err != nil {
		return nil, err
	}
	if err := shelf.Mkdir(tmp, 0o755); err != nil {
		return nil, err
	}
	sf := &stagedFolder{shelf: shelf, tmp: tmp}
	defer func() {
		if err != nil {
			sf.discard()
		}
	}()
	dst, err := shelf.OpenRoot(tmp)
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	for _, d := range plan.dirs {
		if err := dst.Mkdir(d, 0o755); err != nil {
			return nil, err
		}
	}
	var total int64
	for _, f := range plan.files {
		n, err := copyFileIn(src, dst, f.rel, MaxFolderBytes-total)
		if err != nil {
			return nil, err
		}
		total += n
	}
	dirs := append([]string{"."}, plan.dirs...)
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := syncDir(dst, dirs[i]); err != nil {
			return nil, err
		}
	}
	return sf, nil
}

// copyFileIn copies src/rel to dst/rel (created, never replaced), at most budget bytes.
func copyFileIn(src, dst *os.Root, rel string, budget int64) (int64, error) {
	in, err := src.OpenFile(rel, openReadFlags, 0)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %v", ErrUnsupportedFile, rel, err)
	}
	defer in.Close()
	st, err := statOpen(in)
	if err != nil {
		return 0, err
	}
	if !st.mode.IsRegular() {
		return 0, fmt.Errorf("%w: %s is no longer a regular file", ErrUnsupportedFile, rel)
	}
	out, err := dst.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, err
	}
	limit := min(budget, int64(MaxFolderFileBytes))
	n, err := io.Copy(out, io.LimitReader(in, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("%w: %s grew past the bounds while it was copied", ErrFolderTooLarge, rel)
	}
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}

func syncDir(r *os.Root, rel string) error {
	d, err := r.Open(rel)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}

// commit puts the staged copy in place as the shelf folder name (replacing the app's previous copy in one
// step where the platform can; see atomicfile.ReplaceDir).
func (sf *stagedFolder) commit(name string) error {
	if err := atomicfile.ReplaceDir(sf.shelf, sf.tmp, name); err != nil {
		sf.discard()
		return err
	}
	return nil
}

func (sf *stagedFolder) discard() { sf.shelf.RemoveAll(sf.tmp) }

// removeFolderInRoot removes the folder rel of r (never through a link: a
// link is refused). It is first renamed to a hidden temporary name, in one
// step, so a crash during the removal leaves no half folder that discovery
// would list; cleanStaleTemps sweeps what a crash leaves. It reports false
// when the folder was already gone.
func removeFolderInRoot(r *os.Root, rel string) (bool, error) {
	fi, err := r.Lstat(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	if !fi.IsDir() {
		return false, errInvalid(rel + " is not a folder")
	}
	tmp, err := atomicfile.TempName(path.Base(rel))
	if err != nil {
		return false, err
	}
	if dir := path.Dir(rel); dir != "." {
		tmp = dir + "/" + tmp
	}
	if err := r.Rename(rel, tmp); err != nil {
		return false, err
	}
	atomicfile.SyncRoot(r)
	return true, r.RemoveAll(tmp)
}

// saveSource is what a save copies from an entry: its HTML and, for a folder app, its folder, walked and
// bounded (planFolder) before anything is written.
type saveSource struct {
	html   []byte
	folder *os.Root
	plan   *folderPlan
}

// readSource reads the page it names and, for a folder app, walks its folder: every refusal (bounds,
// FIFOs, links out) comes here, before the shelf is touched.
func readSource(it *item) (*saveSource, error) {
	html, err := readInRoot(it.rootPath, it.rel)
	if err != nil {
		return nil, err
	}
	src := &saveSource{html: html}
	if it.folderRel == "" {
		return src, nil
	}
	f, err := openFolderIn(it.rootPath, it.folderRel)
	if err != nil {
		return nil, err
	}
	if src.plan, err = planFolder(f.root); err != nil {
		f.Close()
		return nil, err
	}
	src.folder = f.root
	return src, nil
}

func (src *saveSource) close() {
	if src.folder != nil {
		src.folder.Close()
	}
}

// stage prepares the shelf copy named base: the HTML, or the folder copied under a temporary name.
func (src *saveSource) stage(shelf *os.Root, base string) (shelfCopy, error) {
	if src.folder == nil {
		return shelfCopy{html: src.html}, nil
	}
	sf, err := stageFolder(shelf, base, src.folder, src.plan)
	if err != nil {
		return shelfCopy{}, err
	}
	return shelfCopy{folder: sf}, nil
}

// shelfCopy is what a save puts on the shelf beside the record: a page's HTML, or a folder app's staged
// folder; neither: the record alone.
type shelfCopy struct {
	html   []byte
	folder *stagedFolder
}

// writeApp writes a shelf app: the record first, the copy last (the .html's or the folder's rename is the
// commit point; see the package doc). The other form under the same name, if any, is the same app's
// previous copy (the caller owns the name) and goes once the new one is in place.
func writeApp(r *os.Root, base string, m *metaRec, c shelfCopy) error {
	if err := writeAtomic(r, base+metaSuffix, encodeMeta(m)); err != nil {
		if c.folder != nil {
			c.folder.discard()
		}
		return err
	}
	switch {
	case c.folder != nil:
		if err := c.folder.commit(base); err != nil {
			return err
		}
		if err := r.Remove(base + ".html"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	case c.html != nil:
		if err := writeAtomic(r, base+".html", c.html); err != nil {
			return err
		}
		if fi, err := r.Lstat(base); err == nil && fi.IsDir() {
			if _, err := removeFolderInRoot(r, base); err != nil {
				return err
			}
		}
	}
	return nil
}
