// Package voice is the live voice session: Go holds the upstream WebSocket to OpenAI Realtime or Gemini
// Live (the keys never reach the webview), relays the room's microphone audio up and the model's audio
// down, keeps the transcript, declares the open mini-apps' tools (plus the host verbs) and runs the
// model's function calls through the registry, validated first and bounded by 5,000 ms and 64 KiB.
//
// One Manager serves the room. Start dials the provider and returns once the upstream session is set up;
// when the socket drops, the session reconnects with backoff and keeps its transcript (Gemini resumes
// with a session resumption handle when it offered one; otherwise the transcript is replayed as context).
package voice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/settings"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// Providers.
const (
	ProviderOpenAI = toolcontract.ProviderOpenAI
	ProviderGemini = toolcontract.ProviderGemini
)

// Defaults and the environment.
const (
	DefaultOpenAIModel = "gpt-realtime"
	DefaultGeminiModel = "gemini-2.5-flash-native-audio-preview-12-2025"

	OpenAIURL = "wss://api.openai.com/v1/realtime"
	GeminiURL = "wss://generativelanguage.googleapis.com/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"

	EnvOpenAIKey = "OPENAI_API_KEY"
	EnvGeminiKey = "GEMINI_API_KEY"
	EnvOpenAIURL = "VOICEBOX_OPENAI_URL" // replaces the whole WebSocket URL (proxies, tests)
	EnvGeminiURL = "VOICEBOX_GEMINI_URL"
)

// Events on the bus (the room hears them as Wails events or server-sent events).
const (
	EventState      = "voice:state"      // Data: Status
	EventTranscript = "voice:transcript" // Data: Line (the whole line so far; same id as it grows)
	EventInterrupt  = "voice:interrupt"  // the model was interrupted: stop playing what is queued
	EventCleared    = "voice:cleared"    // the transcript was cleared
)

// States.
const (
	StateIdle       = "idle"
	StateConnecting = "connecting"
	StateListening  = "listening"
	StateThinking   = "thinking"
	StateSpeaking   = "speaking"
	StateError      = "error"
)

// Modes of the microphone.
const (
	ModePushToTalk = "push-to-talk" // audio goes up only while the person holds the key
	ModeAlways     = "always"       // always listening; the provider detects turns
)

// Error codes the session answers with.
const (
	CodeMissingKey      = "missing-key"
	CodeKeyRefused      = "key-refused"
	CodeUnknownProvider = "unknown-provider"
	CodeNotRunning      = "session-not-running"
	CodeUpstream        = "upstream-error"
	CodeSetupTimeout    = "setup-timeout"
	CodeConnectionLost  = "connection-lost"
	CodeBadRequest      = "bad-request"
	CodeBadAudio        = "bad-audio"
)

// Error is a refusal with a stable code; services map it to {error, message}.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

// ErrorCode is the stable code (services.Describe reads it).
func (e *Error) ErrorCode() string { return e.Code }

// HTTPStatus is the status the HTTP door answers with.
func (e *Error) HTTPStatus() int {
	switch e.Code {
	case CodeMissingKey, CodeUnknownProvider, CodeBadRequest, CodeBadAudio:
		return http.StatusBadRequest
	case CodeNotRunning:
		return http.StatusConflict
	case CodeKeyRefused:
		return http.StatusUnauthorized
	case CodeSetupTimeout:
		return http.StatusGatewayTimeout
	}
	return http.StatusBadGateway
}

