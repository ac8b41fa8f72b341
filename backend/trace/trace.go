// Package trace prints the milestones of a desktop start when VOICEBOX_TRACE=1, one line each on stderr:
//
//	voicebox-trace: <stage> <unix time in µs>
//
// `make bench` (tests/desktop) reads them to split a cold start into stages; nothing else does, and
// nothing asserts on them. With the variable unset a mark costs one boolean test. backend/trace/webview adds
// the marks only the engine can see (the window shown, the room's document committed and first painted).
package trace

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// Env turns the trace on when set to "1".
const Env = "VOICEBOX_TRACE"

// Prefix starts every trace line.
const Prefix = "voicebox-trace:"

var (
	on   = os.Getenv(Env) == "1"
	mu   sync.Mutex
	seen = map[string]bool{}
)

// Enabled reports whether VOICEBOX_TRACE=1.
func Enabled() bool { return on }

// Mark prints stage now, the first time only (a stage is a milestone of the start, not an event).
func Mark(stage string) {
	if on {
		MarkAt(stage, time.Now())
	}
}

// MarkAt prints stage at t, the first time only.
func MarkAt(stage string, t time.Time) {
	if !on {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if seen[stage] {
		return
	}
	seen[stage] = true
	fmt.Fprintf(os.Stderr, "%s %s %d\n", Prefix, stage, t.UnixMicro())
}
