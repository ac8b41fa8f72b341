// Package recent remembers, across runs, the store's apps that ran lately and the tools each declared the
// last time it ran, so that the room's tray can list recent apps and show an app's tools before it is
// opened. An app declares its tools only while it runs (the bridge hears them from the app), so what the
// tray shows for a closed app is what it declared last time, and it says so (docs/room.md).
//
// The list holds at most MaxApps apps, most recently opened first, in <data>/recent.json, written
// atomically with mode 0600 and only when it changed. A file that cannot be read or parsed starts the list
// empty (Open says why); the next change rewrites it.
package recent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/voicebox/voicebox/backend/atomicfile"
	"github.com/voicebox/voicebox/backend/display"
	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// FileName is the list's file in the data folder.
const FileName = "recent.json"

// Bounds: MaxApps apps of at most toolcontract.MaxTools tools each; the file is read up to maxFileBytes.
const (
	MaxApps      = 24
	maxFileBytes = 4 << 20
	maxIDBytes   = 256
	maxTitle     = 512
)

// App is one app that ran: its id in the store, its title then, when it last opened, and the tools it
// declared (as the registry accepted them: {name, description, parameters, …}).
type App struct {
	AppID   string            `json:"appId"`
	Title   string            `json:"title"`
	LastRun time.Time         `json:"lastRun"`
	Tools   []json.RawMessage `json:"tools"`
}

// List is the remembered list. It is safe for concurrent use.
type List struct {
	path string
	now  func() time.Time

	mu   sync.Mutex
	apps []App
}

// Open reads <dir>/recent.json. It always returns a usable list; the error says why the file was not used.
func Open(dir string) (*List, error) {
	l := &List{path: filepath.Join(dir, FileName), now: time.Now}
	apps, err := read(l.path)
	l.apps = apps
	return l, err
}

func read(path string) ([]App, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("recent: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("recent: %w", err)
	}
	if len(b) > maxFileBytes {
		return nil, fmt.Errorf("recent: %s is over %d bytes; starting empty", path, maxFileBytes)
	}
	var apps []App
	if err := json.Unmarshal(b, &apps); err != nil {
		return nil, fmt.Errorf("recent: %s: %w; starting empty", path, err)
	}
	var kept []App
	for _, a := range apps {
		if valid(a.AppID) && !slices.ContainsFunc(kept, func(k App) bool { return k.AppID == a.AppID }) {
			kept = append(kept, bounded(a))
		}
	}
	return kept[:min(len(kept), MaxApps)], nil
}

func valid(appID string) bool { return appID != "" && len(appID) <= maxIDBytes }

func bounded(a App) App {
	a.Title = display.Text(a.Title, maxTitle)
	tools := make([]json.RawMessage, 0, min(len(a.Tools), toolcontract.MaxTools))
	for _, t := range a.Tools[:min(len(a.Tools), toolcontract.MaxTools)] {
		var b bytes.Buffer
		if json.Compact(&b, t) == nil {
			tools = append(tools, b.Bytes())
		}
	}
	a.Tools = tools
	return a
}

// Apps returns the list, most recently opened first.
func (l *List) Apps() []App {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]App, len(l.apps))
	copy(out, l.apps)
	return out
}

// Saw records an app that runs with these tools. opened says it has just opened: it moves to the front
// and its LastRun is now; otherwise (its tools changed while it ran) it stays where it is. It reports
// whether the list changed (and was written).
func (l *List) Saw(appID, title string, tools []json.RawMessage, opened bool) (bool, error) {
	if !valid(appID) {
		return false, fmt.Errorf("recent: bad app id %q", appID)
	}
	if tools == nil {
		tools = []json.RawMessage{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	i := slices.IndexFunc(l.apps, func(a App) bool { return a.AppID == appID })
	a := App{AppID: appID, Title: title, Tools: tools}
	if i >= 0 {
		a.LastRun = l.apps[i].LastRun
	}
	if opened || i < 0 {
		a.LastRun = l.now().UTC()
	}
	a = bounded(a)
	next := slices.Clone(l.apps)
	switch {
	case i < 0 || opened:
		if i >= 0 {
			next = slices.Delete(next, i, i+1)
		}
		next = append([]App{a}, next...)[:min(len(next)+1, MaxApps)]
	default:
		next[i] = a
	}
	if same(next, l.apps) {
		return false, nil
	}
	b, err := json.Marshal(next)
	if err != nil {
		return false, fmt.Errorf("recent: %w", err)
	}
	if err := atomicfile.Write(l.path, b, 0o600); err != nil {
		return false, err
	}
	l.apps = next
	return true, nil
}

func same(a, b []App) bool {
	return slices.EqualFunc(a, b, func(x, y App) bool {
		return x.AppID == y.AppID && x.Title == y.Title && x.LastRun.Equal(y.LastRun) &&
			slices.EqualFunc(x.Tools, y.Tools, func(p, q json.RawMessage) bool { return string(p) == string(q) })
	})
}

// Follow records every app that opens in the registry exp follows, and each change of its tools, until ctx
// ends; known says which app ids are the store's (an opened file or a dropped page has no id that lasts, so
// it is not remembered). changed is called after each change of the list; logf hears of a write that
// failed. It hears of changes through exp's throttled notices, as voice and MCP do: an app that churns its
// tools costs one look at the open apps per interval, not one per change.
func (l *List) Follow(ctx context.Context, exp *exposed.Table, known func(appID string) bool, changed func(), logf func(string, ...any)) {
	changes, cancel := exp.Changes()
	go func() {
		defer cancel()
		open := map[string]bool{}
		for {
			select {
			case <-ctx.Done():
				return
			case <-changes:
			}
			now := map[string]bool{}
			for _, a := range exp.Snapshot().Apps {
				if !known(a.AppID) {
					continue
				}
				now[a.AppID] = true
				if wrote, err := l.Saw(a.AppID, a.Title, declarations(a.Tools), !open[a.AppID]); err != nil {
					logf("%v", err)
				} else if wrote {
					changed()
				}
			}
			open = now
		}
	}()
}

func declarations(tools []*toolcontract.Tool) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(tools))
	for _, t := range tools {
		if b, err := json.Marshal(t); err == nil {
			out = append(out, b)
		}
	}
	return out
}
