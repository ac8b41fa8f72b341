//go:build linux

package store

import (
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// openReadFlags never blocks on a FIFO swapped in for a file.
const openReadFlags = os.O_RDONLY | syscall.O_NONBLOCK

// statOpen stats an open file with statx, which also gives the birth time.
func statOpen(f *os.File) (openStat, error) {
	if rc, err := f.SyscallConn(); err == nil {
		var st openStat
		var serr error
		cerr := rc.Control(func(fd uintptr) { st, serr = unixStatx(int(fd)) })
		if cerr == nil && serr == nil {
			return st, nil
		}
	}
	fi, err := f.Stat()
	if err != nil {
		return openStat{}, err
	}
	return statInfo(fi), nil
}

func unixStatx(fd int) (openStat, error) {
	var stx unix.Statx_t
	if err := unix.Statx(fd, "", unix.AT_EMPTY_PATH, unix.STATX_BASIC_STATS|unix.STATX_BTIME, &stx); err != nil {
		return openStat{}, err
	}
	st := openStat{size: int64(stx.Size), mtime: time.Unix(stx.Mtime.Sec, int64(stx.Mtime.Nsec))}
	if stx.Mask&unix.STATX_BTIME != 0 {
		st.btime = time.Unix(stx.Btime.Sec, int64(stx.Btime.Nsec))
	}
	switch stx.Mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFDIR:
		st.mode = fs.ModeDir
	default:
		st.mode = fs.ModeIrregular
	}
	st.mode |= fs.FileMode(stx.Mode & 0o777)
	return st, nil
}

// readHeadAt opens the last element of rel relative to its open folder with
// O_NOFOLLOW (the folder itself was opened through the root), stats it and
// reads up to len(buf) bytes if it is a regular file.
func readHeadAt(dir *os.File, root *os.Root, rel string, buf []byte) (openStat, int, error) {
	rc, err := dir.SyscallConn()
	if err != nil {
		return readHeadRoot(root, rel, buf)
	}
	name := rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		name = rel[i+1:]
	}
	var st openStat
	var n int
	var rerr error
	cerr := rc.Control(func(dfd uintptr) {
		var fd int
		for {
			fd, rerr = unix.Openat(int(dfd), name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if rerr != unix.EINTR {
				break
			}
		}
		if rerr != nil {
			return
		}
		defer unix.Close(fd)
		if st, rerr = unixStatx(fd); rerr != nil || !st.mode.IsRegular() {
			return
		}
		for n < len(buf) {
			m, err := unix.Read(fd, buf[n:])
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				rerr = err
				return
			}
			if m == 0 {
				break
			}
			n += m
		}
	})
	if cerr != nil {
		return readHeadRoot(root, rel, buf)
	}
	return st, n, rerr
}
