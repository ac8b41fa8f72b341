// Package exposed is what callers outside the room, the live voice session and the MCP door, see of the
// open mini-apps: every open tool under the name it is exposed by, in a snapshot rebuilt only when the
// registry changes, and a feed of changes throttled so that an app that churns its tools cannot flood a
// voice provider or an MCP client with new declarations.
//
// Names come from one toolcontract.Namer, so a name stays with the app that got it (see docs/tools.md):
// a newcomer with the same slug gets a suffixed name, and a call by a name reaches the app it was given to
// or is refused, never another app. The host makes one Table and gives it to both doors, so a tool has one
// name whoever calls it. The package uses the registry only through its public API (Apps, Subscribe).
package exposed

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// DefaultInterval is the least time between two notices on one Changes channel.
const DefaultInterval = 250 * time.Millisecond

// Snapshot is the open apps' tools at one moment. It is immutable: a change makes a new Snapshot, so a
// caller may key a cache on its pointer.
type Snapshot struct {
	// Apps are the open apps, ordered as registry.Apps orders them.
	Apps []registry.App
	// Names maps every open tool's exposed name to its (app, tool).
	Names map[string]toolcontract.Exposed

	byTool map[toolcontract.Exposed]string
	tools  map[toolcontract.Exposed]*toolcontract.Tool
}

// Name is the exposed name of an open app's tool ("" when that tool is not open).
func (s *Snapshot) Name(appID, tool string) string {
	return s.byTool[toolcontract.Exposed{AppID: appID, Tool: tool}]
}

// Tool is the declaration of an open app's tool (nil when that tool is not open).
func (s *Snapshot) Tool(e toolcontract.Exposed) *toolcontract.Tool { return s.tools[e] }

// Declarations are the open apps' tools as provider's function declarations, under their exposed names,
// and the map from each name back to its (app, tool): what a voice session declares, and what the room's
// functionDeclarations shows.
func (s *Snapshot) Declarations(provider string) ([]json.RawMessage, map[string]toolcontract.Exposed, error) {
	in := make([]toolcontract.AppTools, len(s.Apps))
	for i, a := range s.Apps {
		in[i] = toolcontract.AppTools{AppID: a.AppID, Slug: a.Slug, Tools: a.Tools}
	}
	return toolcontract.FunctionDeclarations(provider, in, s.byTool)
}

// App is the open app appID.
func (s *Snapshot) App(appID string) (registry.App, bool) {
	for _, a := range s.Apps {
		if a.AppID == appID {
			return a, true
		}
	}
	return registry.App{}, false
}

// Table follows one registry. It is safe for concurrent use.
type Table struct {
	// Interval is the least time between two notices on one Changes channel (DefaultInterval when 0).
	// Set it before the first Changes.
	Interval time.Duration

	reg   *registry.Registry
	namer *toolcontract.Namer

	mu   sync.Mutex
	snap *Snapshot
}

// New follows reg.
func New(reg *registry.Registry) *Table {
	return &Table{reg: reg, namer: toolcontract.NewNamer()}
}

// Registry is the registry the table follows.
func (t *Table) Registry() *registry.Registry { return t.reg }

// Snapshot returns the open apps' tools as the registry shows them now. It rebuilds only when they
// changed since the last call (another app, title, slug or tool); otherwise it returns the same Snapshot.
// It reads the registry itself rather than waiting for a change notice, so a caller that just launched an
// app sees it, whichever goroutine hears of the change first.
func (t *Table) Snapshot() *Snapshot {
	apps := t.reg.Apps()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.snap == nil || !sameApps(t.snap.Apps, apps) {
		t.snap = t.build(apps)
	}
	return t.snap
}

// sameApps reports whether two reads of the registry show the same apps with the same tools (the registry
// makes new Tools on every registration, so comparing them by identity is enough).
func sameApps(a, b []registry.App) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.AppID != y.AppID || x.Title != y.Title || x.Slug != y.Slug || len(x.Tools) != len(y.Tools) {
			return false
		}
		for j := range x.Tools {
			if x.Tools[j] != y.Tools[j] {
				return false
			}
		}
	}
	return true
}

func (t *Table) build(apps []registry.App) *Snapshot {
	in := make([]toolcontract.AppTools, len(apps))
	tools := map[toolcontract.Exposed]*toolcontract.Tool{}
	for i, a := range apps {
		in[i] = toolcontract.AppTools{AppID: a.AppID, Slug: a.Slug, Tools: a.Tools}
		for _, tl := range a.Tools {
			if tl != nil {
				tools[toolcontract.Exposed{AppID: a.AppID, Tool: tl.Name}] = tl
			}
		}
	}
	byTool := t.namer.Assign(in)
	names := make(map[string]toolcontract.Exposed, len(byTool))
	for key, name := range byTool {
		names[name] = key
	}
	return &Snapshot{Apps: apps, Names: names, byTool: byTool, tools: tools}
}

// Changes returns a channel that receives a notice when the open apps or their tools changed: at once
// after a quiet Interval, otherwise once the Interval since the last notice has passed, however many
// changes came meanwhile. Receivers read Snapshot for what changed. stop ends the feed.
func (t *Table) Changes() (notices <-chan struct{}, stop func()) {
	in, unsubscribe := t.reg.Subscribe()
	out := make(chan struct{}, 1)
	done := make(chan struct{})
	every := t.Interval
	if every <= 0 {
		every = DefaultInterval
	}
	go events.Throttle(in, out, every, done)
	var once sync.Once
	return out, func() {
		once.Do(func() {
			unsubscribe()
			close(done)
		})
	}
}
