// Package authortest builds an author.Service for other packages' tests (the voice session's, the MCP
// door's): a real store and workshop in a t.TempDir data folder, and the OpenAI code model's fake
// (codemodeltest), over the room the test gives (the registry, answered by registrytest's room double).
package authortest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/author"
	"github.com/voicebox/voicebox/backend/author/codemodel"
	"github.com/voicebox/voicebox/backend/author/codemodel/codemodeltest"
	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/store"
)

// New returns a Service that writes into a fresh data folder and asks the returned fake, with key, for its
// code; its check waits 10 ms (a room double reports everything at once). It is closed when the test ends.
func New(t testing.TB, room author.Room, bus *events.Bus, key string) (*author.Service, *codemodeltest.Server) {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(store.Roots{Data: data})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := author.OpenWorkshop(data)
	if err != nil {
		t.Fatal(err)
	}
	code := codemodeltest.NewOpenAI(t)
	a := author.New(author.Config{Workshop: ws, Room: room, Library: st, Bus: bus, CheckWindow: 10 * time.Millisecond,
		Model: func() (codemodel.Client, error) {
			return codemodel.New(codemodel.Config{Provider: codemodel.ProviderOpenAI, Key: key, BaseURL: code.URL})
		}})
	t.Cleanup(a.Close)
	return a, code
}
