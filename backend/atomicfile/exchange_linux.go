//go:build linux

package atomicfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// exchange swaps the folders a and b inside r in one step (renameat2 RENAME_EXCHANGE on r's own folder,
// so neither name is resolved through a link).
func exchange(r *os.Root, a, b string) error {
	d, err := r.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	rc, err := d.SyscallConn()
	if err != nil {
		return err
	}
	var xerr error
	if err := rc.Control(func(fd uintptr) {
		xerr = unix.Renameat2(int(fd), a, int(fd), b, unix.RENAME_EXCHANGE)
	}); err != nil {
		return err
	}
	if xerr != nil {
		return &os.LinkError{Op: "renameat2", Old: a, New: b, Err: xerr}
	}
	return nil
}
