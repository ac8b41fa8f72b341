// Package host assembles one running Voicebox from its parts (store, opened documents, event bus, the
// mini-apps' asset server and the services the room calls), each built once in New. The desktop (app.go)
// and `voicebox serve` (Serve) both start from a Host, so they behave the same; only the door to the room
// differs.
package host

import (
	"context"
	"fmt"
	"log"

	"github.com/voicebox/voicebox/backend/activity"
	"github.com/voicebox/voicebox/backend/author"
	"github.com/voicebox/voicebox/backend/config"
	"github.com/voicebox/voicebox/backend/documents"
	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/mcpclient"
	"github.com/voicebox/voicebox/backend/mcpserver"
	"github.com/voicebox/voicebox/backend/recent"
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
	// Recent remembers the store's apps that ran lately and their tools (the tray's recent list).
	Recent        *recent.List
	RecentService *services.RecentService

	// Activity is the activity log (every "activity" event is stamped into it); ActivityService its door.
	Activity        *activity.Log
	ActivityService *services.ActivityService

	// Registry mirrors the room's open mini-apps for callers outside the room (voice, MCP).
	Registry *registry.Registry
	// Exposed names the open apps' tools for both of those doors, so a tool has one name whoever calls it.
	Exposed *exposed.Table
	// Sandbox is the mini-apps' asset server: listening from New, answering from Start.
	Sandbox         *sandbox.Server
	RegistryService *services.RegistryService
	SandboxService  *services.SandboxService

	// Settings is this run's one settings file (the Settings dialog, the voice keys, the MCP switch and token).
	Settings *settings.Store
	// MCP runs the MCP door as Settings › MCP (or --mcp) says; MCPService is the room's door to it.
	MCP        *mcpserver.Manager
	MCPService *services.MCPService

	// Author writes and changes mini-apps with the code model Settings name (the create/edit verbs, the
	// room's New app field); AuthorService is the room's door to it.
	Author        *author.Service
	AuthorService *services.AuthorService

	// Servers are the person's MCP servers (<data>/mcp-servers.json), started from Start; their tools reach
	// the voice. MCPServersService is the room's door to them.
	Servers           *mcpclient.Manager
	MCPServersService *services.MCPServersService

	// Voice is the live voice session (OpenAI Realtime or Gemini Live); the keys stay in Go.
	Voice           *voice.Manager
	SessionService  *services.SessionService
	SettingsService *services.SettingsService
}

// Options say where the mini-apps' asset server listens and which room page may frame it.
type Options struct {
	// SandboxHost is the bridge's host name: "127.0.0.1" beside the desktop's wails://wails, the other
	// loopback name than the room's beside a room served over HTTP (a different site: ServeOptions).
	SandboxHost string
	RoomOrigin  string
	// BlobNavigationDownloads: the desktop's guard makes the app frame's blob: navigation a download
	// (sandbox.Options.BlobNavigationDownloads).
	BlobNavigationDownloads bool
	// SitePerLaunch gives every launch a loopback address of its own, never RoomAddress (the room's):
	// docs/sandbox.md, "A site per launch".
	SitePerLaunch bool
	RoomAddress   string
	// Version is Voicebox's, as its MCP client tells the person's servers (clientInfo).
	Version string
}

