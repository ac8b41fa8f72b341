//go:build !linux

package atomicfile

import "os"

// exchange leaves b's folder at a and a's at b. Without an atomic exchange the old folder is moved aside
// first: a crash between the two renames leaves b missing (both folders survive under temporary names).
func exchange(r *os.Root, a, b string) error {
	aside, err := TempName(b)
	if err != nil {
		return err
	}
	if err := r.Rename(b, aside); err != nil {
		return err
	}
	if err := r.Rename(a, b); err != nil {
		r.Rename(aside, b)
		return err
	}
	return r.Rename(aside, a)
}
