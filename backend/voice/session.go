package voice

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/voicebox/voicebox/backend/display"
	"github.com/voicebox/voicebox/backend/mcpclient"
	"github.com/voicebox/voicebox/backend/verbs"
	"github.com/voicebox/voicebox/backend/voice/internal/gemini"
	"github.com/voicebox/voicebox/backend/voice/internal/openai"
	"github.com/voicebox/voicebox/backend/voice/internal/upstream"
	"github.com/voicebox/voicebox/backend/voice/pcm"
)

// session is one Start: it lives across reconnects until Stop.
type session struct {
	m        *Manager
	provider string
	key      string
	url      string
	header   http.Header
	ctx      context.Context
	cancel   context.CancelFunc
	disp     *dispatcher // runs the model's function calls
	id       string

	readyOnce sync.Once
	ready     chan struct{}
	readyErr  error

	mu      sync.Mutex
	conn    *conn
	talking bool
	pipe    *inputPipe
	handle  string // Gemini session resumption handle
	resumed bool
}

var sessionSeq struct {
	sync.Mutex
	n int
}

func newSession(m *Manager, provider, key, url string, header http.Header) *session {
	ctx, cancel := context.WithCancel(context.Background())
	sessionSeq.Lock()
	sessionSeq.n++
	id := fmt.Sprintf("s%d", sessionSeq.n)
	sessionSeq.Unlock()
	s := &session{m: m, provider: provider, key: key, url: url, header: header, ctx: ctx, cancel: cancel, id: id,
		ready: make(chan struct{})}
	s.pipe = newInputPipe(s.inputRate())
	s.disp = newDispatcher(m.cfg, provider)
	return s
}

func (s *session) inputRate() int {
	if s.provider == ProviderGemini {
		return gemini.InputRate
	}
	return openai.InputRate
}

// lineID names a line uniquely across sessions and reconnects (called with m.mu held).
func (s *session) lineID(key string) string {
	if key == "" {
		s.m.seq++
		return fmt.Sprintf("%s-l%d", s.id, s.m.seq)
	}
	return s.id + "-" + key
}

func (s *session) markReady(err error) {
	s.readyOnce.Do(func() {
		s.readyErr = err
		close(s.ready)
	})
}

func (s *session) waitReady(ctx context.Context, m *Manager) (Status, error) {
	select {
	case <-s.ready:
		return m.Status(), s.readyErr
	case <-ctx.Done():
		return m.Status(), ctx.Err()
	}
}

func (s *session) stop() {
	s.cancel()
	s.markReady(errorf(CodeNotRunning, "the session was stopped"))
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	if c != nil {
		c.close(websocket.StatusNormalClosure, "bye")
	}
}

// errPlanned ends a connection that the session replaces on purpose (Gemini resuming with new tools,
// or after goAway); the next one starts at once.
var errPlanned = errors.New("voice: planned reconnect")

// loop connects, runs the connection and reconnects with backoff until the session stops.
func (s *session) loop() {
	// Throttled: an app that churns its tools cannot flood the provider with declarations.
	changes, unsubscribe := s.m.cfg.Exposed.Changes()
	defer unsubscribe()
	var serverChanges <-chan struct{} // nil: never ready
	if s.m.cfg.Servers != nil {
		ch, stop := s.m.cfg.Servers.Changes()
		defer stop()
		serverChanges = ch
	}
	go func() {
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-serverChanges:
				s.mu.Lock()
				c := s.conn
				s.mu.Unlock()
				if c != nil {
					c.drv.ToolsChanged()
				}
			case <-changes:
				s.mu.Lock()
				c := s.conn
				s.mu.Unlock()
				if c != nil {
					c.drv.ToolsChanged()
				}
			}
		}
	}()

	first := true
	attempt := 0
	for {
		c, err := s.connect(attempt > 0)
		if s.ctx.Err() != nil {
			if c != nil {
				c.close(websocket.StatusNormalClosure, "bye")
			}
			return
		}
		if err != nil {
			if first || isFatal(err) || attempt >= s.m.cfg.MaxAttempts {
				s.fail(err, !first)
				return
			}
			attempt++
			if !s.sleep(attempt, err) {
				return
			}
			continue
		}
		first = false
		attempt = 0
		s.m.setStatus(s, func(st *Status) {
			st.State, st.Code, st.Message, st.Attempt = StateListening, "", "", 0
			st.Resumed = s.resumedNow()
		})
		s.markReady(nil)
		err = c.run()
		c.close(websocket.StatusNormalClosure, "")
		s.mu.Lock()
		if s.conn == c {
			s.conn = nil
		}
		s.mu.Unlock()
		if s.ctx.Err() != nil {
			return
		}
		if errors.Is(err, errPlanned) {
			s.m.setStatus(s, func(st *Status) { st.State, st.Message = StateConnecting, "updating the session" })
			continue
		}
		if isFatal(err) {
			s.fail(err, true)
			return
		}
		attempt = 1
		if !s.sleep(attempt, err) {
			return
		}
	}
}

