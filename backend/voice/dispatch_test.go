package voice

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/exposed"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/store"
	"github.com/voicebox/voicebox/backend/toolcontract"
	"github.com/voicebox/voicebox/backend/verbs"
)

// testDispatcher is the dispatcher a session on provider would have over reg.
func testDispatcher(bus *events.Bus, reg *registry.Registry, lib verbs.Library, provider string) *dispatcher {
	return newDispatcher(Config{Bus: bus, Registry: reg, Exposed: exposed.New(reg), Library: lib}, provider)
}

func register(t *testing.T, reg *registry.Registry, appID, slug string, decls ...string) {
	t.Helper()
	raws := make([]json.RawMessage, len(decls))
	for i, d := range decls {
		raws[i] = json.RawMessage(d)
	}
	verdicts, err := reg.Register("room", appID, strings.ToUpper(slug[:1])+slug[1:], slug, raws)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range verdicts {
		if !v.OK {
			t.Fatalf("%s refused: %+v", appID, v)
		}
	}
}

const (
	setScoreDecl = `{"name":"set_score","description":"Add points","parameters":{"type":"object","properties":{"team":{"type":"string","enum":["home","away"]},"points":{"type":"number"}},"required":["team","points"],"additionalProperties":false}}`
	resetDecl    = `{"name":"reset","description":"Reset","parameters":{"type":"object","properties":{}}}`
)

func TestToolsetMapping(t *testing.T) {
	for _, provider := range []string{ProviderOpenAI, ProviderGemini} {
		reg := registry.New(events.NewBus())
		register(t, reg, "app_scoreboard", "scoreboard", setScoreDecl, resetDecl)
		register(t, reg, "app_timer", "timer", resetDecl)
		snap := exposed.New(reg).Snapshot()
		ts, err := buildTools(provider, snap, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]toolcontract.Exposed{
			"scoreboard__set_score": {AppID: "app_scoreboard", Tool: "set_score"},
			"scoreboard__reset":     {AppID: "app_scoreboard", Tool: "reset"},
			"timer__reset":          {AppID: "app_timer", Tool: "reset"},
		}
		for name, ex := range want {
			if snap.Names[name] != ex {
				t.Errorf("%s: %s maps to %+v", provider, name, snap.Names[name])
			}
		}
		var names []string
		for _, d := range ts.Declarations {
			var m map[string]any
			if err := json.Unmarshal(d, &m); err != nil {
				t.Fatal(err)
			}
			names = append(names, m["name"].(string))
			if provider == ProviderOpenAI && m["type"] != "function" {
				t.Errorf("OpenAI declaration without type function: %s", d)
			}
			if provider == ProviderGemini {
				if _, has := m["type"]; has {
					t.Errorf("Gemini declarations have no type: %s", d)
				}
				if p, _ := m["parameters"].(map[string]any); p != nil {
					if p["type"] != "OBJECT" {
						t.Errorf("Gemini schema types are upper case: %s", d)
					}
					if _, has := p["additionalProperties"]; has {
						t.Errorf("Gemini has no additionalProperties: %s", d)
					}
				}
			}
		}
		wantNames := "launch_mini_app,list_mini_apps,close_mini_app,save_page_to_shelf"
		if provider == ProviderGemini {
			wantNames += ",call_mini_app_tool"
		}
		wantNames += ",create_mini_app,edit_mini_app,revert_mini_app"
		if got := strings.Join(names[:len(names)-3], ","); got != wantNames {
			t.Errorf("%s verbs %s", provider, got)
		}
		// The same apps registered in another order declare the same thing.
		other := registry.New(events.NewBus())
		register(t, other, "app_timer", "timer", resetDecl)
		register(t, other, "app_scoreboard", "scoreboard", setScoreDecl, resetDecl)
		again, _ := buildTools(provider, exposed.New(other).Snapshot(), nil)
		if again.Signature != ts.Signature {
			t.Errorf("%s: order changed the declarations", provider)
		}
		reg.Unregister("app_timer")
		fewer, _ := buildTools(provider, exposed.New(reg).Snapshot(), nil)
		if fewer.Signature == ts.Signature {
			t.Errorf("%s: the signature did not change with the tools", provider)
		}
	}
}

