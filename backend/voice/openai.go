package voice

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
)

// OpenAI Realtime (GA) over WebSocket. Client events: session.update, input_audio_buffer.append /
// commit / clear, conversation.item.create, response.create, response.cancel. Server events are read in
// both their GA names and the beta names some proxies still speak (response.output_audio.delta and
// response.audio.delta, …).

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

type openaiDriver struct {
	c *conn

	mu        sync.Mutex
	declared  declaredTools
	responses map[string]*oaResponse
	active    int  // responses started and not done
	owed      bool // a response.create waits for the active response to end
	appended  bool // audio appended since the last commit
}

func newOpenAI(c *conn) *openaiDriver {
	return &openaiDriver{c: c, responses: map[string]*oaResponse{}}
}

// sessionConfig is the whole session.update body.
func (d *openaiDriver) sessionConfig(ts Toolset) map[string]any {
	tools := ts.Declarations
	if tools == nil {
		tools = []json.RawMessage{}
	}
	return map[string]any{
		"type":              "realtime",
		"instructions":      d.c.s.m.cfg.Instructions,
		"output_modalities": []string{"audio"},
		"audio": map[string]any{
			"input": map[string]any{
				"format":         map[string]any{"type": "audio/pcm", "rate": OpenAIInputRate},
				"transcription":  map[string]any{"model": "gpt-4o-mini-transcribe"},
				"turn_detection": turnDetection(d.c.s.m.currentMode()),
			},
			"output": map[string]any{
				"format": map[string]any{"type": "audio/pcm", "rate": OpenAIOutputRate},
			},
		},
		"tools":       tools,
		"tool_choice": "auto",
	}
}

func turnDetection(mode string) any {
	if mode == ModeAlways {
		return map[string]any{"type": "server_vad", "create_response": true, "interrupt_response": true}
	}
	return nil // push-to-talk: the room says when a turn ends
}

func (d *openaiDriver) handshake(ctx context.Context) error {
	// session.created comes first; then our configuration, acknowledged by session.updated.
	sentUpdate := false
	for {
		b, err := d.c.read(ctx)
		if err != nil {
			return err
		}
		var ev oaEvent
		if json.Unmarshal(b, &ev) != nil {
			continue
		}
		switch ev.Type {
		case "session.created":
			if sentUpdate {
				continue
			}
			ts, err := d.c.s.toolset()
			if err != nil {
				return err
			}
			if err := d.c.send(map[string]any{"type": "session.update", "session": d.sessionConfig(ts)}); err != nil {
				return err
			}
			sentUpdate = true
			d.mu.Lock()
			d.declared.sig = ts.Signature
			d.mu.Unlock()
			d.c.s.setTools(len(ts.Declarations))
		case "session.updated":
			if sentUpdate {
				d.mu.Lock()
				d.declared.setupDone = true
				d.mu.Unlock()
				return nil
			}
		case "error":
			if ev.Error != nil {
				msg := ev.Error.Message
				if ev.Error.Code == "invalid_api_key" || ev.Error.Type == "invalid_request_error" && looksLikeKeyRefusal(msg) || looksLikeKeyRefusal(ev.Error.Code) {
					return errorf(CodeKeyRefused, "OpenAI refused the API key: %s", msg)
				}
				return errorf(CodeUpstream, "OpenAI Realtime: %s", msg)
			}
		}
	}
}

// afterReconnect replays the transcript: a new Realtime session starts with an empty conversation.
func (d *openaiDriver) afterReconnect() error {
	for _, l := range d.c.s.m.history(20) {
		part := map[string]any{"type": "input_text", "text": l.Text}
		if l.Role == "assistant" {
			part = map[string]any{"type": "output_text", "text": l.Text}
		}
		if err := d.c.send(map[string]any{"type": "conversation.item.create", "item": map[string]any{
			"type": "message", "role": l.Role, "content": []any{part},
		}}); err != nil {
			return err
		}
	}
	return nil
}

func (d *openaiDriver) audio(chunk []byte) error {
	d.mu.Lock()
	d.appended = true
	d.mu.Unlock()
	return d.c.send(map[string]any{"type": "input_audio_buffer.append", "audio": EncodeBase64(chunk)})
}

func (d *openaiDriver) startTurn() error {
	d.mu.Lock()
	d.appended = false
	active := d.active > 0
	d.mu.Unlock()
	if active {
		// Barge in: the person speaks over the model.
		_ = d.c.send(map[string]any{"type": "response.cancel"})
	}
	return d.c.send(map[string]any{"type": "input_audio_buffer.clear"})
}

func (d *openaiDriver) endTurn() error {
	d.mu.Lock()
	had := d.appended
	d.appended = false
	d.mu.Unlock()
	if !had || d.c.s.m.currentMode() == ModeAlways {
		return nil
	}
	if err := d.c.send(map[string]any{"type": "input_audio_buffer.commit"}); err != nil {
		return err
	}
	d.c.s.m.setStatus(d.c.s, func(st *Status) { st.State = StateThinking })
	return d.createResponse()
}

func (d *openaiDriver) text(text string) error {
	if err := d.c.send(map[string]any{"type": "conversation.item.create", "item": map[string]any{
		"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": text}},
	}}); err != nil {
		return err
	}
	return d.createResponse()
}