func errorf(code, format string, a ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

// Status is the session as the room shows it.
type Status struct {
	State      string `json:"state"`
	Provider   string `json:"provider,omitempty"`
	Mode       string `json:"mode"`
	Talking    bool   `json:"talking"`
	Code       string `json:"code,omitempty"`
	Message    string `json:"message,omitempty"`
	Attempt    int    `json:"attempt,omitempty"` // reconnect attempt, while connecting again
	InputRate  int    `json:"inputRate,omitempty"`
	OutputRate int    `json:"outputRate,omitempty"`
	Tools      int    `json:"tools"` // functions declared upstream
	Resumed    bool   `json:"resumed,omitempty"`
}

// Line is one line of the transcript.
type Line struct {
	ID    string    `json:"id"`
	Role  string    `json:"role"` // "user" or "assistant"
	Text  string    `json:"text"`
	Final bool      `json:"final"`
	At    time.Time `json:"at"`
}

// maxLines bounds the transcript kept in Go.
const maxLines = 500

// pendingText holds the place of words being transcribed, so the person's line comes before the answer.
const pendingText = "…"

// Config is what a Manager works with. Bus and Registry are required.
type Config struct {
	Bus      *events.Bus
	Registry *registry.Registry
	Settings *settings.Store // keys and models; may be nil (environment only)
	Library  Library         // for list_mini_apps and save_page_to_shelf; may be nil
	Getenv   func(string) string
	// Backoff is the wait before reconnect attempt n (1-based). Default: 250 ms doubling to 8 s, ±20%.
	Backoff      func(attempt int) time.Duration
	MaxAttempts  int           // reconnect attempts before giving up; default 8
	SetupTimeout time.Duration // dial plus setup; default 15 s
	HTTPClient   *http.Client
	Instructions string // the system prompt; default DefaultInstructions
}

// DefaultInstructions tells the model where it is.
const DefaultInstructions = "You are the voice of Voicebox, a room where a person runs small HTML mini-apps " +
	"(scoreboards, timers, games, dashboards) side by side. Each open app's tools are functions named " +
	"<app>__<tool>. To use an app that is not open, call launch_mini_app: its answer lists the new app's " +
	"tools, which you may call right away in the same turn. list_mini_apps shows what is open and what can " +
	"be opened. A refused call answers {\"ok\":false,\"refused\":code,\"path\",\"message\"}: fix the " +
	"arguments or tell the person. Keep spoken answers short."

// Manager owns the room's one live session.
type Manager struct {
	cfg Config

	mu      sync.Mutex
	cur     *session
	status  Status
	mode    string
	lines   []Line
	lineIdx map[string]int // line id → index in lines
	seq     int
	subs    map[chan []byte]struct{}
	closed  bool
}

// New returns an idle manager.
func New(cfg Config) *Manager {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.Backoff == nil {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 8
	}
	if cfg.SetupTimeout <= 0 {
		cfg.SetupTimeout = 15 * time.Second
	}
	if cfg.Instructions == "" {
		cfg.Instructions = DefaultInstructions
	}
	m := &Manager{cfg: cfg, mode: ModePushToTalk, lineIdx: map[string]int{}, subs: map[chan []byte]struct{}{}}
	m.status = Status{State: StateIdle, Mode: m.mode}
	return m
}

// DefaultBackoff waits 250 ms before the first reconnect, doubling up to 8 s, with ±20% jitter.
func DefaultBackoff(attempt int) time.Duration {
	d := 250 * time.Millisecond << min(attempt-1, 5)
	if d > 8*time.Second {
		d = 8 * time.Second
	}
	j := 0.8 + 0.4*rand.Float64()
	return time.Duration(float64(d) * j)
}

// Status returns the session's state.
func (m *Manager) Status() Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.status
}

// Transcript returns a copy of the transcript, oldest first.
func (m *Manager) Transcript() []Line {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Line{}, m.lines...)
}

// ClearTranscript forgets the transcript (the running session keeps its own context upstream).
func (m *Manager) ClearTranscript() {
	m.mu.Lock()
	m.lines = nil
	m.lineIdx = map[string]int{}
	m.mu.Unlock()
	m.cfg.Bus.Publish(EventCleared, nil)
}

// SubscribeAudio returns the model's audio as PCM16 mono at RoomOutputRate, frame by frame. A slow
// subscriber loses frames rather than stalling the session.
func (m *Manager) SubscribeAudio() (<-chan []byte, func()) {
	ch := make(chan []byte, 256)
	m.mu.Lock()
	m.subs[ch] = struct{}{}
	m.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			m.mu.Lock()
			delete(m.subs, ch)
			m.mu.Unlock()
		})
	}
}

func (m *Manager) broadcastAudio(s *session, pcm []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cur != s {
		return
	}
	for ch := range m.subs {
		select {
		case ch <- pcm:
		default:
		}
	}
}

