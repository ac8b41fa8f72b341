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
	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/mcpserver"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/sandbox"
	"github.com/voicebox/voicebox/backend/services"
	"github.com/voicebox/voicebox/backend/settings"
	"github.com/voicebox/voicebox/backend/store"
	"github.com/voicebox/voicebox/backend/voice"
)

// Host is one running Voicebox without its window.
type Host struct {
	Paths     config.Paths
	Store     *store.Store
	Documents *documents.Table
	Bus       *events.Bus

	StoreService    *services.StoreService
	DocumentService *services.DocumentService

	// Registry mirrors the room's open mini-apps for callers outside the room (voice, MCP).
	Registry *registry.Registry
	// Exposed names the open apps' tools for both of those doors, so a tool has one name whoever calls it.
	Exposed *exposed.Table
	// Sandbox is the mini-apps' asset server (nil until StartSandbox).
	Sandbox         *sandbox.Server
	RegistryService *services.RegistryService
	SandboxService  *services.SandboxService

	// Settings is this run's one settings file (the Settings dialog, the voice keys, the MCP switch and token).
	Settings *settings.Store
	// MCP runs the MCP door as Settings › MCP (or --mcp) says; MCPService is the room's door to it.
	MCP        *mcpserver.Manager
	MCPService *services.MCPService

	// Voice is the live voice session (OpenAI Realtime or Gemini Live); the keys stay in Go.
	Voice           *voice.Manager
	SessionService  *services.SessionService
	SettingsService *services.SettingsService
}

// New prepares the folders (created on first run) and scans the store once.
func New(p config.Paths) (*Host, error) {
	if err := p.Prepare(); err != nil {
		return nil, err
	}
	st, err := store.Open(store.Roots{Workspace: p.Workspace, Data: p.Data, SandboxRoots: p.SandboxRoots, Trash: p.Trash})
	if err != nil {
		return nil, fmt.Errorf("open the store: %w", err)
	}
	docs := documents.NewTable()
	bus := events.NewBus()
	reg := registry.New(bus)
	prefs, err := settings.Open(p.Data)
	if err != nil {
		return nil, err
	}
	h := &Host{
		Settings:        prefs,
		Paths:           p,
		Store:           st,
		Documents:       docs,
		Bus:             bus,
		StoreService:    services.NewStoreService(st, docs),
		DocumentService: services.NewDocumentService(docs),
		Registry:        reg,
		Exposed:         exposed.New(reg),
		RegistryService: services.NewRegistryService(reg, nil),
		SandboxService:  services.NewSandboxService(nil, st, docs),
	}
	h.initMCP()
	h.initVoice()
	return h, nil
}

// Start watches the store and tells the room whenever the list changes. It returns once watching.
func (h *Host) Start(ctx context.Context) error {
	if err := h.Store.Watch(ctx); err != nil {
		return fmt.Errorf("watch the store: %w", err)
	}
	go func() { <-ctx.Done(); h.Voice.Close() }()
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

// StartSandbox opens the mini-apps' asset server for a room at roomOrigin, on hostname ("127.0.0.1" beside
// the desktop's wails://wails, "localhost" beside a room served on 127.0.0.1: a different site), and points
// the room's services at it. It serves until ctx ends. The CDN hosts an app may load from are read from the
// Host's one settings store at every launch, so a change in Settings applies to the next app opened.
func (h *Host) StartSandbox(ctx context.Context, hostname, roomOrigin string) error {
	prefs := h.Settings
	sb, err := sandbox.Listen(sandbox.Options{
		Hostname:   hostname,
		RoomOrigin: roomOrigin,
		CDNHosts: func() []string {
			if prefs == nil {
				return append([]string(nil), settings.DefaultCDNHosts...)
			}
			return prefs.Get().CDNHostList()
		},
	})
	if err != nil {
		return err
	}
	go func() {
		if err := sb.Serve(); err != nil {
			log.Printf("sandbox: %v", err)
		}
	}()
	go func() { <-ctx.Done(); sb.Close() }()
	h.Sandbox = sb
	h.RegistryService = services.NewRegistryService(h.Registry, sb)
	h.SandboxService = services.NewSandboxService(sb, h.Store, h.Documents)
	return nil
}

// BridgeOrigin is the sandbox's origin ("" before StartSandbox).
func (h *Host) BridgeOrigin() string {
	if h.Sandbox == nil {
		return ""
	}
	return h.Sandbox.Origin()
}
