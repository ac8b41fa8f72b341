package codemodel_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/author/codemodel"
	"github.com/voicebox/voicebox/backend/author/codemodel/codemodeltest"
)

// testKey looks like a real key so that a leak of it is easy to spot.
const testKey = "sk-test-SECRET-0123456789abcdef"

// backstop only ends a hung test; no assertion depends on time.
const backstop = 30 * time.Second

type provider struct {
	name          string
	fake          func(testing.TB) *codemodeltest.Server
	assistantRole string // how the wire names the model's earlier answer
	defaultModel  string
}

var providers = []provider{
	{codemodel.ProviderOpenAI, codemodeltest.NewOpenAI, "assistant", codemodel.DefaultOpenAIModel},
	{codemodel.ProviderGemini, codemodeltest.NewGemini, "model", codemodel.DefaultGeminiModel},
}

// each runs f once per provider, as a subtest.
func each(t *testing.T, f func(t *testing.T, p provider)) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) { f(t, p) })
	}
}

// backoffs records the retries the client asked to wait for, and waits 0.
type backoffs struct {
	mu    sync.Mutex
	calls []int
}

func (b *backoffs) wait(n int) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls = append(b.calls, n)
	return 0
}

func (b *backoffs) got() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]int{}, b.calls...)
}

func newClient(t *testing.T, p provider, baseURL string, b *backoffs) codemodel.Client {
	t.Helper()
	if b == nil {
		b = &backoffs{}
	}
	c, err := codemodel.New(codemodel.Config{Provider: p.name, Key: testKey, BaseURL: baseURL, Backoff: b.wait})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

var oneTurn = codemodel.Request{System: "You write one HTML file.", Messages: []codemodel.Message{{Role: "user", Text: "a timer"}}}

// stream runs Stream with a backstop and returns the deltas, the result and the *Error (nil on success).
func stream(t *testing.T, ctx context.Context, c codemodel.Client, req codemodel.Request, onDelta func(string)) ([]string, codemodel.Result, *codemodel.Error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, backstop)
	defer cancel()
	var deltas []string
	type outcome struct {
		res codemodel.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := c.Stream(ctx, req, func(s string) {
			deltas = append(deltas, s)
			if onDelta != nil {
				onDelta(s)
			}
		})
		done <- outcome{res, err}
	}()
	var res codemodel.Result
	var err error
	select {
	case o := <-done:
		res, err = o.res, o.err
	case <-time.After(backstop + 5*time.Second):
		t.Fatal("Stream did not return after its context ended")
	}
	if err == nil {
		return deltas, res, nil
	}
	var e *codemodel.Error
	if !errors.As(err, &e) {
		t.Fatalf("Stream returned %T %v, want *codemodel.Error", err, err)
	}
	if res != (codemodel.Result{}) {
		t.Errorf("Stream returned a result with its error: %+v", res)
	}
	if strings.Contains(e.Message, testKey) || strings.Contains(e.Error(), testKey) {
		t.Errorf("the key is in the error: %q", e.Message)
	}
	return deltas, res, e
}

func wantCode(t *testing.T, e *codemodel.Error, code string) {
	t.Helper()
	if e == nil {
		t.Fatalf("Stream succeeded, want %s", code)
	}
	if e.Code != code {
		t.Fatalf("code %q (%s), want %q", e.Code, e.Message, code)
	}
}

