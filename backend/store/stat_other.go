//go:build !linux && !darwin && !windows

package store

import (
	"io/fs"
	"os"
	"time"
)

const openReadFlags = os.O_RDONLY

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
	return openStat{size: fi.Size(), mode: fi.Mode(), mtime: fi.ModTime()}, nil
}

func readHeadAt(dir *os.File, root *os.Root, rel string, buf []byte) (openStat, int, error) {
	return readHeadRoot(root, rel, buf)
}
