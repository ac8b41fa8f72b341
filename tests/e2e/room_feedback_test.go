package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// The room's feedback (issue 15, "Feedback the person needs"), in every browser against the suite's one
// server: errors in words with the details behind an expander and the action that helps, shown once;
// toasts that go, have a ✕, keep to a few and stay off the side panel; a broken app that says so; and an
// activity log with its entries apart, durations, a filter, Clear and Export, which survives a reload.

type toastSeen struct {
	Line    string   `json:"line"`
	Details string   `json:"details"`
	Actions []string `json:"actions"`
	Count   string   `json:"count"`
	Level   string   `json:"level"`
}

const readToasts = `return [...document.querySelectorAll("#notices .notice")].map((n) => ({
	line: n.querySelector(".notice-line").textContent,
	details: n.querySelector(".notice-details")?.textContent || "",
	actions: [...n.querySelectorAll(".notice-actions button")].map((b) => b.textContent),
	count: n.querySelector(".notice-count").hidden ? "" : n.querySelector(".notice-count").textContent,
	level: n.className.replace("notice ", ""),
}));`

func toasts(t *testing.T, p page) []toastSeen {
	t.Helper()
	var out []toastSeen
	eval(t, p, &out, readToasts)
	return out
}

func clearToasts(t *testing.T, p page) {
	t.Helper()
	eval(t, p, nil, `for (const b of document.querySelectorAll("#notices .notice-close")) b.click();`)
}

// caseErrorsSpeakHuman: Start with no API key. Go refuses with missing-key and the session goes to its
// error state: one toast (not one per path), one line saying what to do, Go's own message only behind
// Details, and Open Settings, which opens Settings.
func caseErrorsSpeakHuman(t *testing.T, p page) {
	clearToasts(t, p)
	eval(t, p, nil, `document.getElementById("session-provider").value = "openai"; document.getElementById("session-start").click();`)
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the missing-key toast",
		`return [...document.querySelectorAll("#notices .notice-line")].some((n) => n.textContent.includes("API key"));`)
	time.Sleep(300 * time.Millisecond) // a second toast for the same failure would be here by now
	got := toasts(t, p)
	var keyToasts []toastSeen
	for _, x := range got {
		if strings.Contains(x.Line, "API key") {
			keyToasts = append(keyToasts, x)
		}
	}
	if len(keyToasts) != 1 || keyToasts[0].Count != "" {
		t.Fatalf("the missing key shows as %d toasts (%+v), want one, once", len(keyToasts), got)
	}
	k := keyToasts[0]
	if k.Line != "No OpenAI API key is set. Add one in Settings." || k.Level != "error" {
		t.Errorf("the line is %q (%s), want the human sentence", k.Line, k.Level)
	}
	if strings.Contains(k.Line, "OPENAI_API_KEY") || !strings.Contains(k.Details, "OPENAI_API_KEY") || !strings.Contains(k.Details, "missing-key") {
		t.Errorf("Go's message belongs in the details, not the line: line %q, details %q", k.Line, k.Details)
	}
	if strings.Join(k.Actions, ",") != "Open Settings,Details" {
		t.Errorf("actions %v, want Open Settings and Details", k.Actions)
	}
	var settings bool
	eval(t, p, &settings, `
		[...document.querySelectorAll("#notices .notice-action")].find((b) => b.textContent === "Open Settings").click();
		for (let i = 0; i < 100 && !document.getElementById("settings-dialog").open; i++) await new Promise((r) => setTimeout(r, 20));
		const open = document.getElementById("settings-dialog").open;
		document.getElementById("settings-dialog").close();
		return open;`)
	if !settings {
		t.Error("Open Settings did not open Settings")
	}
	var panel string
	eval(t, p, &panel, `return document.getElementById("session-message").textContent;`)
	if strings.Contains(panel, "OPENAI_API_KEY") || !strings.Contains(panel, "API key") {
		t.Errorf("the Live Session panel says %q, want the human line", panel)
	}
}

