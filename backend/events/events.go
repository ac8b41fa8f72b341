// Package events fans out what the room must hear about (the store changed, a tool call for an app, a
// notice) to every listener: the desktop forwards them as Wails events, `voicebox serve` as server-sent events.
package events

import "sync"

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
	Notice           = "notice"            // a message to show the person
	WorkspaceChanged = "workspace:changed" // File › Open Folder picked another workspace; Data is the room config
)

// Bus delivers every published event to every subscriber. A slow subscriber loses events rather than
// blocking the publisher: each has a buffer, and what overflows it is dropped.
type Bus struct {
	mu   sync.Mutex
	subs map[chan Event]struct{}
}

// NewBus returns an empty bus.
func NewBus() *Bus { return &Bus{subs: make(map[chan Event]struct{})} }

// Subscribe returns a channel of events and a function that ends the subscription.
func (b *Bus) Subscribe(buffer int) (<-chan Event, func()) {
	ch := make(chan Event, buffer)
	b.mu.Lock()
	b.subs[ch] = struct{}{}
	b.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs, ch)
			b.mu.Unlock()
			close(ch)
		})
	}
}

// Publish sends an event to every subscriber without waiting for any of them.
func (b *Bus) Publish(name string, data any) {
	ev := Event{Name: name, Data: data}
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- ev:
		default:
		}
	}
}
