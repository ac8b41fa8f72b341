// Package codemodeltest has protocol-level fakes of the two code model endpoints: real HTTP servers
// (httptest) that speak OpenAI's Responses API stream (POST /v1/responses, server-sent events) and
// Gemini's streamGenerateContent (POST /v1beta/models/{model}:streamGenerateContent?alt=sse), with the
// documented event order and field names, record every request decoded, and answer from a queue of
// scripted answers.
//
// Use it from any package's test:
//
//	fake := codemodeltest.NewOpenAI(t) // or NewGemini; closed when the test ends
//	fake.Key = "sk-test"               // optional: any other key gets the provider's 401 (Gemini: 400 API_KEY_INVALID)
//	fake.Queue(codemodeltest.Text("<!doctype html>", "<p>hi</p>").WithThoughts("plan"))
//	client, _ := codemodel.New(codemodel.Config{Provider: "openai", Key: "sk-test", BaseURL: fake.URL})
//	// … or point the program at it: VOICEBOX_OPENAI_API_URL=fake.URL, VOICEBOX_GEMINI_API_URL=fake.URL
//	req := fake.Requests()[0] // req.System, req.Messages, req.Model, req.Key, req.MaxOutputTokens, …
//
// Each request takes the next queued answer; a request with none queued fails the test and gets HTTP 500.
// Answers: Text (complete), Truncated, Blocked, Refused, Failed, ErrorEvent, Cut (no final event), Hang
// (the chunks, then nothing until the client goes away: Gone reports it) and Status (an HTTP error with the
// provider's error body).
package codemodeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Providers.
const (
	OpenAI = "openai"
	Gemini = "gemini"
)

// End is how a scripted answer's stream ends.
type End int

const (
	// EndComplete: OpenAI response.completed; Gemini finishReason STOP on the last chunk.
	EndComplete End = iota
	// EndTruncated: OpenAI response.incomplete, incomplete_details.reason max_output_tokens; Gemini
	// finishReason MAX_TOKENS.
	EndTruncated
	// EndBlocked: OpenAI response.incomplete, reason content_filter (or Answer.Reason); Gemini
	// finishReason SAFETY (or Answer.Reason) after the chunks, or, with no chunks, promptFeedback.blockReason
	// and no candidates.
	EndBlocked
	// EndRefused: OpenAI a refusal content part (response.refusal.delta/.done), then response.completed.
	// Gemini has no refusal part: there it is EndBlocked.
	EndRefused
	// EndFailed: OpenAI response.failed with response.error; Gemini an error object in the stream.
	EndFailed
	// EndError: OpenAI the error event; Gemini an error object in the stream.
	EndError
	// EndCut: the chunks, then the stream ends cleanly without a final event (Gemini: no finishReason).
	EndCut
	// EndHang: the chunks, then nothing until the client goes away (or the server closes).
	EndHang
)

// Usage is what the fake reports. Output includes Reasoning (the fake splits it as each provider does).
type Usage struct {
	Input, Output, Reasoning int
}

// Answer is what the fake model does with one request.
type Answer struct {
	Chunks   []string // answer text: one output_text.delta (OpenAI) or one chunk (Gemini) each
	Thoughts []string // reasoning before the text: OpenAI a reasoning item's summary deltas; Gemini parts with thought true
	End      End
	// Reason: EndBlocked's reason (Gemini blockReason or finishReason, OpenAI incomplete reason);
	// EndRefused's refusal text; EndFailed's and EndError's error code; Status's error code.
	Reason  string
	Message string // the error message of EndFailed, EndError and Status
	Status  int    // non-zero: answer with this HTTP status and the provider's error body, nothing streamed
	Usage   Usage  // zero: about 4 bytes a token of the request's and the answer's text
	Model   string // the model the answer names (OpenAI response.model, Gemini modelVersion); "" the requested one
}

// Text is a complete answer streamed in these chunks.
func Text(chunks ...string) Answer { return Answer{Chunks: chunks} }

// Truncated streams the chunks, then stops at the output limit.
func Truncated(chunks ...string) Answer { return Answer{Chunks: chunks, End: EndTruncated} }

// Blocked is a safety block with this reason ("" for the usual: SAFETY on Gemini, content_filter on
// OpenAI), after the chunks if any (Gemini with no chunks: the prompt is blocked).
func Blocked(reason string, chunks ...string) Answer {
	return Answer{Chunks: chunks, End: EndBlocked, Reason: reason}
}

// Refused is the model declining, in its own words (OpenAI's refusal part).
func Refused(text string) Answer { return Answer{End: EndRefused, Reason: text} }

// Failed streams the chunks, then fails (OpenAI response.failed) with this code and message.
func Failed(code, message string, chunks ...string) Answer {
	return Answer{Chunks: chunks, End: EndFailed, Reason: code, Message: message}
}

