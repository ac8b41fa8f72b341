package codemodeltest

import (
	"fmt"
	"net/http"
	"strings"
)

// decodeOpenAI reads a Responses API request (CreateResponse in the OpenAPI spec): POST /v1/responses.
func decodeOpenAI(r *http.Request, req *Request) bool {
	req.Key = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	b := req.Body
	req.Model, _ = b["model"].(string)
	req.System, _ = b["instructions"].(string)
	req.Stream, _ = b["stream"].(bool)
	if n, ok := b["max_output_tokens"].(float64); ok {
		req.MaxOutputTokens = int(n)
	}
	if s, ok := b["store"].(bool); ok {
		req.Store = &s
	}
	req.ReasoningEffort, _ = req.Get("reasoning", "effort").(string)
	switch in := b["input"].(type) {
	case string:
		req.Messages = []Message{{Role: "user", Text: in}}
	case []any:
		for _, it := range in {
			m, _ := it.(map[string]any)
			if m == nil || (m["type"] != nil && m["type"] != "message") {
				continue
			}
			role, _ := m["role"].(string)
			req.Messages = append(req.Messages, Message{Role: role, Text: contentText(m["content"])})
		}
	}
	return r.Method == http.MethodPost && r.URL.Path == "/v1/responses"
}

// contentText joins a message's content: a string, or parts of type input_text / output_text.
func contentText(c any) string {
	switch x := c.(type) {
	case string:
		return x
	case []any:
		var sb strings.Builder
		for _, p := range x {
			if m, _ := p.(map[string]any); m != nil {
				t, _ := m["text"].(string)
				sb.WriteString(t)
			}
		}
		return sb.String()
	}
	return ""
}

