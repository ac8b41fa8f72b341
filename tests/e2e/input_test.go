package e2e

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// Trusted input: a click the browser itself delivers (user activation, focus), in either engine. The
// coordinates are the room page's CSS pixels.

func (c *chromiumPage) click(x, y float64) error {
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	return chromedp.Do(ctx, chromedp.MouseClickXY(x, y))
}

func (w *webkitPage) click(x, y float64) error {
	_, err := w.do("POST", "/actions", map[string]any{"actions": []any{map[string]any{
		"type": "pointer", "id": "mouse", "parameters": map[string]any{"pointerType": "mouse"},
		"actions": []any{
			map[string]any{"type": "pointerMove", "x": int(x), "y": int(y), "origin": "viewport"},
			map[string]any{"type": "pointerDown", "button": 0},
			map[string]any{"type": "pointerUp", "button": 0},
		},
	}}})
	if err == nil {
		_, err = w.do("DELETE", "/actions", nil)
	}
	return err
}

// focusWindow makes the browser treat the room's window as the one with the system's focus, as a person's
// window is (headless Chromium otherwise leaves it to chance); WebKit's MiniBrowser under Xvfb needs no help.
func focusWindow(t testing.TB, p page) {
	t.Helper()
	c, ok := p.(*chromiumPage)
	if !ok {
		return
	}
	_, err := chromedp.Run(c.ctx, func(ctx context.Context, tg *chromedp.Target) (cdp.Empty, error) {
		return cdp.Call(ctx, tg, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
	})
	if err != nil {
		t.Fatalf("focus emulation: %v", err)
	}
}

// hasKeyboard reports whether the room has handed the app the keyboard (its frame is not inert).
func hasKeyboard(t testing.TB, p page, appID string) bool {
	t.Helper()
	var has bool
	eval(t, p, &has, `return !document.querySelector('.mini-app-window[data-app-id=%s] .mini-app-body').inert;`, js(appID))
	return has
}

type clicker interface {
	page
	click(x, y float64) error
}

// clickInApp clicks the middle of the element the selector finds in an open app, as the person would. The
// app must have a tool "rect" ({selector} → scroll it into view, then its getBoundingClientRect() and the
// viewport's size as {x, y, w, h, vw, vh}), since the room cannot see into it.
func clickInApp(t testing.TB, p page, appID, selector string) {
	t.Helper()
	c, ok := p.(clicker)
	if !ok {
		t.Fatalf("%s cannot click", p.name())
	}
	// Windows cascade as apps open; the one clicked moves to the top left, so the whole frame is on screen.
	eval(t, p, nil, `const w = document.querySelector('.mini-app-window[data-app-id=%s]'); w.style.left = "0px"; w.style.top = "0px"; return true;`, js(appID))
	// An app that does not have the keyboard is inert: the person's first press on it only hands it the
	// keyboard (frontend/room/src/keyboard.js), and the next one reaches it.
	if !hasKeyboard(t, p, appID) {
		var mid struct{ X, Y float64 }
		eval(t, p, &mid, `const r = document.querySelector('.mini-app-window[data-app-id=%s] .mini-app-body').getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2};`, js(appID))
		if err := c.click(mid.X, mid.Y); err != nil {
			t.Fatalf("%s: press to hand over the keyboard: %v", p.name(), err)
		}
		waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the app to get the keyboard",
			`return !document.querySelector('.mini-app-window[data-app-id=`+js(appID)+`] .mini-app-body').inert;`)
	}
	// The app's viewport follows its frame's size asynchronously (a notice above the frame resizes it):
	// measure until both sides agree.
	var frame struct{ X, Y, W, H float64 }
	var r struct{ X, Y, W, H, VW, VH float64 }
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		eval(t, p, &frame, `const r = document.querySelector('.mini-app-window[data-app-id=%s] .mini-app-bridge').getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height};`, js(appID))
		o := callTool(t, p, appID, "rect", map[string]any{"selector": selector})
		if !o.OK || json.Unmarshal(o.Result, &r) != nil || r.W == 0 {
			t.Fatalf("rect of %s in %s: %+v", selector, appID, o)
		}
		if math.Abs(r.VH-frame.H) < 1 && math.Abs(r.VW-frame.W) < 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the app's viewport %vx%v never matched its frame %vx%v", r.VW, r.VH, frame.W, frame.H)
		}
	}
	if cx, cy := r.X+r.W/2, r.Y+r.H/2; cx < 0 || cy < 0 || cx > r.VW || cy > r.VH {
		t.Fatalf("%s is outside the app's viewport: %+v", selector, r)
	}
	x, y := frame.X+r.X+r.W/2, frame.Y+r.Y+r.H/2
	var hit string
	eval(t, p, &hit, `await new Promise((f) => requestAnimationFrame(() => requestAnimationFrame(f))); const e = document.elementFromPoint(%v, %v); return e === document.querySelector('.mini-app-window[data-app-id=%s] .mini-app-bridge') ? "" : (e ? e.outerHTML.slice(0, 120) : "nothing") + " at %v,%v of " + innerWidth + "x" + innerHeight;`, x, y, js(appID), x, y)
	if hit != "" {
		t.Fatalf("the room would not deliver a click on %s to the app: %s", selector, hit)
	}
	if err := c.click(x, y); err != nil {
		t.Fatalf("%s: click %s: %v", p.name(), selector, err)
	}
}