func (s *session) resumedNow() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resumed
}

// sleep waits before reconnect attempt n, telling the room; false when the session stopped meanwhile.
func (s *session) sleep(n int, cause error) bool {
	d := s.m.cfg.Backoff(n)
	msg := fmt.Sprintf("connection lost (%s); reconnecting in %.1f s (attempt %d of %d)", s.scrub(cause.Error()), d.Seconds(), n, s.m.cfg.MaxAttempts)
	s.m.setStatus(s, func(st *Status) { st.State, st.Message, st.Attempt, st.Code = StateConnecting, msg, n, "" })
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.ctx.Done():
		return false
	}
}

// fail ends the session with an error the room shows.
func (s *session) fail(err error, lost bool) {
	var e *Error
	if !errors.As(err, &e) {
		e = errorf(CodeUpstream, "%s", err.Error())
	}
	e = &Error{Code: e.Code, Message: s.scrub(e.Message)}
	if lost && e.Code != CodeKeyRefused {
		e = errorf(CodeConnectionLost, "The voice connection was lost and could not be restored: %s", e.Message)
	}
	s.markReady(e)
	s.m.setStatus(s, func(st *Status) {
		st.State, st.Code, st.Message, st.Attempt, st.Talking = StateError, e.Code, e.Message, 0, false
	})
	s.m.mu.Lock()
	if s.m.cur == s {
		s.m.cur = nil
	}
	s.m.mu.Unlock()
	s.cancel()
}

// maxMessage bounds a provider's text in what the room shows.
const maxMessage = 2048

// scrub is the one gate for a provider's text on its way to the room (status, notices, errors): control
// and bidirectional characters go (backend/display), then the key, then the text is bounded.
func (s *session) scrub(msg string) string {
	msg = display.Clean(msg) // first: a control character inside the key must not hide it from the replace
	if s.key != "" {
		msg = strings.ReplaceAll(msg, s.key, "***")
		msg = strings.ReplaceAll(msg, url.QueryEscape(s.key), "***")
	}
	// Providers quote a refused key masked ("sk-proj-****abcd", "AIza…"); none of it goes further.
	return display.Cut(keyLike.ReplaceAllString(msg, "***"), maxMessage)
}

var keyLike = regexp.MustCompile(`\b(sk-[A-Za-z0-9*_.-]{4,}|AIza[A-Za-z0-9_*-]{8,})`)

func isFatal(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Code == CodeKeyRefused || e.Code == CodeUnknownProvider || e.Code == CodeMissingKey)
}

// connect dials and sets the session up upstream.
func (s *session) connect(again bool) (*conn, error) {
	ctx, cancel := context.WithTimeout(s.ctx, s.m.cfg.SetupTimeout)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, s.url, &websocket.DialOptions{HTTPHeader: s.header, HTTPClient: s.m.cfg.HTTPClient})
	if err != nil {
		return nil, s.dialError(ctx, resp, err)
	}
	ws.SetReadLimit(32 << 20)
	cctx, ccancel := context.WithCancel(s.ctx)
	c := &conn{s: s, ws: ws, ctx: cctx, cancel: ccancel}
	if s.provider == ProviderGemini {
		c.drv = gemini.New(c)
	} else {
		c.drv = openai.New(c)
	}
	s.mu.Lock()
	s.conn = c
	s.pipe = newInputPipe(s.inputRate())
	s.mu.Unlock()
	if err := c.drv.Handshake(ctx); err != nil {
		c.close(websocket.StatusNormalClosure, "setup failed")
		s.mu.Lock()
		if s.conn == c {
			s.conn = nil
		}
		s.mu.Unlock()
		if ctx.Err() != nil && s.ctx.Err() == nil {
			return nil, errorf(CodeSetupTimeout, "%s did not finish setting up the session within %s", s.name(), s.m.cfg.SetupTimeout)
		}
		return nil, classify(s, err)
	}
	if again {
		if err := c.drv.AfterReconnect(); err != nil {
			c.close(websocket.StatusNormalClosure, "")
			return nil, err
		}
	}
	return c, nil
}

func (s *session) name() string {
	if s.provider == ProviderGemini {
		return "Gemini Live"
	}
	return "OpenAI Realtime"
}

func (s *session) dialError(ctx context.Context, resp *http.Response, err error) error {
	if resp != nil {
		switch resp.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return errorf(CodeKeyRefused, "%s refused the API key (HTTP %d). Check the key in Settings.", s.name(), resp.StatusCode)
		}
		return errorf(CodeUpstream, "%s answered HTTP %d instead of opening the session", s.name(), resp.StatusCode)
	}
	if ctx.Err() != nil && s.ctx.Err() == nil {
		return errorf(CodeSetupTimeout, "%s did not answer within %s", s.name(), s.m.cfg.SetupTimeout)
	}
	return errorf(CodeUpstream, "could not reach %s: %s", s.name(), s.scrub(err.Error()))
}

