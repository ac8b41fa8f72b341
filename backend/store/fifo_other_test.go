//go:build !unix

package store

import "errors"

// mkfifo: no FIFOs here; the FIFO cases are skipped.
func mkfifo(string) error { return errors.ErrUnsupported }