// createResponse asks for a response now, or once the active one is done.
func (d *openaiDriver) createResponse() error {
	d.mu.Lock()
	if d.active > 0 {
		d.owed = true
		d.mu.Unlock()
		return nil
	}
	d.mu.Unlock()
	d.syncTools()
	return d.c.send(map[string]any{"type": "response.create"})
}

func (d *openaiDriver) setMode(mode string) error {
	return d.c.send(map[string]any{"type": "session.update", "session": map[string]any{
		"type":  "realtime",
		"audio": map[string]any{"input": map[string]any{"turn_detection": turnDetection(mode)}},
	}})
}

func (d *openaiDriver) toolsChanged() { d.syncTools() }

// syncTools declares the current tools with session.update when they changed since the last one sent.
func (d *openaiDriver) syncTools() {
	sent := -1
	d.c.ifToolsChanged(&d.mu, &d.declared, func(ts Toolset) {
		d.declared.sig = ts.Signature
		// Sent under the lock so two syncs cannot reorder their updates.
		if d.c.send(map[string]any{"type": "session.update", "session": map[string]any{
			"type": "realtime", "tools": ts.Declarations, "tool_choice": "auto",
		}}) == nil {
			sent = len(ts.Declarations)
		}
	})
	if sent >= 0 {
		d.c.s.setTools(sent)
	}
}

func (d *openaiDriver) handle(b []byte) {
	var ev oaEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		return
	}
	s := d.c.s
	m := s.m
	switch ev.Type {
	case "response.created":
		id := ""
		if ev.Response != nil {
			id = ev.Response.ID
		}
		d.response(id)
		m.setStatus(s, func(st *Status) {
			if st.State != StateSpeaking {
				st.State = StateThinking
			}
		})
	case "response.output_audio.delta", "response.audio.delta":
		pcm, err := DecodeBase64(ev.Delta)
		if err != nil {
			return
		}
		m.setStatus(s, func(st *Status) { st.State = StateSpeaking })
		s.audioOut(pcm, OpenAIOutputRate)
	case "response.output_audio_transcript.delta", "response.audio_transcript.delta",
		"response.output_text.delta", "response.text.delta":
		m.line(s, "assistant", ev.ItemID, ev.Delta, true, false)
	case "response.output_audio_transcript.done", "response.audio_transcript.done":
		m.line(s, "assistant", ev.ItemID, ev.Transcript, false, true)
	case "response.output_text.done", "response.text.done":
		m.line(s, "assistant", ev.ItemID, ev.Text, false, true)
	case "conversation.item.input_audio_transcription.delta":
		m.line(s, "user", ev.ItemID, ev.Delta, true, false)
	case "conversation.item.input_audio_transcription.completed":
		m.line(s, "user", ev.ItemID, ev.Transcript, false, true)
	case "input_audio_buffer.speech_started":
		m.cfg.Bus.Publish(EventInterrupt, nil)
		m.setStatus(s, func(st *Status) { st.State = StateListening })
	case "input_audio_buffer.speech_stopped":
		m.setStatus(s, func(st *Status) { st.State = StateThinking })
	case "input_audio_buffer.committed":
		// The person's turn: hold its place in the transcript until its transcription arrives.
		m.line(s, "user", ev.ItemID, pendingText, false, false)
		m.setStatus(s, func(st *Status) { st.State = StateThinking })
	case "conversation.item.input_audio_transcription.failed":
		m.line(s, "user", ev.ItemID, "(not transcribed)", false, true)
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
		m.notice("error", "OpenAI Realtime: "+s.scrub(ev.Error.Message))
	}
}

func argsJSON(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage(`{}`)
	}
	return json.RawMessage(s)
}

// response returns the response with this id, starting its worker on first sight.
func (d *openaiDriver) response(id string) *oaResponse {
	d.mu.Lock()
	defer d.mu.Unlock()
	if id == "" {
		id = "_"
	}
	if r := d.responses[id]; r != nil {
		return r
	}
	ctx, cancel := context.WithCancel(d.c.ctx)
	r := &oaResponse{id: id, calls: make(chan oaCall, 64), seen: map[string]bool{}, ctx: ctx, cancel: cancel}
	d.responses[id] = r
	d.active++
	go d.work(r)
	return r
}

func (d *openaiDriver) enqueue(responseID string, call oaCall) {
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
func (d *openaiDriver) done(body *oaResponseBody) {
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
func (d *openaiDriver) work(r *oaResponse) {
	s := d.c.s
	type answer struct {
		callID string
		res    callResult
	}
	var answers []answer
	for call := range r.calls {
		s.m.setStatus(s, func(st *Status) { st.State = StateThinking })
		res := s.disp.call(r.ctx, call.name, call.args)
		answers = append(answers, answer{call.callID, res})
	}
	cancelled := r.status == "cancelled" || r.status == "failed" || r.ctx.Err() != nil
	r.cancel()
	// Every call gets its output, even in a cancelled response (the conversation stays consistent);
	// only a response that ran to the end asks for the next one.
	for _, a := range answers {
		_ = d.c.send(map[string]any{"type": "conversation.item.create", "item": map[string]any{
			"type": "function_call_output", "call_id": a.callID, "output": string(a.res.modelJSON()),
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
		s.m.setStatus(s, func(st *Status) {
			if st.State == StateThinking || st.State == StateSpeaking {
				st.State = StateListening
			}
		})
	}
}
