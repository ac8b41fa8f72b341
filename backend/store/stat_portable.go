//go:build !linux

package store

import "os"

// statOpen stats an open file; birthTime (per platform) adds the birth time where the platform knows it.
func statOpen(f *os.File) (openStat, error) {
	fi, err := f.Stat()
	if err != nil {
		return openStat{}, err
	}
	st := statInfo(fi)
	st.btime = birthTime(fi)
	return st, nil
}

// readHeadAt reads through the root (Linux opens the last element itself, with O_NOFOLLOW).
func readHeadAt(dir *os.File, root *os.Root, rel string, buf []byte) (openStat, int, error) {
	return readHeadRoot(root, rel, buf)
}