// ErrorEvent streams the chunks, then the error event with this code and message.
func ErrorEvent(code, message string, chunks ...string) Answer {
	return Answer{Chunks: chunks, End: EndError, Reason: code, Message: message}
}

// Cut streams the chunks, then ends the stream with no final event.
func Cut(chunks ...string) Answer { return Answer{Chunks: chunks, End: EndCut} }

// Hang streams the chunks, then waits for the client to go away.
func Hang(chunks ...string) Answer { return Answer{Chunks: chunks, End: EndHang} }

// Status answers with an HTTP error and the provider's error body carrying message.
func Status(code int, message string) Answer { return Answer{Status: code, Message: message} }

// WithThoughts adds reasoning before the text.
func (a Answer) WithThoughts(t ...string) Answer { a.Thoughts = t; return a }

// WithUsage sets the usage the fake reports.
func (a Answer) WithUsage(u Usage) Answer { a.Usage = u; return a }

// WithModel sets the model name the answer carries.
func (a Answer) WithModel(m string) Answer { a.Model = m; return a }

// WithReason sets Reason (a Status answer's error code, e.g. Gemini's API_KEY_INVALID).
func (a Answer) WithReason(r string) Answer { a.Reason = r; return a }

func (a Answer) text() string { return strings.Join(a.Chunks, "") }

// Message is one turn as the request carried it.
type Message struct {
	Role string // as on the wire: OpenAI "user"/"assistant", Gemini "user"/"model"
	Text string
}

// Request is one request the fake received, decoded.
type Request struct {
	N               int // 1 for the first
	Method, Path    string
	Query           url.Values
	Header          http.Header
	Key             string // OpenAI: the Bearer token; Gemini: x-goog-api-key (or ?key=)
	Model           string // OpenAI: body model; Gemini: from the path
	System          string // OpenAI instructions; Gemini systemInstruction's text
	Messages        []Message
	Stream          bool // OpenAI: body stream true; Gemini: alt=sse
	MaxOutputTokens int  // OpenAI max_output_tokens; Gemini generationConfig.maxOutputTokens
	ReasoningEffort string
	ThinkingBudget  *int  // Gemini generationConfig.thinkingConfig.thinkingBudget
	Store           *bool // OpenAI store
	Body            map[string]any
	Raw             []byte
}

// Get walks Body by keys and array indices given as strings ("generationConfig", "maxOutputTokens").
func (r Request) Get(path ...string) any {
	var v any = r.Body
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

// Server is a fake provider.
type Server struct {
	Provider string
	// URL is the base URL to configure: codemodel.Config.BaseURL, or VOICEBOX_OPENAI_API_URL /
	// VOICEBOX_GEMINI_API_URL ({server}/v1 or {server}/v1beta).
	URL string
	// Key is the key the fake accepts ("" any). Set it before the first request.
	Key string

	t       testing.TB
	srv     *httptest.Server
	closing chan struct{}
	once    sync.Once
	waiting chan int
	gone    chan int

	mu       sync.Mutex
	queue    []Answer
	reqs     []Request
	lastByte time.Time
}

// NewOpenAI starts a fake OpenAI Responses API, closed when the test ends.
func NewOpenAI(t testing.TB) *Server { return start(t, OpenAI, "/v1") }

// NewGemini starts a fake Gemini API, closed when the test ends.
func NewGemini(t testing.TB) *Server { return start(t, Gemini, "/v1beta") }

func start(t testing.TB, provider, prefix string) *Server {
	s := &Server{Provider: provider, t: t, closing: make(chan struct{}), waiting: make(chan int, 64), gone: make(chan int, 64)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + prefix
	t.Cleanup(s.Close)
	return s
}

// Close stops the server; hanging answers return.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closing)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Queue adds answers for the next requests, in order.
func (s *Server) Queue(a ...Answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, a...)
}

// Pending is how many queued answers no request has taken yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Waiting receives a request's N when its Hang answer has sent its chunks and begins to wait.
func (s *Server) Waiting() <-chan int { return s.waiting }

// Gone receives a request's N when its Hang answer saw the client go away (the request's context done:
// the client closed the connection).
func (s *Server) Gone() <-chan int { return s.gone }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Raw: raw}
	_ = json.Unmarshal(raw, &req.Body)
	var ok bool
	if s.Provider == OpenAI {
		ok = decodeOpenAI(r, &req)
	} else {
		ok = decodeGemini(r, &req)
	}
	s.mu.Lock()
	req.N = len(s.reqs) + 1
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	if !ok {
		s.httpError(w, Status(http.StatusNotFound, fmt.Sprintf("%s %s is not an endpoint of this fake", r.Method, r.URL.Path)))
		return
	}
	if s.Key != "" && req.Key != s.Key {
		// The provider's own answer to a wrong key; it quotes the key, so that a client that passes the
		// provider's text on shows whether it removes the key.
		if s.Provider == OpenAI {
			s.httpError(w, Status(http.StatusUnauthorized, "Incorrect API key provided: "+req.Key+". You can find your API key in your account settings.").WithReason("invalid_api_key"))
		} else {
			s.httpError(w, Status(http.StatusBadRequest, "API key not valid. Please pass a valid API key. (got "+req.Key+")").WithReason("API_KEY_INVALID"))
		}
		return
	}
	s.mu.Lock()
	var a Answer
	have := len(s.queue) > 0
	if have {
		a, s.queue = s.queue[0], s.queue[1:]
	}
	s.mu.Unlock()
	if !have {
		s.t.Errorf("codemodeltest: %s request %d arrived with no answer queued", s.Provider, req.N)
		s.httpError(w, Status(http.StatusInternalServerError, "codemodeltest: no answer queued"))
		return
	}
	if a.Status != 0 {
		s.httpError(w, a)
		return
	}
	if a.Model == "" {
		a.Model = req.Model
	}
	if a.Usage == (Usage{}) {
		a.Usage = countUsage(req, a)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	st := &stream{s: s, w: w, r: r, req: req, a: a}
	if s.Provider == OpenAI {
		st.openai()
	} else {
		st.gemini()
	}
}

