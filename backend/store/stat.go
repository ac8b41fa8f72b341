package store

import (
	"io/fs"
	"time"
)

// openStat is what the store needs to know of an open file.
type openStat struct {
	size  int64
	mode  fs.FileMode
	mtime time.Time
	btime time.Time // zero when the platform or file system does not know it
}

// statInfo is an openStat from what os.File.Stat says (without the birth time).
func statInfo(fi fs.FileInfo) openStat {
	return openStat{size: fi.Size(), mode: fi.Mode(), mtime: fi.ModTime()}
}
