package desktop

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pt is a place: in the window's client area (window coordinates) unless said otherwise.
type pt struct{ x, y int }

// pointer drives one window the way a person does, through xdotool, and reads the screen around a place.
type pointer struct {
	t   *testing.T
	s   *session
	win string
}

func (p pointer) xdo(args ...string) {
	p.t.Helper()
	if out, err := p.s.run(p.t, 30*time.Second, "xdotool", args...); err != nil {
		p.t.Fatalf("xdotool %v: %v %s", args, err, out)
	}
}

// geometry is where the window's client area is on the screen now (GTK may still move it after it shows),
// and how wide it is.
func (p pointer) geometry() (origin pt, width int) {
	p.t.Helper()
	geo, err := p.s.run(p.t, 5*time.Second, "xdotool", "getwindowgeometry", "--shell", p.win)
	if err != nil {
		p.t.Fatalf("getwindowgeometry: %v %s", err, geo)
	}
	for _, l := range strings.Fields(geo) {
		if k, v, ok := strings.Cut(l, "="); ok {
			n, _ := strconv.Atoi(v)
			switch k {
			case "X":
				origin.x = n
			case "Y":
				origin.y = n
			case "WIDTH":
				width = n
			}
		}
	}
	return origin, width
}

// onScreen turns window coordinates into the screen's.
func (p pointer) onScreen(w pt) pt {
	p.t.Helper()
	o, _ := p.geometry()
	return pt{o.x + w.x, o.y + w.y}
}

// press clicks at w the way a hand does, arriving there: WebKit hit-tests a press where the pointer last
// moved, so a frame that stopped being inert needs a move to be found.
func (p pointer) press(w pt) {
	p.t.Helper()
	p.pressOnScreen(p.onScreen(w))
}

func (p pointer) pressOnScreen(at pt) {
	p.t.Helper()
	x, y := at.x, at.y
	p.xdo("mousemove", strconv.Itoa(x-3), strconv.Itoa(y-3), "sleep", "0.05", "mousemove", strconv.Itoa(x), strconv.Itoa(y), "click", "1")
}

// look hashes what the screen shows in a box of size centred on w.
func (p pointer) look(w, size pt) string {
	p.t.Helper()
	c := p.onScreen(w)
	img := p.s.screenshot(p.t)
	h := sha256.New()
	for y := c.y - size.y/2; y < c.y+size.y/2; y++ {
		for x := c.x - size.x/2; x < c.x+size.x/2; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			h.Write([]byte{byte(r >> 8), byte(g >> 8), byte(b >> 8)})
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// key sends one key to the window.
func (p pointer) key(k string) {
	p.t.Helper()
	p.xdo("windowfocus", "--sync", p.win, "key", "--clearmodifiers", k)
}
