// Package codemodel is the assistant's code model: one streamed request to the text model of the provider
// the person already chose for voice (OpenAI or Gemini, with the same API key), which writes or edits a
// mini-app. docs/authoring.md ("The code model") lists providers, endpoints, defaults, limits and codes.
//
// A Client sends the system prompt and the conversation, streams the answer text to a callback as it
// arrives, and returns the whole text only when the provider said the answer is complete (OpenAI's
// response.completed, Gemini's finishReason STOP). Everything else is an *Error with one of the Code*
// constants and a sentence the person can act on; the API key never appears in it.
//
// OpenAI goes through the official SDK (github.com/openai/openai-go/v3, the Responses API). Gemini goes
// through the small SSE reader in gemini.go rather than google.golang.org/genai: that module (v1.79) pulls
// in google.golang.org/grpc, protobuf, cloud.google.com/go/auth, s2a-go and opencensus, some 60 MB of
// package source, for one POST and a line reader.
//
// Retries are this package's, not an SDK's, so that they are counted (Result.Attempts) and never repeat
// text already delivered: HTTP 429 and 5xx, and network failures, are retried at most twice, with
// Config.Backoff between attempts, and only while no answer text has reached the callback.
//
// Tests talk to the protocol fakes in codemodeltest.
package codemodel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/voicebox/voicebox/backend/toolcontract"
)

// Providers: the same strings as backend/toolcontract's, the person's one choice for voice and code.
const (
	ProviderOpenAI = toolcontract.ProviderOpenAI
	ProviderGemini = toolcontract.ProviderGemini
)

// Default code models, used when the setting is empty. Both are current, code-capable reasoning models
// served on the endpoints below: gpt-5.5 is the newest general (non-pro) GPT-5 model in openai-go's model
// list and is served by the Responses API; gemini-3.5-flash is the model google.golang.org/genai's own
// streaming example uses, fast enough to write a page while the person waits.
const (
	DefaultOpenAIModel = "gpt-5.4-mini"
	DefaultGeminiModel = "gemini-3.5-flash"
)

// Environment variables that replace the providers' base URLs (tests point them at codemodeltest's fakes).
const (
	EnvOpenAIBase = "VOICEBOX_OPENAI_API_URL"
	EnvGeminiBase = "VOICEBOX_GEMINI_API_URL"
)

// Default base URLs.
const (
	DefaultOpenAIBase = "https://api.openai.com/v1"
	DefaultGeminiBase = "https://generativelanguage.googleapis.com/v1beta"
)

// Limits.
const (
	// DefaultMaxOutputTokens is the output limit when Request.MaxOutputTokens is 0. Both providers count
	// reasoning against it. A 64 KiB page of dense HTML, CSS and script is at most about 22,000 tokens
	// (some 3 bytes a token); the rest is room for low-effort reasoning (OpenAI) or the thinking budget
	// (Gemini).
	DefaultMaxOutputTokens = 32768
	// GeminiThinkingBudget is generationConfig.thinkingConfig.thinkingBudget: small, so that thinking
	// leaves the output limit to the page (128 is the least some Gemini models accept).
	GeminiThinkingBudget = 1024
	// MaxAttempts is how many times one Stream call sends its request at most: the first try and 2
	// retries.
	MaxAttempts = 3
)

// Error codes. The project's one table of codes lists them, with the room's texts.
const (
	CodeNoCodeModel = "no-code-model"          // no key, an unknown provider, or a model the provider does not have
	CodeKeyRefused  = "code-model-key-refused" // HTTP 401/403, or the provider said the key is not valid
	CodeUnavailable = "code-model-unavailable" // HTTP 429/5xx after the retries, or the network failed
	CodeTruncated   = "code-model-truncated"   // the answer hit the output limit
	CodeBlocked     = "code-model-blocked"     // a safety, recitation or prohibited-content block, or a refusal
	CodeFailed      = "code-model-failed"      // response.failed, an error event, a malformed or unfinished stream
	CodeCancelled   = toolcontract.CodeCancelled
)

// Message is one turn of the conversation.
type Message struct {
	Role string // "user", or "assistant" for the model's earlier answer
	Text string
}

// Message roles.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Request is what Stream sends.
type Request struct {
	System          string    // the system prompt (OpenAI instructions, Gemini systemInstruction)
	Messages        []Message // the conversation so far, oldest first
	MaxOutputTokens int       // 0: DefaultMaxOutputTokens
}

// Usage counts tokens as the provider reported them. OutputTokens includes ReasoningTokens (OpenAI's
// output_tokens; Gemini's candidatesTokenCount plus thoughtsTokenCount).
type Usage struct {
	InputTokens, OutputTokens, ReasoningTokens int
}

// Result is a complete answer.
type Result struct {
	Text     string // the whole answer text, thought parts left out
	Usage    Usage
	Model    string // the model that answered, as the provider named it (its version where it says one)
	Attempts int    // requests sent, 1 to MaxAttempts
}

