package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/voicebox/voicebox/backend/atomicfile"
	"github.com/voicebox/voicebox/backend/sandbox"
)

// What the desktop room does for a mini-app (docs/webmcp.md): the bridge has checked the person's gesture
// and the bounds, and the room has cleaned the file name; these methods are the native ends.

// SaveDownload lets the person save the bytes of a mini-app's download: a native Save dialog picks the
// path (the app only suggests a name), and nothing is written when they cancel. It returns the path.
func (r *RoomService) SaveDownload(name string, data []byte) (string, error) {
	if len(data) > sandbox.MaxDownloadBytes {
		return "", fmt.Errorf("the download is %d bytes, over the limit of %d", len(data), sandbox.MaxDownloadBytes)
	}
	path, err := runtime.SaveFileDialog(r.app.ctx, runtime.SaveDialogOptions{
		Title: "Save the download", DefaultFilename: downloadName(name), DefaultDirectory: downloadDir(),
	})
	if err != nil || path == "" {
		return "", err
	}
	return path, atomicfile.Write(path, data, 0o644)
}

// CopyText puts a mini-app's text on the system clipboard.
func (r *RoomService) CopyText(text string) error {
	if len(text) > 3*sandbox.MaxCopyChars { // UTF-8 bytes of at most MaxCopyChars UTF-16 units
		return fmt.Errorf("the text is over the limit of %d characters", sandbox.MaxCopyChars)
	}
	return runtime.ClipboardSetText(r.app.ctx, text)
}

// downloadDir is where the Save dialog opens: ~/Downloads when there is one, else the home folder, else the
// dialog's own choice. Wails refuses a default directory that does not exist, and then nothing is saved.
func downloadDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	for _, dir := range []string{filepath.Join(home, "Downloads"), home} {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
	}
	return ""
}

// downloadName keeps a suggested name a plain file name whatever the room sent (the room's fileName in
// mediation.js is the rule; this is the wall behind it): no folder, no leading dot, never empty.
func downloadName(name string) string {
	name = filepath.Base(strings.ReplaceAll(name, "\\", "/"))
	name = strings.TrimLeft(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '_'
		}
		return r
	}, name), ". ")
	if name == "" || name == "/" {
		return "download"
	}
	return name
}
