package frontend

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
)

// Shortcut is one of the room's keyboard shortcuts. room/shortcuts.json is the one list: the desktop's menu
// takes its accelerators from it (menu.go), and the room's Keyboard Shortcuts dialog shows it and runs the
// ones it owns (room/src/shortcuts.js).
type Shortcut struct {
	ID    string `json:"id"`
	Keys  string `json:"keys"` // modifiers among Ctrl, Alt, Shift, then one key: "Ctrl+Shift+O", "Escape"
	Label string `json:"label"`
	Group string `json:"group"`
	Menu  string `json:"menu,omitempty"` // the desktop menu that carries it (File, View, Help)
	Only  string `json:"only,omitempty"` // "desktop" when only the desktop has it
}

// Modifiers are the modifier names Keys may use, in the order they are written.
var Modifiers = []string{"Ctrl", "Alt", "Shift"}

// Shortcuts reads the room's list and checks it: ids unique, every Keys well-formed.
func Shortcuts() ([]Shortcut, error) {
	raw, err := fs.ReadFile(Room(), "shortcuts.json")
	if err != nil {
		return nil, err
	}
	var list []Shortcut
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("shortcuts.json: %w", err)
	}
	seen := map[string]bool{}
	for _, s := range list {
		if s.ID == "" || s.Label == "" || seen[s.ID] {
			return nil, fmt.Errorf("shortcuts.json: %q: an id (unique) and a label are required", s.ID)
		}
		seen[s.ID] = true
		if _, _, err := s.Split(); err != nil {
			return nil, fmt.Errorf("shortcuts.json: %s: %w", s.ID, err)
		}
	}
	return list, nil
}

// Split returns the shortcut's modifiers (in Modifiers' order) and its key.
func (s Shortcut) Split() (mods []string, key string, err error) {
	parts := strings.Split(s.Keys, "+")
	if strings.HasSuffix(s.Keys, "++") { // "Ctrl++": the key is "+"
		parts = append(parts[:len(parts)-2], "+")
	}
	key = parts[len(parts)-1]
	next := 0
	for _, m := range parts[:len(parts)-1] {
		i := index(Modifiers, m)
		if i < next {
			return nil, "", fmt.Errorf("keys %q: modifiers are %v, each once, in that order", s.Keys, Modifiers)
		}
		mods, next = append(mods, m), i+1
	}
	if key == "" || (len([]rune(key)) > 1 && !namedKey(key)) {
		return nil, "", fmt.Errorf("keys %q: %q is not one key", s.Keys, key)
	}
	return mods, key, nil
}

func index(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// namedKey says whether k is a key the room and the menu both know by name.
func namedKey(k string) bool {
	switch k {
	case "Escape", "Enter", "Space", "Tab", "Delete", "Backspace":
		return true
	}
	return len(k) >= 2 && k[0] == 'F' && strings.Trim(k[1:], "0123456789") == ""
}
