// Package activity keeps the room's activity log in Go: a bounded ring of the newest lines, each numbered.
// The room draws the log from it, so the log survives a reload of the room (a page reload in `voicebox
// serve`, the desktop watchdog's restart of a hung web process) and shows what Go's callers (voice, MCP) did
// while no room was open. Every line reaches the rooms as an "activity" event stamped here (Log.Stamp is the
// bus's transform for that name), so a room that reads the ring at boot and hears the events meanwhile can
// tell a line it has from a new one by its number (docs/room.md, "Activity log").
package activity

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/voicebox/voicebox/backend/display"
	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/registry"
)

// Bounds: the newest Keep lines are kept; a line's texts are cut to MaxText bytes and its input and outcome
// summarised beyond MaxData bytes of JSON, so the ring holds at most about Keep × 2 × MaxData bytes.
const (
	Keep    = 500
	MaxText = 256
	MaxData = 2048
)

// Event names on the bus.
const (
	EventLine    = registry.EventActivity // one new line (a Line once stamped)
	EventCleared = "activity:cleared"     // the log was cleared
)

// Line is one entry of the log.
type Line struct {
	Seq     int64           `json:"seq"`             // 1, 2, …: the order lines were recorded in this run
	At      int64           `json:"at"`              // when, in Unix milliseconds
	Who     string          `json:"who"`             // the caller: "you", "console", "voice:openai", "mcp:<client>", an app's title
	What    string          `json:"what"`            // what was done: "launch", "set_score (app_x)", "register t16", …
	Input   json.RawMessage `json:"input,omitempty"` // the arguments or the reference, as JSON
	Outcome json.RawMessage `json:"outcome,omitempty"`
	Failed  bool            `json:"failed,omitempty"`
	Ms      *int64          `json:"ms,omitempty"` // how long it took, when measured
	// Room and Key name the room page that added the line and its own number for it, so that page can tell
	// its own line when the event comes back (it drew the line at once).
	Room string `json:"room,omitempty"`
	Key  string `json:"key,omitempty"`
}

// Log is the ring; safe for concurrent use.
type Log struct {
	mu    sync.Mutex
	lines []Line // oldest first, at most Keep
	seq   int64
	now   func() time.Time
}

// New returns an empty log.
func New() *Log { return &Log{now: time.Now} }

// On returns a new log that records every line published on bus (its transform for EventLine).
func On(bus *events.Bus) *Log {
	l := New()
	bus.Transform(EventLine, l.Stamp)
	return l
}

// Stamp records data as a line and returns the line to publish in its place: a registry.Activity (Go's
// callers) or a Line (the room's own, through Add). Anything else passes unchanged.
func (l *Log) Stamp(data any) any {
	switch v := data.(type) {
	case registry.Activity:
		return l.record(fromRegistry(v))
	case Line:
		return l.record(v)
	}
	return data
}

// List returns the lines, oldest first.
func (l *Log) List() []Line {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Line(nil), l.lines...)
}

// Clear empties the log; numbering goes on, so a line is never numbered twice in one run.
func (l *Log) Clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = nil
}

func (l *Log) record(line Line) Line {
	line = bounded(line)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	line.Seq = l.seq
	if line.At == 0 {
		line.At = l.now().UnixMilli()
	}
	if len(l.lines) == Keep {
		copy(l.lines, l.lines[1:])
		l.lines = l.lines[:Keep-1]
	}
	l.lines = append(l.lines, line)
	return line
}

// fromRegistry writes a call, launch or close from outside the room as a line.
func fromRegistry(a registry.Activity) Line {
	var what string
	var input json.RawMessage
	switch a.Op {
	case registry.OpCall:
		what, input = fmt.Sprintf("%s (%s)", a.Tool, a.AppID), a.Args
	case registry.OpLaunch:
		what, input = "launch", quote(a.Ref)
	case registry.OpAppError: // the app's own error: where, and the message alone
		what = "script error"
		if a.Tool == "rejection" {
			what = "unhandled rejection"
		}
		if a.Ref != "" {
			input = quote(a.Ref)
		}
		return Line{Who: a.Caller, What: what, Input: input, Outcome: quote(a.Outcome.Message), Failed: true}
	default:
		what = strings.TrimSpace(a.Op + " " + a.AppID)
		if len(a.Args) > 0 {
			input = a.Args
		}
	}
	o := a.Outcome
	var outcome json.RawMessage
	if o.OK {
		outcome = o.Result
		if len(outcome) == 0 {
			outcome = quote("ok")
		}
	} else {
		outcome = quote(o.Refused + ": " + o.Message)
	}
	ms := a.Millis
	return Line{Who: a.Caller, What: what, Input: input, Outcome: outcome, Failed: !o.OK, Ms: &ms}
}

// bounded cuts a line's texts and summarises its data past the bounds.
func bounded(l Line) Line {
	l.Who, l.What, l.Room, l.Key = cut(l.Who), cut(l.What), cut(l.Room), cut(l.Key)
	l.Input, l.Outcome = summary(l.Input, "input"), summary(l.Outcome, "outcome")
	return l
}

func cut(s string) string {
	if len(s) <= MaxText {
		return s
	}
	return display.Cut(s, MaxText) + "…"
}

func summary(raw json.RawMessage, what string) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	if len(raw) > MaxData || !json.Valid(raw) {
		return quote(fmt.Sprintf("(%d bytes of %s)", len(raw), what))
	}
	return raw
}

func quote(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
