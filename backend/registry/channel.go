package registry

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/voicebox/voicebox/backend/toolcontract"
)

// The request channel (docs/sandbox.md, "Room ↔ Go"). Each room has a mailbox: a request Go sends waits
// there, in order, until the room's transport takes it (Take), whatever the room's pace; nothing
// is ever dropped to make room. Each reply settles the request with its id, once, and only when it comes
// from the room the request was sent to. The registry owns the one bound of each op (opBounds); a request
// that outlives it, or whose caller gives up, is taken off the mailbox if the room has not taken it yet,
// and a call or launch the room already took is cancelled there (OpCancel): the room forgets the call and
// closes the app the launch opens, so the answer matches what happened.

// LaunchTimeout bounds a launch, from the request to the app's ready. The room bounds its own launches
// (the person's, window.voicebox.launch) with the same value, which it reads from its configuration.
const LaunchTimeout = 15 * time.Second

// closeTimeout bounds a close: the room answers at once unless it is stuck.
const closeTimeout = 5 * time.Second

// opBounds is how long the registry waits for the room's answer to each op, and the refusal after that.
var opBounds = map[string]struct {
	wait    time.Duration
	refusal func() Outcome
}{
	OpCall: {toolcontract.CallTimeout, func() Outcome { return fromRefusal(toolcontract.TimeoutRefusal()) }},
	OpLaunch: {LaunchTimeout, func() Outcome {
		return refused(CodeLaunchTimeout, "", fmt.Sprintf("the app did not become ready within %d s, so it was closed", LaunchTimeout/time.Second))
	}},
	OpClose: {closeTimeout, func() Outcome {
		return refused(CodeRoomTimeout, "", fmt.Sprintf("the room did not answer within %d s", closeTimeout/time.Second))
	}},
}

// ErrRoomGone ends a Take whose room said goodbye.
var ErrRoomGone = errors.New("registry: the room went away")

// ErrNoRequest refuses a reply that settles nothing: its request was answered, timed out or cancelled
// already, or it was sent to another room.
var ErrNoRequest = errors.New("registry: no such request is waiting for this room")

// waiter is a request in flight: queued in its room's mailbox, or taken by the room's transport.
type waiter struct {
	req   Request
	reply chan Reply // buffered 1: the one answer
	taken bool
}

// mailbox is one room's queue of requests not yet taken.
type mailbox struct {
	queue []Request
	wake  chan struct{} // buffered 1: the queue is not empty
	gone  chan struct{} // closed when the room says goodbye
}

// boxLocked returns room's mailbox, made on first use. r.mu is held.
func (r *Registry) boxLocked(room string) *mailbox {
	b := r.boxes[room]
	if b == nil {
		b = &mailbox{wake: make(chan struct{}, 1), gone: make(chan struct{})}
		r.boxes[room] = b
	}
	return b
}

func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default: // already poked: whoever wakes takes the whole queue
	}
}