// Config chooses a provider, key and model.
type Config struct {
	Provider   string // ProviderOpenAI or ProviderGemini
	Key        string // the person's API key for that provider
	Model      string // "" → DefaultOpenAIModel / DefaultGeminiModel
	BaseURL    string // "" → the EnvOpenAIBase / EnvGeminiBase variable, then the default
	HTTPClient *http.Client
	// Backoff is the wait before retry n (1-based). Default: about 1 s, then 2 s, with jitter.
	Backoff func(attempt int) time.Duration
	Getenv  func(string) string // default os.Getenv
}

// Client streams answers from one provider's code model.
type Client interface {
	Provider() string
	Model() string
	// Stream sends req; onDelta gets each piece of answer text (never thought parts) as it arrives, in
	// order. It returns the whole text only when the stream ended complete; otherwise an *Error.
	Stream(ctx context.Context, req Request, onDelta func(text string)) (Result, error)
}

// Error is a code model failure.
type Error struct {
	Code     string // one of the Code* constants
	Message  string // a sentence the person can act on; never contains the key
	Status   int    // the HTTP status, when the provider answered with one
	Usage    Usage  // tokens the provider reported before it stopped, if any
	Attempts int    // requests sent
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// New returns the client for cfg.Provider. It fails with CodeNoCodeModel when the key is empty or the
// provider is unknown.
func New(cfg Config) (Client, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	c := base{key: cfg.Key, model: strings.TrimSpace(cfg.Model), httpc: cfg.HTTPClient, backoff: cfg.Backoff}
	if c.httpc == nil {
		// No overall timeout: an answer streams for minutes. Cancel is the caller's context.
		c.httpc = &http.Client{}
	}
	if c.backoff == nil {
		c.backoff = defaultBackoff
	}
	var env, def, defModel string
	switch cfg.Provider {
	case ProviderOpenAI:
		c.name, env, def, defModel = "OpenAI", EnvOpenAIBase, DefaultOpenAIBase, DefaultOpenAIModel
	case ProviderGemini:
		c.name, env, def, defModel = "Gemini", EnvGeminiBase, DefaultGeminiBase, DefaultGeminiModel
	default:
		return nil, &Error{Code: CodeNoCodeModel, Message: fmt.Sprintf("There is no code model for the provider %q: choose OpenAI or Gemini in Settings.", cfg.Provider)}
	}
	if strings.TrimSpace(cfg.Key) == "" {
		return nil, &Error{Code: CodeNoCodeModel, Message: fmt.Sprintf("No %s API key is set: add one in Settings so that the assistant can write apps.", c.name)}
	}
	if c.model == "" {
		c.model = defModel
	}
	c.baseURL = cfg.BaseURL
	if c.baseURL == "" {
		c.baseURL = getenv(env)
	}
	if c.baseURL == "" {
		c.baseURL = def
	}
	c.baseURL = strings.TrimRight(c.baseURL, "/")
	if cfg.Provider == ProviderOpenAI {
		return newOpenAI(c), nil
	}
	return &gemini{base: c}, nil
}

// defaultBackoff waits about 1 s before the first retry and 2 s before the second, each plus up to a
// quarter more at random so that clients that failed together do not retry together.
func defaultBackoff(attempt int) time.Duration {
	d := time.Duration(attempt) * time.Second
	return d + rand.N(d/4+1)
}

// base is what both clients share.
type base struct {
	name    string // "OpenAI" or "Gemini", for messages
	key     string
	model   string
	baseURL string
	httpc   *http.Client
	backoff func(int) time.Duration
}

func (b *base) Model() string { return b.model }

// attempt is one request's outcome as the retry loop sees it.
type attempt struct {
	result    Result
	err       *Error
	retryable bool // a 429/5xx or a network failure before any answer text
}

// run sends the request up to MaxAttempts times. try reports, through delivered, whether any answer text
// reached onDelta: from then on nothing is retried.
func (b *base) run(ctx context.Context, req Request, onDelta func(string), try func(ctx context.Context, req Request, deliver func(string)) attempt) (Result, error) {
	if err := checkRequest(req); err != nil {
		return Result{}, err
	}
	if req.MaxOutputTokens <= 0 {
		req.MaxOutputTokens = DefaultMaxOutputTokens
	}
	delivered := false
	deliver := func(s string) {
		if s == "" {
			return
		}
		delivered = true
		if onDelta != nil {
			onDelta(s)
		}
	}
	for n := 1; ; n++ {
		if ctx.Err() != nil {
			return Result{}, b.cancelled(n - 1)
		}
		a := try(ctx, req, deliver)
		if ctx.Err() != nil {
			// Whatever the attempt saw, the caller gave up: nothing is returned.
			return Result{}, b.cancelled(n)
		}
		if a.err == nil {
			a.result.Attempts = n
			return a.result, nil
		}
		a.err.Attempts = n
		a.err.Message = b.redact(a.err.Message)
		if !a.retryable || delivered || n >= MaxAttempts {
			return Result{}, a.err
		}
		t := time.NewTimer(b.backoff(n))
		select {
		case <-ctx.Done():
			t.Stop()
			return Result{}, b.cancelled(n)
		case <-t.C:
		}
	}
}

func checkRequest(req Request) *Error {
	if len(req.Messages) == 0 {
		return &Error{Code: CodeFailed, Message: "There was nothing to send to the code model: the conversation is empty."}
	}
	for _, m := range req.Messages {
		if m.Role != RoleUser && m.Role != RoleAssistant {
			return &Error{Code: CodeFailed, Message: fmt.Sprintf("A message to the code model has the role %q, which is neither user nor assistant.", m.Role)}
		}
	}
	return nil
}

func (b *base) cancelled(attempts int) *Error {
	return &Error{Code: CodeCancelled, Message: "The code model's answer was cancelled.", Attempts: attempts}
}

// redact removes the key from text that came from the provider, which may quote it back.
func (b *base) redact(s string) string {
	if k := strings.TrimSpace(b.key); k != "" {
		s = strings.ReplaceAll(s, k, "[the API key]")
	}
	return s
}

// providerText shortens a message the provider wrote, for quoting inside one of ours (the key is removed
// by run, the last step before the caller).
func providerText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 300
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return s
}

