//go:build !linux || !cgo

package trace

// WatchWebView does nothing where there is no WebKitGTK.
func WatchWebView() {}
