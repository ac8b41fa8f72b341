package voice

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/voicebox/voicebox/backend/verbs"
	"github.com/voicebox/voicebox/backend/voice/internal/upstream"
)

// conn is one upstream WebSocket of a session, and the upstream.Link its driver works through.
type conn struct {
	s      *session
	ws     *websocket.Conn
	drv    upstream.Driver
	ctx    context.Context
	cancel context.CancelFunc

	wmu       sync.Mutex
	closeOnce sync.Once
	planned   bool
	pmu       sync.Mutex
}

// Send writes one JSON message.
func (c *conn) Send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.sendRaw(b)
}

func (c *conn) sendRaw(b []byte) error {
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.ws.Write(ctx, websocket.MessageText, b)
}

// Read returns the next message (text or binary: Gemini sends JSON in binary frames).
func (c *conn) Read(ctx context.Context) ([]byte, error) {
	_, b, err := c.ws.Read(ctx)
	return b, err
}

// run reads messages until the connection ends.
func (c *conn) run() error {
	for {
		b, err := c.Read(c.ctx)
		if err != nil {
			c.pmu.Lock()
			planned := c.planned
			c.pmu.Unlock()
			if planned {
				return errPlanned
			}
			var ce websocket.CloseError
			if errors.As(err, &ce) && upstream.LooksLikeKeyRefusal(ce.Reason) {
				return errorf(CodeKeyRefused, "%s refused the API key: %s", c.s.name(), c.s.scrub(ce.Reason))
			}
			return err
		}
		c.drv.Handle(b)
	}
}

// Replace ends this connection so the session opens a new one at once.
func (c *conn) Replace(reason string) {
	c.pmu.Lock()
	c.planned = true
	c.pmu.Unlock()
	c.close(websocket.StatusNormalClosure, reason)
}

// close says goodbye (a clean close frame) and then cancels what the connection still runs.
func (c *conn) close(code websocket.StatusCode, reason string) {
	c.closeOnce.Do(func() {
		go func() {
			_ = c.ws.Close(code, reason)
			c.cancel()
		}()
		time.AfterFunc(2*time.Second, func() {
			_ = c.ws.CloseNow()
			c.cancel()
		})
	})
}

// The rest of upstream.Link: what the driver of this connection asks of its session.

var _ upstream.Link = (*conn)(nil)

// Context ends when the connection ends.
func (c *conn) Context() context.Context { return c.ctx }

// Instructions is the system prompt.
func (c *conn) Instructions() string { return c.s.m.cfg.Instructions }

// Model is the provider's model.
func (c *conn) Model() string { return c.s.m.model(c.s.provider) }

// Always reports whether the microphone is always listening.
func (c *conn) Always() bool { return c.s.m.currentMode() == ModeAlways }

// Tools is what the session declares now.
func (c *conn) Tools() (upstream.Tools, error) { return c.s.toolset() }

// Declared shows how many functions the provider holds.
func (c *conn) Declared(n int) { c.s.setTools(n) }

// History is the last n final lines of the transcript.
func (c *conn) History(n int) []upstream.Turn {
	lines := c.s.m.history(n)
	out := make([]upstream.Turn, len(lines))
	for i, l := range lines {
		out[i] = upstream.Turn{Role: l.Role, Text: l.Text}
	}
	return out
}

// Resume returns the handle to resume with and notes whether this connection resumes.
func (c *conn) Resume() string {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.s.resumed = c.s.handle != ""
	return c.s.handle
}

// Resumed reports whether this connection resumed the session.
func (c *conn) Resumed() bool { return c.s.resumedNow() }

// OfferResume keeps a resumption handle for the next connection.
func (c *conn) OfferResume(handle string) {
	c.s.mu.Lock()
	c.s.handle = handle
	c.s.mu.Unlock()
}

// Call runs one function call of the model. A build it started (verbs.Pending) is followed to its end,
// which the session tells the model then (session.late).
func (c *conn) Call(ctx context.Context, id, name string, args json.RawMessage) upstream.Result {
	out := c.s.disp.call(ctx, name, args)
	res := answer(out)
	if job, ok := verbs.Pending(name, out); ok {
		res.Pending = true
		go c.s.late(c, id, name, job)
	}
	return res
}

// State tells the room what the model is doing.
func (c *conn) State(st upstream.State) {
	c.s.m.setStatus(c.s, func(s *Status) {
		switch st {
		case upstream.Listening:
			s.State = StateListening
		case upstream.Thinking:
			s.State = StateThinking
		case upstream.Speaking:
			s.State = StateSpeaking
		case upstream.Responding:
			if s.State != StateSpeaking {
				s.State = StateThinking
			}
		case upstream.Settled:
			if s.State == StateThinking || s.State == StateSpeaking {
				s.State = StateListening
			}
		}
	})
}

// Line adds to or replaces a line of the transcript.
func (c *conn) Line(role, key, text string, delta, final bool) {
	c.s.m.line(c.s, role, key, text, delta, final)
}

// Interrupt tells the room to stop playing what it queued.
func (c *conn) Interrupt() { c.s.m.cfg.Bus.Publish(EventInterrupt, nil) }

// Audio hands the model's audio to the room.
func (c *conn) Audio(pcm []byte, rate int) { c.s.audioOut(pcm, rate) }

// Notice shows an error the provider reported, scrubbed.
func (c *conn) Notice(msg string) { c.s.m.notice("error", CodeUpstream, c.s.provider, c.s.scrub(msg)) }
