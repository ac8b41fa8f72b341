// Package voicetest has protocol-level fakes of the two live voice providers: Go WebSocket servers that
// speak OpenAI Realtime's and Gemini Live's documented events, record what the client sends, and let a
// test script what the "model" does (speak, call functions, cancel, go away, drop the socket).
//
// Point Voicebox at one with VOICEBOX_OPENAI_URL=<fake.URL()> or VOICEBOX_GEMINI_URL=<fake.URL()>.
package voicetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Providers.
const (
	OpenAI = "openai"
	Gemini = "gemini"
)

// Msg is one message the client sent.
type Msg struct {
	Type string          // OpenAI: the event's "type"; Gemini: the message's top-level key
	Raw  json.RawMessage // the whole message
	Data map[string]any  // the whole message, decoded
	At   time.Time
}

// Get walks Data by keys and array indices given as strings ("session", "tools", "0", "name").
func (m Msg) Get(path ...string) any {
	var v any = m.Data
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			var i int
			if _, err := fmt.Sscan(p, &i); err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// String is Get as a string ("" when absent or not a string).
func (m Msg) String(path ...string) string {
	s, _ := m.Get(path...).(string)
	return s
}

// Server is a fake provider.
type Server struct {
	Provider string
	// Key is the API key the fake accepts. Empty accepts any key.
	Key string
	// Beta makes the OpenAI fake speak the beta event names (response.audio.delta, …) instead of GA's.
	Beta bool
	// NoResumption stops the Gemini fake from offering session resumption handles.
	NoResumption bool

	srv   *httptest.Server
	conns chan *Conn

	mu  sync.Mutex
	all []*Conn
	seq int
}

// NewOpenAI starts a fake OpenAI Realtime server that accepts key ("" for any).
func NewOpenAI(key string) *Server { return start(&Server{Provider: OpenAI, Key: key}) }

// NewGemini starts a fake Gemini Live server that accepts key ("" for any).
func NewGemini(key string) *Server { return start(&Server{Provider: Gemini, Key: key}) }

func start(s *Server) *Server {
	s.conns = make(chan *Conn, 64)
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the WebSocket URL to give Voicebox.
func (s *Server) URL() string {
	u := "ws" + strings.TrimPrefix(s.srv.URL, "http")
	if s.Provider == Gemini {
		return u + "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"
	}
	return u + "/v1/realtime?model=gpt-realtime"
}

// Close stops the server and drops every connection.
func (s *Server) Close() {
	s.mu.Lock()
	all := append([]*Conn(nil), s.all...)
	s.mu.Unlock()
	for _, c := range all {
		c.Drop()
	}
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Count is the number of connections accepted so far.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.all)
}

// Accept waits for the next connection.
func (s *Server) Accept(ctx context.Context) (*Conn, error) {
	select {
	case c := <-s.conns:
		return c, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("voicetest: no connection: %w", ctx.Err())
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var key string
	switch s.Provider {
	case OpenAI:
		key = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if s.Key != "" && key != s.Key {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"type":"invalid_request_error","code":"invalid_api_key","message":"Incorrect API key provided."}}`)
			return
		}
	case Gemini:
		key = r.URL.Query().Get("key")
		if key == "" {
			key = r.Header.Get("x-goog-api-key")
		}
	}
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	ws.SetReadLimit(32 << 20)
	if s.Provider == Gemini && s.Key != "" && key != s.Key {
		// Gemini accepts the socket and closes it with the reason.
		_ = ws.Close(websocket.StatusPolicyViolation, "API key not valid. Please pass a valid API key.")
		return
	}
	s.mu.Lock()
	s.seq++
	c := &Conn{s: s, ws: ws, N: s.seq, Header: r.Header.Clone(), Query: r.URL.Query(), msgs: make(chan Msg, 8192), done: make(chan struct{})}
	s.all = append(s.all, c)
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	if s.Provider == OpenAI {
		_ = c.Send(map[string]any{"type": "session.created", "event_id": c.eventID(), "session": map[string]any{
			"type": "realtime", "id": fmt.Sprintf("sess_%d", c.N), "object": "realtime.session", "model": "gpt-realtime",
		}})
	}
	s.conns <- c
	c.readLoop(ctx)
}

// Conn is one client connection to the fake.
type Conn struct {
	s      *Server
	ws     *websocket.Conn
	N      int // 1 for the first connection
	Header http.Header
	Query  url.Values
	cancel context.CancelFunc

	wmu  sync.Mutex
	msgs chan Msg
	done chan struct{}

	mu       sync.Mutex
	all      []Msg
	audio    int // bytes of audio received
	eventSeq int
	closeErr error
}

func (c *Conn) eventID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.eventSeq++
	return fmt.Sprintf("event_%d_%d", c.N, c.eventSeq)
}

func (c *Conn) readLoop(ctx context.Context) {
	defer close(c.done)
	for {
		_, b, err := c.ws.Read(ctx)
		if err != nil {
			c.mu.Lock()
			c.closeErr = err
			c.mu.Unlock()
			return
		}
		var data map[string]any
		if json.Unmarshal(b, &data) != nil {
			continue
		}
		m := Msg{Raw: append(json.RawMessage(nil), b...), Data: data, At: time.Now()}
		if c.s.Provider == OpenAI {
			m.Type, _ = data["type"].(string)
		} else {
			for k := range data {
				m.Type = k
			}
		}
		c.mu.Lock()
		c.all = append(c.all, m)
		c.mu.Unlock()
		c.auto(m)
		select {
		case c.msgs <- m:
		default:
		}
	}
}

// auto answers what a real server always answers.
func (c *Conn) auto(m Msg) {
	switch c.s.Provider {
	case OpenAI:
		switch m.Type {
		case "session.update":
			sess, _ := m.Data["session"].(map[string]any)
			_ = c.Send(map[string]any{"type": "session.updated", "event_id": c.eventID(), "session": sess})
		case "input_audio_buffer.append":
			if b, err := decode(m.String("audio")); err == nil {
				c.mu.Lock()
				c.audio += len(b)
				c.mu.Unlock()
			}
		case "input_audio_buffer.commit":
			_ = c.Send(map[string]any{"type": "input_audio_buffer.committed", "event_id": c.eventID(), "item_id": fmt.Sprintf("item_in_%d", c.N)})
		case "conversation.item.create":
			item, _ := m.Data["item"].(map[string]any)
			name := "conversation.item.added"
			if c.s.Beta {
				name = "conversation.item.created"
			}
			_ = c.Send(map[string]any{"type": name, "event_id": c.eventID(), "item": item})
		}
	case Gemini:
		switch m.Type {
		case "setup":
			_ = c.Send(map[string]any{"setupComplete": map[string]any{}})
			if !c.s.NoResumption {
				c.Handle(fmt.Sprintf("handle-%d", c.N))
			}
		case "realtimeInput":
			if d := m.String("realtimeInput", "audio", "data"); d != "" {
				if b, err := decode(d); err == nil {
					c.mu.Lock()
					c.audio += len(b)
					c.mu.Unlock()
				}
			}
		}
	}
}

func decode(s string) ([]byte, error) {
	return decodeStd(s)
}

// Send writes one message (Gemini's fake uses binary frames, as the real service does).
func (c *Conn) Send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	typ := websocket.MessageText
	if c.s.Provider == Gemini {
		typ = websocket.MessageBinary
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.ws.Write(ctx, typ, b)
}

// Next returns the next message the client sent.
func (c *Conn) Next(ctx context.Context) (Msg, error) {
	select {
	case m := <-c.msgs:
		return m, nil
	case <-c.done:
		select {
		case m := <-c.msgs:
			return m, nil
		default:
		}
		return Msg{}, errors.New("voicetest: the connection closed")
	case <-ctx.Done():
		return Msg{}, ctx.Err()
	}
}

// Await returns the next message that satisfies ok, discarding the others.
func (c *Conn) Await(ctx context.Context, what string, ok func(Msg) bool) (Msg, error) {
	for {
		m, err := c.Next(ctx)
		if err != nil {
			return Msg{}, fmt.Errorf("voicetest: waiting for %s: %w (received so far: %s)", what, err, c.Summary())
		}
		if ok(m) {
			return m, nil
		}
	}
}

// AwaitType returns the next message of this type.
func (c *Conn) AwaitType(ctx context.Context, typ string) (Msg, error) {
	return c.Await(ctx, typ, func(m Msg) bool { return m.Type == typ })
}

// Messages returns every message received so far.
func (c *Conn) Messages() []Msg {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Msg(nil), c.all...)
}

// Summary lists the types received so far, for failure messages.
func (c *Conn) Summary() string {
	var types []string
	for _, m := range c.Messages() {
		types = append(types, m.Type)
	}
	return strings.Join(types, ", ")
}

// AudioBytes is how many bytes of audio the client has sent.
func (c *Conn) AudioBytes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.audio
}

// Drop cuts the connection without a close handshake, like a network failure.
func (c *Conn) Drop() {
	_ = c.ws.CloseNow()
	if c.cancel != nil {
		c.cancel()
	}
}

// Close closes the connection with a code and reason.
func (c *Conn) Close(code websocket.StatusCode, reason string) {
	_ = c.ws.Close(code, reason)
}

// Done is closed when the client connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Call is a function call the fake model makes.
type Call struct {
	ID   string
	Name string
	Args string // JSON text
}