func TestCompleteStream(t *testing.T) {
	each(t, func(t *testing.T, p provider) {
		fake := p.fake(t)
		fake.Key = testKey
		chunks := []string{"<!doctype html>", "<title>Timer</title>", "<p>0:00</p>"}
		fake.Queue(codemodeltest.Text(chunks...).WithThoughts("THOUGHT-1 plan the page", "THOUGHT-2").
			WithUsage(codemodeltest.Usage{Input: 120, Output: 900, Reasoning: 300}).WithModel(p.defaultModel + "-2026-01-01"))
		c := newClient(t, p, fake.URL, nil)
		if c.Provider() != p.name || c.Model() != p.defaultModel {
			t.Fatalf("client is %s/%s, want %s/%s", c.Provider(), c.Model(), p.name, p.defaultModel)
		}
		req := codemodel.Request{System: "SYSTEM: one HTML file", Messages: []codemodel.Message{
			{Role: "user", Text: "a timer"}, {Role: "assistant", Text: "<p>v1</p>"}, {Role: "user", Text: "make it blue"},
		}}
		deltas, res, e := stream(t, context.Background(), c, req, nil)
		if e != nil {
			t.Fatalf("Stream: %v", e)
		}
		if !slices.Equal(deltas, chunks) {
			t.Errorf("deltas %q, want %q (in order, no thoughts)", deltas, chunks)
		}
		want := codemodel.Result{Text: strings.Join(chunks, ""), Usage: codemodel.Usage{InputTokens: 120, OutputTokens: 900, ReasoningTokens: 300},
			Model: p.defaultModel + "-2026-01-01", Attempts: 1}
		if res != want {
			t.Errorf("result %+v\nwant   %+v", res, want)
		}

		reqs := fake.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d requests, want 1", len(reqs))
		}
		r := reqs[0]
		wantMsgs := []codemodeltest.Message{{Role: "user", Text: "a timer"}, {Role: p.assistantRole, Text: "<p>v1</p>"}, {Role: "user", Text: "make it blue"}}
		if r.Key != testKey || r.System != req.System || !reflect.DeepEqual(r.Messages, wantMsgs) || !r.Stream ||
			r.MaxOutputTokens != codemodel.DefaultMaxOutputTokens || r.Model != p.defaultModel {
			t.Errorf("request key=%q system=%q messages=%+v stream=%v max=%d model=%q", r.Key, r.System, r.Messages, r.Stream, r.MaxOutputTokens, r.Model)
		}
		if strings.Contains(string(r.Raw), "THOUGHT") {
			t.Errorf("the request carried thoughts: %s", r.Raw)
		}
		switch p.name {
		case codemodel.ProviderOpenAI:
			if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
				t.Errorf("Authorization %q", got)
			}
			if r.Method != "POST" || r.Path != "/v1/responses" || r.ReasoningEffort != "low" || r.Store == nil || *r.Store {
				t.Errorf("%s %s effort=%q store=%v", r.Method, r.Path, r.ReasoningEffort, r.Store)
			}
		case codemodel.ProviderGemini:
			if got := r.Header.Get("x-goog-api-key"); got != testKey || r.Query.Get("key") != "" {
				t.Errorf("x-goog-api-key %q, query key %q (the key belongs in the header only)", got, r.Query.Get("key"))
			}
			if r.Method != "POST" || r.Path != "/v1beta/models/"+p.defaultModel+":streamGenerateContent" || r.Query.Get("alt") != "sse" {
				t.Errorf("%s %s ?%s", r.Method, r.Path, r.Query.Encode())
			}
			if r.ThinkingBudget == nil || *r.ThinkingBudget != codemodel.GeminiThinkingBudget {
				t.Errorf("thinkingBudget %v, want %d", r.ThinkingBudget, codemodel.GeminiThinkingBudget)
			}
		}
	})
}

func TestModelAndLimitAreTheCallers(t *testing.T) {
	each(t, func(t *testing.T, p provider) {
		fake := p.fake(t)
		fake.Queue(codemodeltest.Text("x"))
		c, err := codemodel.New(codemodel.Config{Provider: p.name, Key: testKey, Model: "custom-model", BaseURL: fake.URL})
		if err != nil {
			t.Fatal(err)
		}
		req := oneTurn
		req.MaxOutputTokens = 777
		if _, res, e := stream(t, context.Background(), c, req, nil); e != nil || res.Model != "custom-model" {
			t.Fatalf("Stream: %v, model %q", e, res.Model)
		}
		if r := fake.Requests()[0]; r.Model != "custom-model" || r.MaxOutputTokens != 777 {
			t.Errorf("request model %q max %d", r.Model, r.MaxOutputTokens)
		}
	})
}

