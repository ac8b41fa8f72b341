//go:build !linux || !cgo

// Package webview adds the start marks only the engine can see (backend/trace): the window shown, the
// room's document committed and first painted. It is its own package because it builds against WebKitGTK's
// headers, which only the desktop binary needs; the packages that mark stages need nothing but the Go
// toolchain, so their tests build on a machine where WebKitGTK is not installed yet.
package webview

// Watch does nothing where there is no WebKitGTK.
func Watch() {}
