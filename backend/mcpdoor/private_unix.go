//go:build unix

package mcpdoor

import (
	"fmt"
	"os"
	"syscall"
)

// checkPrivate says whether dir belongs to this user and no one else may enter it.
func checkPrivate(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("mcp: %s %w", dir, errNotPrivate)
	}
	return nil
}
