package services

import (
	"path/filepath"
	"strings"

	"github.com/voicebox/voicebox/backend/documents"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/store"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// StoreService is the room's door to the mini-app store: list, fetch, save to the shelf, delete.
type StoreService struct {
	store *store.Store
	docs  *documents.Table
}

// NewStoreService serves the given store; docs are the files the person opened (may be nil).
func NewStoreService(s *store.Store, docs *documents.Table) *StoreService {
	return &StoreService{store: s, docs: docs}
}

// AppList is the answer of List: {"apps": [...], "roots": [...]}.
type AppList struct {
	Apps  []store.Entry       `json:"apps"`
	Roots []store.ScannedRoot `json:"roots"` // the folders the store walks, and how deep (the tray says so)
}

// List returns every discovered entry, apps and pages, without their HTML, and the folders it walks.
func (s *StoreService) List() (AppList, error) {
	apps := s.store.List()
	if apps == nil {
		apps = []store.Entry{}
	}
	return AppList{Apps: apps, Roots: s.store.Scanned()}, nil
}

// Get resolves a reference (name, file, slug, appId or title) and returns that entry with its HTML.
func (s *StoreService) Get(ref string) (store.Entry, error) {
	if blank(ref) {
		return store.Entry{}, BadRequest("a reference is required")
	}
	return s.store.Get(ref)
}

// Removed is the answer of Delete: the paths it moved to the trash, where each went, and the token that
// undoes it (Restore).
type Removed struct {
	ID      string   `json:"id"`
	Removed []string `json:"removed"`
	Trashed []string `json:"trashed"`
	Undo    string   `json:"undo"`
}

// Delete moves what the entry owns, and nothing else, to the trash (docs/trash.md). The id resolves as a
// reference does (store.Resolve: DELETE ?id=collision.html means the app), so an exact appId always names
// exactly one entry.
func (s *StoreService) Delete(id string) (Removed, error) {
	if blank(id) {
		return Removed{}, BadRequest("an id is required")
	}
	d, err := s.store.DeleteRef(id)
	if err != nil {
		return Removed{}, err
	}
	return Removed{ID: id, Removed: d.Removed, Trashed: d.Trashed, Undo: d.Undo}, nil
}

// RestoreRequest names the delete to undo by the token Delete answered.
type RestoreRequest struct {
	Undo string `json:"undo"`
}

// Restored is the answer of Restore: the paths back in their places.
type Restored struct {
	Restored []string `json:"restored"`
}

// Restore undoes a delete: everything it moved to the trash comes back, or nothing does (refused
// restore-path-taken when an original path is in use again).
func (s *StoreService) Restore(req RestoreRequest) (Restored, error) {
	if blank(req.Undo) {
		return Restored{}, BadRequest(`"undo" is required`)
	}
	paths, err := s.store.Restore(req.Undo)
	if err != nil {
		return Restored{}, err
	}
	return Restored{Restored: paths}, nil
}

// SaveRequest names what to save to the shelf: a workspace file or entry (Ref), HTML under a shelf name
// (Name and HTML), or a document the person opened (Document).
type SaveRequest struct {
	Ref      string `json:"ref,omitempty"`
	Name     string `json:"name,omitempty"`
	HTML     string `json:"html,omitempty"`
	Document string `json:"document,omitempty"`
}

// Save writes a page to the shelf (promoting it to an app) or updates an app the caller owns.
func (s *StoreService) Save(req SaveRequest) (store.Entry, error) {
	switch {
	case !blank(req.Ref) && blank(req.Name) && req.HTML == "" && blank(req.Document):
		return s.store.SaveRef(req.Ref)
	case !blank(req.Name) && blank(req.Ref) && blank(req.Document):
		return s.store.SaveHTML(req.Name, req.HTML)
	case !blank(req.Document) && blank(req.Ref) && req.HTML == "":
		return s.saveDocument(req.Document, req.Name)
	}
	return store.Entry{}, BadRequest(`give "ref", or "name" and "html", or "document"`)
}

// saveDocument saves an opened file: through the store when it lies in the workspace (so the shelf
// record proves the workspace file), else with its folder when it owns one (store.DocumentFolder: the
// same rule as its launch), else as HTML under its own name or the one given.
func (s *StoreService) saveDocument(id, name string) (store.Entry, error) {
	if s.docs == nil {
		return store.Entry{}, documents.ErrNotFound
	}
	d, err := s.docs.Read(id)
	if err != nil {
		return store.Entry{}, err
	}
	if rel, ok := workspaceRel(s.store.Workspace(), d.Path); ok && blank(name) {
		return s.store.SaveRef(rel)
	}
	if folder, err := s.store.DocumentFolder(d.Path, d.Folder); err == nil && folder != nil {
		// An opened index.html that owns its folder is saved with its folder, named after it.
		defer folder.Close()
		if blank(name) {
			name = filepath.Base(folder.Path())
		}
		return s.store.SaveFolder(name, folder)
	}
	if blank(name) {
		name = d.Name
	}
	return s.store.SaveHTML(name, d.Content)
}

// workspaceRel gives path relative to the workspace when it lies inside it; the store checks it again.
func workspaceRel(workspace, path string) (string, bool) {
	rel, err := filepath.Rel(workspace, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// FileContent is a workspace file read for the File Viewer.
type FileContent struct {
	Path      string `json:"path"`
	Content   string `json:"content"`
	SizeBytes int    `json:"sizeBytes"`
}

// ReadFile reads a file inside the workspace, by its path relative to the workspace.
func (s *StoreService) ReadFile(rel string) (FileContent, error) {
	if blank(rel) {
		return FileContent{}, BadRequest("a path is required")
	}
	b, err := s.store.ReadWorkspaceFile(rel)
	if err != nil {
		return FileContent{}, err
	}
	return FileContent{Path: rel, Content: string(b), SizeBytes: len(b)}, nil
}

// DocumentService lets the room read the files the person opened, and only those.
type DocumentService struct{ docs *documents.Table }

// NewDocumentService serves the given table.
func NewDocumentService(t *documents.Table) *DocumentService { return &DocumentService{docs: t} }

// List returns the opened documents without content.
func (d *DocumentService) List() ([]documents.Doc, error) { return d.docs.List(), nil }

// Read returns one opened document with its content.
func (d *DocumentService) Read(id string) (documents.Doc, error) {
	if blank(id) {
		return documents.Doc{}, BadRequest("an id is required")
	}
	return d.docs.Read(id)
}

// RoomConfig tells the room page where it runs.
type RoomConfig struct {
	Mode         string `json:"mode"` // "serve" or "desktop"
	Workspace    string `json:"workspace"`
	BridgeOrigin string `json:"bridgeOrigin,omitempty"`
	Guard        bool   `json:"guard"`                  // mini-app frames are safe to create here
	GuardMessage string `json:"guardMessage,omitempty"` // why they are not, when Guard is false
	// UnsafeNoGuard: the desktop guard was switched off for a test (VOICEBOX_UNSAFE_NO_GUARD=1) and Guard
	// is true anyway, so the room shows a loud warning and skips its own checks of the guard.
	UnsafeNoGuard bool   `json:"unsafeNoGuard,omitempty"`
	Limits        Limits `json:"limits"`
	// LayoutProbe: the desktop's layout test asked the room to report its layout (VOICEBOX_LAYOUT_PROBE).
	LayoutProbe bool `json:"layoutProbe,omitempty"`
}

// Limits are the bounds the room applies to what it runs itself (its own launches, and calls through
// window.voicebox.callTool, which no Go caller times), read from their Go owners so the room never says a
// bound twice.
type Limits struct {
	CallTimeoutMs   int64 `json:"callTimeoutMs"`   // toolcontract.CallTimeout
	LaunchTimeoutMs int64 `json:"launchTimeoutMs"` // registry.LaunchTimeout
}

// NewRoomConfig is the configuration of a room page in mode ("serve" or "desktop"); the desktop adds its
// guard's fields.
func NewRoomConfig(mode, workspace, bridgeOrigin string) RoomConfig {
	return RoomConfig{Mode: mode, Workspace: workspace, BridgeOrigin: bridgeOrigin, Limits: Limits{
		CallTimeoutMs:   toolcontract.CallTimeout.Milliseconds(),
		LaunchTimeoutMs: registry.LaunchTimeout.Milliseconds(),
	}}
}
