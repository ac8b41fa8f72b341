package main

import (
	"strings"
	"testing"

	"github.com/voicebox/voicebox/frontend"
)

// Every shortcut the desktop's menu carries turns into a Wails accelerator, so the menu and the room's
// Keyboard Shortcuts dialog say the same keys (both read frontend/room/shortcuts.json).
func TestMenuAcceleratorsComeFromTheOneList(t *testing.T) {
	list, err := frontend.Shortcuts()
	if err != nil {
		t.Fatal(err)
	}
	menus := map[string]int{}
	for _, s := range list {
		if s.Menu == "" {
			continue
		}
		menus[s.Menu]++
		acc := accelerator(s)
		if acc == nil {
			t.Errorf("%s (%s) has no accelerator", s.ID, s.Keys)
			continue
		}
		mods, key, _ := s.Split()
		if len(acc.Modifiers) != len(mods) || (len(key) == 1 && acc.Key != strings.ToLower(key)) {
			t.Errorf("%s: %s became %+v", s.ID, s.Keys, acc)
		}
	}
	for _, m := range []string{"File", "View", "Help"} {
		if menus[m] == 0 {
			t.Errorf("no shortcut in the %s menu", m)
		}
	}
}