// hang waits for the client to go away, and reports it.
func (s *Server) hang(r *http.Request, n int) {
	s.waiting <- n
	select {
	case <-r.Context().Done():
		s.gone <- n
	case <-s.closing:
	}
}

func (s *Server) httpError(w http.ResponseWriter, a Answer) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(a.Status)
	var body any
	if s.Provider == OpenAI {
		typ, code := "invalid_request_error", a.Reason
		switch {
		case a.Status == http.StatusTooManyRequests:
			typ = "requests"
			if code == "" {
				code = "rate_limit_exceeded"
			}
		case a.Status >= 500:
			typ = "server_error"
		case a.Status == http.StatusUnauthorized && code == "":
			code = "invalid_api_key"
		case a.Status == http.StatusNotFound && code == "":
			code = "model_not_found"
		}
		var c any
		if code != "" {
			c = code
		}
		body = map[string]any{"error": map[string]any{"message": a.Message, "type": typ, "param": nil, "code": c}}
	} else {
		e := map[string]any{"code": a.Status, "message": a.Message, "status": googleStatus(a.Status)}
		if a.Reason != "" {
			e["details"] = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": a.Reason, "domain": "googleapis.com"}}
		}
		body = map[string]any{"error": e}
	}
	_ = json.NewEncoder(w).Encode(body)
}

// googleStatus is the google.rpc.Code name Google's APIs give with each HTTP status.
func googleStatus(status int) string {
	switch status {
	case 400:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404:
		return "NOT_FOUND"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 503:
		return "UNAVAILABLE"
	case 504:
		return "DEADLINE_EXCEEDED"
	default:
		if status >= 500 {
			return "INTERNAL"
		}
		return "FAILED_PRECONDITION"
	}
}

func tokens(s string) int { return (len(s) + 3) / 4 }

func countUsage(req Request, a Answer) Usage {
	in := tokens(req.System)
	for _, m := range req.Messages {
		in += tokens(m.Text)
	}
	reasoning := tokens(strings.Join(a.Thoughts, ""))
	return Usage{Input: in, Output: tokens(a.text()) + reasoning, Reasoning: reasoning}
}

// stream writes one answer's server-sent events.
type stream struct {
	s   *Server
	w   http.ResponseWriter
	r   *http.Request
	req Request
	a   Answer
	seq int
}

// event writes one event and flushes it; OpenAI's carry an event: line, Gemini's only data: (with
// \r\n line ends, as Google's servers send them).
func (st *stream) event(name string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		st.s.t.Errorf("codemodeltest: %v", err)
		return
	}
	if name != "" {
		fmt.Fprintf(st.w, "event: %s\ndata: %s\n\n", name, b)
	} else {
		fmt.Fprintf(st.w, "data: %s\r\n\r\n", b)
	}
	if f, ok := st.w.(http.Flusher); ok {
		f.Flush()
	}
	st.s.mu.Lock()
	st.s.lastByte = time.Now()
	st.s.mu.Unlock()
}

// LastByte is when the fake flushed the last event of any answer (a benchmark's start: "the code model's last
// byte").
func (s *Server) LastByte() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastByte
}

func (s *Server) String() string { return s.Provider + " fake at " + s.URL }
