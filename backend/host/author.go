package host

import (
	"os"
	"strings"

	"github.com/voicebox/voicebox/backend/author"
	"github.com/voicebox/voicebox/backend/author/codemodel"
	"github.com/voicebox/voicebox/backend/services"
)

// initAuthor prepares app writing: the workshop in the data folder (<data>/sandbox, the written apps' home,
// a sandbox root of the store), and the code model of the provider Settings name, asked at every build so a
// key or model saved in Settings applies to the next one. The key is the voice session's (Settings, else
// OPENAI_API_KEY / GEMINI_API_KEY); VOICEBOX_OPENAI_API_URL / VOICEBOX_GEMINI_API_URL replace the bases.
func (h *Host) initAuthor() error {
	ws, err := author.OpenWorkshop(h.Paths.Data)
	if err != nil {
		return err
	}
	h.Author = author.New(author.Config{
		Workshop: ws,
		Room:     h.Registry,
		Library:  h.Store,
		Model:    h.codeModel,
		CDNHosts: func() []string { return h.Settings.Get().CDNHostList() },
		Bus:      h.Bus,
	})
	h.AuthorService = services.NewAuthorService(h.Author)
	return nil
}

// codeModel is the code model of the provider Settings name, with its key.
func (h *Host) codeModel() (codemodel.Client, error) {
	v := h.Settings.Get()
	provider := v.Provider
	if provider == "" {
		provider = codemodel.ProviderOpenAI
	}
	model := v.OpenAICodeModel
	if provider == codemodel.ProviderGemini {
		model = v.GeminiCodeModel
	}
	key, _ := v.APIKey(provider, os.Getenv)
	return codemodel.New(codemodel.Config{Provider: provider, Key: key, Model: strings.TrimSpace(model)})
}
