// Package openai is the voice session's driver for OpenAI Realtime (GA) over WebSocket. Client events:
// session.update, input_audio_buffer.append / commit / clear, conversation.item.create, response.create,
// response.cancel. Server events are read in both their GA names and the beta names some proxies still
// speak (response.output_audio.delta and response.audio.delta, …).
package openai

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/voicebox/voicebox/backend/voice/internal/upstream"
	"github.com/voicebox/voicebox/backend/voice/pcm"
)

// OpenAI Realtime takes and gives 24 kHz PCM16 mono.
const (
	InputRate  = 24000
	OutputRate = 24000
)

// oaEvent is the union of the server event fields this driver reads.
type oaEvent struct {
	Type       string          `json:"type"`
	ItemID     string          `json:"item_id"`
	ResponseID string          `json:"response_id"`
	CallID     string          `json:"call_id"`
	Name       string          `json:"name"`
	Arguments  string          `json:"arguments"`
	Delta      string          `json:"delta"`
	Transcript string          `json:"transcript"`
	Text       string          `json:"text"`
	Item       *oaItem         `json:"item"`
	Response   *oaResponseBody `json:"response"`
	Error      *struct {
		Type    string `json:"type"`
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type oaItem struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Role      string `json:"role"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type oaResponseBody struct {
	ID     string   `json:"id"`
	Status string   `json:"status"`
	Output []oaItem `json:"output"`
}

// oaCall is one function call of a response.
type oaCall struct {
	callID, name string
	args         json.RawMessage
}

// oaResponse runs the function calls of one model response, in order: a launch finishes (and its tools
// are declared) before the next call of the same response resolves its name.
type oaResponse struct {
	id     string
	calls  chan oaCall
	seen   map[string]bool
	closed bool
	ctx    context.Context
	cancel context.CancelFunc
	status string
}

// Driver speaks OpenAI Realtime over one connection.
type Driver struct {
	l upstream.Link

	mu        sync.Mutex
	declared  upstream.Declared
	responses map[string]*oaResponse
	active    int  // responses started and not done
	owed      bool // a response.create waits for the active response to end
	appended  bool // audio appended since the last commit
}

// New returns the driver for one connection.
func New(l upstream.Link) *Driver {
	return &Driver{l: l, responses: map[string]*oaResponse{}}
}

// sessionConfig is the whole session.update body.
func (d *Driver) sessionConfig(ts upstream.Tools) map[string]any {
	tools := ts.Declarations
	if tools == nil {
		tools = []json.RawMessage{}
	}
	return map[string]any{
		"type":              "realtime",
		"instructions":      d.l.Instructions(),
		"output_modalities": []string{"audio"},
		"audio": map[string]any{
			"input": map[string]any{
				"format":         map[string]any{"type": "audio/pcm", "rate": InputRate},
				"transcription":  map[string]any{"model": "gpt-4o-mini-transcribe"},
				"turn_detection": turnDetection(d.l.Always()),
			},
			"output": map[string]any{
				"format": map[string]any{"type": "audio/pcm", "rate": OutputRate},
			},
		},
		"tools":       tools,
		"tool_choice": "auto",
	}
}

func turnDetection(always bool) any {
	if always {
		return map[string]any{"type": "server_vad", "create_response": true, "interrupt_response": true}
	}
	return nil // push-to-talk: the room says when a turn ends
}

// Handshake sends the configuration once the session is created and returns when it is acknowledged.
func (d *Driver) Handshake(ctx context.Context) error {
	// session.created comes first; then our configuration, acknowledged by session.updated.
	sentUpdate := false
	for {
		ev, _, err := upstream.ReadJSON[oaEvent](ctx, d.l)
		if err != nil {
			return err
		}
		switch ev.Type {
		case "session.created":
			if sentUpdate {
				continue
			}
			ts, err := d.l.Tools()
			if err != nil {
				return err
			}
			if err := d.l.Send(map[string]any{"type": "session.update", "session": d.sessionConfig(ts)}); err != nil {
				return err
			}
			sentUpdate = true
			d.mu.Lock()
			d.declared.Signature = ts.Signature
			d.mu.Unlock()
			d.l.Declared(len(ts.Declarations))
		case "session.updated":
			if sentUpdate {
				d.mu.Lock()
				d.declared.SetupDone = true
				d.mu.Unlock()
				return nil
			}
		case "error":
			if ev.Error != nil {
				msg := ev.Error.Message
				if ev.Error.Code == "invalid_api_key" || ev.Error.Type == "invalid_request_error" && upstream.LooksLikeKeyRefusal(msg) || upstream.LooksLikeKeyRefusal(ev.Error.Code) {
					return upstream.KeyRefusal("OpenAI refused the API key: %s", msg)
				}
				return upstream.Failure("OpenAI Realtime: %s", msg)
			}
		}
	}
}

// AfterReconnect replays the transcript: a new Realtime session starts with an empty conversation.
func (d *Driver) AfterReconnect() error {
	for _, t := range d.l.History(20) {
		part := map[string]any{"type": "input_text", "text": t.Text}
		if t.Role == "assistant" {
			part = map[string]any{"type": "output_text", "text": t.Text}
		}
		if err := d.l.Send(map[string]any{"type": "conversation.item.create", "item": map[string]any{
			"type": "message", "role": t.Role, "content": []any{part},
		}}); err != nil {
			return err
		}
	}
	return nil
}

// Audio appends a chunk to the input buffer.
func (d *Driver) Audio(chunk []byte) error {
	d.mu.Lock()
	d.appended = true
	d.mu.Unlock()
	return d.l.Send(map[string]any{"type": "input_audio_buffer.append", "audio": pcm.EncodeBase64(chunk)})
}

// StartTurn clears the input buffer (and cancels a response the person speaks over).
func (d *Driver) StartTurn() error {
	d.mu.Lock()
	d.appended = false
	active := d.active > 0
	d.mu.Unlock()
	if active {
		// Barge in: the person speaks over the model.
		_ = d.l.Send(map[string]any{"type": "response.cancel"})
	}
	return d.l.Send(map[string]any{"type": "input_audio_buffer.clear"})
}

// EndTurn commits the turn and asks for a response (push-to-talk only: server VAD ends its own turns).
func (d *Driver) EndTurn() error {
	d.mu.Lock()
	had := d.appended
	d.appended = false
	d.mu.Unlock()
	if !had || d.l.Always() {
		return nil
	}
	if err := d.l.Send(map[string]any{"type": "input_audio_buffer.commit"}); err != nil {
		return err
	}
	d.l.State(upstream.Thinking)
	return d.createResponse()
}

// Text adds a typed message and asks for a response.
func (d *Driver) Text(text string) error {
	if err := d.l.Send(map[string]any{"type": "conversation.item.create", "item": map[string]any{
		"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": text}},
	}}); err != nil {
		return err
	}
	return d.createResponse()
}

// createResponse asks for a response now, or once the active one is done.
func (d *Driver) createResponse() error {
	d.mu.Lock()
	if d.active > 0 {
		d.owed = true
		d.mu.Unlock()
		return nil
	}
	d.mu.Unlock()
	d.syncTools()
	return d.l.Send(map[string]any{"type": "response.create"})
}

// SetMode switches server VAD on (always listening) or off (push-to-talk).
func (d *Driver) SetMode(always bool) error {
	return d.l.Send(map[string]any{"type": "session.update", "session": map[string]any{
		"type":  "realtime",
		"audio": map[string]any{"input": map[string]any{"turn_detection": turnDetection(always)}},
	}})
}

// ToolsChanged declares the new tools with session.update.
func (d *Driver) ToolsChanged() { d.syncTools() }

// syncTools declares the current tools with session.update when they changed since the last one sent.
func (d *Driver) syncTools() {
	sent := -1
	d.declared.IfChanged(d.l, &d.mu, func(ts upstream.Tools) {
		d.declared.Signature = ts.Signature
		// Sent under the lock so two syncs cannot reorder their updates.
		if d.l.Send(map[string]any{"type": "session.update", "session": map[string]any{
			"type": "realtime", "tools": ts.Declarations, "tool_choice": "auto",
		}}) == nil {
			sent = len(ts.Declarations)
		}
	})
	if sent >= 0 {
		d.l.Declared(sent)
	}
}

// Late tells the model how a build ended: the call's output was given at once ("building"), so the end is a
// message of the conversation (a system item naming the app and its tools), then a response when none is in
// progress (createResponse waits for the active one), as OpenAI documents for results that arrive later.
func (d *Driver) Late(_, _, text string, _ upstream.Result, _ bool) error {
	if err := d.l.Send(map[string]any{"type": "conversation.item.create", "item": map[string]any{
		"type": "message", "role": "system", "content": []any{map[string]any{"type": "input_text", "text": text}},
	}}); err != nil {
		return err
	}
	return d.createResponse()
}

// Handle reads one server event.
func (d *Driver) Handle(b []byte) {
	var ev oaEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		return
	}
	l := d.l
	switch ev.Type {
	case "response.created":
		id := ""
		if ev.Response != nil {
			id = ev.Response.ID
		}
		d.response(id)
		l.State(upstream.Responding)
	case "response.output_audio.delta", "response.audio.delta":
		audio, err := pcm.DecodeBase64(ev.Delta)
		if err != nil {
			return
		}
		l.State(upstream.Speaking)
		l.Audio(audio, OutputRate)
	case "response.output_audio_transcript.delta", "response.audio_transcript.delta",
		"response.output_text.delta", "response.text.delta":
		l.Line("assistant", ev.ItemID, ev.Delta, true, false)
	case "response.output_audio_transcript.done", "response.audio_transcript.done":
		l.Line("assistant", ev.ItemID, ev.Transcript, false, true)
	case "response.output_text.done", "response.text.done":
		l.Line("assistant", ev.ItemID, ev.Text, false, true)
	case "conversation.item.input_audio_transcription.delta":
		l.Line("user", ev.ItemID, ev.Delta, true, false)
	case "conversation.item.input_audio_transcription.completed":
		l.Line("user", ev.ItemID, ev.Transcript, false, true)
	case "input_audio_buffer.speech_started":
		l.Interrupt()
		l.State(upstream.Listening)
	case "input_audio_buffer.speech_stopped":
		l.State(upstream.Thinking)
	case "input_audio_buffer.committed":
		// The person's turn: hold its place in the transcript until its transcription arrives.
		l.Line("user", ev.ItemID, upstream.PendingText, false, false)
		l.State(upstream.Thinking)
	case "conversation.item.input_audio_transcription.failed":
		l.Line("user", ev.ItemID, "(not transcribed)", false, true)
	case "response.function_call_arguments.done":
		if ev.CallID != "" && ev.Name != "" {
			d.enqueue(ev.ResponseID, oaCall{callID: ev.CallID, name: ev.Name, args: argsJSON(ev.Arguments)})
		}
	case "response.output_item.done":
		if ev.Item != nil && ev.Item.Type == "function_call" {
			d.enqueue(ev.ResponseID, oaCall{callID: ev.Item.CallID, name: ev.Item.Name, args: argsJSON(ev.Item.Arguments)})
		}
	case "response.done":
		d.done(ev.Response)
	case "error":
		if ev.Error == nil {
			return
		}
		switch ev.Error.Code {
		case "conversation_already_has_active_response", "input_audio_buffer_commit_empty", "response_cancel_not_active":
			return // races this driver tolerates
		}
		l.Notice("OpenAI Realtime: " + ev.Error.Message)
	}
}

func argsJSON(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage(`{}`)
	}
	return json.RawMessage(s)
}

// response returns the response with this id, starting its worker on first sight.
func (d *Driver) response(id string) *oaResponse {
	d.mu.Lock()
	defer d.mu.Unlock()
	if id == "" {
		id = "_"
	}
	if r := d.responses[id]; r != nil {
		return r
	}
	ctx, cancel := context.WithCancel(d.l.Context())
	r := &oaResponse{id: id, calls: make(chan oaCall, 64), seen: map[string]bool{}, ctx: ctx, cancel: cancel}
	d.responses[id] = r
	d.active++
	go d.work(r)
	return r
}

func (d *Driver) enqueue(responseID string, call oaCall) {
	r := d.response(responseID)
	d.mu.Lock()
	defer d.mu.Unlock()
	if r.closed || call.callID == "" || r.seen[call.callID] {
		return
	}
	r.seen[call.callID] = true
	select {
	case r.calls <- call:
	default: // over 64 calls in one response: the rest are refused by omission
	}
}

// done ends a response: calls listed in it that were not seen yet are queued, then the worker finishes.
// A cancelled (or failed) response cancels the calls still running.
func (d *Driver) done(body *oaResponseBody) {
	id := ""
	if body != nil {
		id = body.ID
	}
	r := d.response(id)
	if body != nil {
		for _, it := range body.Output {
			if it.Type == "function_call" {
				d.enqueue(id, oaCall{callID: it.CallID, name: it.Name, args: argsJSON(it.Arguments)})
			}
		}
	}
	d.mu.Lock()
	if body != nil {
		r.status = body.Status
	}
	if !r.closed {
		r.closed = true
		close(r.calls)
	}
	d.mu.Unlock()
	if r.status == "cancelled" || r.status == "failed" {
		r.cancel()
	}
}

// work runs a response's calls one after another, then answers them all and asks for the next response.
func (d *Driver) work(r *oaResponse) {
	type answer struct {
		callID string
		res    upstream.Result
	}
	var answers []answer
	for call := range r.calls {
		d.l.State(upstream.Thinking)
		res := d.l.Call(r.ctx, call.callID, call.name, call.args)
		answers = append(answers, answer{call.callID, res})
	}
	cancelled := r.status == "cancelled" || r.status == "failed" || r.ctx.Err() != nil
	r.cancel()
	// Every call gets its output, even in a cancelled response (the conversation stays consistent);
	// only a response that ran to the end asks for the next one.
	for _, a := range answers {
		_ = d.l.Send(map[string]any{"type": "conversation.item.create", "item": map[string]any{
			"type": "function_call_output", "call_id": a.callID, "output": string(a.res.Answer()),
		}})
	}
	d.mu.Lock()
	delete(d.responses, r.id)
	d.active--
	owed := d.owed && d.active == 0
	if owed {
		d.owed = false
	}
	d.mu.Unlock()
	switch {
	case len(answers) > 0 && !cancelled, owed:
		// The new tools (a launch in this response) are declared before the model's next call.
		_ = d.createResponse()
	default:
		d.l.State(upstream.Settled)
	}
}
