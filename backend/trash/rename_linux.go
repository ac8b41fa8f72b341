//go:build linux

package trash

import (
	"errors"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames from/oldName to to/newName relative to the open folders (never through a path
// that could be swapped meanwhile) and fails with fs.ErrExist instead of replacing what is there.
func renameNoReplace(from *os.File, oldName string, to *os.File, newName string) error {
	err := unix.Renameat2(int(from.Fd()), oldName, int(to.Fd()), newName, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		// A filesystem without RENAME_NOREPLACE: look, then rename (a narrow race, never through a link).
		var st unix.Stat_t
		if serr := unix.Fstatat(int(to.Fd()), newName, &st, unix.AT_SYMLINK_NOFOLLOW); serr == nil {
			err = unix.EEXIST
		} else {
			err = unix.Renameat(int(from.Fd()), oldName, int(to.Fd()), newName)
		}
	}
	runtime.KeepAlive(from)
	runtime.KeepAlive(to)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from.Name() + "/" + oldName, New: to.Name() + "/" + newName, Err: err}
	}
	return nil
}

// present says whether dir holds an entry name (a dangling link counts).
func present(dir *os.File, name string) (bool, error) {
	var st unix.Stat_t
	err := unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW)
	runtime.KeepAlive(dir)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.ENOENT):
		return false, nil
	}
	return false, &os.PathError{Op: "lstat", Path: dir.Name() + "/" + name, Err: err}
}
