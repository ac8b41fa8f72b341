package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/voicebox/voicebox/backend/atomicfile"
	"github.com/voicebox/voicebox/backend/guard"
	"github.com/voicebox/voicebox/backend/sandbox"
	"github.com/voicebox/voicebox/backend/services"
)

// What the desktop room does for a mini-app (docs/webmcp.md): the bridge has checked the person's gesture
// and the bounds, and the room has cleaned the file name; these methods are the native ends.

// SaveDownload lets the person save the bytes of a mini-app's download: a native Save dialog picks the
// path (the app only suggests a name), and nothing is written when they cancel. It returns the path.
func (r *RoomService) SaveDownload(name string, data []byte) (string, error) {
	return r.app.saveDownload(name, data)
}

// saving is true while a Save dialog is up: it is modal for the person, one at a time.
var saving atomic.Bool

// saveDownload is the one Save of a mini-app's bytes, whichever way they came (a download link through the
// room, a navigation to a blob: URL through the guard): bounded, one dialog at a time, written atomically.
func (a *App) saveDownload(name string, data []byte) (string, error) {
	if len(data) > sandbox.MaxDownloadBytes {
		return "", fmt.Errorf("the download is %d bytes, over the limit of %d", len(data), sandbox.MaxDownloadBytes)
	}
	if !saving.CompareAndSwap(false, true) {
		return "", errors.New("another download is being saved")
	}
	defer saving.Store(false)
	path, err := runtime.SaveFileDialog(a.ctx, runtime.SaveDialogOptions{
		Title: "Save the download", DefaultFilename: downloadName(name), DefaultDirectory: downloadDir(),
	})
	if err != nil || path == "" {
		return "", err
	}
	return path, atomicfile.Write(path, data, 0o644)
}

// navigationDownload saves what a mini-app downloaded by navigating its frame to one of its blob: URLs
// (guard.Options.OnDownload; docs/webmcp.md): the guard has checked the person's gesture and the bound, and
// says why when it refused. The app is not known here (WebKit does not say which frame navigated), so the
// outcome goes to the activity log, where the room's own downloads are logged too.
func (a *App) navigationDownload(d guard.Download) {
	name := downloadName(d.Name)
	outcome, failed := "Refused ("+d.Refused+"): "+d.Message, true
	if d.Refused == "" {
		outcome, failed = a.saveNavigationDownload(name, d.Path)
	}
	log.Printf("download by navigation: %s: %s", name, outcome)
	input, _ := json.Marshal(name)
	out, _ := json.Marshal(outcome)
	_ = a.host.ActivityService.Add(services.RoomLine{Who: "a mini-app", What: "download", Input: input, Outcome: out, Failed: failed})
}

// saveNavigationDownload saves the guard's file through the Save dialog and removes the guard's private
// folder; it says what became of it and whether that was a failure.
func (a *App) saveNavigationDownload(name, file string) (string, bool) {
	data, err := os.ReadFile(file)
	os.RemoveAll(filepath.Dir(file))
	if err != nil {
		return "Not saved: " + err.Error(), true
	}
	path, err := a.saveDownload(name, data)
	switch {
	case err != nil:
		return "Not saved: " + err.Error(), true
	case path == "":
		return "Not saved (cancelled)", false
	}
	return fmt.Sprintf("Saved %s (%d bytes)", path, len(data)), false
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