// Keys says, per provider, whether a key is available and where it comes from ("settings", "env" or "").
func (m *Manager) Keys() map[string]string {
	out := map[string]string{}
	for _, p := range []string{ProviderOpenAI, ProviderGemini} {
		_, src := m.key(p)
		out[p] = src
	}
	return out
}

// key returns the provider's key: from Settings if set there, else from the environment.
func (m *Manager) key(provider string) (string, string) {
	var v settings.Values
	if m.cfg.Settings != nil {
		v = m.cfg.Settings.Get()
	}
	switch provider {
	case ProviderOpenAI:
		if k := strings.TrimSpace(v.OpenAIKey); k != "" {
			return k, "settings"
		}
		if k := strings.TrimSpace(m.cfg.Getenv(EnvOpenAIKey)); k != "" {
			return k, "env"
		}
	case ProviderGemini:
		if k := strings.TrimSpace(v.GeminiKey); k != "" {
			return k, "settings"
		}
		if k := strings.TrimSpace(m.cfg.Getenv(EnvGeminiKey)); k != "" {
			return k, "env"
		}
	}
	return "", ""
}

func (m *Manager) model(provider string) string {
	var v settings.Values
	if m.cfg.Settings != nil {
		v = m.cfg.Settings.Get()
	}
	if provider == ProviderGemini {
		if s := strings.TrimSpace(v.GeminiModel); s != "" {
			return s
		}
		return DefaultGeminiModel
	}
	if s := strings.TrimSpace(v.OpenAIModel); s != "" {
		return s
	}
	return DefaultOpenAIModel
}

// endpoint is the WebSocket URL for provider. The environment's URL replaces the whole default; Gemini's
// key still rides in the key parameter when the replacement names none.
func (m *Manager) endpoint(provider, key, model string) (string, http.Header, error) {
	h := http.Header{}
	switch provider {
	case ProviderOpenAI:
		h.Set("Authorization", "Bearer "+key)
		if u := strings.TrimSpace(m.cfg.Getenv(EnvOpenAIURL)); u != "" {
			return u, h, nil
		}
		return OpenAIURL + "?model=" + url.QueryEscape(model), h, nil
	case ProviderGemini:
		raw := GeminiURL
		if u := strings.TrimSpace(m.cfg.Getenv(EnvGeminiURL)); u != "" {
			raw = u
		}
		u, err := url.Parse(raw)
		if err != nil {
			return "", nil, errorf(CodeUpstream, "%s is not a URL: %v", EnvGeminiURL, err)
		}
		q := u.Query()
		if q.Get("key") == "" {
			q.Set("key", key)
			u.RawQuery = q.Encode()
		}
		return u.String(), h, nil
	}
	return "", nil, errorf(CodeUnknownProvider, "unknown provider %q: use \"openai\" or \"gemini\"", provider)
}

// Provider returns the provider Start would use for "" (the one chosen in Settings, else OpenAI).
func (m *Manager) Provider(p string) string {
	p = strings.ToLower(strings.TrimSpace(p))
	if p == "" && m.cfg.Settings != nil {
		p = m.cfg.Settings.Get().Provider
	}
	if p == "" {
		p = ProviderOpenAI
	}
	return p
}

// Start opens a session with provider ("openai", "gemini", or "" for the one chosen in Settings) and
// returns once the upstream session is set up. A session already running with the same provider is kept;
// one with another provider is stopped first.
func (m *Manager) Start(ctx context.Context, provider string) (Status, error) {
	provider = m.Provider(provider)
	if provider != ProviderOpenAI && provider != ProviderGemini {
		return m.Status(), errorf(CodeUnknownProvider, "unknown provider %q: use \"openai\" or \"gemini\"", provider)
	}
	key, _ := m.key(provider)
	if key == "" {
		env := EnvOpenAIKey
		name := "OpenAI"
		if provider == ProviderGemini {
			env, name = EnvGeminiKey, "Gemini"
		}
		err := errorf(CodeMissingKey, "No %s API key: add one in Settings or set %s.", name, env)
		if cur, _ := m.current(); cur == nil {
			m.setStatus(nil, func(s *Status) {
				*s = Status{State: StateError, Provider: provider, Mode: s.Mode, Code: err.Code, Message: err.Message}
			})
		}
		return m.Status(), err
	}
	url, header, err := m.endpoint(provider, key, m.model(provider))
	if err != nil {
		return m.Status(), err
	}

	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return m.Status(), errorf(CodeNotRunning, "voicebox is shutting down")
	}
	if cur := m.cur; cur != nil && cur.provider == provider && cur.ctx.Err() == nil {
		m.mu.Unlock()
		return cur.waitReady(ctx, m)
	}
	old := m.cur
	s := newSession(m, provider, key, url, header)
	m.cur = s
	m.mu.Unlock()
	if old != nil {
		old.stop()
	}
	m.setStatus(s, func(st *Status) {
		*st = Status{State: StateConnecting, Provider: provider, Mode: st.Mode, InputRate: s.inputRate(), OutputRate: RoomOutputRate}
	})
	go s.loop()
	return s.waitReady(ctx, m)
}