// classify turns a setup failure into a coded error with the provider's text scrubbed: a close or error
// that names the key is a refusal.
func classify(s *session, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var ue *upstream.Error
	if errors.As(err, &ue) {
		if ue.KeyRefused {
			return errorf(CodeKeyRefused, "%s", s.scrub(ue.Message))
		}
		return errorf(CodeUpstream, "%s", s.scrub(ue.Message))
	}
	msg := s.scrub(err.Error())
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		msg = s.scrub(ce.Reason)
		if upstream.LooksLikeKeyRefusal(ce.Reason) || ce.Code == websocket.StatusPolicyViolation && strings.Contains(strings.ToLower(ce.Reason), "key") {
			return errorf(CodeKeyRefused, "%s refused the API key: %s", s.name(), msg)
		}
		return errorf(CodeUpstream, "%s closed the session during setup (%d): %s", s.name(), ce.Code, msg)
	}
	return errorf(CodeUpstream, "%s: %s", s.name(), msg)
}

func (s *session) current() *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn
}

func (s *session) sendText(text string) error {
	c := s.current()
	if c == nil {
		return errorf(CodeNotRunning, "the voice session is reconnecting; try again in a moment")
	}
	s.m.line(s, "user", "", text, false, true)
	s.m.setStatus(s, func(st *Status) { st.State = StateThinking })
	return c.drv.Text(text)
}

func (s *session) sendAudio(frame []byte, rate int) error {
	s.mu.Lock()
	c := s.conn
	live := s.talking || s.m.currentMode() == ModeAlways
	var chunks [][]byte
	var err error
	if c != nil && live {
		chunks, err = s.pipe.push(frame, rate)
	} else if err = pcm.CheckRate(rate); err == nil && len(frame)%2 != 0 {
		err = fmt.Errorf("%w: odd frame", pcm.ErrBadAudio)
	}
	s.mu.Unlock()
	if err != nil {
		return errorf(CodeBadAudio, "%s", err.Error())
	}
	for _, ch := range chunks {
		if err := c.drv.Audio(ch); err != nil {
			return nil // the connection is going; the loop reconnects
		}
	}
	return nil
}

func (s *session) pushToTalk(down bool) error {
	s.mu.Lock()
	c := s.conn
	was := s.talking
	s.talking = down
	var rest []byte
	if down && !was {
		s.pipe.flush()
	} else if !down && was {
		rest = s.pipe.flush()
	}
	s.mu.Unlock()
	s.m.setStatus(s, func(st *Status) { st.Talking = down })
	if c == nil || down == was {
		return nil
	}
	if down {
		s.m.cfg.Bus.Publish(EventInterrupt, nil)
		s.m.setStatus(s, func(st *Status) { st.State = StateListening })
		return c.drv.StartTurn()
	}
	if len(rest) > 0 {
		_ = c.drv.Audio(rest)
	}
	return c.drv.EndTurn()
}

func (s *session) setMode(always bool) error {
	if c := s.current(); c != nil {
		return c.drv.SetMode(always)
	}
	return nil
}

// lateWait bounds how long a build's end waits for a connection to tell it on (the session reconnecting).
const lateWait = 30 * time.Second

// late follows a build a call of origin started to its end and tells the model then (Driver.Late), on the
// connection the session has at that moment.
func (s *session) late(origin *conn, callID, name, job string) {
	out := verbs.Await(s.ctx, &s.disp.env, job)
	if s.ctx.Err() != nil {
		return
	}
	res := answer(out)
	deadline := time.Now().Add(lateWait)
	for {
		if c := s.current(); c != nil {
			if err := c.drv.Late(callID, name, lateText(out), res, c == origin); err == nil {
				return
			}
		}
		if time.Now().After(deadline) {
			return
		}
		select {
		case <-s.ctx.Done():
			return
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// toolset is what the session declares now.
func (s *session) toolset() (upstream.Tools, error) {
	var servers *mcpclient.Snapshot
	if s.m.cfg.Servers != nil {
		servers = s.m.cfg.Servers.Snapshot()
	}
	return s.m.tools.get(s.m.cfg.Exposed.Snapshot(), servers, s.provider)
}

func (s *session) setTools(n int) {
	s.m.setStatus(s, func(st *Status) { st.Tools = n })
}

// audioOut hands the model's audio to the room at RoomOutputRate.
func (s *session) audioOut(audio []byte, rate int) {
	if len(audio) == 0 || len(audio)%2 != 0 {
		return
	}
	if rate != RoomOutputRate {
		samples, err := pcm.Samples(audio)
		if err != nil {
			return
		}
		audio = pcm.PCMBytes(pcm.NewResampler(rate, RoomOutputRate).Process(samples))
	}
	s.m.broadcastAudio(s, audio)
}
