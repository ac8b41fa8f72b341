package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/tests/testfs"
)

// The room as a daily tool (issue 15): several files open as several mini-apps; finding and understanding
// apps in the side bar; the Tool Console's controls. Each of these fails on main (checked by running them
// against the main binary: no app opens from a drop, there is no filter, no recent list, no ⓘ, no nested
// fields and no Cancel).

// caseDropSeveralFiles: three pages dropped on the room at once open as three mini-apps, in the order they
// were dropped, each window cascaded from the one before (on main the File Viewer showed the last, and none
// opened).
func caseDropSeveralFiles(t *testing.T, p page) {
	eval(t, p, nil, `
		const dt = new DataTransfer();
		for (const title of ["Drop One", "Drop Two", "Drop Three"]) {
			const html = "<!doctype html><title>" + title + "</title><script>webMcp.ready()</scr" + "ipt>";
			dt.items.add(new File([html], title.replace(" ", "-").toLowerCase() + ".html", {type: "text/html"}));
		}
		window.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));`)
	waitTrue(t, p, 20*time.Second, 50*time.Millisecond, "three dropped apps ready",
		`return window.voicebox.apps().filter((a) => a.title.startsWith("Drop ") && a.ready).length === 3;`)
	var r struct {
		Titles  []string `json:"titles"`
		Windows []string `json:"windows"`
		Places  []string `json:"places"`
	}
	eval(t, p, &r, `
		const wins = [...document.querySelectorAll(".mini-app-window")].filter((w) => w.getAttribute("aria-label").startsWith("Drop "));
		return {titles: window.voicebox.apps().filter((a) => a.title.startsWith("Drop ")).map((a) => a.title),
			windows: wins.map((w) => w.getAttribute("aria-label")), places: wins.map((w) => w.offsetLeft + "," + w.offsetTop)};`)
	want := []string{"Drop One", "Drop Two", "Drop Three"}
	if !slices.Equal(r.Titles, want) || !slices.Equal(r.Windows, want) {
		t.Fatalf("opened %v in windows %v, want %v in that order", r.Titles, r.Windows, want)
	}
	if places := slices.Compact(slices.Sorted(slices.Values(r.Places))); len(places) != 3 {
		t.Fatalf("windows at %v: want three places (cascaded)", r.Places)
	}
	eval(t, p, nil, `for (const a of window.voicebox.apps()) if (a.title.startsWith("Drop ")) await window.voicebox.close(a.appId);`)
}