// caseToasts: a ✕ on each, the same error once with a count, at most three newest first, info that goes
// by itself (an error stays meanwhile), Escape in a toast, and none over the side panel.
func caseToasts(t *testing.T, p page) {
	clearToasts(t, p)
	var r struct {
		Lines    []string `json:"lines"`
		Closers  int      `json:"closers"`
		Count    string   `json:"count"`
		Overlaps bool     `json:"overlaps"`
	}
	eval(t, p, &r, `
		const ui = await import("./src/ui.js");
		const err = {code: "file-too-large", message: "file-too-large: /home/x/big.html is larger than 16777216 bytes"};
		ui.notifyError(err, {doing: "Could not open big.html"});
		ui.notifyError(err, {doing: "Could not open big.html"});
		for (const n of ["one", "two", "three", "four"]) ui.notify("info " + n, "info");
		const nodes = [...document.querySelectorAll("#notices .notice")];
		const panel = document.getElementById("panel").getBoundingClientRect();
		const overlaps = nodes.some((n) => { const b = n.getBoundingClientRect(); return b.right > panel.left && b.left < panel.right && b.bottom > panel.top && b.top < panel.bottom; });
		return {lines: nodes.map((n) => n.querySelector(".notice-line").textContent), closers: document.querySelectorAll("#notices .notice-close").length,
			count: [...document.querySelectorAll("#notices .notice-count")].map((c) => c.hidden ? "" : c.textContent).join(""), overlaps};`)
	want := []string{"info four", "info three", "Could not open big.html. The file is too large for a mini-app. Pick a smaller one."}
	if strings.Join(r.Lines, "|") != strings.Join(want, "|") {
		t.Errorf("toasts %q, want %q (three, newest first, the error kept over older info)", r.Lines, want)
	}
	if r.Closers != len(r.Lines) || r.Count != "×2" || r.Overlaps {
		t.Errorf("closers %d of %d, count %q (want ×2), over the side panel %v", r.Closers, len(r.Lines), r.Count, r.Overlaps)
	}
	for _, l := range r.Lines {
		if strings.Contains(l, "16777216") || strings.Contains(l, "file-too-large") {
			t.Errorf("a code or byte count reached the line: %q", l)
		}
	}
	// Info goes by itself; the error is still there when it has gone.
	eval(t, p, nil, `(await import("./src/ui.js")).notify("short-lived", "info", {ms: 200});`)
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the info toast to go", `return ![...document.querySelectorAll("#notices .notice-line")].some((n) => n.textContent === "short-lived");`)
	var left []string
	eval(t, p, &left, `return [...document.querySelectorAll("#notices .notice-line")].map((n) => n.textContent);`)
	if !strings.Contains(strings.Join(left, "|"), "big.html") {
		t.Errorf("the error went with the info: %q", left)
	}
	// Escape in a toast dismisses it; so does its ✕.
	eval(t, p, nil, `[...document.querySelectorAll("#notices .notice")].find((n) => n.textContent.includes("big.html")).querySelector(".notice-close").focus();`)
	press(t, p, "Escape")
	var gone bool
	eval(t, p, &gone, `return ![...document.querySelectorAll("#notices .notice-line")].some((n) => n.textContent.includes("big.html"));`)
	if !gone {
		t.Error("Escape did not dismiss the toast that has the focus")
	}
	eval(t, p, &gone, `
		(await import("./src/ui.js")).notify("close me", "info");
		[...document.querySelectorAll("#notices .notice")].find((n) => n.textContent.includes("close me")).querySelector(".notice-close").click();
		return ![...document.querySelectorAll("#notices .notice-line")].some((n) => n.textContent === "close me");`)
	if !gone {
		t.Error("the ✕ did not dismiss its toast")
	}
	clearToasts(t, p)
}

