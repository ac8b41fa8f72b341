package layout

import (
	"strings"
	"testing"
)

// The rules can fail: a report with each fault the issue names is refused for it, and a clean one passes.
func TestCheckFindsEachFault(t *testing.T) {
	clean := func() Report {
		var r Report
		r.Viewport.W, r.Viewport.H = 900, 600
		r.Stage = &Box{200, 51, 440, 547}
		r.Container = &Box{200, 51, 440, 507}
		r.Panel = &Box{640, 51, 260, 547}
		r.Session = &Box{650, 60, 240, 200}
		r.Windows = []Window{{AppID: "a", Box: Box{220, 67, 300, 300}}, {AppID: "b", Box: Box{252, 99, 300, 300}, Front: true}}
		r.Closers = []Control{{Name: "a ✕", Box: Box{480, 70, 30, 22}, Window: "a"}, {Name: "b ✕", Box: Box{512, 102, 30, 22}, Hit: true, Window: "b"}}
		r.Toasts = []Toast{{Box: Box{212, 480, 416, 60}, Text: "hi"}}
		return r
	}
	want := Want{MinStageW: 400, MinStageH: 400, Windows: 2, Toasts: 1}
	if bad := Check(clean(), want); len(bad) > 0 {
		t.Fatalf("a clean layout: %v", bad)
	}
	for name, c := range map[string]struct {
		spoil func(*Report)
		says  string
	}{
		"the 7th on the 1st":        {func(r *Report) { r.Windows[1].Box.X, r.Windows[1].Box.Y = 220, 67 }, "share their top-left corner"},
		"✕ behind the side panel":   {func(r *Report) { r.Closers[1].Cover = "aside#panel" }, "covered by aside#panel"},
		"✕ out of the window":       {func(r *Report) { r.Closers[1].Box.X = 890 }, "outside the viewport"},
		"front ✕ under another":     {func(r *Report) { r.Closers[1].Hit = false; r.Closers[1].Top = "section" }, "is under section"},
		"a toast over the panel":    {func(r *Report) { r.Toasts[0].Box.X = 600 }, "overlaps the side panel"},
		"a squeezed stage":          {func(r *Report) { r.Stage.W = 320 }, "the stage is"},
		"a window out of the stage": {func(r *Report) { r.Windows[0].Box.X = 500 }, "not inside the stage"},
		"the viewer's buttons covered": {func(r *Report) {
			r.ViewerButtons = []Control{{Name: "file-delete", Box: Box{500, 120, 60, 30}, Cover: "section.mini-app-window"}}
		}, "File Viewer's button file-delete"},
	} {
		r := clean()
		c.spoil(&r)
		bad := Check(r, want)
		if !strings.Contains(strings.Join(bad, "\n"), c.says) {
			t.Errorf("%s: %v, want a fault that says %q", name, bad, c.says)
		}
	}
}
