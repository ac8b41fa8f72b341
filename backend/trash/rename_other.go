//go:build !linux

package trash

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// renameNoReplace renames by path after checking that the target is free (platforms without renameat2:
// a narrow race where something appearing at the target in between would be replaced).
func renameNoReplace(from *os.File, oldName string, to *os.File, newName string) error {
	target := filepath.Join(to.Name(), newName)
	if _, err := os.Lstat(target); err == nil {
		return &os.LinkError{Op: "rename", Old: filepath.Join(from.Name(), oldName), New: target, Err: fs.ErrExist}
	}
	return os.Rename(filepath.Join(from.Name(), oldName), target)
}

// present says whether dir holds an entry name (a dangling link counts).
func present(dir *os.File, name string) (bool, error) {
	_, err := os.Lstat(filepath.Join(dir.Name(), name))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, err
}