// Stop ends the session; the transcript stays.
func (m *Manager) Stop() error {
	m.mu.Lock()
	s := m.cur
	m.cur = nil
	m.mu.Unlock()
	if s != nil {
		s.stop()
	}
	m.setStatus(nil, func(st *Status) { *st = Status{State: StateIdle, Mode: st.Mode} })
	return nil
}

// Close stops the session for good (the app is quitting).
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	_ = m.Stop()
}

func (m *Manager) current() (*session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cur == nil {
		return nil, errorf(CodeNotRunning, "no voice session is running: start one first")
	}
	return m.cur, nil
}

// SendText sends a typed message in the running session.
func (m *Manager) SendText(text string) error {
	text = strings.TrimSpace(text)
	if text == "" {
		return errorf(CodeBadRequest, "the message is empty")
	}
	if len(text) > 16<<10 {
		return errorf(CodeBadRequest, "the message is over 16 KiB")
	}
	s, err := m.current()
	if err != nil {
		return err
	}
	return s.sendText(text)
}

// SendAudio relays one frame of the microphone: PCM16 mono at rate (resampled to the provider's rate).
// Audio outside a turn (push-to-talk not held) is dropped.
func (m *Manager) SendAudio(pcm []byte, rate int) error {
	s, err := m.current()
	if err != nil {
		return err
	}
	return s.sendAudio(pcm, rate)
}

// PushToTalk starts (down) or ends (up) a spoken turn.
func (m *Manager) PushToTalk(down bool) error {
	s, err := m.current()
	if err != nil {
		return err
	}
	return s.pushToTalk(down)
}

// SetMode switches between push-to-talk and always listening; it holds for later sessions too.
func (m *Manager) SetMode(mode string) error {
	if mode != ModePushToTalk && mode != ModeAlways {
		return errorf(CodeBadRequest, "mode must be %q or %q", ModePushToTalk, ModeAlways)
	}
	m.mu.Lock()
	m.mode = mode
	s := m.cur
	m.mu.Unlock()
	m.setStatus(nil, func(st *Status) { st.Mode = mode })
	if s != nil {
		return s.setMode(mode)
	}
	return nil
}

func (m *Manager) currentMode() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mode
}

// setStatus changes the status (only for the current session when s is not nil) and tells the room.
func (m *Manager) setStatus(s *session, fn func(*Status)) {
	m.mu.Lock()
	if s != nil && m.cur != s {
		m.mu.Unlock()
		return
	}
	before := m.status
	fn(&m.status)
	m.status.Mode = m.mode
	st := m.status
	m.mu.Unlock()
	if st != before {
		m.cfg.Bus.Publish(EventState, st)
	}
}

