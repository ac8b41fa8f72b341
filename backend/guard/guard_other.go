//go:build !(linux && cgo)

package guard

// Install is not implemented on this platform: the room must treat mini-apps
// as disabled (Active is false).
func Install(o Options) error { return ErrUnsupported }

// WebMemory is not known on this platform.
func WebMemory() (bytes int64, ok bool) { return 0, false }
