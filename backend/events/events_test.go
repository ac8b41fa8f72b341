package events

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestBusDeliversToEverySubscriber(t *testing.T) {
	b := NewBus()
	a, cancelA := b.Subscribe(4)
	c, cancelC := b.Subscribe(4)
	defer cancelC()
	b.Publish(StoreChanged, nil)
	for i, ch := range []<-chan Event{a, c} {
		if ev := <-ch; ev.Name != StoreChanged {
			t.Errorf("subscriber %d: got %q, want %q", i, ev.Name, StoreChanged)
		}
	}
	cancelA()
	cancelA() // twice is harmless
	if _, open := <-a; open {
		t.Error("cancelled subscription still open")
	}
	b.Publish(Notice, "x") // must not panic on the closed channel
	if ev := <-c; ev.Name != Notice || ev.Data != "x" {
		t.Errorf("got %+v, want the notice", ev)
	}
}

func TestBusNeverBlocksOnASlowSubscriber(t *testing.T) {
	b := NewBus()
	ch, cancel := b.Subscribe(1)
	defer cancel()
	for i := 0; i < 100; i++ {
		b.Publish(StoreChanged, i)
	}
	if ev := <-ch; ev.Data != 0 {
		t.Errorf("got %v, want the first event kept and the overflow dropped", ev.Data)
	}
}

// A burst gathered for one write keeps every line in order and only the newest of each state notice, in
// the place of its first.
func TestGatherCoalescesStateNotices(t *testing.T) {
	b := NewBus()
	b.Latest("status")
	ch, cancel := b.Subscribe(16)
	for _, ev := range []Event{{"status", 1}, {"line", "a"}, {"status", 2}, {"line", "b"}, {"status", 3}} {
		b.Publish(ev.Name, ev.Data)
	}
	cancel() // the burst stays readable; the closed channel ends Gather, not the clock
	batch, open := b.Gather(<-ch, ch, time.Hour)
	if open {
		t.Error("Gather reported a closed subscription open")
	}
	if got := fmt.Sprint(batch); got != "[{status 3} {line a} {line b}]" {
		t.Errorf("gathered %s, want [{status 3} {line a} {line b}]", got)
	}
}

// A Fanout without CloseOnCancel ends a subscription by forgetting the channel, not closing it: readers
// that select on it beside their own stop signal never wake on a close. A full buffer misses the value.
func TestFanoutWithoutCloseKeepsTheChannelOpen(t *testing.T) {
	var f Fanout[int]
	ch, cancel := f.Subscribe(1)
	f.Send(1)
	f.Send(2) // the buffer is full: missed
	if v := <-ch; v != 1 {
		t.Fatalf("got %d, want 1", v)
	}
	cancel()
	cancel()
	f.Send(3)
	select {
	case v, open := <-ch:
		t.Fatalf("after cancel: got %d (open %v), want nothing", v, open)
	default:
	}
}

// Follow hands on values in order and stops when fn says so, when the channel closes, or when ctx ends.
func TestFollowStops(t *testing.T) {
	ch := make(chan int, 3)
	ch <- 1
	ch <- 2
	ch <- 3
	var got []int
	Follow(context.Background(), ch, func(v int) bool { got = append(got, v); return v < 2 })
	if fmt.Sprint(got) != "[1 2]" {
		t.Fatalf("fn said stop at 2: got %v", got)
	}
	close(ch)
	got = nil
	Follow(context.Background(), ch, func(v int) bool { got = append(got, v); return true })
	if fmt.Sprint(got) != "[3]" {
		t.Fatalf("until the close: got %v, want [3]", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	Follow(ctx, make(chan int), func(int) bool { t.Fatal("no value was sent"); return false })
}