// Only reasoning models get reasoning.effort: others refuse the parameter.
func TestOpenAIReasoningEffort(t *testing.T) {
	for model, want := range map[string]string{"gpt-5.5": "low", "o4-mini": "low", "gpt-5.1-codex": "low", "gpt-4.1": "", "gpt-5-chat-latest": ""} {
		fake := codemodeltest.NewOpenAI(t)
		fake.Queue(codemodeltest.Text("x"))
		c, _ := codemodel.New(codemodel.Config{Provider: codemodel.ProviderOpenAI, Key: testKey, Model: model, BaseURL: fake.URL})
		if _, _, e := stream(t, context.Background(), c, oneTurn, nil); e != nil {
			t.Fatal(e)
		}
		r := fake.Requests()[0]
		if r.ReasoningEffort != want || (want == "" && r.Body["reasoning"] != nil) {
			t.Errorf("%s: reasoning %v, want effort %q", model, r.Body["reasoning"], want)
		}
	}
}

func TestBaseURLFromEnvironment(t *testing.T) {
	each(t, func(t *testing.T, p provider) {
		fake := p.fake(t)
		fake.Queue(codemodeltest.Text("from env"))
		env := map[string]string{codemodel.EnvOpenAIBase: "http://127.0.0.1:1/wrong", codemodel.EnvGeminiBase: "http://127.0.0.1:1/wrong"}
		if p.name == codemodel.ProviderOpenAI {
			env[codemodel.EnvOpenAIBase] = fake.URL + "/"
		} else {
			env[codemodel.EnvGeminiBase] = fake.URL + "/"
		}
		c, err := codemodel.New(codemodel.Config{Provider: p.name, Key: testKey, Getenv: func(k string) string { return env[k] }})
		if err != nil {
			t.Fatal(err)
		}
		if _, res, e := stream(t, context.Background(), c, oneTurn, nil); e != nil || res.Text != "from env" {
			t.Fatalf("Stream: %v %q", e, res.Text)
		}
	})
}

func TestTruncated(t *testing.T) {
	each(t, func(t *testing.T, p provider) {
		fake := p.fake(t)
		fake.Queue(codemodeltest.Truncated("<html>", "<body>").WithUsage(codemodeltest.Usage{Input: 10, Output: 500, Reasoning: 100}))
		req := oneTurn
		req.MaxOutputTokens = 500
		deltas, _, e := stream(t, context.Background(), newClient(t, p, fake.URL, nil), req, nil)
		wantCode(t, e, codemodel.CodeTruncated)
		if !slices.Equal(deltas, []string{"<html>", "<body>"}) || e.Attempts != 1 || !strings.Contains(e.Message, "500") {
			t.Errorf("deltas %q attempts %d message %q", deltas, e.Attempts, e.Message)
		}
		if e.Usage != (codemodel.Usage{InputTokens: 10, OutputTokens: 500, ReasoningTokens: 100}) {
			t.Errorf("usage %+v", e.Usage)
		}
	})
	// Thinking that used the whole limit: Gemini's MAX_TOKENS with no text at all.
	fake := codemodeltest.NewGemini(t)
	fake.Queue(codemodeltest.Truncated().WithThoughts("long thought"))
	deltas, _, e := stream(t, context.Background(), newClient(t, providers[1], fake.URL, nil), oneTurn, nil)
	wantCode(t, e, codemodel.CodeTruncated)
	if len(deltas) != 0 {
		t.Errorf("thoughts were delivered: %q", deltas)
	}
}

