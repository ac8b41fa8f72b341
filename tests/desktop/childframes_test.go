package desktop

import (
	"encoding/json"
	"testing"
	"time"
)

// previewPage has child frames from srcdoc, blob: and data:, each rendering with a script of its own and
// reporting what it shows and whether it has WebRTC (docs/sandbox.md, "Child frames").
const previewPage = `<!doctype html><title>Desktop Preview</title>
<iframe id="s" srcdoc="<p id=o></p><script>o.textContent = 'srcdoc says ' + 6 * 7; parent.postMessage({k: 'srcdoc', text: o.textContent, rtc: typeof RTCPeerConnection}, '*');</script>"></iframe>
<script>
const reports = {};
addEventListener("message", (e) => { if (e.data && e.data.k) reports[e.data.k] = e.data; });
const child = (k) => "<p id=o></p><scr" + "ipt>o.textContent = '" + k + " says ' + 6 * 7; parent.postMessage({k: '" + k +
	"', text: o.textContent, rtc: typeof RTCPeerConnection}, '*');</scr" + "ipt>";
const blob = document.createElement("iframe");
blob.src = URL.createObjectURL(new Blob([child("blob")], {type: "text/html"}));
const data = document.createElement("iframe");
data.src = "data:text/html," + encodeURIComponent(child("data"));
document.body.append(blob, data);
webMcp.registerTool({name: "previews", description: "What the previews show", parameters: {type: "object"}, execute: async () => {
	for (let i = 0; i < 80 && Object.keys(reports).length < 3; i++) await new Promise((r) => setTimeout(r, 50));
	return reports;
}});
webMcp.ready();
</script>`

// TestChildFramesInTheDesktop: in the desktop (WebKitGTK behind the guard) child frames from srcdoc, blob:
// and data: show their documents and run their scripts, confined (no RTCPeerConnection).
func TestChildFramesInTheDesktop(t *testing.T) {
	s := startSession(t)
	b := newBox(t, s, map[string]string{"preview.html": previewPage})
	b.start(t, nil)
	s.window(t, b.app)
	cs := b.mcpClient(t)
	a := launchApp(t, cs, "preview.html")
	text, refused := toolText(t, cs, 20*time.Second, toolNamed(t, a, "previews"), map[string]any{})
	if refused {
		t.Fatalf("previews: %s", text)
	}
	var got map[string]struct{ Text, Rtc string }
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("previews %s: %v", text, err)
	}
	for _, k := range []string{"srcdoc", "blob", "data"} {
		if r := got[k]; r.Text != k+" says 42" || r.Rtc != "undefined" {
			t.Errorf("the %s preview: %+v (all: %s)", k, r, text)
		}
	}
}