// httpFailure classifies a provider's HTTP error answer. keyInvalid says the provider's own error names
// the key as invalid (Gemini answers 400 API_KEY_INVALID for a wrong key).
func (b *base) httpFailure(status int, keyInvalid bool, message string) attempt {
	quoted := ""
	if m := providerText(message); m != "" {
		quoted = " (" + m + ")"
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden || keyInvalid:
		// The provider's text is left out: OpenAI's quotes part of the key.
		return attempt{err: &Error{Code: CodeKeyRefused, Status: status, Message: fmt.Sprintf("%s refused the API key (HTTP %d): check the key in Settings.", b.name, status)}}
	case status == http.StatusNotFound:
		return attempt{err: &Error{Code: CodeNoCodeModel, Status: status, Message: fmt.Sprintf("%s has no code model %q for this key (HTTP 404)%s: choose another code model in Settings.", b.name, b.model, quoted)}}
	case status == http.StatusTooManyRequests:
		return attempt{retryable: true, err: &Error{Code: CodeUnavailable, Status: status, Message: fmt.Sprintf("%s is limiting requests for this key (HTTP 429, %d attempts)%s: wait a minute and try again, or check the account's quota.", b.name, MaxAttempts, quoted)}}
	case status >= 500:
		return attempt{retryable: true, err: &Error{Code: CodeUnavailable, Status: status, Message: fmt.Sprintf("%s is unavailable (HTTP %d, %d attempts)%s: try again in a minute.", b.name, status, MaxAttempts, quoted)}}
	default:
		return attempt{err: &Error{Code: CodeFailed, Status: status, Message: fmt.Sprintf("%s did not accept the code model's request (HTTP %d)%s.", b.name, status, quoted)}}
	}
}

// networkFailure is a request that got no HTTP answer, or whose stream broke.
func (b *base) networkFailure(err error) attempt {
	var ne interface{ Timeout() bool }
	what := "could not be reached"
	if errors.As(err, &ne) && ne.Timeout() {
		what = "did not answer in time"
	}
	return attempt{retryable: true, err: &Error{Code: CodeUnavailable, Message: fmt.Sprintf("%s %s at %s: check the network and try again.", b.name, what, b.baseURL)}}
}

// brokeMidway is a stream whose connection failed after it began.
func (b *base) brokeMidway(usage Usage) attempt {
	return attempt{retryable: true, err: &Error{Code: CodeUnavailable, Usage: usage, Message: fmt.Sprintf("The connection to %s broke before the answer was complete: try again.", b.name)}}
}

func (b *base) unfinished(usage Usage) attempt {
	return attempt{err: &Error{Code: CodeFailed, Usage: usage, Message: fmt.Sprintf("%s's answer stopped before it was complete: try again.", b.name)}}
}

func (b *base) truncated(limit int, usage Usage) attempt {
	return attempt{err: &Error{Code: CodeTruncated, Usage: usage, Message: fmt.Sprintf("The code model reached its limit of %d output tokens before it finished: ask for a smaller app or a smaller change.", limit)}}
}

func (b *base) blocked(why string, usage Usage) attempt {
	return attempt{err: &Error{Code: CodeBlocked, Usage: usage, Message: fmt.Sprintf("%s blocked the answer (%s): rephrase the request.", b.name, providerText(why))}}
}

func (b *base) failed(why string, usage Usage) attempt {
	return attempt{err: &Error{Code: CodeFailed, Usage: usage, Message: fmt.Sprintf("%s could not finish the answer (%s): try again.", b.name, providerText(why))}}
}

func (b *base) empty(usage Usage) attempt {
	return attempt{err: &Error{Code: CodeFailed, Usage: usage, Message: fmt.Sprintf("%s's code model finished without writing anything: try again.", b.name)}}
}

// isTransport tells a failed connection from a malformed stream.
func isTransport(err error) bool {
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
}