// line adds to or replaces a transcript line and tells the room. key identifies the line within the
// session (a provider's item id); text is appended when delta is true and replaces the line otherwise.
func (m *Manager) line(s *session, role, key, text string, delta, final bool) {
	m.mu.Lock()
	if s != nil && m.cur != s {
		m.mu.Unlock()
		return
	}
	id := s.lineID(key)
	i, have := m.lineIdx[id]
	if !have {
		if text == "" {
			m.mu.Unlock()
			return
		}
		m.lines = append(m.lines, Line{ID: id, Role: role, At: time.Now()})
		if len(m.lines) > maxLines {
			m.lines = append([]Line(nil), m.lines[len(m.lines)-maxLines:]...)
			m.lineIdx = map[string]int{}
			for j, l := range m.lines {
				m.lineIdx[l.ID] = j
			}
		}
		i = len(m.lines) - 1
		m.lineIdx[id] = i
	}
	l := &m.lines[i]
	if delta && l.Text == pendingText {
		l.Text = text
	} else if delta {
		l.Text += text
	} else if text != "" || final {
		if text != "" {
			l.Text = text
		}
	}
	if final {
		l.Final = true
	}
	out := *l
	m.mu.Unlock()
	m.cfg.Bus.Publish(EventTranscript, out)
}