// caseFindingApps: the side bar says where Voicebox looks and how deep (a page two folders down is not
// listed, and it says so); the filter narrows everything; an app that ran is in Recent and shows the tools
// it declared then before it opens; opened files show titles, once, marked when running; with the shelf
// empty the first-run card opens the sample app from the binary without writing anything.
func caseFindingApps(t *testing.T, p page, s *server) {
	testfs.Files(t, s.workspace, map[string]string{"near/near.html": "<!doctype html><title>Near Page</title>",
		"deep/er/deep.html": "<!doctype html><title>Too Deep</title>"})
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the page one folder down",
		`return [...document.querySelectorAll("#page-list .name")].some((n) => n.textContent === "Near Page");`)
	var side struct {
		Deep  bool     `json:"deep"`
		Roots []string `json:"roots"`
		Depth string   `json:"depth"`
	}
	eval(t, p, &side, `return {deep: [...document.querySelectorAll("#page-list .name")].some((n) => n.textContent === "Too Deep"),
		roots: [...document.querySelectorAll("#scanned-roots li")].map((li) => li.dataset.kind + ": " + li.textContent),
		depth: document.getElementById("pages-depth").textContent};`)
	ws := slices.IndexFunc(side.Roots, func(r string) bool { return strings.HasPrefix(r, "workspace: ") })
	if side.Deep || ws < 0 || !strings.Contains(side.Roots[ws], s.workspace) || !strings.Contains(side.Roots[ws], "two folders down is not listed") ||
		!strings.Contains(side.Depth, "direct subfolders") || !slices.ContainsFunc(side.Roots, func(r string) bool { return strings.HasPrefix(r, "shelf: ") }) {
		t.Fatalf("side bar: %+v", side)
	}

	// The filter.
	var shown struct {
		Bubbles []string `json:"bubbles"`
		Pages   []string `json:"pages"`
		None    bool     `json:"none"`
	}
	const filter = `const f = document.getElementById("tray-filter"); f.value = %s; f.dispatchEvent(new Event("input"));
		return {bubbles: [...document.querySelectorAll("#sqeh-actions .bubble")].map((b) => b.textContent),
			pages: [...document.querySelectorAll("#page-list .name")].map((n) => n.textContent),
			none: !document.getElementById("tray-no-match").hidden};`
	eval(t, p, &shown, filter, js("near"))
	if len(shown.Bubbles) != 0 || !slices.Equal(shown.Pages, []string{"Near Page"}) || shown.None {
		t.Fatalf("filter \"near\": %+v", shown)
	}
	eval(t, p, &shown, filter, js("no such thing"))
	if len(shown.Bubbles)+len(shown.Pages) != 0 || !shown.None {
		t.Fatalf("filter with no match: %+v", shown)
	}
	eval(t, p, &shown, filter, js(""))
	if !slices.Contains(shown.Bubbles, "Shelf Echo") || !slices.Contains(shown.Pages, "Near Page") {
		t.Fatalf("filter cleared: %+v", shown)
	}

	// Recent, and the tools an app declared when it last ran, before it opens.
	app := launch(t, p, "shelf-echo")
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "Shelf Echo running in the tray and in Recent",
		`return document.querySelector('#sqeh-actions .bubble[data-app-id="app_shelf-echo"]').classList.contains("running") &&
			!!document.querySelector('#recent-list button.running[data-app-id="app_shelf-echo"]');`)
	closeApp(t, p, app.AppID)
	var details struct {
		Tools []string `json:"tools"`
		Says  string   `json:"says"`
	}
	eval(t, p, &details, `
		document.querySelector('.app-chip[data-app-id="app_shelf-echo"] .chip-info').click();
		const d = document.getElementById("app-details");
		return {tools: [...d.querySelectorAll(".tool-list code")].map((c) => c.textContent), says: d.textContent};`)
	if !slices.Equal(slices.Sorted(slices.Values(details.Tools)), echoTools) || !strings.Contains(details.Says, "declared when it last ran") {
		t.Fatalf("tools before opening: %+v, want %v", details, echoTools)
	}

	// Opened files (the desktop's list, set as Go gives it): titles, a workspace page not listed twice, the
	// running one marked.
	var opened []string
	eval(t, p, &opened, `
		const st = await import("/src/state.js");
		const before = {opened: st.get().opened, apps: st.get().apps};
		const echo = st.get().entries.find((e) => e.fileName === "echo.html");
		st.update({opened: [{id: "doc_1", name: "a.html", title: "Page A", path: "/elsewhere/a.html"},
			{id: "doc_2", name: "echo.html", title: "Echo Lab", path: echo.storagePath}],
			apps: [...before.apps, {appId: "doc_page-a", title: "Page A", document: "doc_1", ready: true, tools: []}]});
		const out = [...document.querySelectorAll("#opened-list button")].map((b) => b.querySelector(".name").textContent + (b.classList.contains("running") ? " (running)" : ""));
		st.update(before);
		return out;`)
	if !slices.Equal(opened, []string{"Page A (running)"}) {
		t.Fatalf("Opened Files: %v", opened)
	}

	// The first run: an empty shelf, and the sample opens from the binary; nothing is written.
	var gone struct {
		Undo string `json:"undo"`
	}
	if st := s.call(t, &gone, "StoreService.Delete", "app_shelf-echo"); st != 200 || gone.Undo == "" {
		t.Fatalf("delete Shelf Echo: %d", st)
	}
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the first-run card", `return !document.getElementById("first-run").hidden;`)
	before := s.diskState(t)
	eval(t, p, nil, `document.getElementById("open-sample").click();`)
	waitTrue(t, p, 20*time.Second, 50*time.Millisecond, "the sample app with its three tools",
		`const a = window.voicebox.apps().find((x) => x.title === "Sample Scoreboard"); return !!a && a.ready && a.tools.length === 3;`)
	var sample string
	eval(t, p, &sample, `return window.voicebox.apps().find((x) => x.title === "Sample Scoreboard").appId;`)
	wantOK(t, "the sample's set_score", callTool(t, p, sample, "set_score", map[string]any{"team": "home", "points": 3}), `{"score":3,"team":"home"}`)
	if after := s.diskState(t); after != before {
		t.Errorf("the sample wrote to disk:\n%s\n---\n%s", before, after)
	}
	closeApp(t, p, sample)
	var back struct {
		Restored []string `json:"restored"`
	}
	if st := s.call(t, &back, "StoreService.Restore", map[string]string{"undo": gone.Undo}); st != 200 {
		t.Fatalf("restore Shelf Echo: %d", st)
	}
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "Shelf Echo back, the first-run card gone",
		`return document.getElementById("first-run").hidden && !!document.querySelector('#sqeh-actions .bubble[data-app-id="app_shelf-echo"]');`)
}

