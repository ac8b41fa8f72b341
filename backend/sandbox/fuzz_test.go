package sandbox

import (
	"strings"
	"testing"
)

// FuzzInjectSDK: the SDK goes in exactly once, nothing of the page is lost or reordered, and it never lands
// before a doctype that the page starts with. testdata/fuzz holds what a run found.
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
		// Before a doctype that no doctype precedes, i.e. the page's leading one (a later doctype is a parse
		// error the browser ignores, and the SDK may stand before it: "<!DOCTYPE><!DOCTYPE>").
		if low := strings.ToLower(page[i:]); strings.HasPrefix(low, "<!doctype") && strings.Contains(low, ">") &&
			!strings.Contains(strings.ToLower(page[:i]), "<!doctype") {
			t.Fatalf("the SDK went before the doctype: %q", out)
		}
	})
}

// FuzzAppCSP: whatever the settings, the origin and the folder path say, the policy keeps its directives:
// no host or path can end one or add one, and fetch() and forms reach the app's folder on the bridge origin
// (one path source) or nothing.
func FuzzAppCSP(f *testing.F) {
	f.Add("cdn.jsdelivr.net", "http://localhost:1", "/app/0123abcd/")
	f.Add("a.com; script-src *", "wails://wails", "/app/x; connect-src *")
	f.Add("h.com", "http://127.0.0.1:2", "/app/a/../b/")
	f.Fuzz(func(t *testing.T, host, origin, appPath string) {
		csp := AppCSP(origin, "http://127.0.0.1:2", appPath, []string{host})
		parts := strings.Split(csp, "; ")
		if len(parts) != 17 || !strings.HasPrefix(parts[0], "default-src 'none'") || parts[16] != "sandbox allow-scripts allow-forms" || parts[15] != "webrtc 'block'" {
			t.Fatalf("AppCSP(%q, %q, %q) = %q", origin, appPath, host, csp)
		}
		for _, p := range parts {
			if strings.ContainsAny(p, ";,\r\n\x00") {
				t.Fatalf("directive %q", p)
			}
		}
		want := "'none'"
		if own := folderSource(origin, appPath); own != nil {
			want = own[0]
			if !strings.HasPrefix(want, origin+"/app/") || !strings.HasSuffix(want, "/") || strings.Count(want[len(origin):], "/") != 3 || strings.ContainsAny(want, " ;,'*") {
				t.Fatalf("folder source %q from %q %q", want, origin, appPath)
			}
		}
		for _, d := range []string{"connect-src", "form-action"} {
			if strings.Count(csp, d) != 1 || !strings.Contains(csp, d+" "+want+";") {
				t.Fatalf("%s opened: %q", d, csp)
			}
		}
	})
}

// FuzzDisarmDeclarativeShadowRoots: the disarming only ever inserts its prefix, and leaves no shadowrootmode
// where an attribute name can stand (disarming again changes nothing).
func FuzzDisarmDeclarativeShadowRoots(f *testing.F) {
	for _, s := range []string{`<template shadowrootmode="closed">`, "<TEMPLATE\nSHADOWROOTMODE>", `a"shadowrootmode/`, "t.shadowRootMode", ""} {
		f.Add(s)
	}
	const prefix = "data-voicebox-off-"
	f.Fuzz(func(t *testing.T, page string) {
		out := DisarmDeclarativeShadowRoots(page)
		if strings.ReplaceAll(out, prefix, "") != strings.ReplaceAll(page, prefix, "") {
			t.Fatalf("DisarmDeclarativeShadowRoots(%q) = %q: more than the prefix changed", page, out)
		}
		if again := DisarmDeclarativeShadowRoots(out); again != out {
			t.Fatalf("an attribute was left armed: %q → %q", out, again)
		}
	})
}
