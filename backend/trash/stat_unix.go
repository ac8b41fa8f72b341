//go:build unix

package trash

import (
	"errors"
	"io/fs"
	"syscall"
)

// devIno is the device and inode of a file, which identify it on this machine.
func devIno(fi fs.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true
}

// owner is the user id that owns the file.
func owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

func isCrossDevice(err error) bool { return errors.Is(err, syscall.EXDEV) }
