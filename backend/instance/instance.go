// Package instance keeps one Voicebox window per data folder. A second launch on the same data folder
// hands its command line to the window already running and exits, before it opens anything of its own
// (no store scan, no asset server, no window): HandOver is the first thing the desktop start does. The
// first launch's Wails single-instance lock (keyed by ID) takes the message.
package instance

import (
	"crypto/sha256"
	"encoding/hex"
)

// ID is the single-instance key of a data folder, so two Voiceboxes on different data folders (a test
// beside a person's own) do not hand files to each other.
func ID(data string) string {
	sum := sha256.Sum256([]byte(data))
	return "dev.voicebox.desktop." + hex.EncodeToString(sum[:6])
}
