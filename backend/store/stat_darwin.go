//go:build darwin

package store

import (
	"io/fs"
	"os"
	"syscall"
	"time"
)

const openReadFlags = os.O_RDONLY | syscall.O_NONBLOCK

type openStat struct {
	size  int64
	mode  fs.FileMode
	mtime time.Time
	btime time.Time
}

func statOpen(f *os.File) (openStat, error) {
	fi, err := f.Stat()
	if err != nil {
		return openStat{}, err
	}
	st := openStat{size: fi.Size(), mode: fi.Mode(), mtime: fi.ModTime()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.btime = time.Unix(sys.Birthtimespec.Sec, sys.Birthtimespec.Nsec)
	}
	return st, nil
}

func readHeadAt(dir *os.File, root *os.Root, rel string, buf []byte) (openStat, int, error) {
	return readHeadRoot(root, rel, buf)
}
