package services

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/voicebox/voicebox/backend/registry"
)

// The Tool Console's calls can be cancelled while they run: the room names each call with a ticket of its
// own (ConsoleCall) and cancels it by that ticket (CancelCall). The registry then answers the call
// `cancelled` and, when the room already took it, cancels it in the room, which tells the bridge, which
// aborts the tool's execute (docs/sandbox.md, "Room ↔ Go").

// Bounds on tickets: the room is trusted, but a bug must not grow memory without bound.
const (
	maxTicketBytes = 64
	// maxEarlyCancels is how many cancels of calls not yet arrived are kept: the call and its cancel
	// travel as two requests (two HTTP connections in serve) and may cross.
	maxEarlyCancels = 256
)

type tickets struct {
	mu      sync.Mutex
	running map[string]context.CancelFunc
	early   []string // tickets cancelled before their call arrived, oldest first
}

// start registers a call's ticket and returns its context; a ticket cancelled early starts cancelled.
func (t *tickets) start(ticket string) (context.Context, func(), error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, dup := t.running[ticket]; dup {
		return nil, nil, BadRequest("a call with this ticket is already running")
	}
	if t.running == nil {
		t.running = map[string]context.CancelFunc{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	for i, e := range t.early {
		if e == ticket {
			t.early = append(t.early[:i:i], t.early[i+1:]...)
			cancel()
			break
		}
	}
	t.running[ticket] = cancel
	return ctx, func() {
		t.mu.Lock()
		delete(t.running, ticket)
		t.mu.Unlock()
		cancel()
	}, nil
}

// cancel cancels the running call with this ticket, or remembers the ticket for a call still on its way.
func (t *tickets) cancel(ticket string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if cancel, ok := t.running[ticket]; ok {
		cancel()
		return
	}
	if len(t.early) >= maxEarlyCancels {
		t.early = t.early[1:]
	}
	t.early = append(t.early, ticket)
}

func checkTicket(ticket string) error {
	if blank(ticket) || len(ticket) > maxTicketBytes {
		return BadRequest("a ticket of 1 to 64 bytes is required")
	}
	return nil
}

// ConsoleCall is Call with a ticket the room chose, so that CancelCall can cancel the call while it runs
// (it is then refused `cancelled`). Tickets are the room's to keep unique; one already running is refused.
func (s *RegistryService) ConsoleCall(ticket, appID, tool string, args json.RawMessage) (registry.Outcome, error) {
	if err := checkTicket(ticket); err != nil {
		return registry.Outcome{}, err
	}
	ctx, done, err := s.tickets.start(ticket)
	if err != nil {
		return registry.Outcome{}, err
	}
	defer done()
	return s.reg.Call(ctx, "console", appID, tool, args), nil
}

// CancelCall cancels the Tool Console's call with this ticket. A ticket no call has yet is remembered for
// a while (the call may still be on its way); one whose call ended is no error.
func (s *RegistryService) CancelCall(ticket string) error {
	if err := checkTicket(ticket); err != nil {
		return err
	}
	s.tickets.cancel(ticket)
	return nil
}
