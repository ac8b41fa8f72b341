package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// nonHTMLNavigations are the ways a folder app (issue 28, finding 2) tried to put a document of its folder
// that is not HTML into its own frame: each runs a probe if it becomes a document with scripts. The
// key is the folder's name suffix, the value what the app's "go" tool is asked.
var nonHTMLNavigations = map[string]string{
	"svg":      "evil.svg",            // an SVG document: <script> runs in it
	"svgfrag":  "evil.svg#x",          // the same with a fragment
	"xml":      "evil.xml",            // application/xml with XHTML elements: their <script> runs
	"xslt":     "xslt.xml",            // an XML document styled by an XSLT stylesheet that makes HTML with a script
	"xhtml":    "evil.xhtml",          // not in the table: application/octet-stream
	"txt":      "evil.txt",            // HTML in a .txt: text/plain, nosniff
	"noext":    "evil",                // no extension: application/octet-stream
	"form":     "form:evil.svg",       // a same-folder GET form to the SVG
	"link":     "link:evil.svg",       // a same-folder link, clicked
	"refresh":  "refresh:evil.svg",    // <meta http-equiv=refresh> to the SVG
	"upper":    "EVIL.SVG",            // the extension in capitals (the file is EVIL.SVG)
	"svgquery": "evil.svg?page.html",  // a query that names a page
	"xmlpage":  "evil.xml?x=page.htm", // likewise
}

// nonHTMLFiles are the folder's files beside its index.html, with PROBE where each runs its probe.
var nonHTMLFiles = map[string]string{
	"evil.svg": `<svg xmlns="http://www.w3.org/2000/svg" width="30" height="20"><rect width="30" height="20" fill="red"/>` +
		`<script><![CDATA[PROBE]]></script></svg>`,
	"EVIL.SVG":   `<svg xmlns="http://www.w3.org/2000/svg"><script><![CDATA[PROBE]]></script></svg>`,
	"evil.xml":   `<html xmlns="http://www.w3.org/1999/xhtml"><body><script><![CDATA[PROBE]]></script></body></html>`,
	"evil.xhtml": `<html xmlns="http://www.w3.org/1999/xhtml"><body><script><![CDATA[PROBE]]></script></body></html>`,
	"evil.txt":   `<!doctype html><script>PROBE</script>`,
	"evil":       `<!doctype html><script>PROBE</script>`,
	"xslt.xml":   `<?xml version="1.0"?><?xml-stylesheet type="text/xsl" href="style.xsl.xml"?><root/>`,
	"style.xsl.xml": `<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"><xsl:output method="html"/>` +
		`<xsl:template match="/"><html><body><script><![CDATA[PROBE]]></script></body></html></xsl:template></xsl:stylesheet>`,
	"ok.html": `<!doctype html><title>ok</title><script>PROBE</script>`, // the control: a page, confined
}

// nonHTMLIndex is the folder app's page: "go" navigates its frame as asked; "sub" uses the SVG as a
// subresource every way a page can.
const nonHTMLIndex = `<!doctype html><title>Not HTML TITLE</title><body><script>
const tick = (ms) => new Promise((r) => setTimeout(r, ms || 0));
webMcp.registerTool({name: "go", description: "", parameters: {type: "object", properties: {how: {type: "string"}}}, execute: ({how}) => {
	if (how.startsWith("form:")) { const f = document.createElement("form"); f.action = how.slice(5); f.method = "get"; document.body.append(f); f.submit(); }
	else if (how.startsWith("link:")) { const a = document.createElement("a"); a.href = how.slice(5); document.body.append(a); a.click(); }
	else if (how.startsWith("refresh:")) { const m = document.createElement("meta"); m.httpEquiv = "refresh"; m.content = "0; url=" + how.slice(8); document.head.append(m); }
	else location.href = how;
	return "going";
}});
webMcp.registerTool({name: "sub", description: "", parameters: {type: "object"}, execute: async () => {
	const out = {};
	const img = new Image(); img.src = "evil.svg"; document.body.append(img);
	await new Promise((r) => { img.onload = img.onerror = r; });
	out.img = img.naturalWidth > 0 ? "rendered" : "not rendered";
	const made = {};
	for (const [tag, attr] of [["object", "data"], ["embed", "src"], ["iframe", "src"]]) {
		const e = document.createElement(tag); e.setAttribute(attr, "evil.svg"); document.body.append(e); made[tag] = e;
	}
	const div = document.createElement("div"); div.style.cssText = "width:30px;height:20px;background-image:url(evil.svg)"; document.body.append(div);
	await tick(); await tick(50);
	for (const k in made) out[k] = made[k].isConnected ? "kept" : "removed";
	const r = await fetch("evil.svg");
	out.fetch = r.status + " " + r.headers.get("content-type") + " " + ((await r.text()).includes("<script>") ? "with its script" : "without");
	return out;
}});
webMcp.ready();
</script>`

