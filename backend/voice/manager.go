package voice

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/settings"
	"github.com/voicebox/voicebox/backend/voice/internal/upstream"
)

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
	audio   events.Fanout[[]byte] // the model's audio, to SubscribeAudio's channels
	closed  bool

	tools toolsets // the declarations of the newest snapshot, per provider
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
	if cfg.Exposed == nil {
		cfg.Exposed = exposed.New(cfg.Registry)
	}
	m := &Manager{cfg: cfg, mode: ModePushToTalk, lineIdx: map[string]int{}}
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
	return m.audio.Subscribe(256)
}

func (m *Manager) broadcastAudio(s *session, pcm []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cur != s {
		return
	}
	m.audio.Send(pcm)
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
	return v.APIKey(provider, m.cfg.Getenv)
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
		return s.setMode(mode == ModeAlways)
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
	if delta && l.Text == upstream.PendingText {
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

// notice shows a message from provider in the room; code (one of this package's) picks the room's human
// sentence for it, and msg is its details.
func (m *Manager) notice(level, code, provider, msg string) {
	m.cfg.Bus.Publish(events.Notice, map[string]string{"level": level, "code": code, "provider": provider, "message": msg})
}