// caseBrokenApp: an app whose script throws says so in its window (with the file and line) instead of an
// empty window with "0 tools", and every error is in the activity log, at most 20 from one document.
func caseBrokenApp(t *testing.T, p page) {
	app := launch(t, p, "broken.html")
	var r struct {
		Status string   `json:"status"`
		Strip  string   `json:"strip"`
		Lines  []string `json:"lines"`
		Error  bool     `json:"error"`
	}
	script := `
		const win = () => [...document.querySelectorAll(".mini-app-window")].find((w) => w.dataset.appId === %s);
		for (let i = 0; i < 200 && !/20 errors/.test(win()?.querySelector(".mini-app-status").textContent); i++) await new Promise((res) => setTimeout(res, 50));
		await new Promise((res) => setTimeout(res, 300)); // more than 20 would be here by now
		const w = win();
		return {status: w.querySelector(".mini-app-status").textContent, strip: w.querySelector(".mini-app-error")?.textContent || "",
			error: w.classList.contains("has-error"),
			lines: [...document.querySelectorAll("#activity-log li")].filter((li) => li.dataset.who === "Broken App" && /error|rejection/.test(li.querySelector(".what").textContent)).map((li) => li.textContent)};`
	eval(t, p, &r, script, js(app.AppID))
	if !r.Error || r.Status != "0 tools · 20 errors" {
		t.Errorf("the broken app's window says %q (error mark %v), want 0 tools · 20 errors", r.Status, r.Error)
	}
	if !strings.Contains(r.Strip, "Broken App has a script error") {
		t.Errorf("the window's strip says %q", r.Strip)
	}
	joined := strings.Join(r.Lines, "\n")
	// The error of the page's own top-level script: WebKit hides its details from a sandboxed page
	// ("Script error."); the errors in the callbacks the SDK hands on it reads itself, in both browsers.
	top := []string{"script error broken.html:6:1", "ReferenceError: registerTheToolz is not defined"}
	if p.name() == "webkitgtk" {
		top = []string{"script error → Script error."}
	}
	for _, want := range append(top, "unhandled rejection broken.html:4", "TypeError: the data did not come", "script error broken.html:5", "Error: tick 0") {
		if !strings.Contains(joined, want) {
			t.Errorf("the activity log has no %q:\n%s", want, joined)
		}
	}
	if len(r.Lines) != 20 {
		t.Errorf("%d error lines in the log, want 20 (the bound per document)", len(r.Lines))
	}
	closeApp(t, p, app.AppID)
}

