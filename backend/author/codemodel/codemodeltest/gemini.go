package codemodeltest

import (
	"fmt"
	"net/http"
	"strings"
)

// decodeGemini reads a GenerateContentRequest: POST /v1beta/models/{model}:streamGenerateContent?alt=sse.
func decodeGemini(r *http.Request, req *Request) bool {
	req.Key = r.Header.Get("x-goog-api-key")
	if req.Key == "" {
		req.Key = r.URL.Query().Get("key")
	}
	req.Stream = r.URL.Query().Get("alt") == "sse"
	rest, isModels := strings.CutPrefix(r.URL.Path, "/v1beta/models/")
	model, method, _ := strings.Cut(rest, ":")
	req.Model = model
	req.System = partsText(req.Get("systemInstruction", "parts"))
	contents, _ := req.Body["contents"].([]any)
	for _, c := range contents {
		m, _ := c.(map[string]any)
		if m == nil {
			continue
		}
		role, _ := m["role"].(string)
		req.Messages = append(req.Messages, Message{Role: role, Text: partsText(m["parts"])})
	}
	if n, ok := req.Get("generationConfig", "maxOutputTokens").(float64); ok {
		req.MaxOutputTokens = int(n)
	}
	if n, ok := req.Get("generationConfig", "thinkingConfig", "thinkingBudget").(float64); ok {
		b := int(n)
		req.ThinkingBudget = &b
	}
	return r.Method == http.MethodPost && isModels && model != "" && method == "streamGenerateContent"
}

func partsText(parts any) string {
	list, _ := parts.([]any)
	var sb strings.Builder
	for _, p := range list {
		if m, _ := p.(map[string]any); m != nil {
			t, _ := m["text"].(string)
			sb.WriteString(t)
		}
	}
	return sb.String()
}

// gemini writes GenerateContentResponse chunks (generative_service.proto's JSON names): thought parts
// first when scripted, then one chunk per piece of text, finishReason and the full usageMetadata on the
// last; a blocked prompt is one chunk with promptFeedback.blockReason and no candidates; a failure is an
// error object (google.rpc.Status) in the stream.
func (st *stream) gemini() {
	a := st.a
	respID := fmt.Sprintf("fakeResponse%04d", st.req.N)
	usage := func(final bool) map[string]any {
		u := map[string]any{"promptTokenCount": a.Usage.Input, "totalTokenCount": a.Usage.Input}
		if final {
			u["candidatesTokenCount"] = a.Usage.Output - a.Usage.Reasoning
			if a.Usage.Reasoning > 0 {
				u["thoughtsTokenCount"] = a.Usage.Reasoning
			}
			u["totalTokenCount"] = a.Usage.Input + a.Usage.Output
		}
		return u
	}
	chunk := func(parts []any, finish string, final bool) map[string]any {
		cand := map[string]any{"index": 0}
		if parts != nil {
			cand["content"] = map[string]any{"parts": parts, "role": "model"}
		}
		if finish != "" {
			cand["finishReason"] = finish
		}
		if finish != "" && finish != "STOP" && finish != "MAX_TOKENS" {
			cand["safetyRatings"] = []any{map[string]any{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": true}}
		}
		return map[string]any{"candidates": []any{cand}, "usageMetadata": usage(final), "modelVersion": a.Model, "responseId": respID}
	}
	send := func(v map[string]any) { st.event("", v) }
	fail := func() {
		send(map[string]any{"error": map[string]any{"code": 500, "message": a.Message, "status": orDefault(a.Reason, "INTERNAL")}})
	}

	end := a.End
	if end == EndRefused {
		end = EndBlocked
	}
	if end == EndBlocked && len(a.Chunks) == 0 {
		send(map[string]any{
			"promptFeedback": map[string]any{"blockReason": orDefault(a.Reason, "SAFETY"), "safetyRatings": []any{
				map[string]any{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": true},
			}},
			"usageMetadata": usage(false), "modelVersion": a.Model, "responseId": respID,
		})
		return
	}
	for _, t := range a.Thoughts {
		send(chunk([]any{map[string]any{"text": t, "thought": true}}, "", false))
	}
	finish := ""
	switch end {
	case EndComplete:
		finish = "STOP"
	case EndTruncated:
		finish = "MAX_TOKENS"
	case EndBlocked:
		finish = orDefault(a.Reason, "SAFETY")
	}
	for i, c := range a.Chunks {
		last := i == len(a.Chunks)-1
		f := ""
		if last && (finish == "STOP" || finish == "MAX_TOKENS") {
			f = finish
		}
		send(chunk([]any{map[string]any{"text": c}}, f, last && f != ""))
	}
	switch {
	case end == EndComplete && len(a.Chunks) == 0:
		send(chunk([]any{map[string]any{"text": ""}}, "STOP", true))
	case end == EndTruncated && len(a.Chunks) == 0:
		// Thinking used the whole limit: no text at all.
		send(chunk(nil, "MAX_TOKENS", true))
	case end == EndBlocked:
		// A block after text ends with a candidate that has no content, only the reason.
		send(chunk(nil, finish, true))
	case end == EndFailed || end == EndError:
		fail()
	case end == EndHang:
		st.s.hang(st.r, st.req.N)
	}
}
