// Package gemini is the voice session's driver for Gemini Live (BidiGenerateContent) over WebSocket.
// Client messages: setup, realtimeInput (audio, audioStreamEnd), clientContent (typed turns and replayed
// history), toolResponse. Server messages: setupComplete, serverContent (modelTurn parts with inlineData
// audio, input/output transcriptions, interrupted, turnComplete), toolCall, toolCallCancellation, goAway,
// sessionResumptionUpdate.
//
// Gemini fixes the tools at setup. When the open apps' tools change the session resumes on a new
// connection with the new declarations (using the resumption handle the server offered), at once when
// idle or at the end of the turn in progress. Within a turn, a tool that just appeared is reachable
// through the call_mini_app_tool verb.
package gemini

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/voicebox/voicebox/backend/voice/internal/upstream"
	"github.com/voicebox/voicebox/backend/voice/pcm"
)

// Gemini Live takes 16 kHz and gives 24 kHz PCM16 mono.
const (
	InputRate  = 16000
	OutputRate = 24000
)

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

// Driver speaks Gemini Live over one connection.
type Driver struct {
	l upstream.Link

	mu         sync.Mutex
	declared   upstream.Declared
	turn       int  // numbers the transcript lines of each turn
	turnActive bool // the model owes the end of a turn
	inflight   int  // tool call batches running
	dirty      bool // resume at the end of the turn (tools changed, or goAway)
	cancels    map[string]context.CancelFunc
	cancelled  map[string]bool
}

// New returns the driver for one connection.
func New(l upstream.Link) *Driver {
	return &Driver{l: l, cancels: map[string]context.CancelFunc{}, cancelled: map[string]bool{}}
}

