package services

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/sandbox"
	"github.com/voicebox/voicebox/backend/store"
)

// Pages opened from outside the store are named by the store's one slug and title rule (issue 12 §3):
// ".htm" is not a suffix it drops, entities are decoded, and a long title is cut on a character boundary.
func TestPrepareNamesPagesAsTheStoreDoes(t *testing.T) {
	sb := sandbox.New(sandbox.Options{RoomOrigin: "http://127.0.0.1:1"}, "localhost:2")
	s := NewSandboxService(sb, nil, nil)
	long := strings.Repeat("é", 300)
	for _, c := range []struct{ name, html, slug, title string }{
		{"x.htm", "<title>A &amp; B</title>", "x-htm", "A & B"},
		{"My Game.html", "<p>no title", "my-game", "My Game"},
		{"日本.html", "<title>" + long + "</title>", store.SlugOf("日本.html"), ""},
	} {
		info, err := s.Prepare(LaunchRequest{HTML: c.html, Name: c.name})
		if err != nil {
			t.Fatal(err)
		}
		if info.Slug != c.slug || info.AppID != "local_"+c.slug || c.title != "" && info.Title != c.title {
			t.Errorf("%s: slug %q, id %q, title %q", c.name, info.Slug, info.AppID, info.Title)
		}
		if !utf8.ValidString(info.Title) || info.Title != store.TitleOf(c.html, c.name) {
			t.Errorf("%s: title %q is not the store's", c.name, info.Title)
		}
	}
}

func TestRegistryService(t *testing.T) {
	reg := registry.New(events.NewBus())
	sb := sandbox.New(sandbox.Options{RoomOrigin: "http://127.0.0.1:1"}, "localhost:2")
	s := NewRegistryService(reg, sb)
	if err := s.Hello(""); err == nil {
		t.Error("empty room accepted")
	}
	if _, err := s.Register("r", "", "", "", nil); err == nil {
		t.Error("empty appId accepted")
	}
	v, err := s.Register("r", "app_a", "A", "a", []json.RawMessage{
		json.RawMessage(`{"name":"t","description":"","parameters":{"type":"object"}}`),
		json.RawMessage(`{"name":"t","description":"","parameters":{"type":"object"}}`),
	})
	if err != nil || len(v) != 2 || !v[0].OK || v[1].Refused != "duplicate-tool" {
		t.Fatalf("verdicts %+v %v", v, err)
	}
	l := sb.Add(sandbox.Launch{Room: "r", AppID: "app_a"})
	if err := s.Goodbye("r"); err != nil {
		t.Fatal(err)
	}
	if apps, _ := s.Apps(); len(apps) != 0 {
		t.Errorf("apps after goodbye: %+v", apps)
	}
	if _, ok := sb.Lookup(l.Token); ok {
		t.Error("token survived goodbye")
	}
	if o, _ := s.Call("app_a", "t", nil); o.Refused != "unknown-tool" {
		t.Errorf("call after goodbye: %+v", o)
	}
	var nilBox *SandboxService
	if _, err := nilBox.Prepare(LaunchRequest{HTML: "x"}); err == nil {
		t.Error("prepare without a sandbox")
	}
}
