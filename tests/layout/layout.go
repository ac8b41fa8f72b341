// Package layout judges the room's layout from what the room measures (frontend/room/src/layoutprobe.js):
// the same rules for `voicebox serve` in Chromium (tests/e2e) and for the desktop window (tests/desktop),
// which both keep screenshots of each scenario beside the verdict. The rules compare boxes, never pixels:
//
//   - every ✕ and every control of the stage (the File Viewer's buttons, the pop-overs' title-bar buttons,
//     the window list, the toasts' buttons) lies inside the viewport, and nothing but another pop-over (the
//     window list brings that one up) is on top at its centre: not a side panel, not a toast, not the
//     stage's edge;
//   - the File Viewer's buttons, the front window's and the toasts' are the topmost thing at their centre;
//   - no toast overlaps the side panel (the Live Session) or the File Viewer's buttons;
//   - no two windows share a top-left corner (the cascade never hides one under another);
//   - every window lies inside the stage;
//   - the stage keeps at least a given size.
package layout

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Box is an element's box in CSS pixels.
type Box struct{ X, Y, W, H int }

func (b *Box) empty() bool { return b == nil || b.W <= 0 || b.H <= 0 }

func (b Box) String() string { return fmt.Sprintf("%dx%d@%d,%d", b.W, b.H, b.X, b.Y) }

// Overlaps says whether two boxes share area.
func (b Box) Overlaps(o Box) bool {
	return b.X < o.X+o.W && o.X < b.X+b.W && b.Y < o.Y+o.H && o.Y < b.Y+b.H
}

// Within says whether b lies inside o (edges included), with slack pixels of rounding.
func (b Box) Within(o Box, slack int) bool {
	return b.X >= o.X-slack && b.Y >= o.Y-slack && b.X+b.W <= o.X+o.W+slack && b.Y+b.H <= o.Y+o.H+slack
}

// Control is a button the person must reach, and what is on top at its centre.
type Control struct {
	Name   string `json:"name"`
	Box    Box    `json:"box"`
	Hit    bool   `json:"hit"`    // it is the topmost thing at its centre
	Top    string `json:"top"`    // what is
	Cover  string `json:"cover"`  // the first thing above it that is not another pop-over ("" when none)
	Window string `json:"window"` // the app of the pop-over it belongs to, if any
}

// Window is a pop-over.
type Window struct {
	AppID     string `json:"appId"`
	Box       Box    `json:"box"`
	Front     bool   `json:"front"`
	Maximised bool   `json:"maximised"`
}

// Toast is one of the room's notices.
type Toast struct {
	Box  Box    `json:"box"`
	Text string `json:"text"`
}

// Report is what layoutprobe.js measures.
type Report struct {
	Viewport      struct{ W, H int } `json:"viewport"`
	Stage         *Box               `json:"stage"`
	Container     *Box               `json:"container"`
	Sidebar       *Box               `json:"sidebar"`
	Panel         *Box               `json:"panel"`
	Session       *Box               `json:"session"`
	Activity      *Box               `json:"activity"`
	Viewer        *Box               `json:"viewer"`
	ViewerButtons []Control          `json:"viewerButtons"`
	Windows       []Window           `json:"windows"`
	Minimised     []string           `json:"minimised"`
	Frames        int                `json:"frames"` // every frame of the room, shown or not
	WindowList    []string           `json:"windowList"`
	Toasts        []Toast            `json:"toasts"`
	Dialogs       []string           `json:"dialogs"` // the ids of the open dialogs
	Closers       []Control          `json:"closers"`
	Controls      []Control          `json:"controls"`
}

// Want is what a scenario expects beyond the rules that always hold.
type Want struct {
	MinStageW, MinStageH int // the stage keeps at least this size
	Windows              int // this many windows show (-1: any)
	Toasts               int // at least this many toasts show
	Viewer               bool
}

