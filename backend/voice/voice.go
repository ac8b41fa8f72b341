// Package voice is the live voice session: Go holds the upstream WebSocket to OpenAI Realtime or Gemini
// Live (the keys never reach the webview), relays the room's microphone audio up and the model's audio
// down, keeps the transcript, declares the open mini-apps' tools (plus the host verbs) and runs the
// model's function calls through the registry, validated first and bounded by 5,000 ms and 64 KiB.
//
// One Manager serves the room (manager.go). Start dials the provider and returns once the upstream session
// is set up; a session (session.go) lives from Start to Stop: when its socket, a conn (conn.go), drops, it
// reconnects with backoff and keeps its transcript (Gemini resumes with a session resumption handle when
// it offered one; otherwise the transcript is replayed as context). The providers' protocols are drivers
// under internal/ (openai, gemini) behind internal/upstream's Link; the model's calls run in dispatch.go.
// PCM16 conversion is backend/voice/pcm.
package voice

import (
	"fmt"
	"net/http"
	"time"

	"github.com/voicebox/voicebox/backend/author"
	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/mcpclient"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/settings"
	"github.com/voicebox/voicebox/backend/toolcontract"
	"github.com/voicebox/voicebox/backend/verbs"
)

// Providers.
const (
	ProviderOpenAI = toolcontract.ProviderOpenAI
	ProviderGemini = toolcontract.ProviderGemini
)

// Defaults and the environment.
const (
	DefaultOpenAIModel = "gpt-realtime"
	DefaultGeminiModel = "gemini-2.5-flash-native-audio-preview-12-2025"

	OpenAIURL = "wss://api.openai.com/v1/realtime"
	GeminiURL = "wss://generativelanguage.googleapis.com/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"

	EnvOpenAIKey = settings.EnvOpenAIKey
	EnvGeminiKey = settings.EnvGeminiKey
	EnvOpenAIURL = "VOICEBOX_OPENAI_URL" // replaces the whole WebSocket URL (proxies, tests)
	EnvGeminiURL = "VOICEBOX_GEMINI_URL"
)

// Events on the bus (the room hears them as Wails events or server-sent events).
const (
	EventState      = "voice:state"      // Data: Status
	EventTranscript = "voice:transcript" // Data: Line (the whole line so far; same id as it grows)
	EventInterrupt  = "voice:interrupt"  // the model was interrupted: stop playing what is queued
	EventCleared    = "voice:cleared"    // the transcript was cleared
)

// States.
const (
	StateIdle       = "idle"
	StateConnecting = "connecting"
	StateListening  = "listening"
	StateThinking   = "thinking"
	StateSpeaking   = "speaking"
	StateError      = "error"
)

// Modes of the microphone.
const (
	ModePushToTalk = "push-to-talk" // audio goes up only while the person holds the key
	ModeAlways     = "always"       // always listening; the provider detects turns
)

// Error codes the session answers with.
const (
	CodeMissingKey      = "missing-key"
	CodeKeyRefused      = "key-refused"
	CodeUnknownProvider = "unknown-provider"
	CodeNotRunning      = "session-not-running"
	CodeUpstream        = "upstream-error"
	CodeSetupTimeout    = "setup-timeout"
	CodeConnectionLost  = "connection-lost"
	CodeBadRequest      = "bad-request"
	CodeBadAudio        = "bad-audio"
)

// Error is a refusal with a stable code; services map it to {error, message}.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

// ErrorCode is the stable code (services.Describe reads it).
func (e *Error) ErrorCode() string { return e.Code }

// HTTPStatus is the status the HTTP door answers with.
func (e *Error) HTTPStatus() int {
	switch e.Code {
	case CodeMissingKey, CodeUnknownProvider, CodeBadRequest, CodeBadAudio:
		return http.StatusBadRequest
	case CodeNotRunning:
		return http.StatusConflict
	case CodeKeyRefused:
		return http.StatusUnauthorized
	case CodeSetupTimeout:
		return http.StatusGatewayTimeout
	}
	return http.StatusBadGateway
}

func errorf(code, format string, a ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

// Status is the session as the room shows it.
type Status struct {
	State      string `json:"state"`
	Provider   string `json:"provider,omitempty"`
	Mode       string `json:"mode"`
	Talking    bool   `json:"talking"`
	Code       string `json:"code,omitempty"`
	Message    string `json:"message,omitempty"`
	Attempt    int    `json:"attempt,omitempty"` // reconnect attempt, while connecting again
	InputRate  int    `json:"inputRate,omitempty"`
	OutputRate int    `json:"outputRate,omitempty"`
	Tools      int    `json:"tools"` // functions declared upstream
	Resumed    bool   `json:"resumed,omitempty"`
}

// Line is one line of the transcript.
type Line struct {
	ID    string    `json:"id"`
	Role  string    `json:"role"` // "user" or "assistant"
	Text  string    `json:"text"`
	Final bool      `json:"final"`
	At    time.Time `json:"at"`
}

// maxLines bounds the transcript kept in Go.
const maxLines = 500

// Config is what a Manager works with. Bus and Registry are required.
type Config struct {
	Bus      *events.Bus
	Registry *registry.Registry
	// Exposed names the open apps' tools; give the one the MCP door uses, so a tool has one name whoever
	// calls it. Default: a table of the session's own over Registry.
	Exposed  *exposed.Table
	Settings *settings.Store // keys and models; may be nil (environment only)
	Library  verbs.Library   // for list_mini_apps and save_page_to_shelf; may be nil
	Author   *author.Service // writes and changes apps (create_mini_app, …); nil: those verbs refuse
	// Servers are the person's MCP servers: their model-visible tools are declared beside the apps' (named
	// mcp_<server>__<tool>: docs/mcp-apps.md) and called through it. nil: none.
	Servers *mcpclient.Manager
	Getenv  func(string) string
	// Backoff is the wait before reconnect attempt n (1-based). Default: 250 ms doubling to 8 s, ±20%.
	Backoff      func(attempt int) time.Duration
	MaxAttempts  int           // reconnect attempts before giving up; default 8
	SetupTimeout time.Duration // dial plus setup; default 15 s
	HTTPClient   *http.Client
	Instructions string // the system prompt; default DefaultInstructions
}

// DefaultInstructions tells the model where it is.
const DefaultInstructions = "You are the voice of Voicebox, a room where a person runs small HTML mini-apps " +
	"(scoreboards, timers, games, dashboards) side by side. Each open app's tools are functions named " +
	"<app>__<tool>. To use an app that is not open, call launch_mini_app: its answer lists the new app's " +
	"tools, which you may call right away in the same turn. list_mini_apps shows what is open and what can " +
	"be opened. A refused call answers {\"ok\":false,\"refused\":code,\"path\",\"message\"}: fix the " +
	"arguments or tell the person. When the person asks for an app that does not exist, write it with " +
	"create_mini_app (and change one with edit_mini_app, undo with revert_mini_app): say at once that you are " +
	"building it; a later message tells you when it is open and what its tools are. Keep spoken answers short."
