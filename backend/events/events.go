// Package events fans out the notices the room hears (the store changed, a status, a transcript line, an
// activity line) to every listener: the desktop forwards them as Wails events, `voicebox serve` as
// server-sent events. Notices are lossy and coalescing: a listener that falls behind loses some, and of
// several state notices waiting, only the newest is delivered. Nothing that must arrive travels here: Go's
// requests to a room have their own channel (backend/registry).
package events

import (
	"sync"
	"time"
)

// Event is one message to the room. Data must marshal to JSON.
type Event struct {
	Name string `json:"name"`
	Data any    `json:"data,omitempty"`
}

// Names the room listens for.
const (
	StoreChanged     = "store:changed"     // the list of mini-apps changed; Data is nil (the room re-reads the list)
	OpenFiles        = "files:open"        // the person opened files (command line, second launch, drop, dialog)
	SavePage         = "menu:save"         // File › Save Page to Shelf
	MenuShortcut     = "menu:shortcut"     // a menu item the room runs; Data is {"id": its id in room/shortcuts.json}
	Notice           = "notice"            // a message to show the person
	WorkspaceChanged = "workspace:changed" // File › Open Folder picked another workspace; Data is the room config
	RecentChanged    = "recent:changed"    // the list of recent apps changed; Data is nil (the room re-reads it)
)

// GatherWindow is how long a forwarder waits after a notice for more (Gather): a burst (a notice per tool
// call under load) then travels as one write, and its state notices as one.
const GatherWindow = 10 * time.Millisecond

// Bus delivers every published event to every subscriber. A slow subscriber loses events rather than
// blocking the publisher: each has a buffer, and what overflows it is dropped.
type Bus struct {
	mu        sync.Mutex
	subs      Fanout[Event]
	latest    map[string]bool
	transform map[string]func(any) any
}

// NewBus returns an empty bus.
func NewBus() *Bus {
	return &Bus{subs: Fanout[Event]{CloseOnCancel: true}, latest: map[string]bool{}, transform: map[string]func(any) any{}}
}

// Transform makes fn turn the data of every event named name before anyone receives it (the activity log
// records and numbers its lines this way: backend/activity). fn runs inside Publish, in publishing order.
func (b *Bus) Transform(name string, fn func(any) any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.transform[name] = fn
}

// Latest marks names as state notices: each says the whole state, so of several waiting only the newest
// matters (Gather keeps it alone).
func (b *Bus) Latest(names ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, n := range names {
		b.latest[n] = true
	}
}

// Subscribe returns a channel of events and a function that ends the subscription.
func (b *Bus) Subscribe(buffer int) (<-chan Event, func()) {
	return b.subs.Subscribe(buffer)
}

// Publish sends an event to every subscriber without waiting for any of them.
func (b *Bus) Publish(name string, data any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if fn := b.transform[name]; fn != nil {
		data = fn(data)
	}
	b.subs.Send(Event{Name: name, Data: data}) // under b.mu: subscribers see events in publishing order
}

// Gather returns first with every event that reaches ch within window after it, in order, where a state
// notice (Latest) keeps only its newest, in the place of its first. open is false once ch is closed.
func (b *Bus) Gather(first Event, ch <-chan Event, window time.Duration) (batch []Event, open bool) {
	batch = []Event{first}
	at := map[string]int{}
	b.mu.Lock()
	if b.latest[first.Name] {
		at[first.Name] = 0
	}
	b.mu.Unlock()
	timer := time.NewTimer(window)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return batch, false
			}
			b.mu.Lock()
			latest := b.latest[ev.Name]
			b.mu.Unlock()
			if i, seen := at[ev.Name]; seen {
				batch[i] = ev
				continue
			}
			if latest {
				at[ev.Name] = len(batch)
			}
			batch = append(batch, ev)
		case <-timer.C:
			return batch, true
		}
	}
}
