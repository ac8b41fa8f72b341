package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/voicebox/voicebox/tests/layout"
)

// The visual check of `voicebox serve` (issue 15, "How to prove it"): scenarios at 1440×900 and 900×600 in
// Chromium, each kept as a screenshot named by scenario (layout.ShotDir: $VOICEBOX_SCREENSHOTS) and judged
// by the boxes the room measures (tests/layout), not by pixels. tests/desktop does the same in the window.

func setViewport(t *testing.T, p *chromiumPage, w, h int) {
	t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.EmulateViewport(int64(w), int64(h))); err != nil {
		t.Fatalf("viewport %dx%d: %v", w, h, err)
	}
	waitTrue(t, p, 5*time.Second, 50*time.Millisecond, "the new size", `return innerWidth === `+js(w)+` && innerHeight === `+js(h)+`;`)
	eval(t, p, nil, `for (let i = 0; i < 10; i++) await new Promise((r) => requestAnimationFrame(r));`) // re-fitted and drawn
}

// probeScript is the room's own measuring code (frontend/room/src/layoutprobe.js) as a script body that
// returns its report. It is evaluated rather than imported so that the same check runs against an older
// room that does not ship it (the "before" screenshots and verdicts: DevTools' evaluation is not bound by
// the room's CSP).
func probeScript(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("../../frontend/room/src/layoutprobe.js")
	if err != nil {
		t.Fatal(err)
	}
	var body []string
	for _, l := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(l, "import ") {
			continue
		}
		body = append(body, strings.TrimPrefix(l, "export "))
	}
	return "const call = () => Promise.reject(new Error(\"measured from the test\"));\n" + strings.Join(body, "\n") + "\nreturn measure();"
}

// shootAndCheck keeps the screenshot first (so a run on older code still leaves one), then judges.
func shootAndCheck(t *testing.T, p *chromiumPage, scenario string, w, h int, want layout.Want) {
	t.Helper()
	shot := layout.ShotName(layout.ShotDir(t.TempDir), "serve", scenario, w, h)
	if err := os.WriteFile(shot, screenshot(t, p), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", shot)
	var raw json.RawMessage
	eval(t, p, &raw, "%s", probeScript(t))
	var r layout.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("layout report %s: %v", raw, err)
	}
	if bad := layout.Check(r, want); len(bad) > 0 {
		t.Errorf("%s at %dx%d (%s):\n  %s", scenario, w, h, shot, strings.Join(bad, "\n  "))
	}
}

// caseLayout: five apps, the File Viewer opened after the first three and two toasts (one error with
// details), at 1440×900, then the window shrinks to 900×600; then seven apps, at both sizes.
func caseLayout(t *testing.T, p *chromiumPage) {
	defer func() { _ = chromedp.Do(p.ctx, chromedp.EmulateReset()) }()
	closeAll(t, p)
	clearToasts(t, p)
	setViewport(t, p, 1440, 900)
	for _, ref := range []string{"echo.html", "many.html", "comment.html"} {
		launch(t, p, ref)
	}
	eval(t, p, nil, `[...document.querySelectorAll("#page-list button")].find((b) => b.textContent.includes("plain.html")).click();`)
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the File Viewer", `return !document.getElementById("file-viewer").hidden;`)
	launch(t, p, "quirks.html")
	launch(t, p, "broken.html")
	eval(t, p, nil, `
		const ui = await import("./src/ui.js");
		ui.notify("OpenAI could not be reached. Check the internet connection, then retry.", "error",
			{details: "failed to WebSocket dial: dial tcp: lookup api.openai.com: no such host", ms: 600000});
		ui.notify("Saved “Echo Lab” to the shelf.", "ok", {ms: 600000});`)
	shootAndCheck(t, p, "viewer-apps-toasts", 1440, 900, layout.Want{MinStageW: 700, MinStageH: 700, Windows: 5, Toasts: 2, Viewer: true})
	setViewport(t, p, 900, 600)
	shootAndCheck(t, p, "viewer-apps-toasts", 900, 600, layout.Want{MinStageW: 400, MinStageH: 400, Windows: 5, Toasts: 2, Viewer: true})

	eval(t, p, nil, `document.getElementById("file-close").click();`)
	launch(t, p, "Shelf Echo")
	launch(t, p, "plain.html")
	shootAndCheck(t, p, "seven-apps", 900, 600, layout.Want{MinStageW: 400, MinStageH: 400, Windows: 7, Toasts: 2})
	setViewport(t, p, 1440, 900)
	shootAndCheck(t, p, "seven-apps", 1440, 900, layout.Want{MinStageW: 700, MinStageH: 700, Windows: 7, Toasts: 2})
	clearToasts(t, p)
	closeAll(t, p)
}
