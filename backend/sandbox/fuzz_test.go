package sandbox

import (
	"strings"
	"testing"
)

// FuzzInjectSDK: the SDK goes in exactly once, nothing of the page is lost or reordered, and it never lands
// before a doctype that the page starts with.
func FuzzInjectSDK(f *testing.F) {
	for _, s := range []string{"<!doctype html><p>", "\ufeff <!-- x --><!DOCTYPE html>", "<html>", "", "<!--", "<!doctype"} {
		f.Add(s)
	}
	const tag = "\x00SDK\x00"
	f.Fuzz(func(t *testing.T, page string) {
		if strings.Contains(page, tag) {
			return
		}
		out := InjectSDK(page, tag)
		i := strings.Index(out, tag)
		if i < 0 || strings.Count(out, tag) != 1 || out[:i]+out[i+len(tag):] != page {
			t.Fatalf("InjectSDK(%q) = %q", page, out)
		}
		if low := strings.ToLower(page[i:]); strings.HasPrefix(low, "<!doctype") && strings.Contains(low, ">") {
			t.Fatalf("the SDK went before the doctype: %q", out)
		}
	})
}

// FuzzAppCSP: whatever the settings say, the policy keeps its directives: no host can end one or add one.
func FuzzAppCSP(f *testing.F) {
	f.Add("cdn.jsdelivr.net", "http://localhost:1")
	f.Add("a.com; script-src *", "wails://wails")
	f.Fuzz(func(t *testing.T, host, origin string) {
		csp := AppCSP(origin, "http://127.0.0.1:2", []string{host})
		parts := strings.Split(csp, "; ")
		if len(parts) != 16 || !strings.HasPrefix(parts[0], "default-src 'none'") || parts[15] != "sandbox allow-scripts" {
			t.Fatalf("AppCSP(%q, %q) = %q", origin, host, csp)
		}
		for _, p := range parts {
			if strings.ContainsAny(p, ";,\r\n\x00") {
				t.Fatalf("directive %q", p)
			}
		}
		if !strings.Contains(csp, "connect-src 'none'") || strings.Count(csp, "connect-src") != 1 {
			t.Fatalf("egress opened: %q", csp)
		}
	})
}
