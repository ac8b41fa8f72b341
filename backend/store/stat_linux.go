//go:build linux

package store

import (
	"io/fs"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// openReadFlags never blocks on a FIFO swapped in for a file.
const openReadFlags = os.O_RDONLY | syscall.O_NONBLOCK

type openStat struct {
	size  int64
	mode  fs.FileMode
	mtime time.Time
	btime time.Time // zero when the file system does not know it
}

// statOpen stats an open file with statx, which also gives the birth time.
func statOpen(f *os.File) (openStat, error) {
	var st openStat
	rc, err := f.SyscallConn()
	if err == nil {
		var stx unix.Statx_t
		var serr error
		cerr := rc.Control(func(fd uintptr) {
			serr = unix.Statx(int(fd), "", unix.AT_EMPTY_PATH, unix.STATX_BASIC_STATS|unix.STATX_BTIME, &stx)
		})
		if cerr == nil && serr == nil {
			st.size = int64(stx.Size)
			st.mtime = time.Unix(stx.Mtime.Sec, int64(stx.Mtime.Nsec))
			if stx.Mask&unix.STATX_BTIME != 0 {
				st.btime = time.Unix(stx.Btime.Sec, int64(stx.Btime.Nsec))
			}
			switch stx.Mode & unix.S_IFMT {
			case unix.S_IFREG:
				st.mode = 0
			case unix.S_IFDIR:
				st.mode = fs.ModeDir
			default:
				st.mode = fs.ModeIrregular
			}
			st.mode |= fs.FileMode(stx.Mode & 0o777)
			return st, nil
		}
	}
	fi, err := f.Stat()
	if err != nil {
		return st, err
	}
	return openStat{size: fi.Size(), mode: fi.Mode(), mtime: fi.ModTime()}, nil
}
