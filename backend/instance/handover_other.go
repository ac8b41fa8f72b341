//go:build !linux

package instance

// HandOver is Linux-only for now: elsewhere Wails' own single-instance lock hands the files over, later
// in the start.
func HandOver(id string, args []string, dir string) bool { return false }
