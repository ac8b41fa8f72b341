package events

import (
	"context"
	"sync"
)

// Fanout is a set of subscriber channels, each offered every value without waiting: a subscriber whose
// buffer is full misses that value. It is the one rule behind every subscription in the house (the Bus,
// the registry's and the store's change notices, the voice session's audio). The zero value is ready.
type Fanout[T any] struct {
	// CloseOnCancel makes cancel close the channel too, so a reader learns the feed ended. Left false
	// where readers only select on the channel beside their own stop signal and must not wake on a close.
	CloseOnCancel bool

	mu   sync.Mutex
	subs map[chan T]struct{}
}

// Subscribe returns a channel with buffer slots and a function, safe to call more than once, that ends
// the subscription. Nothing is sent on the channel after it ends.
func (f *Fanout[T]) Subscribe(buffer int) (<-chan T, func()) {
	ch := make(chan T, buffer)
	f.mu.Lock()
	if f.subs == nil {
		f.subs = map[chan T]struct{}{}
	}
	f.subs[ch] = struct{}{}
	f.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			f.mu.Lock()
			delete(f.subs, ch)
			if f.CloseOnCancel {
				close(ch)
			}
			f.mu.Unlock()
		})
	}
}

// Send offers v to every subscriber without waiting for any of them.
func (f *Fanout[T]) Send(v T) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ch := range f.subs {
		select {
		case ch <- v:
		default:
		}
	}
}

// Follow calls fn with each value from ch, in order, until ctx ends, ch closes, or fn returns false.
func Follow[T any](ctx context.Context, ch <-chan T, fn func(T) bool) {
	for {
		select {
		case <-ctx.Done():
			return
		case v, ok := <-ch:
			if !ok || !fn(v) {
				return
			}
		}
	}
}
