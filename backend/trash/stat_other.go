//go:build !unix

package trash

import "io/fs"

// devIno is unknown here: only the fallback can is used, and a rename across volumes fails by itself.
func devIno(fs.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }

func owner(fs.FileInfo) (int, bool) { return 0, false }

// isCrossDevice: a rename across volumes fails with an error of its own on these platforms.
func isCrossDevice(err error) bool { return false }
