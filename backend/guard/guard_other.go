//go:build !(linux && cgo)

package guard

// Install is not implemented on this platform: the room must treat mini-apps
// as disabled (Active is false).
func Install(o Options) error { return ErrUnsupported }