// The declarations are built once per registry change, not per call: calls and checks read the cache.
func TestToolsetBuiltOnlyOnRegistryChange(t *testing.T) {
	bus := events.NewBus()
	reg := registry.New(bus)
	register(t, reg, "app_scoreboard", "scoreboard", setScoreDecl)
	m := New(Config{Bus: bus, Registry: reg})
	s := newSession(m, ProviderOpenAI, "k", "ws://unused", nil)
	first, _ := s.toolset()
	for i := 0; i < 10; i++ {
		if ts, _ := s.toolset(); &ts.Declarations[0] != &first.Declarations[0] {
			t.Fatal("the declarations were built again without a registry change")
		}
		s.disp.call(context.Background(), "scoreboard__nope", json.RawMessage(`{}`))
	}
	if m.tools.builds != 1 {
		t.Fatalf("%d builds for one registry state", m.tools.builds)
	}
	register(t, reg, "app_timer", "timer", resetDecl)
	if ts, _ := s.toolset(); ts.Signature == first.Signature || m.tools.builds != 2 {
		t.Fatalf("after a registry change: %d builds", m.tools.builds)
	}
}

type slowLibrary struct{ entry store.Entry }

func (l *slowLibrary) List() []store.Entry { return []store.Entry{l.entry} }
func (l *slowLibrary) SaveRef(ref string) (store.Entry, error) {
	if ref == "slow" {
		time.Sleep(time.Hour)
	}
	return l.entry, nil
}

