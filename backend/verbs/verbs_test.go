package verbs

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/store"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

func TestDecode(t *testing.T) {
	v := Lookup(Launch, Voice).Tool
	if in, _, ok := Decode(v, json.RawMessage(`{"ref":"timer"}`)); !ok || in.Ref != "timer" {
		t.Fatalf("good args: %+v %v", in, ok)
	}
	for raw, code := range map[string]string{
		``:                  toolcontract.CodeMissingArgument, // no arguments stand for {}
		`  `:                toolcontract.CodeMissingArgument,
		`{"ref":""}`:        toolcontract.CodeInvalidArgumentLength,
		`{"ref":7}`:         toolcontract.CodeInvalidArgumentType,
		`{"ref":"x","y":1}`: "",
		`[1]`:               toolcontract.CodeInvalidToolArguments,
	} {
		_, out, ok := Decode(v, json.RawMessage(raw))
		if ok || out.OK || out.Refused == "" || (code != "" && out.Refused != code) {
			t.Errorf("%q: %+v %v, want refused %s", raw, out, ok, code)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a verb declaration the tool contract refuses was accepted")
		}
	}()
	declare("bad", "", Voice, `{"type":"string"}`, "", nil)
}

func TestResolveOpen(t *testing.T) {
	apps := []registry.App{
		{AppID: "app_b", Title: "Timer", Slug: "clock"},
		{AppID: "app_a", Title: "Clock", Slug: "timer"},
	}
	for ref, want := range map[string]string{"app_a": "app_a", "TIMER": "app_a", "clock": "app_b", "Clock": "app_b", "nope": "nope"} {
		if got := ResolveOpen(apps, ref); got != want {
			t.Errorf("%s: %s, want %s (id, then slug, then title)", ref, got, want)
		}
	}
}

func TestCatalog(t *testing.T) {
	if c := Catalog(nil); c == nil || len(c) != 0 {
		t.Fatalf("empty catalog: %#v", c)
	}
	var entries []store.Entry
	for i := range MaxCatalog + 10 {
		entries = append(entries, store.Entry{AppID: fmt.Sprintf("page_%d", i), Kind: store.KindPage})
	}
	entries = append(entries, store.Entry{AppID: "app_timer", Title: "Timer", Slug: "timer", Kind: store.KindApp, FileName: "timer.html"})
	c := Catalog(entries)
	if len(c) != MaxCatalog || c[0] != (CatalogEntry{AppID: "app_timer", Title: "Timer", Slug: "timer", Kind: "app", FileName: "timer.html"}) || c[1].AppID != "page_0" {
		t.Fatalf("apps first, then pages, at most %d: %d entries, first %+v %+v", MaxCatalog, len(c), c[0], c[1])
	}
}

type lib struct{ err error }

func (l lib) List() []store.Entry { return nil }
func (l lib) SaveRef(ref string) (store.Entry, error) {
	return store.Entry{AppID: "app_" + ref, Title: "T", Kind: store.KindApp, FileName: ref + ".html"}, l.err
}

func TestSaveToShelf(t *testing.T) {
	out, a := SaveToShelf(lib{}, "voice:openai", "notes")
	if !out.OK || string(out.Result) != `{"appId":"app_notes","fileName":"notes.html","kind":"app","title":"T"}` {
		t.Fatalf("%+v %s", out, out.Result)
	}
	if a.Caller != "voice:openai" || a.Op != OpSave || a.Ref != "notes" || a.AppID != "app_notes" || !a.Outcome.OK {
		t.Fatalf("activity %+v", a)
	}
	out, a = SaveToShelf(lib{err: fmt.Errorf("wrapped: %w", store.ErrNameTaken)}, "c", "x")
	if out.Refused != store.ErrNameTaken.Error() || a.AppID != "" || a.Outcome.Refused != out.Refused {
		t.Fatalf("%+v %+v", out, a)
	}
	if out, _ = SaveToShelf(nil, "c", "x"); out.Refused != toolcontract.CodeToolError {
		t.Fatalf("no library: %+v", out)
	}
	for _, code := range []error{store.ErrFolderTooLarge, store.ErrUnsupportedFile} {
		if got := StoreCode(fmt.Errorf("%w: pizza", code)); got != code.Error() {
			t.Errorf("StoreCode(%v) = %s", code, got)
		}
	}
	if StoreCode(errors.New("disk on fire")) != toolcontract.CodeToolError {
		t.Fatal("an unknown error keeps tool-error")
	}
}

// One table, looped over by both doors: each declares the verbs meant for it, in one order.
func TestTableDoors(t *testing.T) {
	names := func(d Doors) string {
		var out []string
		for _, v := range For(d) {
			out = append(out, v.Name())
		}
		return strings.Join(out, ",")
	}
	for door, want := range map[Doors]string{
		MCP:         "launch_mini_app,list_mini_apps,close_mini_app,create_mini_app,edit_mini_app,revert_mini_app,write_mini_app",
		VoiceOpenAI: "launch_mini_app,list_mini_apps,close_mini_app,save_page_to_shelf,create_mini_app,edit_mini_app,revert_mini_app",
		VoiceGemini: "launch_mini_app,list_mini_apps,close_mini_app,save_page_to_shelf,call_mini_app_tool,create_mini_app,edit_mini_app,revert_mini_app",
	} {
		if got := names(door); got != want {
			t.Errorf("door %d declares %s, want %s", door, got, want)
		}
	}
	for _, v := range table() {
		if strings.Contains(v.Name(), "__") || v.Title == "" || v.Tool.Description == "" || !Is(v.Name()) {
			t.Errorf("verb %+v", v)
		}
	}
	if Lookup(CallTool, VoiceOpenAI) != nil || Lookup(Save, MCP) != nil || Is("scoreboard__set_score") {
		t.Error("a door reaches a verb it does not declare")
	}
}