// caseConsoleControls: a nested object gets fields of its own, an array of choices checkboxes, a boolean a
// switch, a number an input with its bounds; a running call shows its elapsed time and Cancel refuses it
// `cancelled` and aborts the app's execute; the result can be copied; a recent call runs again.
func caseConsoleControls(t *testing.T, p page) {
	app := launch(t, p, "console.html")
	const card = `const card = async (tool) => {
			for (let i = 0; i < 100; i++) {
				const d = document.querySelector('#tool-list details.tc-tool[data-app-id="%s"][data-tool="' + tool + '"]');
				if (d) { d.open = true; return d; }
				await new Promise((r) => setTimeout(r, 50));
			}
			throw new Error("no console card for " + tool);
		};
		const output = async (d) => {
			for (let i = 0; i < 200; i++) {
				const o = d.querySelector(".tc-out");
				if (!o.hidden) return o.className + " " + o.textContent;
				await new Promise((r) => setTimeout(r, 50));
			}
			throw new Error("no console result");
		};`
	var form struct {
		Controls map[string]string `json:"controls"`
		Out      string            `json:"out"`
		Copy     bool              `json:"copy"`
	}
	eval(t, p, &form, card+`
		const f = await card("form");
		const x = f.querySelector("fieldset.tc-nested input[name=x]"), loud = f.querySelector("input[name=loud]"), count = f.querySelector("input[name=count]");
		const tags = [...f.querySelectorAll("fieldset.tc-choices input[type=checkbox]")];
		const controls = {x: x.type + " " + x.min + "…" + x.max, count: count.type + " " + count.min + "…" + count.max,
			loud: loud.type + " " + loud.getAttribute("role"), tags: tags.map((b) => b.value).join(","),
			json: String(f.querySelectorAll("textarea:not(.tc-raw)").length)};
		x.value = "3";
		tags[0].click(); tags[2].click();
		loud.click();
		count.value = "2";
		f.querySelector("button[type=submit]").click();
		const out = await output(f);
		return {controls, out, copy: !f.querySelector(".tc-copy").hidden};`, app.AppID)
	wantControls := map[string]string{"x": "number 0…10", "count": "number 1…5", "loud": "checkbox switch", "tags": `"a","b","c"`, "json": "0"}
	for k, v := range wantControls {
		if form.Controls[k] != v {
			t.Errorf("control %s: %q, want %q", k, form.Controls[k], v)
		}
	}
	out, ok := strings.CutPrefix(form.Out, "tc-out ok ")
	if !ok || compact(json.RawMessage(out)) != `{"count":2,"loud":true,"point":{"x":3},"tags":["a","c"]}` || !form.Copy {
		t.Fatalf("form call: %+v", form)
	}

	// A call that never answers: it shows its elapsed time, and Cancel ends it.
	var cancelled struct {
		Elapsed float64 `json:"elapsed"`
		Out     string  `json:"out"`
	}
	eval(t, p, &cancelled, card+`
		const w = await card("wait");
		w.querySelector("button[type=submit]").click();
		let elapsed = 0;
		for (let i = 0; i < 400 && elapsed < 0.3; i++) {
			await new Promise((r) => setTimeout(r, 25));
			const m = /running… ([0-9.]+) s/.exec(w.querySelector(".tc-status").textContent);
			elapsed = m ? Number(m[1]) : 0;
		}
		w.querySelector(".tc-cancel").click();
		return {elapsed, out: await output(w)};`, app.AppID)
	if cancelled.Elapsed < 0.3 || !strings.HasPrefix(cancelled.Out, "tc-out refused cancelled: ") {
		t.Fatalf("cancelled call: %+v", cancelled)
	}
	deadline := time.Now().Add(10 * time.Second)
	for o := callTool(t, p, app.AppID, "cancels", map[string]any{}); compact(o.Result) != "1"; o = callTool(t, p, app.AppID, "cancels", map[string]any{}) {
		if time.Now().After(deadline) {
			t.Fatalf("the app saw %s cancels of its execute, want 1", o.Result)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Recent calls, newest first; Run again repeats one with its arguments.
	var recent struct {
		Before []string `json:"before"`
		After  []string `json:"after"`
	}
	eval(t, p, &recent, `
		const rows = () => [...document.querySelectorAll("#tc-recent li")].map((li) => li.dataset.tool + " " + li.className);
		const before = rows();
		[...document.querySelectorAll("#tc-recent li")].find((li) => li.dataset.tool === "form").querySelector(".tc-rerun").click();
		for (let i = 0; i < 200 && rows()[1] !== "wait refused"; i++) await new Promise((r) => setTimeout(r, 50));
		return {before, after: rows()};`)
	if len(recent.Before) < 2 || len(recent.After) < 3 || !slices.Equal(recent.Before[:2], []string{"wait refused", "form ok"}) ||
		!slices.Equal(recent.After[:3], []string{"form ok", "wait refused", "form ok"}) {
		t.Fatalf("recent calls: %+v", recent)
	}
	closeApp(t, p, app.AppID)
}
