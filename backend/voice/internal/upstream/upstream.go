// Package upstream is the seam between the voice session and a provider's driver: what a driver gets
// from the session for one upstream connection (Link), what the session asks of a driver (Driver), and
// the little they share (the tools declared upstream, a call's answer, coded failures).
//
// A driver speaks one provider's protocol over one WebSocket; the session owns everything that outlives a
// connection (the transcript, the status, reconnecting, running calls, scrubbing what the room sees).
package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// Link is what a driver gets from the voice session for one upstream connection.
type Link interface {
	// Context ends when the connection ends.
	Context() context.Context
	// Send writes one JSON message.
	Send(v any) error
	// Read returns the next message (text or binary).
	Read(ctx context.Context) ([]byte, error)
	// Replace ends this connection on purpose; the session opens a new one at once.
	Replace(reason string)

	// Instructions is the system prompt.
	Instructions() string
	// Model is the provider's model as Settings name it.
	Model() string
	// Always reports whether the microphone is always listening (else push-to-talk).
	Always() bool
	// Tools is what the session declares now.
	Tools() (Tools, error)
	// Declared tells the session how many functions the provider holds now.
	Declared(n int)
	// History is the last n final lines of the transcript, to replay after a reconnect that could not
	// resume.
	History(n int) []Turn
	// Resume returns the handle to resume with ("" for none) and notes whether this connection resumes.
	Resume() string
	// Resumed reports whether this connection resumed the session.
	Resumed() bool
	// OfferResume keeps a handle the provider offered for the next connection.
	OfferResume(handle string)
	// Call runs one function call of the model (id: the provider's call id), validated and bounded by the
	// session. A Result that is Pending answered at once; its end reaches the driver later (Driver.Late).
	Call(ctx context.Context, id, name string, args json.RawMessage) Result

	// State tells the room what the model is doing.
	State(s State)
	// Line adds to or replaces a line of the transcript: key names the line within the connection's
	// session (a provider's item id); text is appended when delta is true.
	Line(role, key, text string, delta, final bool)
	// Interrupt tells the room to stop playing what it queued.
	Interrupt()
	// Audio hands the model's audio (PCM16 mono at rate) to the room.
	Audio(pcm []byte, rate int)
	// Notice shows an error the provider reported; the session scrubs it.
	Notice(msg string)
}

// ReadJSON returns the next message from l that decodes as a T, and its bytes; messages that do not are
// skipped (a provider may send what this version does not know).
func ReadJSON[T any](ctx context.Context, l Link) (v T, raw []byte, err error) {
	for {
		if raw, err = l.Read(ctx); err != nil {
			return v, nil, err
		}
		if json.Unmarshal(raw, &v) == nil {
			return v, raw, nil
		}
	}
}

// Driver speaks one provider's protocol over one connection.
type Driver interface {
	Handshake(ctx context.Context) error // send the setup and read until the session is ready
	AfterReconnect() error               // restore context on a new connection
	Handle(msg []byte)                   // one server message
	Audio(chunk []byte) error            // a chunk at the provider's input rate
	StartTurn() error                    // push-to-talk pressed
	EndTurn() error                      // push-to-talk released
	Text(text string) error              // a typed message
	SetMode(always bool) error           // push-to-talk or always listening
	ToolsChanged()                       // the open apps' tools changed
	// Late tells the model how a call that answered Pending ended (a mini-app built: backend/author), as the
	// provider documents for late results: text says it in words; res is the end as the call's own answer.
	// sameConn: the call was made on this connection (its id still means something here).
	Late(callID, name, text string, res Result, sameConn bool) error
}

// State is what the model is doing, as a driver sees it.
type State int

// States.
const (
	Listening  State = iota // the person's turn
	Thinking                // the model works on an answer
	Speaking                // the model's audio is arriving
	Responding              // a response started: thinking, unless already speaking
	Settled                 // the model is done: listening, if it was thinking or speaking
)

// PendingText holds the place of words being transcribed in a transcript line, so the person's line
// comes before the answer; the first delta replaces it.
const PendingText = "…"

// Turn is one final line of the transcript.
type Turn struct {
	Role string // "user" or "assistant"
	Text string
}

// Tools is what the session declares upstream: the provider's function declarations, and a signature
// that changes exactly when they change.
type Tools struct {
	Declarations []json.RawMessage
	Signature    string
}

// Declared is what a driver has declared upstream: whether the provider acknowledged the setup, and the
// signature of the tools the provider holds. The driver's own mutex guards it.
type Declared struct {
	SetupDone bool
	Signature string
}

// IfChanged reads the session's tools and, once the setup is done and only if they differ from what the
// provider holds, runs f with them under mu (the driver's mutex, so updates cannot reorder).
func (d *Declared) IfChanged(l Link, mu *sync.Mutex, f func(Tools)) {
	ts, err := l.Tools()
	if err != nil {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if d.SetupDone && ts.Signature != d.Signature {
		f(ts)
	}
}

// Result is the answer to one function call.
type Result struct {
	OK      bool
	Output  json.RawMessage // the app's result (null when it returned nothing), when OK
	Refusal json.RawMessage // {"ok":false,"refused":code,"path","message"}, when not OK
	// Pending: the call answered at once and goes on (create_mini_app, edit_mini_app); Late tells its end.
	Pending bool
}

// Answer is how a result or refusal reads to the model: {"ok":true,"result":…} or the refusal.
func (r Result) Answer() json.RawMessage {
	if !r.OK {
		return r.Refusal
	}
	b, _ := json.Marshal(struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
	}{true, r.Output})
	return b
}

// Error is a failure the session shows with a code: a refused key, or anything else upstream.
type Error struct {
	KeyRefused bool
	Message    string
}

func (e *Error) Error() string { return e.Message }

// KeyRefusal is a failure because the provider refused the API key.
func KeyRefusal(format string, a ...any) error {
	return &Error{KeyRefused: true, Message: fmt.Sprintf(format, a...)}
}

// Failure is any other failure the provider reported.
func Failure(format string, a ...any) error {
	return &Error{Message: fmt.Sprintf(format, a...)}
}

// LooksLikeKeyRefusal reports whether a provider's message (or code) says the key was refused.
func LooksLikeKeyRefusal(s string) bool {
	l := strings.ToLower(s)
	for _, w := range []string{"api key", "api_key", "invalid_api_key", "incorrect api key", "unauthorized", "authentication", "permission denied"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}