// history is the final lines to replay as context after a reconnect that could not resume.
func (m *Manager) history(n int) []Line {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Line
	for _, l := range m.lines {
		if l.Final && strings.TrimSpace(l.Text) != "" && (l.Role == "user" || l.Role == "assistant") {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// notice shows a message in the room.
func (m *Manager) notice(level, msg string) {
	m.cfg.Bus.Publish(events.Notice, map[string]string{"level": level, "message": msg})
}

// session is one Start: it lives across reconnects until Stop.
type session struct {
	m        *Manager
	provider string
	key      string
	url      string
	header   http.Header
	ctx      context.Context
	cancel   context.CancelFunc
	disp     *dispatcher
	id       string

	readyOnce sync.Once
	ready     chan struct{}
	readyErr  error

	mu       sync.Mutex
	conn     *conn
	talking  bool
	pipe     *inputPipe
	handle   string // Gemini session resumption handle
	resumed  bool
	lineKeys map[string]string
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
		ready: make(chan struct{}), lineKeys: map[string]string{}}
	s.pipe = newInputPipe(s.inputRate())
	s.disp = &dispatcher{reg: m.cfg.Registry, lib: m.cfg.Library, caller: "voice:" + provider, provider: provider,
		activity: func(a registry.Activity) { m.cfg.Bus.Publish(registry.EventActivity, a) }}
	return s
}

func (s *session) inputRate() int {
	if s.provider == ProviderGemini {
		return GeminiInputRate
	}
	return OpenAIInputRate
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
	changes, unsubscribe := s.m.cfg.Registry.Subscribe()
	defer unsubscribe()
	go func() {
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-changes:
				s.mu.Lock()
				c := s.conn
				s.mu.Unlock()
				if c != nil {
					c.drv.toolsChanged()
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

// scrub keeps the key out of anything shown or logged.
func (s *session) scrub(msg string) string {
	if s.key != "" {
		msg = strings.ReplaceAll(msg, s.key, "***")
		msg = strings.ReplaceAll(msg, url.QueryEscape(s.key), "***")
	}
	// Providers quote a refused key masked ("sk-proj-****abcd", "AIza…"); none of it goes further.
	return keyLike.ReplaceAllString(msg, "***")
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
		c.drv = newGemini(c)
	} else {
		c.drv = newOpenAI(c)
	}
	s.mu.Lock()
	s.conn = c
	s.pipe = newInputPipe(s.inputRate())
	s.mu.Unlock()
	if err := c.drv.handshake(ctx); err != nil {
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
		if err := c.drv.afterReconnect(); err != nil {
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

// classify turns a setup failure into a coded error: a close or error that names the key is a refusal.
func classify(s *session, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	msg := s.scrub(err.Error())
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		msg = s.scrub(ce.Reason)
		if looksLikeKeyRefusal(ce.Reason) || ce.Code == websocket.StatusPolicyViolation && strings.Contains(strings.ToLower(ce.Reason), "key") {
			return errorf(CodeKeyRefused, "%s refused the API key: %s", s.name(), msg)
		}
		return errorf(CodeUpstream, "%s closed the session during setup (%d): %s", s.name(), ce.Code, msg)
	}
	return errorf(CodeUpstream, "%s: %s", s.name(), msg)
}

func looksLikeKeyRefusal(s string) bool {
	l := strings.ToLower(s)
	for _, w := range []string{"api key", "api_key", "invalid_api_key", "incorrect api key", "unauthorized", "authentication", "permission denied"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
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
	return c.drv.text(text)
}

func (s *session) sendAudio(frame []byte, rate int) error {
	s.mu.Lock()
	c := s.conn
	live := s.talking || s.m.currentMode() == ModeAlways
	var chunks [][]byte
	var err error
	if c != nil && live {
		chunks, err = s.pipe.push(frame, rate)
	} else if err = CheckRate(rate); err == nil && len(frame)%2 != 0 {
		err = fmt.Errorf("%w: odd frame", ErrBadAudio)
	}
	s.mu.Unlock()
	if err != nil {
		return errorf(CodeBadAudio, "%s", err.Error())
	}
	for _, ch := range chunks {
		if err := c.drv.audio(ch); err != nil {
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
		return c.drv.startTurn()
	}
	if len(rest) > 0 {
		_ = c.drv.audio(rest)
	}
	return c.drv.endTurn()
}

func (s *session) setMode(mode string) error {
	if c := s.current(); c != nil {
		return c.drv.setMode(mode)
	}
	return nil
}

// toolset is what the session declares now.
func (s *session) toolset() (Toolset, error) {
	return BuildToolset(s.provider, s.m.cfg.Registry.Apps())
}

func (s *session) setTools(n int) {
	s.m.setStatus(s, func(st *Status) { st.Tools = n })
}

// declaredTools is what a driver has declared upstream: whether the provider acknowledged the setup, and
// the signature of the toolset the provider holds. The driver's own mutex guards it.
type declaredTools struct {
	setupDone bool
	sig       string
}

// ifToolsChanged builds the session's toolset and, once the setup is done and only if the toolset differs
// from what the provider holds, runs f with it under mu (the driver's mutex, so updates cannot reorder).
func (c *conn) ifToolsChanged(mu *sync.Mutex, decl *declaredTools, f func(Toolset)) {
	ts, err := c.s.toolset()
	if err != nil {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if decl.setupDone && ts.Signature != decl.sig {
		f(ts)
	}
}

// audioOut hands the model's audio to the room at RoomOutputRate.
func (s *session) audioOut(pcm []byte, rate int) {
	if len(pcm) == 0 || len(pcm)%2 != 0 {
		return
	}
	if rate != RoomOutputRate {
		samples, err := Samples(pcm)
		if err != nil {
			return
		}
		pcm = PCMBytes(NewResampler(rate, RoomOutputRate).Process(samples))
	}
	s.m.broadcastAudio(s, pcm)
}

// conn is one upstream WebSocket of a session.
type conn struct {
	s      *session
	ws     *websocket.Conn
	drv    driver
	ctx    context.Context
	cancel context.CancelFunc

	wmu       sync.Mutex
	closeOnce sync.Once
	planned   bool
	pmu       sync.Mutex
}

// driver speaks one provider's protocol over one connection.
type driver interface {
	handshake(ctx context.Context) error // send the setup and read until the session is ready
	afterReconnect() error               // restore context on a new connection
	handle(msg []byte)                   // one server message
	audio(chunk []byte) error            // a chunk at the provider's input rate
	startTurn() error                    // push-to-talk pressed
	endTurn() error                      // push-to-talk released
	text(text string) error
	setMode(mode string) error
	toolsChanged()
}

// send writes one JSON message.
func (c *conn) send(v any) error {
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

// read returns the next message (text or binary: Gemini sends JSON in binary frames).
func (c *conn) read(ctx context.Context) ([]byte, error) {
	_, b, err := c.ws.Read(ctx)
	return b, err
}

// run reads messages until the connection ends.
func (c *conn) run() error {
	for {
		b, err := c.read(c.ctx)
		if err != nil {
			c.pmu.Lock()
			planned := c.planned
			c.pmu.Unlock()
			if planned {
				return errPlanned
			}
			var ce websocket.CloseError
			if errors.As(err, &ce) && looksLikeKeyRefusal(ce.Reason) {
				return errorf(CodeKeyRefused, "%s refused the API key: %s", c.s.name(), c.s.scrub(ce.Reason))
			}
			return err
		}
		c.drv.handle(b)
	}
}

// replace ends this connection so the session opens a new one at once.
func (c *conn) replace(reason string) {
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
