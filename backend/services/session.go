package services

import (
	"context"

	"github.com/voicebox/voicebox/backend/voice"
	"github.com/voicebox/voicebox/backend/voice/pcm"
)

// SessionService is the room's door to the live voice session. The keys stay in Go: the room starts and
// stops the session, sends typed text and microphone audio, and hears the state, transcript and the model's
// audio as events (desktop) or over /api/session/audio (serve).
type SessionService struct {
	m *voice.Manager
}

// NewSessionService serves m.
func NewSessionService(m *voice.Manager) *SessionService { return &SessionService{m: m} }

// Start opens a session with "openai" or "gemini" ("" uses the provider chosen in Settings) and returns
// once the provider has set it up. A missing key answers missing-key; a key the provider refuses,
// key-refused.
func (s *SessionService) Start(provider string) (voice.Status, error) {
	return s.m.Start(context.Background(), provider)
}

// Stop ends the session; the transcript stays.
func (s *SessionService) Stop() (voice.Status, error) {
	err := s.m.Stop()
	return s.m.Status(), err
}

// Status is the session's state (idle, connecting, listening, thinking, speaking, error).
func (s *SessionService) Status() (voice.Status, error) { return s.m.Status(), nil }

// SendText sends a typed message in the running session.
func (s *SessionService) SendText(text string) error { return s.m.SendText(text) }

// SendAudio relays microphone audio: base64 PCM16 mono at rate Hz (8,000–96,000). Go resamples it to the
// provider's rate. The desktop sends it this way; `voicebox serve` uses the audio WebSocket.
func (s *SessionService) SendAudio(pcmBase64 string, rate int) error {
	if len(pcmBase64) > voice.MaxFrameBytes*4/3+4 {
		return &voice.Error{Code: voice.CodeBadAudio, Message: "an audio frame is over the size limit"}
	}
	pcm, err := pcm.DecodeBase64(pcmBase64)
	if err != nil {
		return &voice.Error{Code: voice.CodeBadAudio, Message: "audio must be base64 PCM16: " + err.Error()}
	}
	return s.m.SendAudio(pcm, rate)
}

// PushToTalk starts (true) or ends (false) a spoken turn.
func (s *SessionService) PushToTalk(down bool) (voice.Status, error) {
	err := s.m.PushToTalk(down)
	return s.m.Status(), err
}

// SetMode chooses "push-to-talk" or "always" (listening).
func (s *SessionService) SetMode(mode string) (voice.Status, error) {
	err := s.m.SetMode(mode)
	return s.m.Status(), err
}

// Transcript returns both sides of the conversation so far (it survives reconnects and room reloads).
func (s *SessionService) Transcript() ([]voice.Line, error) { return s.m.Transcript(), nil }

// ClearTranscript forgets the transcript.
func (s *SessionService) ClearTranscript() error {
	s.m.ClearTranscript()
	return nil
}