// Take waits until requests are queued for room and returns all of them, oldest first. The transport that
// takes them delivers them to the room page (or gives back what it could not write, Untake). It ends with
// ErrRoomGone when the room has not said hello, or says goodbye.
func (r *Registry) Take(ctx context.Context, room string) ([]Request, error) {
	for {
		r.mu.Lock()
		if _, known := r.rooms[room]; !known {
			r.mu.Unlock()
			return nil, ErrRoomGone
		}
		b := r.boxLocked(room)
		if len(b.queue) > 0 {
			batch := r.takeLocked(b)
			r.mu.Unlock()
			return batch, nil
		}
		wake, gone := b.wake, b.gone
		r.mu.Unlock()
		select {
		case <-wake:
		case <-gone:
			return nil, ErrRoomGone
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// takeLocked empties a mailbox, marks its requests taken and tells the call observer. r.mu is held.
func (r *Registry) takeLocked(b *mailbox) []Request {
	batch := b.queue
	b.queue = nil
	for _, q := range batch {
		if w := r.pending[q.ID]; w != nil {
			w.taken = true
			if q.Op == OpCall && r.observe != nil {
				r.observe(CallEvent{Room: q.Room, AppID: q.AppID, ID: q.ID, InFlight: true})
			}
		}
	}
	return batch
}

// Untake puts back, at the head of room's mailbox, requests a transport took but could not deliver (its
// connection broke); those that were settled meanwhile stay out.
func (r *Registry) Untake(room string, reqs []Request) {
	r.mu.Lock()
	var back []Request
	for _, q := range reqs {
		if q.Op == OpCancel {
			back = append(back, q)
		} else if w := r.pending[q.ID]; w != nil {
			r.settledLocked(w) // not in the room after all
			w.taken = false
			back = append(back, q)
		}
	}
	b := r.boxLocked(room)
	b.queue = append(back, b.queue...)
	r.mu.Unlock()
	poke(b.wake)
}

// send queues a request for its room and waits for the reply, the op's bound or the caller's cancellation.
func (r *Registry) send(ctx context.Context, req Request) (Reply, Outcome, bool) {
	bound := opBounds[req.Op]
	w := &waiter{reply: make(chan Reply, 1)}
	r.mu.Lock()
	r.seq++
	req.ID = "q" + strconv.FormatUint(r.seq, 36)
	w.req = req
	r.pending[req.ID] = w
	b := r.boxLocked(req.Room)
	b.queue = append(b.queue, req)
	r.mu.Unlock()
	poke(b.wake)

	timer := time.NewTimer(bound.wait)
	defer timer.Stop()
	var out Outcome
	select {
	case rep := <-w.reply:
		return rep, Outcome{}, true
	case <-timer.C:
		out = bound.refusal()
	case <-ctx.Done():
		out = refused(toolcontract.CodeCancelled, "", "the caller cancelled the call")
	}
	if rep, answered := r.abandon(w); answered {
		return rep, Outcome{}, true // the answer won the race: it is what happened
	}
	return Reply{}, out, false
}

// abandon stops waiting for a request: off the mailbox if the room has not taken it, cancelled in the room
// if it is a call or launch the room took. It reports the reply instead if one arrived first.
func (r *Registry) abandon(w *waiter) (Reply, bool) {
	r.mu.Lock()
	if r.pending[w.req.ID] != w {
		r.mu.Unlock()
		return <-w.reply, true // Reply or FailRoom settled it and is handing the answer over
	}
	delete(r.pending, w.req.ID)
	var cancelIn *mailbox
	if b := r.boxes[w.req.Room]; b != nil {
		if !w.taken {
			for i, q := range b.queue {
				if q.ID == w.req.ID {
					b.queue = append(b.queue[:i:i], b.queue[i+1:]...)
					break
				}
			}
		} else if w.req.Op == OpLaunch || w.req.Op == OpCall {
			b.queue = append(b.queue, Request{ID: w.req.ID, Room: w.req.Room, Op: OpCancel})
			cancelIn = b
		}
	}
	r.settledLocked(w)
	r.mu.Unlock()
	if cancelIn != nil {
		poke(cancelIn.wake)
	}
	return Reply{}, false
}

// settledLocked tells the call observer that a call the room had taken is over. r.mu is held.
func (r *Registry) settledLocked(w *waiter) {
	if w.taken && w.req.Op == OpCall && r.observe != nil {
		r.observe(CallEvent{Room: w.req.Room, AppID: w.req.AppID, ID: w.req.ID})
	}
}

// Reply settles the request rep.ID with the room's answer. It refuses (ErrNoRequest) a reply for a request
// that is not waiting, or that was sent to another room than rep.Room: each request is answered once, by
// the room it was sent to.
func (r *Registry) Reply(rep Reply) error {
	r.mu.Lock()
	w := r.pending[rep.ID]
	if w == nil || w.req.Room != rep.Room || rep.ID == "" {
		r.mu.Unlock()
		return fmt.Errorf("%w: %q", ErrNoRequest, rep.ID)
	}
	delete(r.pending, rep.ID)
	r.settledLocked(w)
	r.mu.Unlock()
	w.reply <- rep
	return nil
}

// FailRoom answers every request still waiting on room with a refusal (code and message) and returns how
// many there were. The desktop calls it when its watchdog restarts a room that stopped answering.
func (r *Registry) FailRoom(room, code, message string) int {
	r.mu.Lock()
	var failed []*waiter
	for id, w := range r.pending {
		if w.req.Room == room {
			delete(r.pending, id)
			r.settledLocked(w)
			failed = append(failed, w)
		}
	}
	if b := r.boxes[room]; b != nil {
		b.queue = nil
	}
	r.mu.Unlock()
	for _, w := range failed {
		w.reply <- Reply{Refused: code, Message: message}
	}
	return len(failed)
}

// CallEvent tells the call observer that a tool call reached a room (InFlight) or is over. The desktop's
// watchdog learns from it which app has a call in flight when the web process hangs.
type CallEvent struct {
	Room, AppID, ID string
	InFlight        bool
}

// ObserveCalls sets the call observer (nil: none). It runs with the registry locked: it must be quick and
// must not call the registry.
func (r *Registry) ObserveCalls(fn func(CallEvent)) {
	r.mu.Lock()
	r.observe = fn
	r.mu.Unlock()
}
