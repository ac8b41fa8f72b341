// Package host assembles one running Voicebox from its parts (store, opened documents, event bus and the
// services the room calls). The desktop (app.go) and `voicebox serve` (Serve) both start from a Host, so
// they behave the same; only the door to the room differs.
package host

import (
	"context"
	"fmt"
	"log"

	"github.com/voicebox/voicebox/backend/config"
	"github.com/voicebox/voicebox/backend/documents"
	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/backend/store"
)

// Host is one running Voicebox without its window.
type Host struct {
	Paths     config.Paths
	Store     *store.Store
	Documents *documents.Table
	Bus       *events.Bus

	StoreService    *services.StoreService
	DocumentService *services.DocumentService
}

// New prepares the folders (created on first run) and scans the store once.
func New(p config.Paths) (*Host, error) {
	if err := p.Prepare(); err != nil {
		return nil, err
	}
	st, err := store.Open(store.Roots{Workspace: p.Workspace, Data: p.Data, SandboxRoots: p.SandboxRoots})
	if err != nil {
		return nil, fmt.Errorf("open the store: %w", err)
	}
	docs := documents.NewTable()
	return &Host{
		Paths:           p,
		Store:           st,
		Documents:       docs,
		Bus:             events.NewBus(),
		StoreService:    services.NewStoreService(st, docs),
		DocumentService: services.NewDocumentService(docs),
	}, nil
}

// Start watches the store and tells the room whenever the list changes. It returns once watching.
func (h *Host) Start(ctx context.Context) error {
	if err := h.Store.Watch(ctx); err != nil {
		return fmt.Errorf("watch the store: %w", err)
	}
	changes, cancel := h.Store.Subscribe()
	go func() {
		defer cancel()
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-changes:
				if !ok {
					return
				}
				h.Bus.Publish(events.StoreChanged, nil)
			}
		}
	}()
	return nil
}

// OpenFiles adds files the person opened and tells the room. Refusals go to the room as notices.
func (h *Host) OpenFiles(dir string, paths []string) []documents.Doc {
	docs, errs := h.Documents.Open(dir, paths)
	for _, err := range errs {
		h.Bus.Publish(events.Notice, map[string]string{"level": "error", "message": err.Error()})
	}
	for _, d := range docs {
		log.Printf("opened %s", d.Path)
	}
	if len(docs) > 0 {
		h.Bus.Publish(events.OpenFiles, docs)
	}
	return docs
}
