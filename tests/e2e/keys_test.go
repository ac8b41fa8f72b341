package e2e

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Trusted key presses and screenshots: what a person's keyboard does, through each browser's own driver
// (the room's keyboard ownership ignores synthetic events, and so do its shortcuts' tests).

// press sends one key combination, "Ctrl+Shift+L", "Escape", "Shift+F10", "Tab", to the page.
func press(t testing.TB, p page, combo string) {
	t.Helper()
	mods, key := splitCombo(combo)
	var err error
	switch pg := p.(type) {
	case *chromiumPage:
		var m []chromedp.Modifier
		for _, x := range mods {
			m = append(m, map[string]chromedp.Modifier{"Ctrl": chromedp.ModifierCtrl, "Alt": chromedp.ModifierAlt, "Shift": chromedp.ModifierShift}[x])
		}
		k := map[string]string{"Escape": kb.Escape, "Tab": kb.Tab, "Enter": kb.Enter, "F10": kb.F10, "ArrowRight": kb.ArrowRight}[key]
		if k == "" {
			k = strings.ToLower(key)
		}
		err = chromedp.Do(pg.ctx, chromedp.KeyEvent(k, chromedp.KeyModifiers(m...)))
	case *webkitPage:
		code := map[string]string{"Ctrl": "\ue009", "Alt": "\ue00a", "Shift": "\ue008", "Escape": "\ue00c", "Tab": "\ue004", "Enter": "\ue007", "F10": "\ue03a", "ArrowRight": "\ue014"}
		var acts []map[string]string
		for _, x := range mods {
			acts = append(acts, map[string]string{"type": "keyDown", "value": code[x]})
		}
		k := code[key]
		if k == "" {
			k = strings.ToLower(key)
		}
		acts = append(acts, map[string]string{"type": "keyDown", "value": k}, map[string]string{"type": "keyUp", "value": k})
		for i := len(mods) - 1; i >= 0; i-- {
			acts = append(acts, map[string]string{"type": "keyUp", "value": code[mods[i]]})
		}
		_, err = pg.do("POST", "/actions", map[string]any{"actions": []any{map[string]any{"type": "key", "id": "keyboard", "actions": acts}}})
		if err == nil {
			_, err = pg.do("DELETE", "/actions", nil)
		}
	default:
		t.Fatalf("%s: no trusted keys", p.name())
	}
	if err != nil {
		t.Fatalf("%s: press %s: %v", p.name(), combo, err)
	}
}

func splitCombo(combo string) (mods []string, key string) {
	parts := strings.Split(combo, "+")
	return parts[:len(parts)-1], parts[len(parts)-1]
}

// screenshot returns the page's viewport as PNG.
func screenshot(t testing.TB, p page) []byte {
	t.Helper()
	switch pg := p.(type) {
	case *chromiumPage:
		b, err := chromedp.Run(pg.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("chromium screenshot: %v", err)
		}
		return b
	case *webkitPage:
		raw, err := pg.do("GET", "/screenshot", nil)
		if err != nil {
			t.Fatalf("webkit screenshot: %v", err)
		}
		b, err := base64.StdEncoding.DecodeString(strings.Trim(string(raw), `"`))
		if err != nil {
			t.Fatalf("webkit screenshot: %v", err)
		}
		return b
	}
	t.Fatalf("%s: no screenshots", p.name())
	return nil
}
