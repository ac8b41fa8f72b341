//go:build darwin

package store

import (
	"io/fs"
	"os"
	"syscall"
	"time"
)

// openReadFlags never blocks on a FIFO swapped in for a file.
const openReadFlags = os.O_RDONLY | syscall.O_NONBLOCK

func birthTime(fi fs.FileInfo) time.Time {
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(sys.Birthtimespec.Sec, sys.Birthtimespec.Nsec)
	}
	return time.Time{}
}
