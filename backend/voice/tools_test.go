package voice

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/store"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

func mustTool(t *testing.T, decl string) *toolcontract.Tool {
	t.Helper()
	tl, ref := toolcontract.ValidateTool([]byte(decl))
	if ref != nil {
		t.Fatal(ref)
	}
	return tl
}

func TestToolsetMapping(t *testing.T) {
	score := mustTool(t, `{"name":"set_score","description":"Add points","parameters":{"type":"object","properties":{"team":{"type":"string","enum":["home","away"]},"points":{"type":"number"}},"required":["team","points"],"additionalProperties":false}}`)
	reset := mustTool(t, `{"name":"reset","description":"Reset","parameters":{"type":"object","properties":{}}}`)
	apps := []registry.App{
		{AppID: "app_scoreboard", Title: "Scoreboard", Slug: "scoreboard", Tools: []*toolcontract.Tool{score, reset}},
		{AppID: "app_timer", Title: "Timer", Slug: "timer", Tools: []*toolcontract.Tool{reset}},
	}
	for _, provider := range []string{ProviderOpenAI, ProviderGemini} {
		ts, err := BuildToolset(provider, apps)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]toolcontract.Exposed{
			"scoreboard__set_score": {AppID: "app_scoreboard", Tool: "set_score"},
			"scoreboard__reset":     {AppID: "app_scoreboard", Tool: "reset"},
			"timer__reset":          {AppID: "app_timer", Tool: "reset"},
		}
		for name, ex := range want {
			if ts.Names[name] != ex {
				t.Errorf("%s: %s maps to %+v", provider, name, ts.Names[name])
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
		if got := strings.Join(names[:len(names)-3], ","); got != wantNames {
			t.Errorf("%s verbs %s", provider, got)
		}
		// The same apps in another order declare the same thing.
		again, _ := BuildToolset(provider, []registry.App{apps[1], apps[0]})
		if len(again.Names) != len(ts.Names) {
			t.Errorf("%s: order changed the names", provider)
		}
		for n, e := range ts.Names {
			if again.Names[n] != e {
				t.Errorf("%s: %s moved", provider, n)
			}
		}
		none, _ := BuildToolset(provider, apps[:1])
		if none.Signature == ts.Signature {
			t.Errorf("%s: the signature did not change with the tools", provider)
		}
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
	d := &dispatcher{reg: registry.New(bus), lib: lib, caller: "voice:openai", provider: ProviderOpenAI, timeout: 100 * time.Millisecond}
	// The verb sleeps for an hour: only the dispatcher's own 100 ms bound can answer tool-timeout (the test's
	// deadline catches a dispatcher that waits for the verb instead).
	res := d.call(context.Background(), VerbSave, json.RawMessage(`{"ref":"slow"}`))
	if res.Refused != toolcontract.CodeToolTimeout {
		t.Fatalf("hung verb: %+v", res)
	}
	res = d.call(context.Background(), VerbSave, json.RawMessage(`{"ref":"big"}`))
	if res.Refused != toolcontract.CodeOutputOverBudget {
		t.Fatalf("over budget: %+v", res)
	}
	// Verbs are validated like tools; nothing runs on a refusal.
	res = d.call(context.Background(), VerbLaunch, json.RawMessage(`{"ref":""}`))
	if res.Refused != toolcontract.CodeInvalidArgumentLength || res.Path != "/ref" {
		t.Fatalf("empty ref: %+v", res)
	}
	res = d.call(context.Background(), VerbLaunch, json.RawMessage(`{"ref":"x","extra":1}`))
	if res.Refused == "" {
		t.Fatalf("extra key accepted: %+v", res)
	}
	// call_mini_app_tool is Gemini's only.
	res = d.call(context.Background(), VerbCallTool, json.RawMessage(`{"name":"a__b","arguments":"{}"}`))
	if res.Refused != toolcontract.CodeUnknownTool {
		t.Fatalf("OpenAI reached call_mini_app_tool: %+v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res = d.call(ctx, VerbSave, json.RawMessage(`{"ref":"slow"}`))
	if res.Refused != registry.CodeCancelled {
		t.Fatalf("cancelled: %+v", res)
	}
}

func TestModelJSON(t *testing.T) {
	okRes := callResult{registry.Outcome{OK: true, Result: json.RawMessage(`{"a":1}`)}}
	if string(okRes.modelJSON()) != `{"ok":true,"result":{"a":1}}` {
		t.Fatal(string(okRes.modelJSON()))
	}
	bad := refusal("invalid-argument-type", "/points", "points must be a number")
	if string(bad.modelJSON()) != `{"ok":false,"refused":"invalid-argument-type","path":"/points","message":"points must be a number"}` {
		t.Fatal(string(bad.modelJSON()))
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
	d := &dispatcher{reg: reg, lib: lib, caller: "voice:gemini", provider: ProviderGemini,
		activity: func(a registry.Activity) { bus.Publish(registry.EventActivity, a) }}
	res := d.call(context.Background(), VerbList, json.RawMessage(`{}`))
	var list struct {
		Open      []OpenApp      `json:"open"`
		Available []CatalogEntry `json:"available"`
	}
	if !res.OK || json.Unmarshal(res.Result, &list) != nil {
		t.Fatalf("%+v", res)
	}
	if len(list.Open) != 1 || list.Open[0].Tools[0].Name != "scoreboard__set_score" || len(list.Available) != 2 || list.Available[0].Kind != "app" {
		t.Fatalf("%s", res.Result)
	}
	res = d.call(context.Background(), VerbSave, json.RawMessage(`{"ref":"notes.html"}`))
	if !res.OK || !strings.Contains(string(res.Result), `"appId":"app_notes"`) || len(lib.saved) != 1 {
		t.Fatalf("save %+v", res)
	}
	res = d.call(context.Background(), VerbSave, json.RawMessage(`{"ref":"taken.html"}`))
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
	res = d.call(context.Background(), VerbCallTool, json.RawMessage(`{"name":"scoreboard__set_score","arguments":"{\"points\":\"x\"}"}`))
	if res.Refused != toolcontract.CodeInvalidArgumentType {
		t.Fatalf("%+v", res)
	}
	res = d.call(context.Background(), VerbCallTool, json.RawMessage(`{"name":"call_mini_app_tool","arguments":"{}"}`))
	if res.Refused == "" {
		t.Fatal("call_mini_app_tool called itself")
	}
}
