package frontend_test

import (
	"strings"
	"testing"

	"github.com/voicebox/voicebox/frontend"
)

// The one list of shortcuts reads, each entry well-formed, no two with the same keys in one room.
func TestShortcutsList(t *testing.T) {
	list, err := frontend.Shortcuts()
	if err != nil {
		t.Fatal(err)
	}
	ids, keys := map[string]bool{}, map[string]string{}
	for _, s := range list {
		ids[s.ID] = true
		if s.Group == "" {
			t.Errorf("%s has no group", s.ID)
		}
		if other, ok := keys[s.Keys]; ok {
			t.Errorf("%s and %s are both %s", other, s.ID, s.Keys)
		}
		keys[s.Keys] = s.ID
	}
	for _, id := range []string{"open-file", "save-page", "toggle-sidebar", "toggle-panel", "shortcuts", "escape", "talk"} {
		if !ids[id] {
			t.Errorf("the list has no %s", id)
		}
	}
}

func TestSplitRefusesWhatTheMenuCannotTake(t *testing.T) {
	for _, bad := range []string{"Shift+Ctrl+O", "Ctrl+Ctrl+O", "Hyper+O", "Ctrl+", "Ctrl+Page"} {
		if _, _, err := (frontend.Shortcut{Keys: bad}).Split(); err == nil {
			t.Errorf("%q was taken", bad)
		}
	}
	mods, key, err := frontend.Shortcut{Keys: "Ctrl+Alt+B"}.Split()
	if err != nil || strings.Join(mods, ",") != "Ctrl,Alt" || key != "B" {
		t.Errorf("Ctrl+Alt+B: %v %q %v", mods, key, err)
	}
	if _, key, err := (frontend.Shortcut{Keys: "Ctrl++"}).Split(); err != nil || key != "+" {
		t.Errorf("Ctrl++: %q %v", key, err)
	}
}