func TestDispatcherBounds(t *testing.T) {
	bus := events.NewBus()
	lib := &slowLibrary{entry: store.Entry{AppID: "app_x", Title: strings.Repeat("x", toolcontract.MaxOutputBytes+10), Kind: "app"}}
	d := testDispatcher(bus, registry.New(bus), lib, ProviderOpenAI)
	d.timeout = 100 * time.Millisecond
	// The verb sleeps for an hour: only the dispatcher's own 100 ms bound can answer tool-timeout (the test's
	// deadline catches a dispatcher that waits for the verb instead).
	res := d.call(context.Background(), verbs.Save, json.RawMessage(`{"ref":"slow"}`))
	if res.Refused != toolcontract.CodeToolTimeout {
		t.Fatalf("hung verb: %+v", res)
	}
	res = d.call(context.Background(), verbs.Save, json.RawMessage(`{"ref":"big"}`))
	if res.Refused != toolcontract.CodeOutputOverBudget {
		t.Fatalf("over budget: %+v", res)
	}
	// Verbs are validated like tools; nothing runs on a refusal.
	res = d.call(context.Background(), verbs.Launch, json.RawMessage(`{"ref":""}`))
	if res.Refused != toolcontract.CodeInvalidArgumentLength || res.Path != "/ref" {
		t.Fatalf("empty ref: %+v", res)
	}
	res = d.call(context.Background(), verbs.Launch, json.RawMessage(`{"ref":"x","extra":1}`))
	if res.Refused == "" {
		t.Fatalf("extra key accepted: %+v", res)
	}
	// call_mini_app_tool is Gemini's only.
	res = d.call(context.Background(), verbs.CallTool, json.RawMessage(`{"name":"a__b","arguments":"{}"}`))
	if res.Refused != toolcontract.CodeUnknownTool {
		t.Fatalf("OpenAI reached call_mini_app_tool: %+v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res = d.call(ctx, verbs.Save, json.RawMessage(`{"ref":"slow"}`))
	if res.Refused != toolcontract.CodeCancelled {
		t.Fatalf("cancelled: %+v", res)
	}
}

func TestAnswer(t *testing.T) {
	okRes := answer(registry.Outcome{OK: true, Result: json.RawMessage(`{"a":1}`)})
	if string(okRes.Answer()) != `{"ok":true,"result":{"a":1}}` {
		t.Fatal(string(okRes.Answer()))
	}
	if none := answer(registry.Outcome{OK: true}); string(none.Output) != "null" {
		t.Fatal(string(none.Output))
	}
	bad := answer(registry.Outcome{Refused: "invalid-argument-type", Path: "/points", Message: "points must be a number"})
	if string(bad.Answer()) != `{"ok":false,"refused":"invalid-argument-type","path":"/points","message":"points must be a number"}` {
		t.Fatal(string(bad.Answer()))
	}
	if noCode := answer(registry.Outcome{Message: "x"}); string(noCode.Refusal) != `{"ok":false,"refused":"tool-error","message":"x"}` {
		t.Fatal(string(noCode.Refusal))
	}
}

type shelfLibrary struct{ saved []string }

func (l *shelfLibrary) List() []store.Entry {
	return []store.Entry{{AppID: "page_notes", Title: "Notes", Slug: "notes", Kind: store.KindPage, FileName: "notes.html"},
		{AppID: "app_timer", Title: "Timer", Slug: "timer", Kind: store.KindApp, FileName: "timer.html"}}
}

func (l *shelfLibrary) SaveRef(ref string) (store.Entry, error) {
	if ref == "taken.html" {
		return store.Entry{}, &store.NameTakenError{Owner: store.Entry{AppID: "app_taken"}}
	}
	l.saved = append(l.saved, ref)
	return store.Entry{AppID: "app_notes", Title: "Notes", Kind: store.KindApp, FileName: "notes.html"}, nil
}

func TestVerbsListAndSave(t *testing.T) {
	bus := events.NewBus()
	ch, stop := bus.Subscribe(16)
	defer stop()
	lib := &shelfLibrary{}
	reg := registry.New(bus)
	score := `{"name":"set_score","description":"Add points","parameters":{"type":"object","properties":{"points":{"type":"number"}},"required":["points"]}}`
	if _, err := reg.Register("room", "app_scoreboard", "Scoreboard", "scoreboard", []json.RawMessage{json.RawMessage(score)}); err != nil {
		t.Fatal(err)
	}
	d := testDispatcher(bus, reg, lib, ProviderGemini)
	res := d.call(context.Background(), verbs.List, json.RawMessage(`{}`))
	var list struct {
		Open      []verbs.OpenApp[toolInfo] `json:"open"`
		Available []verbs.CatalogEntry      `json:"available"`
	}
	if !res.OK || json.Unmarshal(res.Result, &list) != nil {
		t.Fatalf("%+v", res)
	}
	if len(list.Open) != 1 || list.Open[0].Tools[0].Name != "scoreboard__set_score" || len(list.Available) != 2 || list.Available[0].Kind != "app" {
		t.Fatalf("%s", res.Result)
	}
	res = d.call(context.Background(), verbs.Save, json.RawMessage(`{"ref":"notes.html"}`))
	if !res.OK || !strings.Contains(string(res.Result), `"appId":"app_notes"`) || len(lib.saved) != 1 {
		t.Fatalf("save %+v", res)
	}
	res = d.call(context.Background(), verbs.Save, json.RawMessage(`{"ref":"taken.html"}`))
	if res.Refused != store.ErrNameTaken.Error() {
		t.Fatalf("taken %+v", res)
	}
	var ops []string
	for len(ops) < 3 {
		select {
		case ev := <-ch:
			if a, ok := ev.Data.(registry.Activity); ok {
				ops = append(ops, a.Op+":"+a.AppID+":"+a.Outcome.Refused)
			}
		case <-time.After(time.Second):
			t.Fatalf("activity %v", ops)
		}
	}
	if strings.Join(ops, ",") != "list::,save:app_notes:,save::"+store.ErrNameTaken.Error() {
		t.Fatalf("activity %v", ops)
	}
	// Through call_mini_app_tool (Gemini): validated like a direct call.
	res = d.call(context.Background(), verbs.CallTool, json.RawMessage(`{"name":"scoreboard__set_score","arguments":"{\"points\":\"x\"}"}`))
	if res.Refused != toolcontract.CodeInvalidArgumentType {
		t.Fatalf("%+v", res)
	}
	res = d.call(context.Background(), verbs.CallTool, json.RawMessage(`{"name":"call_mini_app_tool","arguments":"{}"}`))
	if res.Refused == "" {
		t.Fatal("call_mini_app_tool called itself")
	}
}
