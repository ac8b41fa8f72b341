package sandbox

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"

	"github.com/voicebox/voicebox/backend/toolcontract"
)

// AppCSP is the Content-Security-Policy of a mini-app's document, sent as an HTTP header (a tamper-proof
// policy: the app cannot remove a header the way it could a <meta>). Network egress is denied except to the
// app's own folder: scripts, styles, images, fonts and media may come from its folder (appPath on the
// bridge origin, a CSP path source), inline, from data: and blob: URLs and from the CDN allowlist over https
// only; fetch() and forms may reach its folder only (connect-src and form-action are that path source), and
// a <base> may name it; frames may load only the child documents under ChildPath (docs/sandbox.md, "Child
// frames"); no WebRTC. What a page expects without more egress
// (docs/webmcp.md): WebAssembly ('wasm-unsafe-eval') and workers from blob: URLs. The document is sandboxed by
// the header too (sandbox allow-scripts allow-forms), so even opened on its own it has an opaque origin.
//
// frame-ancestors lists the bridge origin and the room origin: CSP checks every ancestor up to the top, so
// naming the bridge alone would refuse the app inside the room. No other page can frame it.
func AppCSP(bridgeOrigin, roomOrigin, appPath string, cdnHosts []string) string {
	return strings.Join(appDirectives(bridgeOrigin, roomOrigin, appPath, cdnHosts), "; ")
}

// ChildCSP is the policy of a child frame's document (children.go): the app's, without frame-ancestors.
// Its parent, the app, has an opaque origin, which no source expression matches (measured in Chromium: the
// child was refused with its ancestors' origins listed), so only the child's URL, under the app's token
// (ChildPath), keeps other pages from framing it, and a page that did would frame a confined document.
func ChildCSP(bridgeOrigin, roomOrigin, appPath string, cdnHosts []string) string {
	var out []string
	for _, d := range appDirectives(bridgeOrigin, roomOrigin, appPath, cdnHosts) {
		if !strings.HasPrefix(d, "frame-ancestors ") {
			out = append(out, d)
		}
	}
	return strings.Join(out, "; ")
}

// AssetCSP is the policy of every response from an app's folder that is not one of its confined documents
// (appAsset: scripts, styles, images, data, and a page asked for as anything but a frame): the app's
// policy with no script at all (script-src 'none', and the sandbox directive without allow-scripts) and
// nothing to reach. A browser that renders such a response as a document (an SVG, an XML file with XHTML
// elements or an XSLT stylesheet, a page loaded by <object>) would run its scripts without confine.js;
// under this policy it runs none (docs/sandbox.md, "Documents that are not HTML"). It changes nothing for
// the file as a subresource: a browser applies a response's policy only to a document or a worker, and the
// app's worker-src admits no file of the folder.
func AssetCSP(bridgeOrigin, roomOrigin, appPath string, cdnHosts []string) string {
	var out []string
	for _, d := range appDirectives(bridgeOrigin, roomOrigin, appPath, cdnHosts) {
		name, _, _ := strings.Cut(d, " ")
		switch name {
		case "script-src", "connect-src", "worker-src", "form-action", "frame-src", "base-uri":
			d = name + " 'none'"
		case "sandbox":
			d = name // no allow-scripts, no allow-forms
		}
		out = append(out, d)
	}
	return strings.Join(out, "; ")
}

func appDirectives(bridgeOrigin, roomOrigin, appPath string, cdnHosts []string) []string {
	own := folderSource(bridgeOrigin, appPath)
	var children []string
	if len(own) > 0 {
		children = []string{own[0] + childDir + "/"}
	}
	cdn := cdnSources(cdnHosts)
	fetchable := func(extra ...string) string {
		return strings.Join(append(append(extra, own...), append([]string{"data:", "blob:"}, cdn...)...), " ")
	}
	return []string{
		"default-src 'none'",
		"script-src " + fetchable("'unsafe-inline'", "'unsafe-eval'", "'wasm-unsafe-eval'"),
		"style-src " + fetchable("'unsafe-inline'"),
		"img-src " + fetchable(),
		"font-src " + fetchable(),
		"media-src " + strings.Join(append(own, "data:", "blob:"), " "),
		"connect-src " + sourcesOrNone(own),
		"worker-src blob:", // workers inherit this policy: no more egress than the page's
		"manifest-src 'none'",
		"object-src 'none'",
		"base-uri " + sourcesOrNone(own), // a <base> inside the folder (a child document's, children.go)
		"form-action " + sourcesOrNone(own),
		"frame-src " + sourcesOrNone(children), // child frames: only the documents confine.js stored (children.go)
		"child-src 'none'",
		"frame-ancestors " + ancestors(bridgeOrigin, roomOrigin),
		"webrtc 'block'", // honoured by WebKit; Chromium ignores it, so confine.js takes WebRTC away as well
		"sandbox allow-scripts allow-forms",
	}
}