func TestBlocked(t *testing.T) {
	cases := map[string][]codemodeltest.Answer{
		codemodel.ProviderOpenAI: {codemodeltest.Blocked(""), codemodeltest.Blocked("", "<html>"), codemodeltest.Refused("I can't help with that.")},
		codemodel.ProviderGemini: {codemodeltest.Blocked(""), codemodeltest.Blocked("PROHIBITED_CONTENT"), codemodeltest.Blocked("RECITATION", "<html>"),
			codemodeltest.Blocked("SAFETY", "<html>", "<p>")},
	}
	each(t, func(t *testing.T, p provider) {
		for i, a := range cases[p.name] {
			fake := p.fake(t)
			fake.Queue(a)
			_, _, e := stream(t, context.Background(), newClient(t, p, fake.URL, nil), oneTurn, nil)
			wantCode(t, e, codemodel.CodeBlocked)
			if e.Attempts != 1 {
				t.Errorf("case %d: %d attempts", i, e.Attempts)
			}
			if a.Reason != "" && !strings.Contains(e.Message, a.Reason) {
				t.Errorf("case %d: message %q does not say %q", i, e.Message, a.Reason)
			}
		}
	})
}

func TestKeyRefused(t *testing.T) {
	each(t, func(t *testing.T, p provider) {
		for _, status := range []int{401, 403} {
			fake := p.fake(t)
			fake.Queue(codemodeltest.Status(status, "The key "+testKey+" is not allowed."), codemodeltest.Text("never"))
			_, _, e := stream(t, context.Background(), newClient(t, p, fake.URL, nil), oneTurn, nil)
			wantCode(t, e, codemodel.CodeKeyRefused)
			if e.Status != status || e.Attempts != 1 || fake.Pending() != 1 {
				t.Errorf("HTTP %d: status %d, %d attempts, %d answers left (no retry)", status, e.Status, e.Attempts, fake.Pending())
			}
		}
		// The provider's own answer to a wrong key (Gemini's is 400 API_KEY_INVALID).
		fake := p.fake(t)
		fake.Key = "the-right-key"
		_, _, e := stream(t, context.Background(), newClient(t, p, fake.URL, nil), oneTurn, nil)
		wantCode(t, e, codemodel.CodeKeyRefused)
	})
}

func TestRetryAfter429(t *testing.T) {
	each(t, func(t *testing.T, p provider) {
		fake := p.fake(t)
		fake.Queue(codemodeltest.Status(429, "Rate limit reached"), codemodeltest.Text("<p>", "ok</p>"))
		b := &backoffs{}
		deltas, res, e := stream(t, context.Background(), newClient(t, p, fake.URL, b), oneTurn, nil)
		if e != nil {
			t.Fatalf("Stream: %v", e)
		}
		if res.Attempts != 2 || res.Text != "<p>ok</p>" || !slices.Equal(deltas, []string{"<p>", "ok</p>"}) || len(fake.Requests()) != 2 {
			t.Errorf("attempts %d text %q deltas %q requests %d", res.Attempts, res.Text, deltas, len(fake.Requests()))
		}
		if got := b.got(); !slices.Equal(got, []int{1}) {
			t.Errorf("backoff before retries %v, want [1]", got)
		}
	})
}

func TestUnavailableAfterThreeAttempts(t *testing.T) {
	each(t, func(t *testing.T, p provider) {
		fake := p.fake(t)
		fake.Queue(codemodeltest.Status(503, "overloaded"), codemodeltest.Status(503, "overloaded"), codemodeltest.Status(503, "overloaded"),
			codemodeltest.Text("a fourth attempt would get this"))
		b := &backoffs{}
		_, _, e := stream(t, context.Background(), newClient(t, p, fake.URL, b), oneTurn, nil)
		wantCode(t, e, codemodel.CodeUnavailable)
		if e.Attempts != 3 || e.Status != 503 || len(fake.Requests()) != 3 || fake.Pending() != 1 {
			t.Errorf("attempts %d status %d requests %d pending %d", e.Attempts, e.Status, len(fake.Requests()), fake.Pending())
		}
		if got := b.got(); !slices.Equal(got, []int{1, 2}) {
			t.Errorf("backoff before retries %v, want [1 2]", got)
		}
	})
}