// caseNonHTMLDocuments (issue 28, finding 2): a folder app navigates its own frame to its SVG, XML, XSLT,
// XHTML, text and untyped files by location, a form, a link and a refresh. Before the fix the SVG, the
// XML and the XSLT output ran their scripts with the app's policy but without confine.js, so with WebRTC
// (run against the old binary). Now a file that is not a page is never the app's frame and runs no script
// wherever it is rendered (AssetCSP): no probe but the control page's reports, no datagram, no STUN name.
// As a subresource the SVG still renders as an image and fetch() still reads it; an object, an embed or
// an iframe of it is removed (confine.js), as any such frame is. The control: ok.html, a page of the same
// folder, reached the same way, reports from its (confined) document, so the probes' reports do arrive.
func caseNonHTMLDocuments(t *testing.T, p page, s *server) {
	roomProbeControl(t, p, "vbDoc")
	sink := newUDPSink(t)
	label := uniqueLabel("vbdoc")
	p.dns().mustNotResolve(label, "a STUN server named by a script in a folder app's document that is not HTML")
	collectProbes(t, p, "vbDoc", "__vbDoc")
	makeFolder := func(key string) string {
		name := "nonhtml-" + key
		dir := filepath.Join(s.workspace, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		files := map[string]string{"index.html": strings.Replace(nonHTMLIndex, "TITLE", key, 1)}
		for f, body := range nonHTMLFiles {
			files[f] = strings.ReplaceAll(body, "PROBE", probeJS("vbDoc", key+"/"+f, sink.turnURL(), key+"-"+label+".attacker.example"))
		}
		for f, body := range files {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return name
	}
	keys := append(sortedKeys(nonHTMLNavigations), "control", "sub")
	folders := map[string]string{}
	for _, k := range keys {
		folders[k] = makeFolder(k)
	}
	waitTrue(t, p, 15*time.Second, 50*time.Millisecond, "the folder apps in the page list", `
		const names = new Set([...document.querySelectorAll("#page-list .name")].map((n) => n.textContent));
		return `+js(keys)+`.every((k) => names.has("Not HTML " + k));`)

	// Subresources: the SVG renders as an image and fetch() reads it; frames of it are removed.
	sub := launch(t, p, folders["sub"])
	o := callTool(t, p, sub.AppID, "sub", map[string]any{})
	wantOK(t, "sub", o, "")
	var got map[string]string
	_ = json.Unmarshal(o.Result, &got)
	t.Logf("%s: the SVG as a subresource: %s", p.name(), o.Result)
	if got["img"] != "rendered" || got["object"] != "removed" || got["embed"] != "removed" || got["iframe"] != "removed" ||
		got["fetch"] != "200 image/svg+xml with its script" {
		t.Errorf("the SVG as a subresource: %v", got)
	}

	// Navigations: every app first, each in its own frame; then the control, whose report is awaited.
	apps := map[string]string{}
	for _, k := range sortedKeys(nonHTMLNavigations) {
		app := launch(t, p, folders[k])
		apps[k] = app.AppID
		if o := callTool(t, p, app.AppID, "go", map[string]any{"how": nonHTMLNavigations[k]}); !o.OK && o.Refused != "unknown-tool" {
			t.Fatalf("%s: %+v", k, o)
		}
	}
	for _, k := range sortedKeys(nonHTMLNavigations) { // the old document went: the navigation committed
		waitSoft(p, 5*time.Second, `const a = window.voicebox.apps().find((x) => x.appId === `+js(apps[k])+`); return !a || !a.ready;`)
	}
	ctl := launch(t, p, folders["control"])
	wantOK(t, "control", callTool(t, p, ctl.AppID, "go", map[string]any{"how": "ok.html"}), `"going"`)
	waitTrue(t, p, 15*time.Second, 20*time.Millisecond, "the control page's report", `return !!window.__vbDoc["control/ok.html"];`)
	time.Sleep(time.Second) // the navigated documents committed before the control began; a second more for their scripts
	reports := probeReports(t, p, "__vbDoc")
	for key, rs := range reports {
		if key == "control/ok.html" {
			if r := rs[0]; r.SDK != "object" || r.RTC != "undefined/undefined" || r.Ran {
				t.Errorf("the control page ran unconfined: %+v", r)
			}
			continue
		}
		t.Errorf("%s: a document that is not HTML ran a script in the app's frame: %+v", key, rs)
	}
	for _, id := range append(mapValues(apps), sub.AppID, ctl.AppID) {
		closeApp(t, p, id)
	}
	if n := sink.n.Load(); n != 0 {
		t.Errorf("%d datagram(s) from a document that is not HTML reached the TURN sink", n)
	}
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, k := range sortedKeys(m) {
		out = append(out, m[k])
	}
	return out
}
