// Package verbs is the one home of the host verbs: what a caller outside the room (the live voice session,
// an MCP client) can ask of the room itself, beside the open apps' tools. One table holds each verb's
// name, description, schema, the doors that declare it and its work; both doors loop over it, so they
// declare, refuse, launch, close, list and save alike. Each door only says how it shows an open app in its
// answers (Env.ShowApp).
//
// The package knows nothing of Wails, MCP or the voice providers' protocols: it works on the exposed tools
// (backend/exposed, over a registry.Registry) and a Library (the store).
package verbs

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/store"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// The verbs' names. None contains "__", so none can collide with an app tool's exposed name.
const (
	Launch = "launch_mini_app"
	List   = "list_mini_apps"
	Close  = "close_mini_app"
	Save   = "save_page_to_shelf"
	// CallTool reaches an app tool by its exposed name (Gemini Live only; see the table).
	CallTool = "call_mini_app_tool"
	// The assistant writes and changes apps (backend/author; docs/authoring.md).
	Create = "create_mini_app"
	Edit   = "edit_mini_app"
	Revert = "revert_mini_app"
	Write  = "write_mini_app" // MCP only: the client's own model wrote the page
)

// Op names in the activity log for the verbs the registry does not log itself.
const (
	OpList = "list"
	OpSave = "save"
)

// MaxCatalog bounds what list_mini_apps reports as launchable, keeping its answer well under the output
// budget.
const MaxCatalog = 200

// Args are the verbs' arguments (each verb uses some of them).
type Args struct {
	Ref         string `json:"ref"`
	AppID       string `json:"appId"`
	Name        string `json:"name"`
	Arguments   string `json:"arguments"`
	Description string `json:"description"`
	App         string `json:"app"`
	Change      string `json:"change"`
	HTML        string `json:"html"`
}

// Decode checks raw against the verb's declaration and reads it; no arguments at all stand for {}. When ok
// is false, refusal says why and nothing may run.
func Decode(v *toolcontract.Tool, raw json.RawMessage) (in Args, refusal registry.Outcome, ok bool) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		raw = json.RawMessage(`{}`)
	}
	if ref := v.ValidateArgs(raw); ref != nil {
		return Args{}, registry.Outcome{Refused: ref.Refused, Path: ref.Path, Message: ref.Message}, false
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return Args{}, registry.Outcome{Refused: toolcontract.CodeInvalidToolArguments, Message: err.Error()}, false
	}
	return in, registry.Outcome{}, true
}

// ResolveOpen finds an open app by id, then slug, then title (case-insensitive). An unknown reference
// passes through so the registry refuses it with its own code.
func ResolveOpen(apps []registry.App, ref string) string {
	for _, a := range apps {
		if a.AppID == ref {
			return a.AppID
		}
	}
	for _, a := range apps {
		if a.Slug != "" && strings.EqualFold(a.Slug, ref) {
			return a.AppID
		}
	}
	for _, a := range apps {
		if strings.EqualFold(a.Title, ref) {
			return a.AppID
		}
	}
	return ref
}

// CloseApp is close_mini_app: it resolves ref among the open apps and asks the registry (which logs it) to
// close that app. The answer is {"closed": appId}.
func CloseApp(ctx context.Context, reg *registry.Registry, caller, ref string) registry.Outcome {
	id := ResolveOpen(reg.Apps(), ref)
	out := reg.Close(ctx, caller, id)
	if out.OK {
		out.Result, _ = json.Marshal(map[string]string{"closed": id})
	}
	return out
}

// OpenApp is an open app as launch_mini_app and list_mini_apps report it; each door names the tools its
// own way (T).
type OpenApp[T any] struct {
	AppID string `json:"appId"`
	Title string `json:"title"`
	Slug  string `json:"slug,omitempty"`
	Tools []T    `json:"tools"`
}

// CatalogEntry is a mini-app or page that launch_mini_app can open.
type CatalogEntry struct {
	AppID    string `json:"appId"`
	Title    string `json:"title"`
	Slug     string `json:"slug,omitempty"`
	Kind     string `json:"kind,omitempty"`
	FileName string `json:"fileName,omitempty"`
}

// Catalog is what launch_mini_app can open: the shelf's apps first, then pages, each in the store's order,
// at most MaxCatalog of them. It is never nil.
func Catalog(entries []store.Entry) []CatalogEntry {
	apps, pages := []CatalogEntry{}, []CatalogEntry{}
	for _, e := range entries {
		c := CatalogEntry{AppID: e.AppID, Title: e.Title, Slug: e.Slug, Kind: string(e.Kind), FileName: e.FileName}
		if e.Kind == store.KindApp || e.Kind == "" {
			apps = append(apps, c)
		} else {
			pages = append(pages, c)
		}
	}
	out := append(apps, pages...)
	if len(out) > MaxCatalog {
		out = out[:MaxCatalog]
	}
	return out
}

// Listing is list_mini_apps' answer: the open apps as the door shows them (Env.ShowApp). (Available comes
// first so the JSON reads as it always has.)
type Listing struct {
	Available []CatalogEntry `json:"available"`
	Open      []any          `json:"open"`
}

// Library is what the verbs need from the store: the catalog and saving a page to the shelf.
type Library interface {
	List() []store.Entry
	SaveRef(ref string) (store.Entry, error)
}

// Saved is save_page_to_shelf's answer (its fields in the order the JSON has always had).
type Saved struct {
	AppID    string `json:"appId"`
	FileName string `json:"fileName"`
	Kind     string `json:"kind"`
	Title    string `json:"title"`
}

// SaveToShelf is save_page_to_shelf: it saves the page ref names to the shelf, where it becomes an app. The
// registry does not log saves, so it also returns the activity-log line for the caller to publish.
func SaveToShelf(lib Library, caller, ref string) (registry.Outcome, registry.Activity) {
	a := registry.Activity{Caller: caller, Op: OpSave, Ref: ref}
	if lib == nil {
		a.Outcome = registry.Outcome{Refused: toolcontract.CodeToolError, Message: "no store to save to"}
	} else if e, err := lib.SaveRef(ref); err != nil {
		a.Outcome = registry.Outcome{Refused: StoreCode(err), Message: err.Error()}
	} else {
		res, _ := json.Marshal(Saved{AppID: e.AppID, FileName: e.FileName, Kind: string(e.Kind), Title: e.Title})
		a.Outcome = registry.Outcome{OK: true, Result: res}
		a.AppID = e.AppID
	}
	return a.Outcome, a
}

// StoreCode is the store's own code for a refused save (mini-app-name-taken, mini-app-not-found, …), or
// tool-error for anything else.
func StoreCode(err error) string {
	for _, s := range []error{store.ErrNameTaken, store.ErrNotFound, store.ErrInvalidName, store.ErrOutsideRoot, store.ErrTooLarge, store.ErrFolderTooLarge, store.ErrUnsupportedFile} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return toolcontract.CodeToolError
}