// openai writes the Responses API's streaming events (ResponseStreamEvent in the OpenAPI spec), each with
// its sequence_number: response.created, response.in_progress, [a reasoning item], the message item
// (output_item.added, content_part.added, output_text.delta…, output_text.done, content_part.done,
// output_item.done), then response.completed, .incomplete or .failed, or the error event.
func (st *stream) openai() {
	a := st.a
	n := st.req.N
	respID := fmt.Sprintf("resp_fake%04d", n)
	var output []any
	response := func(status string) map[string]any {
		var effort, instructions, maxOut any
		if st.req.ReasoningEffort != "" {
			effort = st.req.ReasoningEffort
		}
		if st.req.System != "" {
			instructions = st.req.System
		}
		if st.req.MaxOutputTokens != 0 {
			maxOut = st.req.MaxOutputTokens
		}
		out := output
		if out == nil {
			out = []any{}
		}
		return map[string]any{
			"id": respID, "object": "response", "created_at": 1767225600 + n, "status": status,
			"background": false, "error": nil, "incomplete_details": nil, "instructions": instructions,
			"max_output_tokens": maxOut, "model": a.Model, "output": out, "parallel_tool_calls": true,
			"previous_response_id": nil, "reasoning": map[string]any{"effort": effort, "summary": nil},
			"store": false, "temperature": 1.0, "text": map[string]any{"format": map[string]any{"type": "text"}},
			"tool_choice": "auto", "tools": []any{}, "top_p": 1.0, "truncation": "disabled", "usage": nil,
			"metadata": map[string]any{},
		}
	}
	send := func(ev map[string]any) {
		ev["sequence_number"] = st.seq
		st.seq++
		st.event(ev["type"].(string), ev)
	}
	send(map[string]any{"type": "response.created", "response": response("in_progress")})
	send(map[string]any{"type": "response.in_progress", "response": response("in_progress")})

	if len(a.Thoughts) > 0 {
		rsID := fmt.Sprintf("rs_fake%04d", n)
		idx := len(output)
		send(map[string]any{"type": "response.output_item.added", "output_index": idx, "item": map[string]any{"id": rsID, "type": "reasoning", "summary": []any{}}})
		whole := strings.Join(a.Thoughts, "")
		part := func(text string) map[string]any { return map[string]any{"type": "summary_text", "text": text} }
		send(map[string]any{"type": "response.reasoning_summary_part.added", "item_id": rsID, "output_index": idx, "summary_index": 0, "part": part("")})
		for _, t := range a.Thoughts {
			send(map[string]any{"type": "response.reasoning_summary_text.delta", "item_id": rsID, "output_index": idx, "summary_index": 0, "delta": t})
		}
		send(map[string]any{"type": "response.reasoning_summary_text.done", "item_id": rsID, "output_index": idx, "summary_index": 0, "text": whole})
		send(map[string]any{"type": "response.reasoning_summary_part.done", "item_id": rsID, "output_index": idx, "summary_index": 0, "part": part(whole)})
		item := map[string]any{"id": rsID, "type": "reasoning", "summary": []any{part(whole)}}
		send(map[string]any{"type": "response.output_item.done", "output_index": idx, "item": item})
		output = append(output, item)
	}

	msgID := fmt.Sprintf("msg_fake%04d", n)
	idx := len(output)
	partType, textField := "output_text", "text"
	deltaEvent, doneEvent := "response.output_text.delta", "response.output_text.done"
	chunks := a.Chunks
	if a.End == EndRefused {
		partType, textField = "refusal", "refusal"
		deltaEvent, doneEvent = "response.refusal.delta", "response.refusal.done"
		chunks = []string{a.Reason}
	}
	whole := strings.Join(chunks, "")
	part := func(text string) map[string]any {
		p := map[string]any{"type": partType, textField: text}
		if partType == "output_text" {
			p["annotations"] = []any{}
		}
		return p
	}
	message := func(status string, content []any) map[string]any {
		return map[string]any{"id": msgID, "type": "message", "status": status, "role": "assistant", "content": content}
	}
	streamsText := len(chunks) > 0 || a.End == EndComplete
	if streamsText {
		send(map[string]any{"type": "response.output_item.added", "output_index": idx, "item": message("in_progress", []any{})})
		send(map[string]any{"type": "response.content_part.added", "item_id": msgID, "output_index": idx, "content_index": 0, "part": part("")})
		for _, c := range chunks {
			ev := map[string]any{"type": deltaEvent, "item_id": msgID, "output_index": idx, "content_index": 0, "delta": c}
			if partType == "output_text" {
				ev["logprobs"] = []any{}
			}
			send(ev)
		}
	}
	switch a.End {
	case EndHang:
		st.s.hang(st.r, n)
		return
	case EndCut:
		return
	case EndError:
		send(map[string]any{"type": "error", "code": orDefault(a.Reason, "server_error"), "message": a.Message, "param": nil})
		return
	}
	status := "completed"
	if a.End != EndComplete && a.End != EndRefused {
		status = "incomplete"
	}
	if streamsText {
		done := map[string]any{"type": doneEvent, "item_id": msgID, "output_index": idx, "content_index": 0, textField: whole}
		if partType == "output_text" {
			done["logprobs"] = []any{}
		}
		send(done)
		send(map[string]any{"type": "response.content_part.done", "item_id": msgID, "output_index": idx, "content_index": 0, "part": part(whole)})
		item := message(status, []any{part(whole)})
		send(map[string]any{"type": "response.output_item.done", "output_index": idx, "item": item})
		output = append(output, item)
	}
	final := response(status)
	final["usage"] = map[string]any{
		"input_tokens": a.Usage.Input, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": a.Usage.Output, "output_tokens_details": map[string]any{"reasoning_tokens": a.Usage.Reasoning},
		"total_tokens": a.Usage.Input + a.Usage.Output,
	}
	switch a.End {
	case EndComplete, EndRefused:
		send(map[string]any{"type": "response.completed", "response": final})
	case EndTruncated:
		final["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
		send(map[string]any{"type": "response.incomplete", "response": final})
	case EndBlocked:
		final["incomplete_details"] = map[string]any{"reason": orDefault(a.Reason, "content_filter")}
		send(map[string]any{"type": "response.incomplete", "response": final})
	case EndFailed:
		final["status"] = "failed"
		final["error"] = map[string]any{"code": orDefault(a.Reason, "server_error"), "message": a.Message}
		send(map[string]any{"type": "response.failed", "response": final})
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
