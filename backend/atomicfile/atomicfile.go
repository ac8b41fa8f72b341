// Package atomicfile writes a file so that a reader (or a crash) sees either the old content or the new,
// never a mix: a temporary file in the same folder, fsync, rename over the target, fsync the folder.
//
// Every step goes through an os.Root opened on the target's folder (WriteIn), so a folder or temporary
// file swapped for a symbolic link between the steps cannot send the write elsewhere. The store writes
// its shelf this way inside the root it already holds; Write opens the root for a plain path (settings,
// the MCP discovery file). A whole folder (a folder app's shelf copy) is filled under a TempName beside its
// target and put in place with ReplaceDir.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// tempMarker sits between a target's name and the random suffix of its temporary file:
// ".<name>.tmp-<12 hex digits>", hidden, so scanners skip it and IsTemp finds crash leftovers.
const tempMarker = ".tmp-"

// IsTemp says whether name is a temporary file of WriteIn (what a crash may leave behind).
func IsTemp(name string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	i := strings.LastIndex(name, tempMarker)
	return i > 0 && len(name)-i-len(tempMarker) == 12
}

// TempName is a fresh hidden name beside name for its temporary file or folder (IsTemp recognises it).
func TempName(name string) (string, error) {
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	return "." + name + tempMarker + hex.EncodeToString(rnd[:]), nil
}

// Write replaces path with data, creating it with perm (less the umask) if it does not exist.
func Write(path string, data []byte, perm os.FileMode) error {
	r, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	defer r.Close()
	if err := WriteIn(r, filepath.Base(path), data, perm); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	return nil
}

// WriteClose writes data to f, syncs it to disk and closes it, and returns the first error; f is closed
// either way.
func WriteClose(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteIn replaces name inside r with data: a temporary file beside it (created exclusively, with perm
// less the umask), fsync, rename over name, fsync of the folder. On an error the temporary file is
// removed and name is untouched.
func WriteIn(r *os.Root, name string, data []byte, perm os.FileMode) error {
	tmp, err := TempName(name)
	if err != nil {
		return err
	}
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if err := WriteClose(f, data); err != nil {
		r.Remove(tmp)
		return err
	}
	if err := r.Rename(tmp, name); err != nil {
		r.Remove(tmp)
		return err
	}
	return SyncRoot(r)
}

// SyncRoot makes a rename or removal in r's folder durable. On Windows folders cannot be fsynced and a
// rename is durable enough: it does nothing there.
func SyncRoot(r *os.Root) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := r.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// ReplaceDir puts the folder tmp (a TempName, filled and synced by the caller) in place of name, both
// directly inside r. When name does not exist it is a rename. When it does, the two are exchanged in one
// step where the platform can (Linux renameat2 RENAME_EXCHANGE), so a reader or a crash sees the old folder
// or the new one, never neither; the old one, now at tmp, is then removed. Elsewhere the old folder is
// first moved aside under a temporary name. The folder is synced after each step.
func ReplaceDir(r *os.Root, tmp, name string) error {
	if strings.ContainsAny(tmp+name, `/\`) {
		return fmt.Errorf("atomicfile: %q and %q must be names inside the root", tmp, name)
	}
	if _, err := r.Lstat(name); err != nil {
		if !os.IsNotExist(err) {
			return err
		}
		if err := r.Rename(tmp, name); err != nil {
			return err
		}
		return SyncRoot(r)
	}
	if err := exchange(r, tmp, name); err != nil {
		return err
	}
	if err := SyncRoot(r); err != nil {
		return err
	}
	return r.RemoveAll(tmp)
}
