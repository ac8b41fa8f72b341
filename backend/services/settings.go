package services

import (
	"os"
	"regexp"
	"strings"
	"unicode"

	"github.com/voicebox/voicebox/backend/author/codemodel"
	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/settings"
	"github.com/voicebox/voicebox/backend/voice"
)

// EventSettingsChanged tells every room that Settings changed; Data is the public view (no keys).
const EventSettingsChanged = "settings:changed"

// SettingsService is the room's door to Settings: the voice provider, its keys and models. Keys are
// write-only: the room can set or clear one but only ever learns whether it is set (and whether the
// environment provides one).
type SettingsService struct {
	st  *settings.Store
	bus *events.Bus
	env func(string) string
}

// NewSettingsService serves st; env reads the environment (OPENAI_API_KEY, GEMINI_API_KEY); nil is os.Getenv.
func NewSettingsService(st *settings.Store, bus *events.Bus, env func(string) string) *SettingsService {
	if env == nil {
		env = os.Getenv
	}
	return &SettingsService{st: st, bus: bus, env: env}
}

// ProviderSettings is one provider as the room sees it.
type ProviderSettings struct {
	Key          string `json:"key"`                 // "set" or "not set"
	KeySource    string `json:"keySource,omitempty"` // "settings" or "env" when set
	Model        string `json:"model"`               // "" means DefaultModel
	DefaultModel string `json:"defaultModel"`
	// CodeModel writes mini-apps with the same key (backend/author); "" means DefaultCodeModel.
	CodeModel        string `json:"codeModel"`
	DefaultCodeModel string `json:"defaultCodeModel"`
}

// PublicSettings is Settings without the keys.
type PublicSettings struct {
	Provider string           `json:"provider"` // "openai" or "gemini"
	OpenAI   ProviderSettings `json:"openai"`
	Gemini   ProviderSettings `json:"gemini"`
}

// SettingsPatch changes only what it names. A key of "" clears the stored key.
type SettingsPatch struct {
	Provider    *string `json:"provider,omitempty"`
	OpenAIKey   *string `json:"openaiKey,omitempty"`
	OpenAIModel *string `json:"openaiModel,omitempty"`
	GeminiKey   *string `json:"geminiKey,omitempty"`
	GeminiModel *string `json:"geminiModel,omitempty"`
	// The code models (docs/authoring.md); "" goes back to the default.
	OpenAICodeModel *string `json:"openaiCodeModel,omitempty"`
	GeminiCodeModel *string `json:"geminiCodeModel,omitempty"`
}

// Get returns the public view.
func (s *SettingsService) Get() (PublicSettings, error) { return s.view(s.st.Get()), nil }

// Update applies a patch and saves it (settings.json, mode 0600).
func (s *SettingsService) Update(p SettingsPatch) (PublicSettings, error) {
	if p.Provider != nil {
		v := strings.ToLower(strings.TrimSpace(*p.Provider))
		if v != voice.ProviderOpenAI && v != voice.ProviderGemini {
			return PublicSettings{}, BadRequest(`provider must be "openai" or "gemini"`)
		}
		p.Provider = &v
	}
	for _, k := range []*string{p.OpenAIKey, p.GeminiKey} {
		if k == nil {
			continue
		}
		*k = strings.TrimSpace(*k)
		if len(*k) > 512 || strings.IndexFunc(*k, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || r > unicode.MaxASCII }) >= 0 {
			return PublicSettings{}, BadRequest("an API key is at most 512 printable ASCII characters without spaces")
		}
	}
	for _, m := range []*string{p.OpenAIModel, p.GeminiModel, p.OpenAICodeModel, p.GeminiCodeModel} {
		if m == nil {
			continue
		}
		*m = strings.TrimSpace(*m)
		if *m != "" && !modelName.MatchString(*m) {
			return PublicSettings{}, BadRequest("a model name is 1–128 letters, digits and . _ - : /")
		}
	}
	v, err := s.st.Update(func(v *settings.Values) {
		set := func(dst *string, src *string) {
			if src != nil {
				*dst = *src
			}
		}
		set(&v.Provider, p.Provider)
		set(&v.OpenAIKey, p.OpenAIKey)
		set(&v.OpenAIModel, p.OpenAIModel)
		set(&v.GeminiKey, p.GeminiKey)
		set(&v.GeminiModel, p.GeminiModel)
		set(&v.OpenAICodeModel, p.OpenAICodeModel)
		set(&v.GeminiCodeModel, p.GeminiCodeModel)
	})
	if err != nil {
		return PublicSettings{}, err
	}
	view := s.view(v)
	if s.bus != nil {
		s.bus.Publish(EventSettingsChanged, view)
	}
	return view, nil
}

var modelName = regexp.MustCompile(`^[A-Za-z0-9._:/-]{1,128}$`)

func (s *SettingsService) getenv(k string) string { return s.env(k) }

func (s *SettingsService) view(v settings.Values) PublicSettings {
	provider := v.Provider
	if provider == "" {
		provider = voice.ProviderOpenAI
	}
	one := func(key, env, model, def, code, defCode string) ProviderSettings {
		p := ProviderSettings{Key: "not set", Model: model, DefaultModel: def, CodeModel: code, DefaultCodeModel: defCode}
		switch {
		case strings.TrimSpace(key) != "":
			p.Key, p.KeySource = "set", "settings"
		case strings.TrimSpace(s.getenv(env)) != "":
			p.Key, p.KeySource = "set", "env"
		}
		return p
	}
	return PublicSettings{
		Provider: provider,
		OpenAI:   one(v.OpenAIKey, voice.EnvOpenAIKey, v.OpenAIModel, voice.DefaultOpenAIModel, v.OpenAICodeModel, codemodel.DefaultOpenAIModel),
		Gemini:   one(v.GeminiKey, voice.EnvGeminiKey, v.GeminiModel, voice.DefaultGeminiModel, v.GeminiCodeModel, codemodel.DefaultGeminiModel),
	}
}
