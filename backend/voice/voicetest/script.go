package voicetest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

func decodeStd(s string) ([]byte, error) { return base64.StdEncoding.DecodeString(s) }

// --- OpenAI Realtime: what the fake model does ---------------------------------------------------------

func (c *Conn) name(ga, beta string) string {
	if c.s.Beta {
		return beta
	}
	return ga
}

// FunctionCalls sends one response whose output is these function calls, with the events a real server
// sends: response.created, then per call response.output_item.added, response.function_call_arguments.delta
// and .done, response.output_item.done, and finally response.done (status completed) listing them.
func (c *Conn) FunctionCalls(responseID string, calls ...Call) error {
	if err := c.Send(map[string]any{"type": "response.created", "event_id": c.eventID(), "response": map[string]any{
		"id": responseID, "object": "realtime.response", "status": "in_progress", "output": []any{},
	}}); err != nil {
		return err
	}
	var output []any
	for i, call := range calls {
		itemID := fmt.Sprintf("item_%s_%d", responseID, i)
		added := map[string]any{"id": itemID, "type": "function_call", "status": "in_progress", "call_id": call.ID, "name": call.Name, "arguments": ""}
		done := map[string]any{"id": itemID, "type": "function_call", "status": "completed", "call_id": call.ID, "name": call.Name, "arguments": call.Args}
		for _, ev := range []map[string]any{
			{"type": "response.output_item.added", "response_id": responseID, "output_index": i, "item": added},
			{"type": "response.function_call_arguments.delta", "response_id": responseID, "item_id": itemID, "output_index": i, "call_id": call.ID, "delta": call.Args},
			{"type": "response.function_call_arguments.done", "response_id": responseID, "item_id": itemID, "output_index": i, "call_id": call.ID, "name": call.Name, "arguments": call.Args},
			{"type": "response.output_item.done", "response_id": responseID, "output_index": i, "item": done},
		} {
			ev["event_id"] = c.eventID()
			if err := c.Send(ev); err != nil {
				return err
			}
		}
		output = append(output, done)
	}
	return c.ResponseDone(responseID, "completed", output)
}

// ResponseDone sends response.done with this status ("completed", "cancelled", …) and output.
func (c *Conn) ResponseDone(responseID, status string, output []any) error {
	if output == nil {
		output = []any{}
	}
	return c.Send(map[string]any{"type": "response.done", "event_id": c.eventID(), "response": map[string]any{
		"id": responseID, "object": "realtime.response", "status": status, "output": output,
	}})
}

// Speak sends a response that says text with pcm (24 kHz PCM16), in deltas of at most 4,800 bytes.
func (c *Conn) Speak(responseID, text string, pcm []byte) error {
	itemID := "item_" + responseID + "_msg"
	if err := c.Send(map[string]any{"type": "response.created", "event_id": c.eventID(), "response": map[string]any{"id": responseID, "status": "in_progress"}}); err != nil {
		return err
	}
	item := map[string]any{"id": itemID, "type": "message", "role": "assistant", "content": []any{}}
	if err := c.Send(map[string]any{"type": "response.output_item.added", "event_id": c.eventID(), "response_id": responseID, "output_index": 0, "item": item}); err != nil {
		return err
	}
	half := len(text) / 2
	for _, part := range []string{text[:half], text[half:]} {
		if err := c.Send(map[string]any{"type": c.name("response.output_audio_transcript.delta", "response.audio_transcript.delta"), "event_id": c.eventID(),
			"response_id": responseID, "item_id": itemID, "output_index": 0, "content_index": 0, "delta": part}); err != nil {
			return err
		}
	}
	for off := 0; off < len(pcm); off += 4800 {
		end := min(off+4800, len(pcm))
		if err := c.Send(map[string]any{"type": c.name("response.output_audio.delta", "response.audio.delta"), "event_id": c.eventID(),
			"response_id": responseID, "item_id": itemID, "output_index": 0, "content_index": 0, "delta": base64.StdEncoding.EncodeToString(pcm[off:end])}); err != nil {
			return err
		}
	}
	if err := c.Send(map[string]any{"type": c.name("response.output_audio.done", "response.audio.done"), "event_id": c.eventID(), "response_id": responseID, "item_id": itemID}); err != nil {
		return err
	}
	if err := c.Send(map[string]any{"type": c.name("response.output_audio_transcript.done", "response.audio_transcript.done"), "event_id": c.eventID(),
		"response_id": responseID, "item_id": itemID, "transcript": text}); err != nil {
		return err
	}
	return c.ResponseDone(responseID, "completed", []any{item})
}

