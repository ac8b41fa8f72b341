package e2e

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// A mini-app that abuses the bridge's port (issue 11, findings 3 and 5): tool churn, forged pongs.

// churnApp registers and unregisters five tools every 10 ms once its "start" tool is called, each time
// under a new name, so the tool set really changes at every turn.
const churnApp = `<!doctype html><title>Churner</title><script>
	let n = 0, prev = null;
	webMcp.registerTool({name: "start", description: "", parameters: {type: "object"}, execute: () => {
		setInterval(() => {
			for (let i = 0; i < 5; i++) {
				if (prev) prev.unregister();
				prev = webMcp.registerTool({name: "c" + (n++ % 1000), description: "", parameters: {type: "object"}, execute: () => n});
			}
		}, 10);
		return "churning";
	}});
	webMcp.ready();</script>`

// caseToolChurn: while one app churns its tools, another app's calls keep answering; the churner is
// closed with a notice; and the number of "tools" messages that reached the room from it is bounded by the
// bridge's budget (a count, not a clock). The latency of the other app's calls is logged, never asserted.
func caseToolChurn(t *testing.T, p page) {
	other := launch(t, p, map[string]string{"name": "bystander.html", "html": `<!doctype html><title>Bystander</title><script>
		webMcp.registerTool({name: "echo", description: "", parameters: {type: "object", properties: {text: {type: "string"}}}, execute: ({text}) => ({text})});
		webMcp.ready();</script>`})
	// Count the "tools" messages on every room port opened from now on (the churner's).
	eval(t, p, nil, `
		const d = Object.getOwnPropertyDescriptor(MessagePort.prototype, "onmessage");
		window.__vbChurn = {tools: 0, restore: () => Object.defineProperty(MessagePort.prototype, "onmessage", d)};
		Object.defineProperty(MessagePort.prototype, "onmessage", {configurable: true, get: d.get, set(fn) {
			d.set.call(this, fn && ((e) => { if (e.data && e.data.type === "tools") window.__vbChurn.tools++; return fn(e); }));
		}});`)
	var churner string
	eval(t, p, &churner, `try { return (await window.voicebox.launch({name: "churner.html", html: %s})).appId; } finally { window.__vbChurn.restore(); }`, js(churnApp))
	var r struct {
		Answers    []string  `json:"answers"`
		DuringMs   []float64 `json:"duringMs"`
		Closed     bool      `json:"closed"`
		Tools      int       `json:"tools"`
		Notice     string    `json:"notice"`
		StartOK    bool      `json:"startOK"`
		BeforeStop int       `json:"beforeStop"`
	}
	eval(t, p, &r, `
		const v = window.voicebox, churner = %s, other = %s;
		const open = () => v.apps().some((a) => a.appId === churner);
		const start = await v.callTool(churner, "start", {});
		const answers = [], duringMs = [];
		let beforeStop = 0;
		const giveUp = performance.now() + 30000; // the old code never closes it
		for (let i = 0; open() && performance.now() < giveUp; i++) {
			const t = performance.now();
			const o = await v.callTool(other, "echo", {text: "while churning " + i});
			const ms = performance.now() - t;
			answers.push(o.ok ? o.result.text : o.refused + ": " + o.message);
			if (open()) { beforeStop++; duringMs.push(ms); }
		}
		const notice = [...document.querySelectorAll("#notices .notice")].map((n) => n.textContent).find((x) => x.includes("Churner")) || "";
		return {answers, duringMs, closed: !open(), tools: window.__vbChurn.tools, notice, startOK: start.ok, beforeStop};`, js(churner), js(other.AppID))
	if !r.StartOK {
		t.Fatal("the churner did not start")
	}
	for i, a := range r.Answers {
		if want := "while churning " + strconv.Itoa(i); a != want {
			t.Fatalf("call %d of the other app answered %q, want %q", i, a, want)
		}
	}
	if r.BeforeStop == 0 {
		t.Errorf("no call of the other app answered while the churner was open")
	}
	if !r.Closed {
		t.Fatalf("the churner was not closed after %d calls of the other app", len(r.Answers))
	}
	if !strings.Contains(r.Notice, "Churner was closed") {
		t.Errorf("no notice about the churner: %q", r.Notice)
	}
	// The bridge sends at most one "tools" message per window and closes the app after 16 busy windows.
	if r.Tools > 17 {
		t.Errorf("%d tools messages reached the room from the churner, want at most 17", r.Tools)
	}
	t.Logf("%s: the churner was closed after %d tools messages; the other app answered %d calls while it churned (latency %s)",
		p.name(), r.Tools, r.BeforeStop, summary(r.DuringMs))
	closeApp(t, p, other.AppID)
}

// forgedPongApp grabs its own connection (a capture listener sees the bridge's voicebox_port: its name, and
// its port where there is one) and, while its "victim" call is pending, posts on it a pong for every id a
// room call could have; then it answers for real.
const forgedPongApp = `<!doctype html><title>Forger</title><script>
	let port = null, conn = "";
	addEventListener("message", (e) => { if (e.data && e.data.type === "voicebox_port") { port = e.ports[0] || null; conn = e.data.conn; } }, true);
	const post = (m) => port ? port.postMessage(m) : parent.postMessage({...m, conn}, "*");
	webMcp.registerTool({name: "victim", description: "", parameters: {type: "object"}, execute: async () => {
		for (let id = 0; id <= 2000; id++) post({type: "pong", id});
		await new Promise((r) => setTimeout(r, 0));
		return "the real answer";
	}});
	webMcp.ready();</script>`

// caseForgedPong: pongs the app forges on its connection settle nothing: the call gets the app's real answer
// (on the old code it resolved true, the forged pong's value).
func caseForgedPong(t *testing.T, p page) {
	var id string
	eval(t, p, &id, `return (await window.voicebox.launch({name: "forger.html", html: %s})).appId;`, js(forgedPongApp))
	var raw json.RawMessage
	eval(t, p, &raw, `return await window.voicebox.callTool(%s, "victim", {});`, js(id))
	var o outcome
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatalf("the call settled with %s, not an outcome: a forged pong answered it", raw)
	}
	wantOK(t, "victim", o, `"the real answer"`)
	closeApp(t, p, id)
}

// summary describes latencies for the log: count, median and maximum.
func summary(ms []float64) string {
	if len(ms) == 0 {
		return "no calls"
	}
	s := append([]float64(nil), ms...)
	sort.Float64s(s)
	return fmt.Sprintf("n=%d p50=%.1f ms max=%.1f ms", len(s), s[len(s)/2], s[len(s)-1])
}
