package codemodeltest

import (
	"bufio"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

type sseEvent struct {
	name string
	data map[string]any
}

// post sends body to url and reads the server-sent events back.
func post(t *testing.T, url, key string, body string) (int, []sseEvent) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("x-goog-api-key", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case line == "":
			if cur.data != nil {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.data); err != nil {
				t.Fatalf("data is not JSON: %q", line)
			}
		}
	}
	return res.StatusCode, out
}

func get(v any, path ...string) any {
	return Request{Body: map[string]any{"": v}}.Get(append([]string{""}, path...)...)
}

const openaiBody = `{"model":"gpt-5.5","instructions":"SYS","input":[{"role":"user","content":"hi"}],"stream":true,"max_output_tokens":100,"store":false,"reasoning":{"effort":"low"}}`

func TestOpenAIEventOrder(t *testing.T) {
	s := NewOpenAI(t)
	s.Queue(Text("a", "b").WithThoughts("t1", "t2").WithUsage(Usage{Input: 5, Output: 9, Reasoning: 4}))
	status, evs := post(t, s.URL+"/responses", "k", openaiBody)
	var types []string
	for i, ev := range evs {
		types = append(types, ev.name)
		if ev.data["type"] != ev.name || ev.data["sequence_number"] != float64(i) {
			t.Errorf("event %d: event: %q, type %v, sequence_number %v", i, ev.name, ev.data["type"], ev.data["sequence_number"])
		}
	}
	want := []string{"response.created", "response.in_progress",
		"response.output_item.added", "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.delta", "response.reasoning_summary_text.done", "response.reasoning_summary_part.done",
		"response.output_item.done",
		"response.output_item.added", "response.content_part.added", "response.output_text.delta", "response.output_text.delta",
		"response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"}
	if status != 200 || !slices.Equal(types, want) {
		t.Fatalf("HTTP %d events\n%q\nwant\n%q", status, types, want)
	}
	if get(evs[2].data, "item", "type") != "reasoning" || get(evs[9].data, "item", "type") != "message" || evs[11].data["delta"] != "a" || evs[13].data["text"] != "ab" {
		t.Errorf("items: %v / %v / %v", evs[2].data, evs[9].data, evs[13].data)
	}
	last := evs[len(evs)-1].data
	if get(last, "response", "status") != "completed" || get(last, "response", "usage", "output_tokens") != 9.0 ||
		get(last, "response", "usage", "output_tokens_details", "reasoning_tokens") != 4.0 || get(last, "response", "model") != "gpt-5.5" {
		t.Errorf("response.completed %v", last)
	}
	r := s.Requests()[0]
	if r.Model != "gpt-5.5" || r.System != "SYS" || r.Key != "k" || !r.Stream || r.MaxOutputTokens != 100 || r.ReasoningEffort != "low" ||
		r.Store == nil || *r.Store || !slices.Equal(r.Messages, []Message{{"user", "hi"}}) {
		t.Errorf("recorded %+v", r)
	}
}

func TestOpenAIEnds(t *testing.T) {
	for _, tc := range []struct {
		a              Answer
		last, path, is string
	}{
		{Truncated("a"), "response.incomplete", "response/incomplete_details/reason", "max_output_tokens"},
		{Blocked(""), "response.incomplete", "response/incomplete_details/reason", "content_filter"},
		{Failed("server_error", "boom"), "response.failed", "response/error/code", "server_error"},
		{ErrorEvent("rate_limit_exceeded", "slow"), "error", "code", "rate_limit_exceeded"},
		{Refused("no"), "response.completed", "response/output/0/content/0/refusal", "no"},
		{Cut("a"), "response.output_text.delta", "delta", "a"},
	} {
		s := NewOpenAI(t)
		s.Queue(tc.a)
		_, evs := post(t, s.URL+"/responses", "k", openaiBody)
		last := evs[len(evs)-1]
		if last.name != tc.last || get(last.data, strings.Split(tc.path, "/")...) != tc.is {
			t.Errorf("%v: last event %s %v", tc.a.End, last.name, last.data)
		}
	}
}

func TestGeminiChunks(t *testing.T) {
	s := NewGemini(t)
	s.Queue(Text("a", "b").WithThoughts("t").WithUsage(Usage{Input: 5, Output: 9, Reasoning: 4}))
	body := `{"systemInstruction":{"parts":[{"text":"SYS"}]},"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"text":"old"}]}],"generationConfig":{"maxOutputTokens":100,"thinkingConfig":{"thinkingBudget":64}}}`
	status, evs := post(t, s.URL+"/models/gemini-x:streamGenerateContent?alt=sse", "k", body)
	if status != 200 || len(evs) != 3 {
		t.Fatalf("HTTP %d, %d chunks", status, len(evs))
	}
	if get(evs[0].data, "candidates", "0", "content", "parts", "0", "thought") != true || get(evs[1].data, "candidates", "0", "content", "parts", "0", "text") != "a" {
		t.Errorf("chunks %v %v", evs[0].data, evs[1].data)
	}
	last := evs[2].data
	if get(last, "candidates", "0", "finishReason") != "STOP" || get(last, "usageMetadata", "candidatesTokenCount") != 5.0 ||
		get(last, "usageMetadata", "thoughtsTokenCount") != 4.0 || get(last, "usageMetadata", "totalTokenCount") != 14.0 ||
		get(last, "modelVersion") != "gemini-x" || get(last, "responseId") == nil || get(evs[1].data, "candidates", "0", "finishReason") != nil {
		t.Errorf("last chunk %v", last)
	}
	r := s.Requests()[0]
	if r.Model != "gemini-x" || r.System != "SYS" || r.Key != "k" || !r.Stream || r.MaxOutputTokens != 100 || r.ThinkingBudget == nil || *r.ThinkingBudget != 64 ||
		!slices.Equal(r.Messages, []Message{{"user", "hi"}, {"model", "old"}}) {
		t.Errorf("recorded %+v", r)
	}

	// A blocked prompt: promptFeedback.blockReason and no candidates.
	s.Queue(Blocked("PROHIBITED_CONTENT"))
	_, evs = post(t, s.URL+"/models/gemini-x:streamGenerateContent?alt=sse", "k", body)
	if len(evs) != 1 || get(evs[0].data, "promptFeedback", "blockReason") != "PROHIBITED_CONTENT" || evs[0].data["candidates"] != nil {
		t.Errorf("blocked prompt %v", evs)
	}
	// A wrong key: 400 API_KEY_INVALID, as Google answers it.
	s.Key = "right"
	status, _ = post(t, s.URL+"/models/gemini-x:streamGenerateContent?alt=sse", "wrong", body)
	if status != 400 {
		t.Errorf("wrong key: HTTP %d", status)
	}
}
