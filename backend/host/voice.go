package host

import (
	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/backend/voice"
)

// initVoice prepares the live voice session (idle until the room starts it) and its services. Keys come
// from Settings, else from OPENAI_API_KEY / GEMINI_API_KEY; VOICEBOX_OPENAI_URL / VOICEBOX_GEMINI_URL
// replace the providers' WebSocket URLs.
func (h *Host) initVoice() {
	h.Voice = voice.New(voice.Config{
		Bus:      h.Bus,
		Registry: h.Registry,
		Exposed:  h.Exposed,
		Settings: h.Settings,
		Library:  h.Store,
		Author:   h.Author,
		Servers:  h.Servers,
	})
	h.SessionService = services.NewSessionService(h.Voice)
	h.SettingsService = services.NewSettingsService(h.Settings, h.Bus, nil)
}
