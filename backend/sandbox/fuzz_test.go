package sandbox

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// FuzzInjectSDK: the SDK goes in exactly once and is the first script element the HTML parser makes;
// before it stand only a byte order mark, white space and one doctype that ends at its only ">"; the page
// follows whole (the tag inserted right after its leading doctype, or the page after a copy of it); and
// the page keeps its doctype (name, public and system identifiers), unless the page's own doctype runs to
// the end of the page. testdata/fuzz holds what a run found.
func FuzzInjectSDK(f *testing.F) {
	for _, s := range []string{"<!doctype html><p>", "\ufeff <!-- x --><!DOCTYPE html>", "<html>", "", "<!--", "<!doctype",
		"<!--><script>x()</script><!-- --><!doctype html>", "<!-- a --!><!doctype html>", "<?x><!DOCTYPE html PUBLIC \"a>b\">"} {
		f.Add(s)
	}
	const tag = "<script>\x01SDK\x01</script>"
	f.Fuzz(func(t *testing.T, page string) {
		if strings.Contains(page, "\x01SDK\x01") {
			return
		}
		out := InjectSDK(page, tag)
		i := strings.Index(out, tag)
		if i < 0 || strings.Count(out, tag) != 1 {
			t.Fatalf("InjectSDK(%q) = %q", page, out)
		}
		before, after := out[:i], out[i+len(tag):]
		bom := ""
		if strings.HasPrefix(page, "\ufeff") {
			bom = "\ufeff"
		}
		doctype := strings.Trim(strings.TrimPrefix(before, bom), " \t\n\r\f")
		if !strings.HasPrefix(before, bom) || doctype != "" && (!strings.EqualFold(doctype[:min(len(doctype), 9)], "<!doctype") || strings.IndexByte(doctype, '>') != len(doctype)-1) {
			t.Fatalf("InjectSDK(%q) = %q: %q before the SDK", page, out, before)
		}
		if before+after != page && (before != bom+doctype || after != page[len(bom):]) {
			t.Fatalf("InjectSDK(%q) = %q: the page is not whole after the SDK", page, out)
		}
		if got := firstScriptOf(t, out); got != "\x01SDK\x01" {
			t.Fatalf("InjectSDK(%q) = %q: the first script is %q", page, out, got)
		}
		// x/net's parser follows the WHATWG tree builder, where a NUL before the doctype makes the page
		// quirky; Chromium's and WebKit's tokenizers skip it (leadingDoctype): either doctype may be kept.
		want, got := doctypeOf(t, strings.TrimPrefix(page, bom)), doctypeOf(t, strings.TrimPrefix(out, bom))
		if want != got && got != "" && strings.Contains(page, "\x00") {
			want = doctypeOf(t, strings.ReplaceAll(strings.TrimPrefix(page, bom), "\x00", ""))
		}
		if want != got && (got != "" || strings.Contains(page[strings.Index(asciiLower(page), "<!doctype"):], ">")) {
			t.Fatalf("InjectSDK(%q) = %q: doctype %q, the page's is %q", page, out, got, want)
		}
	})
}

// firstScriptOf is the text of the first script element of doc, by x/net/html's parser.
func firstScriptOf(t *testing.T, doc string) string { return firstScript(t, doc) }

// doctypeOf describes the doctype node the parser makes of doc ("" for none).
func doctypeOf(t *testing.T, doc string) string {
	t.Helper()
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	for c := root.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.DoctypeNode {
			return fmt.Sprintf("%q %v", c.Data, c.Attr)
		}
	}
	return ""
}

// FuzzAppCSP: whatever the settings, the origin and the folder path say, the policy keeps its directives:
// no host or path can end one or add one, and fetch() and forms reach the app's folder on the bridge origin
// (one path source) or nothing; and AssetCSP allows no script.
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
		// AssetCSP, from the same settings: no script, sandboxed without allow-scripts, whatever they say.
		asset := strings.Split(AssetCSP(origin, "http://127.0.0.1:2", appPath, []string{host}), "; ")
		if len(asset) != 17 || asset[1] != "script-src 'none'" || asset[16] != "sandbox" || asset[7] != "worker-src 'none'" {
			t.Fatalf("AssetCSP(%q, %q, %q) = %q", origin, appPath, host, asset)
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
