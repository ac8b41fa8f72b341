package services

import (
	"encoding/json"
	"testing"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/sandbox"
)

func TestSlugify(t *testing.T) {
	for in, want := range map[string]string{
		"My Game.html": "my-game", "/a/b/Score_Board.HTM": "score-board", `C:\x\Été.html`: "t", "": "page",
		"....html": "page", "a--b.html": "a-b",
	} {
		if got := Slugify(in); got != want {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Slugify(string(make([]byte, 100)) + "x"); len(got) > 48 {
		t.Errorf("long slug %q", got)
	}
}

func TestTitleOf(t *testing.T) {
	if got := titleOf("<html><TITLE lang=en>\n  Score   Board </title>", "f.html"); got != "Score Board" {
		t.Errorf("title %q", got)
	}
	if got := titleOf("<p>no title", "f.html"); got != "f.html" {
		t.Errorf("fallback %q", got)
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
