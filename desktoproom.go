package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/voicebox/voicebox/backend/atomicfile"
	"github.com/voicebox/voicebox/backend/services"
)

// ExportActivity saves the activity log (all of Go's ring, as JSON) where the person picks in a Save dialog,
// suggesting name; it returns the path, or "" when the person cancelled. (`voicebox serve` has the browser
// download it instead: room/src/activity.js.)
func (r *RoomService) ExportActivity(name string) (string, error) {
	name = filepath.Base(strings.TrimSpace(name))
	if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
		name = "voicebox-activity.json"
	}
	path, err := runtime.SaveFileDialog(r.app.ctx, runtime.SaveDialogOptions{
		Title: "Export the activity log", DefaultFilename: name,
		Filters: []runtime.FileFilter{{DisplayName: "JSON (*.json)", Pattern: "*.json"}},
	})
	if err != nil || path == "" {
		return "", err
	}
	data, err := json.MarshalIndent(r.app.host.Activity.List(), "", "  ")
	if err != nil {
		return "", err
	}
	return path, atomicfile.Write(path, append(data, '\n'), 0o644)
}

// LayoutProbeEnv names a file where the room writes what its layout measures (room/src/layoutprobe.js)
// each time it settles: for tests/desktop's layout check, which cannot read the window's DOM otherwise.
// Unset (always, outside that test), the room measures nothing and LayoutReport refuses.
const LayoutProbeEnv = "VOICEBOX_LAYOUT_PROBE"

// maxLayoutReport bounds a report (a few hundred element boxes).
const maxLayoutReport = 256 << 10

// LayoutReport writes the room's layout report to $VOICEBOX_LAYOUT_PROBE.
func (r *RoomService) LayoutReport(report json.RawMessage) error {
	path := os.Getenv(LayoutProbeEnv)
	switch {
	case path == "":
		return services.BadRequest("no layout probe was asked for (" + LayoutProbeEnv + ")")
	case len(report) > maxLayoutReport || !json.Valid(report):
		return services.BadRequest("a layout report is JSON of at most 256 KiB")
	}
	return atomicfile.Write(path, report, 0o644)
}