// Check returns every rule the report breaks (nil when the layout is right).
func Check(r Report, want Want) []string {
	var bad []string
	fail := func(f string, a ...any) { bad = append(bad, fmt.Sprintf(f, a...)) }
	view := Box{0, 0, r.Viewport.W, r.Viewport.H}
	if r.Stage.empty() {
		return []string{"the stage does not show"}
	}
	if r.Stage.W < want.MinStageW || r.Stage.H < want.MinStageH {
		fail("the stage is %v at %dx%d, want at least %dx%d", *r.Stage, r.Viewport.W, r.Viewport.H, want.MinStageW, want.MinStageH)
	}
	if want.Windows >= 0 && len(r.Windows) != want.Windows {
		fail("%d windows show, want %d", len(r.Windows), want.Windows)
	}
	if len(r.Toasts) < want.Toasts {
		fail("%d toasts show, want at least %d", len(r.Toasts), want.Toasts)
	}
	if want.Viewer && r.Viewer.empty() {
		fail("the File Viewer does not show")
	}
	front := ""
	for _, w := range r.Windows {
		if w.Front {
			front = w.AppID
		}
		if r.Container != nil && !w.Box.Within(*r.Container, 1) {
			fail("window %s at %v is not inside the stage's room for windows %v", w.AppID, w.Box, *r.Container)
		}
	}
	corners := map[[2]int]string{}
	for _, w := range r.Windows {
		k := [2]int{w.Box.X, w.Box.Y}
		if other, ok := corners[k]; ok && !w.Maximised {
			fail("windows %s and %s share their top-left corner %d,%d", other, w.AppID, k[0], k[1])
		}
		corners[k] = w.AppID
	}
	reach := func(kind string, c Control, mustBeTop bool) {
		if !c.Box.Within(view, 0) {
			fail("%s %s at %v is outside the viewport %dx%d", kind, c.Name, c.Box, r.Viewport.W, r.Viewport.H)
			return
		}
		if c.Cover != "" {
			fail("%s %s at %v is covered by %s", kind, c.Name, c.Box, c.Cover)
		} else if mustBeTop && !c.Hit {
			fail("%s %s at %v is under %s", kind, c.Name, c.Box, c.Top)
		}
	}
	for _, c := range r.Closers {
		reach("the ✕", c, c.Window == "" || c.Window == front)
	}
	for _, c := range r.ViewerButtons {
		reach("the File Viewer's button", c, true)
	}
	for _, c := range r.Controls {
		if strings.Contains(c.Name, "mini-app-grip") {
			continue // a toast may cover a window's corner until it goes; the grip's window is still in reach
		}
		reach("the control", c, c.Window == "" || c.Window == front)
	}
	for _, t := range r.Toasts {
		if r.Panel != nil && t.Box.Overlaps(*r.Panel) {
			fail("the toast %q at %v overlaps the side panel %v", t.Text, t.Box, *r.Panel)
		}
		if r.Session != nil && t.Box.Overlaps(*r.Session) {
			fail("the toast %q at %v overlaps the Live Session %v", t.Text, t.Box, *r.Session)
		}
		for _, b := range r.ViewerButtons {
			if t.Box.Overlaps(b.Box) {
				fail("the toast %q at %v covers the File Viewer's %s", t.Text, t.Box, b.Name)
			}
		}
	}
	return bad
}

// ShotDir is where scenario screenshots go: $VOICEBOX_SCREENSHOTS (kept), else the test's own temp folder.
func ShotDir(tempDir func() string) string {
	if d := os.Getenv("VOICEBOX_SCREENSHOTS"); d != "" {
		_ = os.MkdirAll(d, 0o755)
		return d
	}
	return tempDir()
}

// ShotName names a scenario's screenshot: mode-scenario-WxH.png.
func ShotName(dir, mode, scenario string, w, h int) string {
	return filepath.Join(dir, fmt.Sprintf("%s-%s-%dx%d.png", mode, scenario, w, h))
}