func TestNetworkFailureIsUnavailable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now: connection refused
	each(t, func(t *testing.T, p provider) {
		b := &backoffs{}
		_, _, e := stream(t, context.Background(), newClient(t, p, "http://"+addr+"/v1", b), oneTurn, nil)
		wantCode(t, e, codemodel.CodeUnavailable)
		if e.Attempts != 3 || !slices.Equal(b.got(), []int{1, 2}) {
			t.Errorf("attempts %d backoffs %v", e.Attempts, b.got())
		}
	})
}

func TestFailedAndErrorEvents(t *testing.T) {
	each(t, func(t *testing.T, p provider) {
		for _, a := range []codemodeltest.Answer{
			codemodeltest.Failed("server_error", "The model crashed.", "<html>"),
			codemodeltest.Failed("server_error", "The model crashed."),
			codemodeltest.ErrorEvent("invalid_prompt", "Something in the prompt.", "<html>"),
			codemodeltest.ErrorEvent("invalid_prompt", "Something in the prompt."),
		} {
			fake := p.fake(t)
			fake.Queue(a, codemodeltest.Text("never: an error event is not retried"))
			_, _, e := stream(t, context.Background(), newClient(t, p, fake.URL, nil), oneTurn, nil)
			wantCode(t, e, codemodel.CodeFailed)
			if e.Attempts != 1 || fake.Pending() != 1 || !strings.Contains(e.Message, a.Message) {
				t.Errorf("%v %q: attempts %d pending %d message %q", a.End, a.Chunks, e.Attempts, fake.Pending(), e.Message)
			}
		}
	})
}

func TestEndsWithoutFinalEvent(t *testing.T) {
	each(t, func(t *testing.T, p provider) {
		fake := p.fake(t)
		fake.Queue(codemodeltest.Cut("<html>", "<body>"), codemodeltest.Text("never"))
		deltas, _, e := stream(t, context.Background(), newClient(t, p, fake.URL, nil), oneTurn, nil)
		wantCode(t, e, codemodel.CodeFailed)
		if !slices.Equal(deltas, []string{"<html>", "<body>"}) || e.Attempts != 1 || fake.Pending() != 1 {
			t.Errorf("deltas %q attempts %d pending %d", deltas, e.Attempts, fake.Pending())
		}
	})
}

func TestCompleteButEmptyIsFailed(t *testing.T) {
	each(t, func(t *testing.T, p provider) {
		fake := p.fake(t)
		fake.Queue(codemodeltest.Text())
		_, _, e := stream(t, context.Background(), newClient(t, p, fake.URL, nil), oneTurn, nil)
		wantCode(t, e, codemodel.CodeFailed)
	})
}

func TestCancelMidStream(t *testing.T) {
	each(t, func(t *testing.T, p provider) {
		fake := p.fake(t)
		fake.Queue(codemodeltest.Hang("<html>", "<body>"))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		deltas, res, e := stream(t, ctx, newClient(t, p, fake.URL, nil), oneTurn, func(string) { cancel() })
		wantCode(t, e, codemodel.CodeCancelled)
		if res.Text != "" || len(deltas) == 0 || deltas[0] != "<html>" {
			t.Errorf("result %q deltas %q", res.Text, deltas)
		}
		select {
		case n := <-fake.Gone():
			if n != 1 {
				t.Errorf("request %d went away, want 1", n)
			}
		case <-time.After(backstop):
			t.Fatal("the fake never saw the request end: the HTTP request was not cancelled")
		}
	})
}

func TestCancelBeforeAnyText(t *testing.T) {
	each(t, func(t *testing.T, p provider) {
		fake := p.fake(t)
		fake.Queue(codemodeltest.Hang())
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			<-fake.Waiting()
			cancel()
		}()
		deltas, _, e := stream(t, ctx, newClient(t, p, fake.URL, nil), oneTurn, nil)
		wantCode(t, e, codemodel.CodeCancelled)
		if len(deltas) != 0 {
			t.Errorf("deltas %q", deltas)
		}
		select {
		case <-fake.Gone():
		case <-time.After(backstop):
			t.Fatal("the fake never saw the request end")
		}
	})
}