// UserTranscript sends the transcription of the person's audio.
func (c *Conn) UserTranscript(itemID, text string) error {
	return c.Send(map[string]any{"type": "conversation.item.input_audio_transcription.completed", "event_id": c.eventID(), "item_id": itemID, "content_index": 0, "transcript": text})
}

// Error sends an error event.
func (c *Conn) Error(code, message string) error {
	return c.Send(map[string]any{"type": "error", "event_id": c.eventID(), "error": map[string]any{"type": "invalid_request_error", "code": code, "message": message}})
}

// OutputFor finds the function_call_output the client sent for callID, decoded, among msgs.
func OutputFor(msgs []Msg, callID string) (map[string]any, bool) {
	for _, m := range msgs {
		if m.Type == "conversation.item.create" && m.String("item", "type") == "function_call_output" && m.String("item", "call_id") == callID {
			var out map[string]any
			if json.Unmarshal([]byte(m.String("item", "output")), &out) != nil {
				return nil, false
			}
			return out, true
		}
	}
	return nil, false
}

// ToolNames lists the function names a session.update (OpenAI) or setup (Gemini) declared; ok is false
// when the message declares no tools at all.
func ToolNames(m Msg) (names []string, ok bool) {
	var list []any
	switch m.Type {
	case "session.update":
		l, has := m.Get("session", "tools").([]any)
		if !has {
			return nil, false
		}
		list = l
	case "setup":
		tools, _ := m.Get("setup", "tools").([]any)
		if len(tools) == 0 {
			return nil, true
		}
		list, _ = Msg{Data: map[string]any{"t": tools[0]}}.Get("t", "functionDeclarations").([]any)
	default:
		return nil, false
	}
	for _, t := range list {
		if d, _ := t.(map[string]any); d != nil {
			if n, _ := d["name"].(string); n != "" {
				names = append(names, n)
			}
		}
	}
	return names, true
}

// --- Gemini Live: what the fake model does ----------------------------------------------------------------

// Handle offers a session resumption handle.
func (c *Conn) Handle(h string) error {
	return c.Send(map[string]any{"sessionResumptionUpdate": map[string]any{"newHandle": h, "resumable": true}})
}

// ToolCall sends toolCall.functionCalls.
func (c *Conn) ToolCall(calls ...Call) error {
	var fcs []any
	for _, call := range calls {
		var args any = map[string]any{}
		if call.Args != "" {
			if err := json.Unmarshal([]byte(call.Args), &args); err != nil {
				return fmt.Errorf("voicetest: args of %s: %w", call.Name, err)
			}
		}
		fcs = append(fcs, map[string]any{"id": call.ID, "name": call.Name, "args": args})
	}
	return c.Send(map[string]any{"toolCall": map[string]any{"functionCalls": fcs}})
}

// CancelCalls sends toolCallCancellation.
func (c *Conn) CancelCalls(ids ...string) error {
	return c.Send(map[string]any{"toolCallCancellation": map[string]any{"ids": ids}})
}

// GoAway warns that the server will close the connection.
func (c *Conn) GoAway(timeLeft string) error {
	return c.Send(map[string]any{"goAway": map[string]any{"timeLeft": timeLeft}})
}

// ModelTurn says text with pcm (24 kHz PCM16) as the model, ending the turn.
func (c *Conn) ModelTurn(text string, pcm []byte) error {
	for off := 0; off < len(pcm); off += 9600 {
		end := min(off+9600, len(pcm))
		if err := c.Send(map[string]any{"serverContent": map[string]any{"modelTurn": map[string]any{"parts": []any{
			map[string]any{"inlineData": map[string]any{"mimeType": "audio/pcm;rate=24000", "data": base64.StdEncoding.EncodeToString(pcm[off:end])}},
		}}}}); err != nil {
			return err
		}
	}
	if text != "" {
		if err := c.Send(map[string]any{"serverContent": map[string]any{"outputTranscription": map[string]any{"text": text}}}); err != nil {
			return err
		}
	}
	return c.Send(map[string]any{"serverContent": map[string]any{"turnComplete": true}})
}

// InputTranscript sends the transcription of the person's audio.
func (c *Conn) InputTranscript(text string) error {
	return c.Send(map[string]any{"serverContent": map[string]any{"inputTranscription": map[string]any{"text": text}}})
}

// ResponseFor finds the functionResponse the client sent for a call id.
func ResponseFor(msgs []Msg, id string) (map[string]any, bool) {
	for _, m := range msgs {
		if m.Type != "toolResponse" {
			continue
		}
		list, _ := m.Get("toolResponse", "functionResponses").([]any)
		for _, r := range list {
			if fr, _ := r.(map[string]any); fr != nil && fr["id"] == id {
				return fr, true
			}
		}
	}
	return nil, false
}