func (d *Driver) setup(ts upstream.Tools) map[string]any {
	model := d.l.Model()
	if !strings.HasPrefix(model, "models/") {
		model = "models/" + model
	}
	handle := d.l.Resume()
	resumption := map[string]any{}
	if handle != "" {
		resumption["handle"] = handle
	}
	setup := map[string]any{
		"model":                    model,
		"generationConfig":         map[string]any{"responseModalities": []string{"AUDIO"}},
		"systemInstruction":        map[string]any{"parts": []any{map[string]any{"text": d.l.Instructions()}}},
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

// Handshake sends the setup and reads until setupComplete.
func (d *Driver) Handshake(ctx context.Context) error {
	ts, err := d.l.Tools()
	if err != nil {
		return err
	}
	if err := d.l.Send(d.setup(ts)); err != nil {
		return err
	}
	for {
		msg, b, err := upstream.ReadJSON[gmMessage](ctx, d.l)
		if err != nil {
			return err
		}
		if msg.Error != nil {
			if msg.Error.Code == 401 || msg.Error.Code == 403 || upstream.LooksLikeKeyRefusal(msg.Error.Message) || msg.Error.Status == "PERMISSION_DENIED" || msg.Error.Status == "UNAUTHENTICATED" {
				return upstream.KeyRefusal("Gemini refused the API key: %s", msg.Error.Message)
			}
			return upstream.Failure("Gemini Live: %s", msg.Error.Message)
		}
		if msg.SetupComplete != nil {
			d.mu.Lock()
			d.declared = upstream.Declared{SetupDone: true, Signature: ts.Signature}
			d.mu.Unlock()
			d.l.Declared(len(ts.Declarations))
			return nil
		}
		// Anything else before setupComplete (a resumption update) is handled as usual.
		d.Handle(b)
	}
}

// AfterReconnect replays the transcript when the session could not be resumed with a handle.
func (d *Driver) AfterReconnect() error {
	if d.l.Resumed() {
		return nil
	}
	hist := d.l.History(20)
	if len(hist) == 0 {
		return nil
	}
	turns := make([]any, 0, len(hist))
	for _, t := range hist {
		role := "user"
		if t.Role == "assistant" {
			role = "model"
		}
		turns = append(turns, map[string]any{"role": role, "parts": []any{map[string]any{"text": t.Text}}})
	}
	return d.l.Send(map[string]any{"clientContent": map[string]any{"turns": turns, "turnComplete": false}})
}

// Audio sends a chunk of the microphone.
func (d *Driver) Audio(chunk []byte) error {
	return d.l.Send(map[string]any{"realtimeInput": map[string]any{
		"audio": map[string]any{"data": pcm.EncodeBase64(chunk), "mimeType": pcm.PCMMime(InputRate)},
	}})
}

// StartTurn needs nothing upstream: Gemini's activity detection hears the person.
func (d *Driver) StartTurn() error { return nil }

// EndTurn tells Gemini the microphone paused, so its activity detection closes the turn now.
func (d *Driver) EndTurn() error {
	d.mu.Lock()
	d.turnActive = true
	d.mu.Unlock()
	d.l.State(upstream.Thinking)
	return d.l.Send(map[string]any{"realtimeInput": map[string]any{"audioStreamEnd": true}})
}

// Text sends a typed turn.
func (d *Driver) Text(text string) error {
	d.mu.Lock()
	d.turnActive = true
	d.mu.Unlock()
	return d.l.Send(map[string]any{"clientContent": map[string]any{
		"turns":        []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": text}}}},
		"turnComplete": true,
	}})
}

// SetMode needs nothing upstream: Go gates the audio (push-to-talk sends only while held).
func (d *Driver) SetMode(bool) error { return nil }

// ToolsChanged resumes the session with the new tools: at once when idle, else at the end of the turn.
func (d *Driver) ToolsChanged() {
	changed, busy := false, false
	d.declared.IfChanged(d.l, &d.mu, func(upstream.Tools) {
		changed = true
		busy = d.turnActive || d.inflight > 0
		if busy {
			d.markDirty()
		}
	})
	if changed && !busy {
		d.l.Replace("tools changed")
	}
}

// resumeWithin bounds how long new tools wait for a turn that never ends (a model that went quiet).
const resumeWithin = 20 * time.Second

// markDirty schedules a resume at the end of the turn, or after resumeWithin at the latest (d.mu held).
func (d *Driver) markDirty() {
	if d.dirty {
		return
	}
	d.dirty = true
	time.AfterFunc(resumeWithin, func() {
		d.mu.Lock()
		stuck := d.dirty && d.inflight == 0
		d.mu.Unlock()
		if stuck {
			d.l.Replace("tools changed")
		}
	})
}

func (d *Driver) keys() (string, string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return fmt.Sprintf("in%d", d.turn), fmt.Sprintf("out%d", d.turn)
}

// Handle reads one server message.
func (d *Driver) Handle(b []byte) {
	var msg gmMessage
	if err := json.Unmarshal(b, &msg); err != nil {
		return
	}
	l := d.l
	if u := msg.SessionResumptionUpdate; u != nil && u.Resumable && u.NewHandle != "" {
		l.OfferResume(u.NewHandle)
	}
	if msg.Error != nil {
		l.Notice("Gemini Live: " + msg.Error.Message)
	}
	if sc := msg.ServerContent; sc != nil {
		in, out := d.keys()
		if sc.InputTranscription != nil && sc.InputTranscription.Text != "" {
			l.Line("user", in, sc.InputTranscription.Text, true, false)
		}
		if sc.ModelTurn != nil {
			d.mu.Lock()
			d.turnActive = true
			d.mu.Unlock()
			for _, p := range sc.ModelTurn.Parts {
				if p.InlineData != nil && strings.HasPrefix(p.InlineData.MimeType, "audio/pcm") {
					audio, err := pcm.DecodeBase64(p.InlineData.Data)
					if err == nil {
						l.State(upstream.Speaking)
						l.Audio(audio, pcm.RateFromMime(p.InlineData.MimeType, OutputRate))
					}
				} else if p.Text != "" && !p.Thought {
					l.Line("assistant", out, p.Text, true, false)
				}
			}
		}
		if sc.OutputTranscription != nil && sc.OutputTranscription.Text != "" {
			l.Line("assistant", out, sc.OutputTranscription.Text, true, false)
		}
		if sc.Interrupted {
			l.Interrupt()
		}
		if sc.TurnComplete {
			l.Line("user", in, "", false, true)
			l.Line("assistant", out, "", false, true)
			d.mu.Lock()
			d.turn++
			d.turnActive = false
			resume := d.dirty && d.inflight == 0
			d.mu.Unlock()
			l.State(upstream.Listening)
			if resume {
				d.l.Replace("tools changed")
			}
		}
	}
	if tc := msg.ToolCall; tc != nil && len(tc.FunctionCalls) > 0 {
		d.mu.Lock()
		d.turnActive = true
		d.inflight++
		d.mu.Unlock()
		l.State(upstream.Thinking)
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
			d.l.Replace("server going away")
		}
	}
}

// Late tells the model how a build ended. On the connection the call was made on, that is the function's
// last response (willContinue false), as Gemini's asynchronous function calling has it: the call was
// declared NON_BLOCKING and first answered with willContinue. On a later connection (the session resumed
// with the new app's tools meanwhile) the call's id means nothing, so the end is a turn of text.
func (d *Driver) Late(callID, name, text string, res upstream.Result, sameConn bool) error {
	if sameConn && callID != "" {
		resp := map[string]any{"output": res.Output}
		if !res.OK {
			resp = map[string]any{"error": res.Refusal}
		}
		return d.l.Send(map[string]any{"toolResponse": map[string]any{"functionResponses": []any{map[string]any{
			"id": callID, "name": name, "response": resp, "willContinue": false, "scheduling": "WHEN_IDLE",
		}}}})
	}
	return d.Text(text)
}

// runCalls runs one toolCall's function calls in order and answers those not cancelled in one
// toolResponse.
func (d *Driver) runCalls(calls []gmCall) {
	var responses []any
	for _, call := range calls {
		ctx, cancel := context.WithCancel(d.l.Context())
		d.mu.Lock()
		skip := d.cancelled[call.ID]
		d.cancels[call.ID] = cancel
		d.mu.Unlock()
		var res upstream.Result
		if !skip {
			args := call.Args
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage(`{}`)
			}
			res = d.l.Call(ctx, call.ID, call.Name, args)
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
			resp = map[string]any{"output": res.Output}
		} else {
			resp = map[string]any{"error": res.Refusal}
		}
		fr := map[string]any{"name": call.Name, "response": resp}
		if call.ID != "" {
			fr["id"] = call.ID
		}
		if res.Pending { // a NON_BLOCKING function (the verbs that build): more responses follow (Late)
			fr["willContinue"] = true
			fr["scheduling"] = "WHEN_IDLE"
		}
		responses = append(responses, fr)
	}
	if len(responses) > 0 {
		_ = d.l.Send(map[string]any{"toolResponse": map[string]any{"functionResponses": responses}})
	}
	d.mu.Lock()
	d.inflight--
	resume := d.dirty && d.inflight == 0 && !d.turnActive
	d.mu.Unlock()
	if resume {
		d.l.Replace("tools changed")
	}
}
