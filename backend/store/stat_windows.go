//go:build windows

package store

import (
	"io/fs"
	"os"
	"syscall"
	"time"
)

const openReadFlags = os.O_RDONLY

func birthTime(fi fs.FileInfo) time.Time {
	if sys, ok := fi.Sys().(*syscall.Win32FileAttributeData); ok {
		return time.Unix(0, sys.CreationTime.Nanoseconds())
	}
	return time.Time{}
}
