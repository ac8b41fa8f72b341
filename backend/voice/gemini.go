package voice

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Gemini Live (BidiGenerateContent) over WebSocket. Client messages: setup, realtimeInput (audio,
// audioStreamEnd), clientContent (typed turns and replayed history), toolResponse. Server messages:
// setupComplete, serverContent (modelTurn parts with inlineData audio, input/output transcriptions,
// interrupted, turnComplete), toolCall, toolCallCancellation, goAway, sessionResumptionUpdate.
//
// Gemini fixes the tools at setup. When the open apps' tools change the session resumes on a new
// connection with the new declarations (using the resumption handle the server offered), at once when
// idle or at the end of the turn in progress. Within a turn, a tool that just appeared is reachable
// through the call_mini_app_tool verb.

type gmMessage struct {
	SetupComplete *json.RawMessage `json:"setupComplete"`
	ServerContent *struct {
		ModelTurn *struct {
			Parts []struct {
				Text       string `json:"text"`
				Thought    bool   `json:"thought"`
				InlineData *struct {
					MimeType string `json:"mimeType"`
					Data     string `json:"data"`
				} `json:"inlineData"`
			} `json:"parts"`
		} `json:"modelTurn"`
		TurnComplete       bool `json:"turnComplete"`
		Interrupted        bool `json:"interrupted"`
		InputTranscription *struct {
			Text string `json:"text"`
		} `json:"inputTranscription"`
		OutputTranscription *struct {
			Text string `json:"text"`
		} `json:"outputTranscription"`
	} `json:"serverContent"`
	ToolCall *struct {
		FunctionCalls []gmCall `json:"functionCalls"`
	} `json:"toolCall"`
	ToolCallCancellation *struct {
		IDs []string `json:"ids"`
	} `json:"toolCallCancellation"`
	GoAway *struct {
		TimeLeft string `json:"timeLeft"`
	} `json:"goAway"`
	SessionResumptionUpdate *struct {
		NewHandle string `json:"newHandle"`
		Resumable bool   `json:"resumable"`
	} `json:"sessionResumptionUpdate"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
	} `json:"error"`
}

type gmCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type geminiDriver struct {
	c *conn

	mu         sync.Mutex
	declared   declaredTools
	turn       int  // numbers the transcript lines of each turn
	turnActive bool // the model owes the end of a turn
	inflight   int  // tool call batches running
	dirty      bool // resume at the end of the turn (tools changed, or goAway)
	cancels    map[string]context.CancelFunc
	cancelled  map[string]bool
}

func newGemini(c *conn) *geminiDriver {
	return &geminiDriver{c: c, cancels: map[string]context.CancelFunc{}, cancelled: map[string]bool{}}
}

func (d *geminiDriver) setup(ts Toolset) map[string]any {
	s := d.c.s
	model := s.m.model(ProviderGemini)
	if !strings.HasPrefix(model, "models/") {
		model = "models/" + model
	}
	s.mu.Lock()
	handle := s.handle
	s.resumed = handle != ""
	s.mu.Unlock()
	resumption := map[string]any{}
	if handle != "" {
		resumption["handle"] = handle
	}
	setup := map[string]any{
		"model":                    model,
		"generationConfig":         map[string]any{"responseModalities": []string{"AUDIO"}},
		"systemInstruction":        map[string]any{"parts": []any{map[string]any{"text": s.m.cfg.Instructions}}},
		"inputAudioTranscription":  map[string]any{},
		"outputAudioTranscription": map[string]any{},
		"sessionResumption":        resumption,
		"contextWindowCompression": map[string]any{"slidingWindow": map[string]any{}},
	}
	if len(ts.Declarations) > 0 {
		setup["tools"] = []any{map[string]any{"functionDeclarations": ts.Declarations}}
	}
	return map[string]any{"setup": setup}
}

func (d *geminiDriver) handshake(ctx context.Context) error {
	ts, err := d.c.s.toolset()
	if err != nil {
		return err
	}
	if err := d.c.send(d.setup(ts)); err != nil {
		return err
	}
	for {
		b, err := d.c.read(ctx)
		if err != nil {
			return err
		}
		var msg gmMessage
		if json.Unmarshal(b, &msg) != nil {
			continue
		}
		if msg.Error != nil {
			if msg.Error.Code == 401 || msg.Error.Code == 403 || looksLikeKeyRefusal(msg.Error.Message) || msg.Error.Status == "PERMISSION_DENIED" || msg.Error.Status == "UNAUTHENTICATED" {
				return errorf(CodeKeyRefused, "Gemini refused the API key: %s", msg.Error.Message)
			}
			return errorf(CodeUpstream, "Gemini Live: %s", msg.Error.Message)
		}
		if msg.SetupComplete != nil {
			d.mu.Lock()
			d.declared = declaredTools{setupDone: true, sig: ts.Signature}
			d.mu.Unlock()
			d.c.s.setTools(len(ts.Declarations))
			return nil
		}
		// Anything else before setupComplete (a resumption update) is handled as usual.
		d.handle(b)
	}
}

// afterReconnect replays the transcript when the session could not be resumed with a handle.
func (d *geminiDriver) afterReconnect() error {
	if d.c.s.resumedNow() {
		return nil
	}
	hist := d.c.s.m.history(20)
	if len(hist) == 0 {
		return nil
	}
	turns := make([]any, 0, len(hist))
	for _, l := range hist {
		role := "user"
		if l.Role == "assistant" {
			role = "model"
		}
		turns = append(turns, map[string]any{"role": role, "parts": []any{map[string]any{"text": l.Text}}})
	}
	return d.c.send(map[string]any{"clientContent": map[string]any{"turns": turns, "turnComplete": false}})
}

func (d *geminiDriver) audio(chunk []byte) error {
	return d.c.send(map[string]any{"realtimeInput": map[string]any{
		"audio": map[string]any{"data": EncodeBase64(chunk), "mimeType": PCMMime(GeminiInputRate)},
	}})
}

func (d *geminiDriver) startTurn() error { return nil }

// endTurn tells Gemini the microphone paused, so its activity detection closes the turn now.
func (d *geminiDriver) endTurn() error {
	d.mu.Lock()
	d.turnActive = true
	d.mu.Unlock()
	d.c.s.m.setStatus(d.c.s, func(st *Status) { st.State = StateThinking })
	return d.c.send(map[string]any{"realtimeInput": map[string]any{"audioStreamEnd": true}})
}

func (d *geminiDriver) text(text string) error {
	d.mu.Lock()
	d.turnActive = true
	d.mu.Unlock()
	return d.c.send(map[string]any{"clientContent": map[string]any{
		"turns":        []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": text}}}},
		"turnComplete": true,
	}})
}

// setMode needs nothing upstream: Go gates the audio (push-to-talk sends only while held).
func (d *geminiDriver) setMode(string) error { return nil }

// toolsChanged resumes the session with the new tools: at once when idle, else at the end of the turn.
func (d *geminiDriver) toolsChanged() {
	changed, busy := false, false
	d.c.ifToolsChanged(&d.mu, &d.declared, func(Toolset) {
		changed = true
		busy = d.turnActive || d.inflight > 0
		if busy {
			d.markDirty()
		}
	})
	if changed && !busy {
		d.c.replace("tools changed")
	}
}

// resumeWithin bounds how long new tools wait for a turn that never ends (a model that went quiet).
const resumeWithin = 20 * time.Second

// markDirty schedules a resume at the end of the turn, or after resumeWithin at the latest (d.mu held).
func (d *geminiDriver) markDirty() {
	if d.dirty {
		return
	}
	d.dirty = true
	time.AfterFunc(resumeWithin, func() {
		d.mu.Lock()
		stuck := d.dirty && d.inflight == 0
		d.mu.Unlock()
		if stuck {
			d.c.replace("tools changed")
		}
	})
}

func (d *geminiDriver) keys() (string, string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return fmt.Sprintf("in%d", d.turn), fmt.Sprintf("out%d", d.turn)
}

func (d *geminiDriver) handle(b []byte) {
	var msg gmMessage
	if err := json.Unmarshal(b, &msg); err != nil {
		return
	}
	s := d.c.s
	m := s.m
	if u := msg.SessionResumptionUpdate; u != nil && u.Resumable && u.NewHandle != "" {
		s.mu.Lock()
		s.handle = u.NewHandle
		s.mu.Unlock()
	}
	if msg.Error != nil {
		m.notice("error", "Gemini Live: "+s.scrub(msg.Error.Message))
	}
	if sc := msg.ServerContent; sc != nil {
		in, out := d.keys()
		if sc.InputTranscription != nil && sc.InputTranscription.Text != "" {
			m.line(s, "user", in, sc.InputTranscription.Text, true, false)
		}
		if sc.ModelTurn != nil {
			d.mu.Lock()
			d.turnActive = true
			d.mu.Unlock()
			for _, p := range sc.ModelTurn.Parts {
				if p.InlineData != nil && strings.HasPrefix(p.InlineData.MimeType, "audio/pcm") {
					pcm, err := DecodeBase64(p.InlineData.Data)
					if err == nil {
						m.setStatus(s, func(st *Status) { st.State = StateSpeaking })
						s.audioOut(pcm, RateFromMime(p.InlineData.MimeType, GeminiOutputRate))
					}
				} else if p.Text != "" && !p.Thought {
					m.line(s, "assistant", out, p.Text, true, false)
				}
			}
		}
		if sc.OutputTranscription != nil && sc.OutputTranscription.Text != "" {
			m.line(s, "assistant", out, sc.OutputTranscription.Text, true, false)
		}
		if sc.Interrupted {
			m.cfg.Bus.Publish(EventInterrupt, nil)
		}
		if sc.TurnComplete {
			m.line(s, "user", in, "", false, true)
			m.line(s, "assistant", out, "", false, true)
			d.mu.Lock()
			d.turn++
			d.turnActive = false
			resume := d.dirty && d.inflight == 0
			d.mu.Unlock()
			m.setStatus(s, func(st *Status) { st.State = StateListening })
			if resume {
				d.c.replace("tools changed")
			}
		}
	}
	if tc := msg.ToolCall; tc != nil && len(tc.FunctionCalls) > 0 {
		d.mu.Lock()
		d.turnActive = true
		d.inflight++
		d.mu.Unlock()
		m.setStatus(s, func(st *Status) { st.State = StateThinking })
		go d.runCalls(tc.FunctionCalls)
	}
	if cc := msg.ToolCallCancellation; cc != nil {
		d.mu.Lock()
		for _, id := range cc.IDs {
			d.cancelled[id] = true
			if cancel := d.cancels[id]; cancel != nil {
				cancel()
			}
		}
		d.mu.Unlock()
	}
	if msg.GoAway != nil {
		d.mu.Lock()
		busy := d.turnActive || d.inflight > 0
		d.markDirty()
		d.mu.Unlock()
		if !busy {
			d.c.replace("server going away")
		}
	}
}

// runCalls runs one toolCall's function calls in order and answers those not cancelled in one
// toolResponse.
func (d *geminiDriver) runCalls(calls []gmCall) {
	s := d.c.s
	var responses []any
	for _, call := range calls {
		ctx, cancel := context.WithCancel(d.c.ctx)
		d.mu.Lock()
		skip := d.cancelled[call.ID]
		d.cancels[call.ID] = cancel
		d.mu.Unlock()
		var res callResult
		if !skip {
			args := call.Args
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage(`{}`)
			}
			res = s.disp.call(ctx, call.Name, args)
		}
		cancel()
		d.mu.Lock()
		delete(d.cancels, call.ID)
		skip = skip || d.cancelled[call.ID]
		delete(d.cancelled, call.ID)
		d.mu.Unlock()
		if skip {
			continue // the model withdrew it: no answer
		}
		var resp any
		if res.OK {
			resp = map[string]any{"output": res.output()}
		} else {
			resp = map[string]any{"error": res.refusalJSON()}
		}
		fr := map[string]any{"name": call.Name, "response": resp}
		if call.ID != "" {
			fr["id"] = call.ID
		}
		responses = append(responses, fr)
	}
	if len(responses) > 0 {
		_ = d.c.send(map[string]any{"toolResponse": map[string]any{"functionResponses": responses}})
	}
	d.mu.Lock()
	d.inflight--
	resume := d.dirty && d.inflight == 0 && !d.turnActive
	d.mu.Unlock()
	if resume {
		d.c.replace("tools changed")
	}
}