// caseActivityLog: entries whose parts read apart, durations, the filter, Export (the whole of Go's log)
// and Clear (Go's log too).
func caseActivityLog(t *testing.T, p page, s *server) {
	eval(t, p, nil, `
		for (const li of document.querySelectorAll("#activity-log li")) li.dataset.before = "1"; // an earlier case may have launched it
		const b = [...document.querySelectorAll("#sqeh-actions .bubble")].find((x) => x.textContent === "Shelf Echo");
		b.click();
		for (let i = 0; i < 200 && !document.querySelector("#activity-log li:not([data-before])[data-who=you]"); i++)
			await new Promise((r) => setTimeout(r, 50));`)
	var e struct {
		Head, What, Ms, Text string
		Seq                  string
	}
	eval(t, p, &e, `
		const li = [...document.querySelectorAll("#activity-log li:not([data-before])")].find((li) => li.dataset.who === "you" && li.querySelector(".what").textContent === "launch");
		for (let i = 0; i < 100 && !li.dataset.seq; i++) await new Promise((r) => setTimeout(r, 20));
		return {head: li.querySelector(".entry-head").textContent, what: li.querySelector(".what").textContent, ms: li.querySelector(".ms")?.textContent || "",
			text: li.textContent, seq: li.dataset.seq || ""};`)
	if !strings.Contains(e.Text, " Shelf Echo → app_shelf-echo") || !strings.Contains(e.Head, " you launch ") {
		t.Errorf("the entry's parts run together: %q", e.Text)
	}
	if !strings.HasSuffix(e.Ms, " ms") && !strings.HasSuffix(e.Ms, " s") {
		t.Errorf("the launch shows no duration: %q", e.Ms)
	}
	if e.Seq == "" {
		t.Error("Go never numbered the room's own line")
	}
	// A call from outside the room: Go's line, with Go's duration.
	var shelf string
	eval(t, p, &shelf, `return window.voicebox.apps().find((a) => a.title === "Shelf Echo").appId;`)
	goCall(t, s, shelf, "echo", json.RawMessage(`{"text":"logged by go"}`))
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "Go's call in the log",
		`return [...document.querySelectorAll("#activity-log li")].some((li) => li.textContent.includes("logged by go") && /\d+ m?s/.test(li.querySelector(".ms")?.textContent || ""));`)

	var f struct{ None, Launch, Count string }
	eval(t, p, &f, `
		const box = document.getElementById("activity-filter");
		const shown = () => [...document.querySelectorAll("#activity-log li")].filter((li) => !li.hidden);
		box.value = "no such entry zzz"; box.dispatchEvent(new Event("input"));
		const none = String(shown().length);
		box.value = "logged by GO"; box.dispatchEvent(new Event("input"));
		const launch = shown().map((li) => li.querySelector(".what").textContent).join(",");
		const count = document.getElementById("activity-count").textContent;
		box.value = ""; box.dispatchEvent(new Event("input"));
		return {none, launch, count};`)
	if f.None != "0" || !strings.HasPrefix(f.Launch, "echo (") || !strings.HasPrefix(f.Count, "1 of ") {
		t.Errorf("filter: %+v", f)
	}

	var exported struct {
		Name  string `json:"name"`
		Lines []struct {
			Seq  int    `json:"seq"`
			Who  string `json:"who"`
			What string `json:"what"`
		} `json:"lines"`
	}
	eval(t, p, &exported, `
		const click = HTMLAnchorElement.prototype.click, make = URL.createObjectURL;
		let got = null, blob = null;
		URL.createObjectURL = (b) => { blob = b; return make(b); };
		HTMLAnchorElement.prototype.click = function () { got = {name: this.download, href: this.href}; };
		try {
			document.getElementById("activity-export").click();
			for (let i = 0; i < 100 && !got; i++) await new Promise((r) => setTimeout(r, 20));
		} finally { HTMLAnchorElement.prototype.click = click; URL.createObjectURL = make; }
		return {name: got.name, lines: JSON.parse(await blob.text())};`)
	found := false
	for _, l := range exported.Lines {
		found = found || (l.Who == "you" && l.What == "launch" && l.Seq > 0)
	}
	if !strings.HasPrefix(exported.Name, "voicebox-activity-") || !strings.HasSuffix(exported.Name, ".json") || !found {
		t.Errorf("export %q with %d lines, the launch among them: %v", exported.Name, len(exported.Lines), found)
	}

	eval(t, p, nil, `document.getElementById("activity-clear").click();`)
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the log to clear", `return document.querySelectorAll("#activity-log li").length === 0;`)
	var ring []any
	s.call(t, &ring, "ActivityService.List")
	if len(ring) != 0 {
		t.Errorf("Go's log keeps %d lines after Clear", len(ring))
	}
	closeApp(t, p, shelf)
}

// caseActivitySurvivesReload reloads the room: the log it drew before is there again, read from Go. It
// runs last (a reload closes every app).
func caseActivitySurvivesReload(t *testing.T, p page) {
	eval(t, p, nil, `(await import("./src/ui.js")).logActivity("you", "before the reload", "marker-7d1f", "kept", false, 12);`)
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "Go to number the line",
		`return [...document.querySelectorAll("#activity-log li")].some((li) => li.textContent.includes("marker-7d1f") && li.dataset.seq);`)
	eval(t, p, nil, `setTimeout(() => location.reload(), 10); return true;`)
	time.Sleep(500 * time.Millisecond)
	openRoom(t, p)
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the line after the reload",
		`return [...document.querySelectorAll("#activity-log li")].some((li) => li.textContent.includes("marker-7d1f") && li.querySelector(".ms")?.textContent === "12 ms");`)
}