// folderSource is the app's folder as a CSP source: the bridge origin and appPath (AppPath: "/app/<token>/",
// the trailing slash makes it match every path below it), or nothing when either is malformed.
func folderSource(bridgeOrigin, appPath string) []string {
	token, ok := strings.CutPrefix(appPath, pathApp)
	if !ok || !validOrigin(bridgeOrigin) {
		return nil
	}
	token, ok = strings.CutSuffix(token, "/")
	if !ok || token == "" || len(token) > 128 {
		return nil
	}
	for _, c := range token {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return nil
		}
	}
	return []string{bridgeOrigin + appPath}
}

func sourcesOrNone(sources []string) string {
	if len(sources) == 0 {
		return "'none'"
	}
	return strings.Join(sources, " ")
}

// BridgeCSP is the bridge document's policy: its own two scripts and its one inline style (by hash), the app
// frame and its navigations kept to the app's folder (frame-src on appPath, AppPath: a same-folder link or
// form navigates, anything else on this origin or elsewhere is refused), nothing else; only the room may
// frame it. blobNavigation adds blob: for the desktop, whose guard turns the app frame's navigation to a
// blob: URL into a download and never loads one (Options.BlobNavigationDownloads).
func BridgeCSP(roomOrigin, bridgeOrigin, appPath string, blobNavigation bool) string {
	frames := sourcesOrNone(folderSource(bridgeOrigin, appPath))
	if blobNavigation && frames != "'none'" {
		frames += " blob:"
	}
	return strings.Join([]string{
		"default-src 'none'",
		"script-src " + bridgeScriptSrc,
		"style-src " + inlineHash(bridgeStyle),
		"frame-src " + frames,
		"connect-src 'none'",
		"img-src 'none'",
		"object-src 'none'",
		"base-uri 'none'",
		"form-action 'none'",
		"frame-ancestors " + ancestors(roomOrigin),
	}, "; ")
}

// ScriptCSP goes on the bridge's script files: they are never documents.
const ScriptCSP = "default-src 'none'; frame-ancestors 'none'"

func ancestors(origins ...string) string {
	var out []string
	for _, o := range origins {
		if validOrigin(o) {
			out = append(out, o)
		}
	}
	if len(out) == 0 {
		return "'none'"
	}
	return strings.Join(out, " ")
}

// validOrigin accepts scheme://host[:port] with nothing that could end or extend a CSP directive.
func validOrigin(o string) bool {
	scheme, rest, ok := strings.Cut(o, "://")
	if !ok || scheme == "" || rest == "" {
		return false
	}
	for _, c := range scheme {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	for _, c := range rest {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == ':' || c == '[' || c == ']') {
			return false
		}
	}
	return true
}

// cdnSources turns host names (from settings) into https source expressions. Anything that is not a plain
// host name, optionally with a "*." prefix and a port, is dropped, so a bad setting cannot inject a directive.
func cdnSources(hosts []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range hosts {
		h = strings.ToLower(strings.TrimSpace(h))
		h = strings.TrimPrefix(h, "https://")
		h = strings.TrimSuffix(h, "/")
		if !validCDNHost(h) || seen[h] {
			continue
		}
		seen[h] = true
		out = append(out, "https://"+h)
	}
	return out
}

func validCDNHost(h string) bool {
	name, port, hasPort := strings.Cut(h, ":")
	if hasPort {
		if port == "" || len(port) > 5 {
			return false
		}
		for _, c := range port {
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	name = strings.TrimPrefix(name, "*.")
	if name == "" || len(name) > 253 || !strings.Contains(name, ".") {
		return false
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// bridgeScripts are the bridge document's two scripts, inline: the tool contract's twin, then bridge.js; and
// bridgeScriptSrc allows exactly them, by hash. Inline, the bridge runs as soon as its document is parsed,
// not two requests later: at start the page's one thread is busy with the room, and each hop on the first
// app's way waited for it (docs/performance.md, "What waits"). Nothing else serves them.
var bridgeScripts, bridgeScriptSrc = inlineScripts(toolcontract.BridgeJS, bridgeJS)

// bridgeJS is the bridge's own script (bridge.js).
var bridgeJS = mustScript("bridge.js")

// inlineScripts returns the <script> elements holding srcs and the script-src sources that allow exactly
// them. A script that could end its element or change how the parser reads it panics: it is ours.
func inlineScripts(srcs ...[]byte) (elements, sources string) {
	var els, hashes []string
	for _, src := range srcs {
		low := strings.ToLower(string(src))
		if strings.Contains(low, "</script") || strings.Contains(low, "<!--") || strings.Contains(low, "<script") {
			panic("sandbox: a bridge script holds markup that would end or change its inline element")
		}
		els = append(els, "<script>"+string(src)+"</script>")
		hashes = append(hashes, inlineHash(string(src)))
	}
	return strings.Join(els, ""), strings.Join(hashes, " ")
}

func mustScript(name string) []byte {
	b, err := scripts.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return b
}

// inlineHash is a CSP source for one inline element's text (a style or a script): 'sha256-…'.
func inlineHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}
