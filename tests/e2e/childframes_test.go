package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// previewApp is a page with child frames as pages on the open web make them (docs/sandbox.md, "Child
// frames"): a static srcdoc preview, and in its "previews" tool a blob: and a data: preview and a new
// srcdoc for the first, each rendering with a script of its own and telling the app what it shows. Its
// srcdoc child also tries to offer a tool and to pass for the app toward the bridge. "too_big" makes a
// srcdoc over the bound.
var previewApp = `<!doctype html><html><head><meta charset="utf-8"><title>Preview Lab</title><script>
const reports = {};
addEventListener("message", (e) => { if (e.data && e.data.preview) reports[e.data.preview] = e.data; });
// child: a document whose script renders 6 × 7 and reports what it rendered, its base URL and WebRTC.
const child = (k) => "<p id=out>waiting</p><scr" + "ipt>document.getElementById('out').textContent = " + JSON.stringify(k) +
	" + ' says ' + (6 * 7); parent.postMessage({preview: " + JSON.stringify(k) + ", text: document.getElementById('out').textContent, " +
	"base: document.baseURI, rtc: typeof RTCPeerConnection}, '*');</scr" + "ipt>";
const tick = (ms) => new Promise((r) => setTimeout(r, ms || 0));
async function report(k) {
	for (let i = 0; i < 80 && !(k in reports); i++) await tick(50);
	return reports[k] || null;
}
async function previews() {
	const blob = document.createElement("iframe");
	blob.src = URL.createObjectURL(new Blob([child("blob")], {type: "text/html"}));
	const data = document.createElement("iframe");
	data.src = "data:text/html;charset=utf-8," + encodeURIComponent(child("data"));
	document.body.append(blob, data);
	const first = await report("srcdoc");
	document.getElementById("s").srcdoc = child("srcdoc2"); // a live preview: the same frame, a new document
	return {srcdoc: first, blob: await report("blob"), data: await report("data"), srcdoc2: await report("srcdoc2"),
		srcdocReadsBack: document.getElementById("s").srcdoc === child("srcdoc2")};
}
async function tooBig() {
	let refused = null;
	const f = document.createElement("iframe");
	f.addEventListener("error", (e) => { refused = {code: e.error && e.error.refused, message: e.message}; });
	f.srcdoc = "<p>" + "x".repeat(3 << 20) + "</p>";
	document.body.append(f);
	for (let i = 0; i < 80 && !refused; i++) await tick(50);
	return {refused, src: f.getAttribute("src"), srcdoc: f.getAttribute("srcdoc")};
}
webMcp.registerTool({name: "previews", description: "", parameters: {type: "object"}, execute: previews});
webMcp.registerTool({name: "too_big", description: "", parameters: {type: "object"}, execute: tooBig});
addEventListener("load", () => webMcp.ready());
</script></head><body>
<iframe id="s" srcdoc="` + attrEscape(impostor) + `"></iframe>
</body></html>`

// impostor is the static srcdoc child (attribute-escaped): it renders, then offers a tool through its own
// SDK and says mini_app_ready to the bridge (its parent's parent) and to the room, as the app would.
const impostor = `<p id=out>waiting</p><script>
document.getElementById('out').textContent = 'srcdoc says ' + (6 * 7);
parent.postMessage({preview: 'srcdoc', text: document.getElementById('out').textContent, base: document.baseURI, rtc: typeof RTCPeerConnection, sdk: typeof navigator.modelContext}, '*');
try { navigator.modelContext.registerTool({name: 'child_tool', description: 'from a child frame', inputSchema: {type: 'object'}, execute: () => 'child' }); } catch (e) {}
const c = new MessageChannel();
try { parent.parent.postMessage({type: 'mini_app_ready'}, '*', [c.port2]); } catch (e) {}
try { top.postMessage({type: 'mini_app_ready'}, '*'); } catch (e) {}
c.port1.postMessage({type: 'register_tool', seq: 1, tool: {name: 'child_port_tool', description: '', parameters: {type: 'object'}}});
</script>`

// caseChildFrames: child frames from srcdoc, blob: and data: show their documents and run their scripts
// (confined: no RTCPeerConnection, proven against a listener in caseWebRTCEgress), a srcdoc document's
// relative URLs resolve against the app's page as in a tab, a new srcdoc replaces the old, a document over the bound is
// refused child-frame-too-large with nothing shown, and a child cannot offer tools or pass for the app.
func caseChildFrames(t *testing.T, p page) {
	app := launch(t, p, map[string]any{"name": "preview.html", "html": previewApp})
	o := callTool(t, p, app.AppID, "previews", map[string]any{})
	wantOK(t, "previews", o, "")
	var got map[string]json.RawMessage
	if err := json.Unmarshal(o.Result, &got); err != nil {
		t.Fatalf("previews %s: %v", o.Result, err)
	}
	t.Logf("%s: previews %s", p.name(), o.Result)
	for _, k := range []string{"srcdoc", "blob", "data", "srcdoc2"} {
		var r struct{ Text, Base, Rtc, Sdk string }
		if err := json.Unmarshal(got[k], &r); err != nil || r.Text != k+" says 42" {
			t.Errorf("the %s preview did not render: %s", k, got[k])
			continue
		}
		if r.Rtc != "undefined" {
			t.Errorf("the %s preview has RTCPeerConnection: %q", k, r.Rtc)
		}
		// A srcdoc document resolves relative URLs against its parent's; a blob: or data: one has no base of
		// its own in a tab, and here its own URL under the child path (where nothing but children is served).
		if strings.HasPrefix(k, "srcdoc") && (!strings.Contains(r.Base, "/app/") || !strings.HasSuffix(r.Base, "/preview.html")) {
			t.Errorf("the %s preview resolves relative URLs against %q, want the app's page", k, r.Base)
		}
		if !strings.HasPrefix(k, "srcdoc") && !strings.Contains(r.Base, "/.child/") {
			t.Errorf("the %s preview resolves relative URLs against %q, want its own URL", k, r.Base)
		}
	}
	if string(got["srcdocReadsBack"]) != "true" {
		t.Errorf("the srcdoc the app set does not read back: %s", got["srcdocReadsBack"])
	}

	o = callTool(t, p, app.AppID, "too_big", map[string]any{})
	wantOK(t, "too_big", o, "")
	var big struct {
		Refused     *struct{ Code, Message string }
		Src, Srcdoc *string
	}
	if err := json.Unmarshal(o.Result, &big); err != nil {
		t.Fatal(err)
	}
	if big.Refused == nil || big.Refused.Code != "child-frame-too-large" || big.Src != nil || big.Srcdoc != nil {
		t.Errorf("a 3 MiB srcdoc: %s, want refused child-frame-too-large with an empty frame", o.Result)
	}

	// The impostor's tools never reach the room, and its hellos did not reset the app: its tools still answer.
	waitTools(t, p, app.AppID, "previews,too_big")
	wantOK(t, "the app's own tool after the child's hellos", callTool(t, p, app.AppID, "too_big", map[string]any{}), "")
	waitTools(t, p, app.AppID, "previews,too_big")
	closeApp(t, p, app.AppID)
}

func attrEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", `"`, "&quot;").Replace(s)
}