// Cancel while waiting to retry ends the wait: the backoff here is an hour.
func TestCancelDuringBackoff(t *testing.T) {
	each(t, func(t *testing.T, p provider) {
		fake := p.fake(t)
		fake.Queue(codemodeltest.Status(503, "busy"), codemodeltest.Text("never"))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c, _ := codemodel.New(codemodel.Config{Provider: p.name, Key: testKey, BaseURL: fake.URL, Backoff: func(int) time.Duration {
			cancel()
			return time.Hour
		}})
		_, _, e := stream(t, ctx, c, oneTurn, nil)
		wantCode(t, e, codemodel.CodeCancelled)
		if e.Attempts != 1 || fake.Pending() != 1 {
			t.Errorf("attempts %d pending %d", e.Attempts, fake.Pending())
		}
	})
}

// The key never reaches an error message, even when the provider quotes it back; where the provider's
// text is worth quoting it is quoted without the key.
func TestKeyNeverInErrorMessages(t *testing.T) {
	leak := "your key " + testKey + " was seen"
	each(t, func(t *testing.T, p provider) {
		cases := []struct {
			answers []codemodeltest.Answer
			quoted  bool // the provider's text appears, the key replaced
		}{
			{[]codemodeltest.Answer{codemodeltest.Status(400, leak)}, true},
			{[]codemodeltest.Answer{codemodeltest.Status(401, leak)}, false},
			{[]codemodeltest.Answer{codemodeltest.Status(404, leak)}, true},
			{[]codemodeltest.Answer{codemodeltest.Status(500, leak), codemodeltest.Status(500, leak), codemodeltest.Status(500, leak)}, true},
			{[]codemodeltest.Answer{codemodeltest.Failed("server_error", leak, "<p>")}, true},
			{[]codemodeltest.Answer{codemodeltest.ErrorEvent("server_error", leak)}, true},
		}
		// Control: the fake's error body really carries the key.
		control := p.fake(t)
		control.Queue(codemodeltest.Status(400, leak))
		endpoint := control.URL + "/responses"
		if p.name == codemodel.ProviderGemini {
			endpoint = control.URL + "/models/m:streamGenerateContent?alt=sse"
		}
		resp, err := http.Post(endpoint, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(body), testKey) {
			t.Fatalf("control: HTTP %d %s", resp.StatusCode, body)
		}
		for i, tc := range cases {
			fake := p.fake(t)
			fake.Queue(tc.answers...)
			_, _, e := stream(t, context.Background(), newClient(t, p, fake.URL, nil), oneTurn, nil) // stream checks the key is absent
			if e == nil {
				t.Fatalf("case %d: no error", i)
			}
			if got := strings.Contains(e.Message, "[the API key]"); got != tc.quoted {
				t.Errorf("case %d (%s): message %q, quoted the provider: %v, want %v", i, e.Code, e.Message, got, tc.quoted)
			}
		}
	})
}

func TestNoCodeModel(t *testing.T) {
	for _, cfg := range []codemodel.Config{
		{Provider: codemodel.ProviderOpenAI},
		{Provider: codemodel.ProviderGemini, Key: "  "},
		{Provider: "anthropic", Key: testKey},
		{Provider: "", Key: testKey},
	} {
		c, err := codemodel.New(cfg)
		var e *codemodel.Error
		if c != nil || !errors.As(err, &e) || e.Code != codemodel.CodeNoCodeModel || e.Message == "" {
			t.Errorf("New(%+v) = %v, %v; want %s", cfg, c, err, codemodel.CodeNoCodeModel)
		}
	}
	// A model the provider does not have.
	each(t, func(t *testing.T, p provider) {
		fake := p.fake(t)
		fake.Queue(codemodeltest.Status(404, "models/nope is not found"))
		_, _, e := stream(t, context.Background(), newClient(t, p, fake.URL, nil), oneTurn, nil)
		wantCode(t, e, codemodel.CodeNoCodeModel)
		if e.Status != 404 || !strings.Contains(e.Message, p.defaultModel) {
			t.Errorf("status %d message %q", e.Status, e.Message)
		}
	})
}

