//go:build linux && cgo

package webview

/*
#cgo pkg-config: webkit2gtk-4.1 gtk+-3.0
void vbt_watch(void);
*/
import "C"

import (
	"math"
	"time"

	"github.com/voicebox/voicebox/backend/trace"
)

// Watch marks, for the first WebKitWebView that gets a parent, when it gets it ("webview-parented"), when
// WebKit starts a web process for it ("web-process-starting", initialize-web-extensions), when it is first
// shown ("window-shown"), when the room's load starts ("room-load-started") and its document commits
// ("room-committed"), when the room first paints text or an image ("room-painted", the engine's
// first-contentful-paint) and when its load finishes ("room-loaded"). Call it on the main goroutine before wails.Run; it does nothing unless Enabled.
func Watch() {
	if trace.Enabled() {
		C.vbt_watch()
	}
}

//export voiceboxTraceMark
func voiceboxTraceMark(stage *C.char, epochMS C.double) {
	t := time.Now()
	if epochMS > 0 {
		sec, frac := math.Modf(float64(epochMS) / 1000)
		t = time.Unix(int64(sec), int64(frac*1e9))
	}
	trace.MarkAt(C.GoString(stage), t)
}