// New prepares the folders (created on first run), starts the store's first scan (the store's reads wait
// for it: a window can show meanwhile), opens the asset server and builds every service the room calls.
// Close releases what Start did not start.
func New(p config.Paths, o Options) (*Host, error) {
	if err := p.Prepare(); err != nil {
		return nil, err
	}
	st, err := store.OpenInBackground(store.Roots{Workspace: p.Workspace, Data: p.Data, SandboxRoots: p.SandboxRoots, Trash: p.Trash})
	if err != nil {
		return nil, fmt.Errorf("open the store: %w", err)
	}
	prefs, err := settings.Open(p.Data)
	if err != nil {
		return nil, err
	}
	// The CDN hosts an app may load from are read from the one settings store at every launch, so a change
	// in Settings applies to the next app opened.
	sb, err := sandbox.Listen(sandbox.Options{Hostname: o.SandboxHost, RoomOrigin: o.RoomOrigin,
		SitePerLaunch: o.SitePerLaunch, RoomAddress: o.RoomAddress, BlobNavigationDownloads: o.BlobNavigationDownloads,
		CDNHosts: func() []string {
			return prefs.Get().CDNHostList()
		}})
	if err != nil {
		return nil, err
	}
	recents, err := recent.Open(p.Data)
	if err != nil {
		log.Print(err) // the list starts empty; the next app that opens rewrites the file
	}
	docs := documents.NewTable()
	bus := events.NewBus()
	// The state notices: each carries (or makes the room re-read) the whole state, so the newest suffices.
	bus.Latest(events.StoreChanged, events.RecentChanged, registry.EventChanged, services.EventSettingsChanged, mcpserver.EventStatus, voice.EventState,
		author.EventJobs, services.EventServers)
	log := activity.On(bus)
	reg := registry.New(bus)
	exp := exposed.New(reg)
	h := &Host{
		Activity:        log,
		ActivityService: services.NewActivityService(log, bus),
		Settings:        prefs,
		Paths:           p,
		Store:           st,
		Documents:       docs,
		Bus:             bus,
		StoreService:    services.NewStoreService(st, docs),
		DocumentService: services.NewDocumentService(docs),
		Recent:          recents,
		RecentService:   services.NewRecentService(recents, st),
		Registry:        reg,
		Exposed:         exp,
		Sandbox:         sb,
		RegistryService: services.NewRegistryService(exp, sb),
		SandboxService:  services.NewSandboxService(sb, st, docs),
	}
	if err := h.initAuthor(); err != nil {
		sb.Close()
		return nil, err
	}
	h.Servers = mcpclient.New(mcpclient.Options{DataDir: p.Data, Version: o.Version})
	h.MCPServersService = services.NewMCPServersService(h.Servers, bus)
	h.initMCP()
	h.initVoice()
	return h, nil
}

// RoomMethods are the services the room calls, the one list both doors serve: the desktop binds them
// (with its own RoomService of dialogs), `voicebox serve` serves them by name (httpapi.CallPrefix).
func (h *Host) RoomMethods() []any {
	return []any{h.StoreService, h.DocumentService, h.RecentService, h.RegistryService, h.SandboxService, h.MCPService, h.SessionService, h.SettingsService, h.ActivityService, h.AuthorService, h.MCPServersService}
}

// Start serves the asset server, watches the store and tells the room whenever the list changes, until
// ctx ends. It returns once watching (after the store's first scan: the asset server answers meanwhile).
func (h *Host) Start(ctx context.Context) error {
	go func() {
		if err := h.Sandbox.Serve(); err != nil {
			log.Printf("sandbox: %v", err)
		}
	}()
	if err := h.Store.Watch(ctx); err != nil {
		return fmt.Errorf("watch the store: %w", err)
	}
	go func() { <-ctx.Done(); h.Sandbox.Close() }()
	go func() { <-ctx.Done(); h.Voice.Close() }()
	go func() { <-ctx.Done(); h.Author.Close() }() // builds in progress are cancelled: nothing half-written stays
	// The person's MCP servers start now (only the list starts them), and stop with Voicebox.
	h.Servers.Start()
	h.MCPServersService.Follow(ctx)
	go func() { <-ctx.Done(); h.Servers.Close() }()
	known := func(id string) bool { _, ok := services.Known(h.Store, id); return ok }
	h.Recent.Follow(ctx, h.Exposed, known, func() { h.Bus.Publish(events.RecentChanged, nil) }, log.Printf)
	changes, cancel := h.Store.Subscribe()
	go func() {
		defer cancel()
		events.Follow(ctx, changes, func(struct{}) bool {
			h.Bus.Publish(events.StoreChanged, nil)
			return true
		})
	}()
	return nil
}

// OpenFiles adds files the person opened and tells the room. Refusals go to the room as notices.
func (h *Host) OpenFiles(dir string, paths []string) []documents.Doc {
	docs, errs := h.Documents.Open(dir, paths)
	for _, err := range errs {
		h.Bus.Publish(events.Notice, services.ErrorNotice(err))
	}
	for _, d := range docs {
		log.Printf("opened %s", d.Path)
	}
	if len(docs) > 0 {
		h.Bus.Publish(events.OpenFiles, docs)
	}
	return docs
}

// BridgeOrigin is the sandbox's origin.
func (h *Host) BridgeOrigin() string { return h.Sandbox.Origin() }

// Close stops the asset server and the builds (Start stops them too, when its context ends).
func (h *Host) Close() {
	h.Author.Close()
	h.Servers.Close()
	h.Sandbox.Close()
}