func TestBadRequestShape(t *testing.T) {
	each(t, func(t *testing.T, p provider) {
		fake := p.fake(t) // no answer queued: a request reaching it fails the test
		c := newClient(t, p, fake.URL, nil)
		for _, req := range []codemodel.Request{{System: "s"}, {Messages: []codemodel.Message{{Role: "system", Text: "x"}}}} {
			_, _, e := stream(t, context.Background(), c, req, nil)
			wantCode(t, e, codemodel.CodeFailed)
		}
	})
}

// raw serves a hand-written stream: what the fakes never send.
func raw(t *testing.T, handler func(w http.ResponseWriter, f http.Flusher)) (url string, requests *int) {
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		handler(w, w.(http.Flusher))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &n
}

func TestMalformedStreamIsFailed(t *testing.T) {
	each(t, func(t *testing.T, p provider) {
		url, n := raw(t, func(w http.ResponseWriter, f http.Flusher) {
			fmt.Fprint(w, "event: response.created\ndata: {this is not json\n\n")
		})
		_, _, e := stream(t, context.Background(), newClient(t, p, url, nil), oneTurn, nil)
		wantCode(t, e, codemodel.CodeFailed)
		if *n != 1 {
			t.Errorf("%d requests", *n)
		}
	})
}

// A connection that breaks after text was delivered is not retried (the text would be repeated).
func TestBrokenAfterTextIsNotRetried(t *testing.T) {
	each(t, func(t *testing.T, p provider) {
		url, n := raw(t, func(w http.ResponseWriter, f http.Flusher) {
			if p.name == codemodel.ProviderOpenAI {
				fmt.Fprint(w, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":4,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"<html>\",\"logprobs\":[]}\n\n")
			} else {
				fmt.Fprint(w, "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"<html>\"}],\"role\":\"model\"},\"index\":0}]}\r\n\r\n")
			}
			f.Flush()
			panic(http.ErrAbortHandler) // drops the connection mid-body
		})
		deltas, _, e := stream(t, context.Background(), newClient(t, p, url, nil), oneTurn, nil)
		wantCode(t, e, codemodel.CodeUnavailable)
		if !slices.Equal(deltas, []string{"<html>"}) || e.Attempts != 1 || *n != 1 {
			t.Errorf("deltas %q attempts %d requests %d", deltas, e.Attempts, *n)
		}
	})
}

// OpenAI's error event also comes as {"type":"error","error":{...}}; an invalid key there is a refusal.
func TestOpenAIErrorObjectEvent(t *testing.T) {
	p := providers[0]
	url, _ := raw(t, func(w http.ResponseWriter, f http.Flusher) {
		fmt.Fprint(w, "event: error\ndata: {\"type\":\"error\",\"sequence_number\":0,\"error\":{\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\",\"message\":\"Incorrect API key provided: "+testKey+"\"}}\n\n")
	})
	_, _, e := stream(t, context.Background(), newClient(t, p, url, nil), oneTurn, nil)
	wantCode(t, e, codemodel.CodeKeyRefused)
	url, _ = raw(t, func(w http.ResponseWriter, f http.Flusher) {
		fmt.Fprint(w, "event: error\ndata: {\"type\":\"error\",\"sequence_number\":0,\"error\":{\"type\":\"server_error\",\"code\":\"server_error\",\"message\":\"went wrong\"}}\n\n")
	})
	_, _, e = stream(t, context.Background(), newClient(t, p, url, nil), oneTurn, nil)
	wantCode(t, e, codemodel.CodeFailed)
	if !strings.Contains(e.Message, "went wrong") {
		t.Errorf("message %q", e.Message)
	}
}
