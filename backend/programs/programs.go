// Package programs says where Voicebox's two programs are, each from the other: voicebox, which people,
// desktops and MCP clients start (cmd/voicebox, no GTK or WebKitGTK), and voicebox-desktop, the window's
// program (the module's root package). They sit side by side in a build folder; a package puts voicebox in
// /usr/bin and voicebox-desktop in /usr/lib/voicebox (scripts/package).
package programs

import (
	"fmt"
	"os"
	"path/filepath"
)

// Names of the two programs' files.
const (
	Front  = "voicebox"
	Window = "voicebox-desktop"
)

// WindowPath is the window's program for the front program running as self (os.Executable): beside it,
// else in ../lib/voicebox.
func WindowPath(self string) (string, error) {
	dir := filepath.Dir(self)
	tried := []string{filepath.Join(dir, Window), filepath.Join(dir, "..", "lib", "voicebox", Window)}
	for _, p := range tried {
		if isFile(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("the window's program is missing (looked for %s and %s); `voicebox serve` opens the room in a browser instead", tried[0], tried[1])
}

// FrontPath is the program to name where the program running as self tells others how to start Voicebox
// (an MCP client's config): the front program beside the window's program or in ../../bin, else self.
func FrontPath(self string) string {
	if filepath.Base(self) != Window {
		return self
	}
	dir := filepath.Dir(self)
	for _, p := range []string{filepath.Join(dir, Front), filepath.Join(dir, "..", "..", "bin", Front)} {
		if isFile(p) {
			return filepath.Clean(p)
		}
	}
	return self
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
