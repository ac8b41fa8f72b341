package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/sandbox"
)

// The WebMCP cases (docs/webmcp.md) run in every browser beside the others: declarative forms as tools,
// refused tools shown, and what the room does for a page (dialogs, downloads, copies, focus, workers,
// WebAssembly, IndexedDB, forms that stay inside the app).

func webmcpCases(t *testing.T, p page, s *server, chromium bool) {
	focusWindow(t, p)
	t.Run("declarative forms", func(t *testing.T) { caseDeclarativeForms(t, p, s) })
	t.Run("capabilities", func(t *testing.T) { caseCapabilities(t, p) })
	t.Run("model context", func(t *testing.T) { caseModelContext(t, p) })
	t.Run("download by navigation", func(t *testing.T) { caseBlobNavigation(t, p, chromium) })
	t.Run("an app cannot raise itself", func(t *testing.T) { caseAppCannotRaiseItself(t, p, s) })
}

// caseAppCannotRaiseItself (issue 28, finding 6): Raiser takes its own connection to the bridge and posts,
// every 250 ms, the notice the SDK sends when the assistant fills in a form ("your bank transfer"). Before,
// that brought the minimised app back within a second, marked focused, with the false line "The assistant
// filled in the form “your bank transfer”". Now a form notice counts only during a call to that form's
// tool from a caller: minimised, Raiser stays minimised, unfocused and silent about forms (while a notice
// of its that the room does show, its alert, proves its posts arrive), and a real call to its form still
// brings it up with the notice.
func caseAppCannotRaiseItself(t *testing.T, p page, s *server) {
	app := launch(t, p, "raiser.html")
	id := app.AppID
	waitNotice(t, p, id, "raiser is posting") // the control: the page's own posts reach the room
	type view struct{ Hidden, Focused, Marked bool }
	look := func() view {
		t.Helper()
		var v view
		eval(t, p, &v, `const w = document.querySelector('.mini-app-window[data-app-id=' + %[1]s + ']');
			const tab = [...document.querySelectorAll("#window-list button")].find((b) => b.dataset.appId === %[1]s);
			return {hidden: w.hidden, focused: w.classList.contains("focused"), marked: !!tab && tab.classList.contains("minimised")};`, js(id))
		return v
	}
	eval(t, p, nil, `document.querySelector('.mini-app-window[data-app-id=' + %s + '] .mini-app-min').click();`, js(id))
	if v := look(); !v.Hidden || v.Focused || !v.Marked {
		t.Fatalf("minimised: %+v", v)
	}
	// Let it post at least twelve more (three seconds of its 250 ms loop), counted by the page itself.
	sent := func() int {
		t.Helper()
		var st struct {
			Sent      int  `json:"sent"`
			Connected bool `json:"connected"`
		}
		o := callTool(t, p, id, "sent", map[string]any{})
		wantOK(t, "sent", o, "")
		_ = json.Unmarshal(o.Result, &st)
		if !st.Connected {
			t.Fatalf("the page has no connection to post on: %s", o.Result)
		}
		return st.Sent
	}
	from := sent()
	for deadline := time.Now().Add(30 * time.Second); sent() < from+12; time.Sleep(250 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the page did not post 12 notices in 30 s")
		}
	}
	if v := look(); !v.Hidden || v.Focused || !v.Marked {
		t.Errorf("after %d forged form notices the app is %+v, want still minimised and unfocused", sent()-from, v)
	}
	if n := notices(t, p, id); strings.Contains(n, "filled in the form") {
		t.Errorf("a forged notice shows: %s", n)
	}
	// A real call to its form tool from a caller (Go's, as a model's or an MCP client's): the app comes up.
	wantOK(t, "transfer", goCall(t, s, id, "transfer", json.RawMessage(`{"amount":25}`)), "")
	waitNotice(t, p, id, "The assistant filled in the form “transfer”")
	if v := look(); v.Hidden || !v.Focused || v.Marked {
		t.Errorf("after a real call to its form the app is %+v, want in front", v)
	}
	if n := notices(t, p, id); strings.Contains(n, "your bank transfer") {
		t.Errorf("a forged notice shows beside the real one: %s", n)
	}
	closeApp(t, p, id)
}

// caseModelContext: the imperative API as a page written for the draft or Chrome's early preview uses it
// (docs/webmcp.md, "The imperative API"): feature detection; a duplicate name and an aborted signal
// rejected; a refusal in the room and in the app's console; a signal aborted later unregistering its
// tool; then unregisterTool, provideContext (replaces every tool) and clearContext (removes them all),
// each seen by the room.
func caseModelContext(t *testing.T, p page) {
	app := launch(t, p, "model-context.html")
	id := app.AppID
	waitTools(t, p, id, "aborted,drop,keep,step")
	var seen struct {
		Detect             []bool
		Same               bool
		Changes            int
		Duplicate, Aborted string
		Warned             []string
	}
	stepTo := func(s string) {
		t.Helper()
		o := callTool(t, p, id, "step", map[string]any{"s": s})
		wantOK(t, s, o, "")
		_ = json.Unmarshal(o.Result, &seen)
	}
	stepTo("state")
	if js(seen.Detect) != "[true,true]" || !seen.Same || seen.Duplicate != "InvalidStateError" || seen.Aborted != "AbortError" || seen.Changes < 4 {
		t.Fatalf("before the steps: %+v", seen)
	}
	// A tool the contract refuses is in the room's list and in the app's own console, with the reason.
	refused := map[string]string{}
	for _, r := range appState(t, p, id).Refused {
		refused[r.Name] = r.Refused
	}
	if refused["dotted.name"] != "invalid-tool-name" {
		t.Fatalf("refused in the room: %+v", refused)
	}
	if w := strings.Join(seen.Warned, "\n"); !strings.Contains(w, `webMcp: tool "dotted.name" refused: invalid-tool-name`) {
		t.Fatalf("the app's console says %q, want why dotted.name was refused", w)
	}
	wantOK(t, "a registered tool", callTool(t, p, id, "keep", map[string]any{}), `"keep"`)
	stepTo("abort")
	waitTools(t, p, id, "drop,keep,step")
	stepTo("unregister")
	waitTools(t, p, id, "keep,step")
	if o := callTool(t, p, id, "drop", map[string]any{}); o.OK || o.Refused != "unknown-tool" {
		t.Fatalf("an unregistered tool answered: %+v", o)
	}
	stepTo("provide")
	waitTools(t, p, id, "fresh,step")
	wantOK(t, "a provided tool", callTool(t, p, id, "fresh", map[string]any{}), `"fresh"`)
	stepTo("clear")
	waitTools(t, p, id, "")
	closeApp(t, p, id)
}

type toolDecl struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Annotations json.RawMessage `json:"annotations"`
}

type appView struct {
	Loads   int        `json:"loads"`
	Tools   []toolDecl `json:"tools"`
	Refused []struct {
		Name, Refused, Path, Message string
	} `json:"refused"`
}

func appState(t testing.TB, p page, appID string) appView {
	t.Helper()
	var a appView
	eval(t, p, &a, `return window.voicebox.apps().find((a) => a.appId === %s);`, js(appID))
	return a
}

func (a appView) names() string {
	var n []string
	for _, t := range a.Tools {
		n = append(n, t.Name)
	}
	return strings.Join(n, ",")
}

func (a appView) tool(name string) toolDecl {
	for _, t := range a.Tools {
		if t.Name == name {
			return t
		}
	}
	return toolDecl{}
}

// notices are the lines the room shows on an app's pop-over.
func notices(t testing.TB, p page, appID string) string {
	t.Helper()
	var n []string
	eval(t, p, &n, `return [...document.querySelectorAll('.mini-app-window[data-app-id=%s] .mini-app-notice span')].map((s) => s.textContent);`, js(appID))
	return strings.Join(n, "\n")
}

func waitNotice(t testing.TB, p page, appID, text string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(notices(t, p, appID), text) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: no notice with %q; the notices are:\n%s", p.name(), text, notices(t, p, appID))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func caseDeclarativeForms(t *testing.T, p page, s *server) {
	// Opened by the model: the person's keyboard stays where it is (the app's frame is inert).
	var app launched
	eval(t, p, &app, `return await window.voicebox.launch("webmcp-forms.html", {by: "model"});`)
	if hasKeyboard(t, p, app.AppID) {
		t.Fatal("an app the model opened was handed the keyboard")
	}
	a := appState(t, p, app.AppID)
	if got := a.names(); got != "book_table,leave_note,search_menu,board,rect,page" {
		t.Fatalf("tools %s", got)
	}
	// The schema is built from the controls, inside the contract's subset; what it cannot say is described.
	var book struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	_ = json.Unmarshal(a.tool("book_table").Parameters, &book)
	want := map[string]string{
		"who":    `{"description":"Guest name Must match the pattern [A-Za-z ]+.","maxLength":40,"minLength":2,"type":"string"}`,
		"guests": `{"description":"Guests","maximum":8,"minimum":1,"type":"integer"}`,
		"budget": `{"description":"Budget per guest in euros In steps of 0.5 from 0.","minimum":0,"type":"number"}`,
		"room":   `{"description":"Where to sit Choices: \"in\" = Dining room; \"out\" = Terrace.","enum":["in","out"],"type":"string"}`,
		"slot":   `{"description":"Time of the booking Choices: \"lunch\" = Lunch; \"dinner\" = Dinner.","enum":["lunch","dinner"],"type":"string"}`,
		"vegan":  `{"description":"Vegan menu","type":"boolean"}`,
		"extras": `{"description":"Choices: \"wine\" = Wine; \"cake\" = Cake. Each choice at most once.","items":{"enum":["wine","cake"],"type":"string"},"type":"array"}`,
		"day":    `{"description":"Give a date as YYYY-MM-DD. From 2026-01-01 to any.","type":"string"}`,
	}
	for name, w := range want {
		if got := js(book.Properties[name]); got != w {
			t.Errorf("property %s:\n got %s\nwant %s", name, got, w)
		}
	}
	if len(book.Properties) != len(want) || strings.Join(book.Required, ",") != "who,slot" {
		t.Errorf("properties %v, required %v", book.Properties, book.Required)
	}
	if a.tool("board").Annotations == nil || !strings.Contains(string(a.tool("board").Annotations), `"readOnlyHint":true`) {
		t.Errorf("board annotations: %s", a.tool("board").Annotations)
	}
	// Refused tools are visible: the room's list, the title bar, the Tool Console and the activity log.
	refused := map[string]string{}
	for _, r := range a.Refused {
		refused[r.Name] = r.Refused + " " + r.Path + " " + r.Message
	}
	if len(refused) != 2 || !strings.HasPrefix(refused["twice"], "invalid-tool-parameters /properties/a two controls") ||
		!strings.HasPrefix(refused["patterned"], "invalid-tool-parameters /properties/code/pattern") {
		t.Fatalf("refused %v", refused)
	}
	var shown struct {
		Status  string   `json:"status"`
		Console []string `json:"console"`
		Log     string   `json:"log"`
	}
	eval(t, p, &shown, `const w = document.querySelector('.mini-app-window[data-app-id=%[1]s]');
		return {status: w.querySelector(".mini-app-status").textContent,
			console: [...document.querySelectorAll('.tc-refused[data-app-id=%[1]s]')].map((c) => c.dataset.tool + " " + c.dataset.refused).sort(),
			log: [...document.querySelectorAll("#activity-log li")].map((l) => l.textContent).join("\n")};`, js(app.AppID))
	if shown.Status != "6 tools · 2 refused" || strings.Join(shown.Console, ",") != "patterned invalid-tool-parameters,twice invalid-tool-parameters" ||
		!strings.Contains(shown.Log, "refused tool twice") || !strings.Contains(shown.Log, "at /properties/a: two controls are named") {
		t.Fatalf("refusals shown: %+v", shown)
	}
	// Calls: toolautosubmit with respondWith answers with the page's value; the form's validation speaks
	// first; without toolautosubmit the form is filled and left to the person.
	wantOK(t, "book", callTool(t, p, app.AppID, "book_table", map[string]any{"who": "Ann Lee", "guests": 3, "slot": "dinner", "vegan": true, "extras": []string{"cake"}}),
		`{"booked":"Ann Lee","extras":["cake"],"guests":3,"slot":"dinner","vegan":true}`)
	o := callTool(t, p, app.AppID, "book_table", map[string]any{"who": "R2D2", "slot": "lunch"})
	if o.OK || o.Refused != "tool-error" || !strings.HasPrefix(o.Message, "form validation failed: who: ") {
		t.Fatalf("pattern mismatch: %+v", o)
	}
	wantRefused(t, "Go checks the schema first", goCall(t, s, app.AppID, "book_table", json.RawMessage(`{"who":"A","slot":"lunch"}`)), "invalid-argument-length", "")
	wantOK(t, "note", callTool(t, p, app.AppID, "leave_note", map[string]any{"text": "less salt"}), `"The form \"leave_note\" is filled in and waiting for the person to check and submit it."`)
	waitNotice(t, p, app.AppID, "filled in the form")
	var st struct {
		Note    string `json:"note"`
		Focused string `json:"focused"`
		Detect  []bool `json:"detect"`
	}
	state := func() {
		t.Helper()
		o := callTool(t, p, app.AppID, "page", map[string]any{"step": "state"})
		_ = json.Unmarshal(o.Result, &st)
	}
	state()
	if st.Note != "less salt" || js(st.Detect) != "[true,true]" || st.Focused != "body" {
		t.Fatalf("after the note, without the keyboard: %+v", st)
	}
	// The submit button the SDK wanted focused gets the keyboard once the person hands it to the app (with
	// a press on an element that moves no focus itself).
	clickInApp(t, p, app.AppID, "#pad")
	if state(); st.Focused != "button" {
		t.Fatalf("after the person's press, focus is on %q, want the form's submit button", st.Focused)
	}
	var decls struct {
		Declarations []struct{ Name, Description string } `json:"declarations"`
	}
	eval(t, p, &decls, `return await window.voicebox.functionDeclarations("openai");`)
	readOnly := false
	for _, d := range decls.Declarations {
		readOnly = readOnly || strings.HasSuffix(d.Name, "__board") && strings.Contains(d.Description, "Read-only")
	}
	if !readOnly {
		t.Errorf("readOnlyHint does not reach the voice declarations: %+v", decls)
	}
	// The tools follow the forms: added, renamed, removed; a 500-control form is refused by the bounds.
	for _, c := range []struct{ step, names string }{
		{"add", "book_table,leave_note,search_menu,board,rect,page,added_later"},
		{"rename", "book_table,leave_note,search_menu,board,rect,page,renamed_later"},
		{"remove", "book_table,leave_note,search_menu,board,rect,page"},
	} {
		wantOK(t, c.step, callTool(t, p, app.AppID, "page", map[string]any{"step": c.step}), "")
		waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "tools after "+c.step,
			`return window.voicebox.apps().find((a) => a.appId === `+js(app.AppID)+`).tools.map((t) => t.name).join(",") === `+js(c.names)+`;`)
	}
	wantOK(t, "huge", callTool(t, p, app.AppID, "page", map[string]any{"step": "huge"}), "")
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the 500-control form refused",
		`return window.voicebox.apps().find((a) => a.appId === `+js(app.AppID)+`).refused.some((r) => r.name === "huge" && r.refused === "invalid-tool-parameters");`)
	// toolautosubmit on a form that navigates: the page submits to itself, and the new document's tools
	// replace the old ones.
	loads := appState(t, p, app.AppID).Loads
	wantOK(t, "search", callTool(t, p, app.AppID, "search_menu", map[string]any{"q": "soup"}), `"The form \"search_menu\" was submitted."`)
	waitTrue(t, p, 15*time.Second, 100*time.Millisecond, "the submitted page ready",
		`const a = window.voicebox.apps().find((a) => a.appId === `+js(app.AppID)+`); return a.ready && a.loads > `+js(loads)+`;`)
	o = callTool(t, p, app.AppID, "page", map[string]any{"step": "state"})
	if !strings.Contains(string(o.Result), `"search":"?q=soup"`) {
		t.Fatalf("after the search: %+v", o)
	}
	closeApp(t, p, app.AppID)
}

func caseCapabilities(t *testing.T, p page) {
	app := launch(t, p, "capabilities.html")
	id := app.AppID
	probe := func(what string, arg ...string) outcome {
		t.Helper()
		args := map[string]any{"what": what}
		if len(arg) > 0 {
			args["arg"] = arg[0]
		}
		return callTool(t, p, id, "probe", args)
	}
	type capState struct {
		Focused, Copied, Search, Clicks string
		Exec                            bool
	}
	state := func() capState {
		t.Helper()
		var s capState
		o := probe("state")
		_ = json.Unmarshal(o.Result, &s)
		return s
	}
	// Opened by the person: the room hands the app the keyboard. Whether the frame then has the focus is
	// the browser's to decide (headless Chromium may give no page focus to another process's frame without
	// input; WebKit only to a frame the person pressed in before), so the autofocus is checked after a press
	// that moves no focus itself: the input has the keyboard from the hand-over, or from the press.
	if !hasKeyboard(t, p, id) {
		t.Fatal("an app the person opened was not handed the keyboard")
	}
	// Dialogs answer at once with a browser's safe defaults and show as notices.
	wantOK(t, "dialogs", probe("dialogs"), `{"confirm":false,"prompt":null}`)
	waitNotice(t, p, id, `Capability Lab says: “Saved!”`)
	waitNotice(t, p, id, `asked: “Delete everything?”. It was answered Cancel`)
	wantOK(t, "blob worker", probe("worker"), `42`)
	wantOK(t, "WebAssembly", probe("wasm"), `42`)
	wantOK(t, "IndexedDB", probe("indexeddb"), `42`)
	wantOK(t, "service worker", probe("serviceworker"), `{"error":"SecurityError","inNavigator":true}`)
	// No gesture, no download and no copy; past the bound, no download at all.
	wantOK(t, "quiet download", probe("download"), `"clicked"`)
	waitNotice(t, p, id, "Refused: a download needs the person's click")
	wantOK(t, "copy without a gesture", probe("copy"), `"NotAllowedError"`)
	waitNotice(t, p, id, "Refused: copying needs the person's click")
	wantOK(t, "big download", probe("bigdownload", js(sandbox.MaxDownloadBytes+1)), `"clicked"`)
	waitNotice(t, p, id, "over the limit of 67108864")
	// The person's press gives the autofocus input the keyboard (pressed only now: a press is a gesture for
	// a while, and the refusals above need none).
	clickInApp(t, p, id, "#pad")
	if s := state(); s.Focused != "first" {
		t.Fatalf("after a press in the app, focus is on %q, want the autofocus input (%+v)", s.Focused, s)
	}
	// With the person's click: the room saves the bytes under a clean name, and copies.
	clickInApp(t, p, id, "#download")
	waitNotice(t, p, id, "Downloaded report_.txt (10 bytes)") // "../report?.txt", cleaned
	clickInApp(t, p, id, "#copy")
	clickInApp(t, p, id, "#execcopy")
	// In WebKit too: the app's request reaches the room as a window message (docs/sandbox.md, "Room ↔
	// bridge"), which carries the person's gesture to the room's own clipboard write; on ports WebKit
	// refused it ("Not copied").
	waitNotice(t, p, id, "Copied 17 characters")
	waitNotice(t, p, id, "Copied 14 characters")
	if s := state(); s.Copied != "ok" || !s.Exec {
		t.Errorf("the page heard %+v, want its copies accepted", s)
	}
	// requestUserInteraction: the app comes to the front marked "needs you" while the person is asked.
	var seen struct {
		During, After bool
		Result        outcome
	}
	eval(t, p, &seen, `const id = %s;
		const call = window.voicebox.callTool(id, "ask_person", {});
		const marked = () => !!document.querySelector('.mini-app-window.needs-you[data-app-id=' + id + '] .mini-app-needs-you');
		let during = false;
		for (let i = 0; i < 100 && !during; i++) { during = marked(); await new Promise((r) => setTimeout(r, 10)); }
		const result = await call;
		return {during, after: marked(), result};`, js(id))
	if !seen.During || seen.After || !seen.Result.OK || string(seen.Result.Result) != `"answered"` {
		t.Errorf("requestUserInteraction: %+v", seen)
	}
	// Forms submit inside the app only: a form to a listener of ours never reaches it, one to the app's
	// own URL reloads the app with its query.
	var hits atomic.Int32
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer sink.Close()
	wantOK(t, "forms", probe("forms", sink.URL+"/collect"), `"ready"`)
	loads := appState(t, p, id).Loads
	clickInApp(t, p, id, "#awaybtn")
	waitNotice(t, p, id, "tried to send its data to "+sink.URL+", outside the app")
	// Headless Chromium may drop the first click after a notice resized the frame (its hit-test data for
	// the frame lags): the click is repeated until the page saw it. It only ever submits once, since the
	// first one that lands reloads the page.
	for try := 0; appState(t, p, id).Loads == loads; try++ {
		if try == 3 {
			t.Fatalf("the app's own form did not reload it: %+v; notices:\n%s", state(), notices(t, p, id))
		}
		clickInApp(t, p, id, "#homebtn")
		for deadline := time.Now().Add(3 * time.Second); appState(t, p, id).Loads == loads && time.Now().Before(deadline); {
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitTrue(t, p, 15*time.Second, 100*time.Millisecond, "the app reloaded by its own form",
		`const a = window.voicebox.apps().find((a) => a.appId === `+js(id)+`); return a.ready && a.loads > `+js(loads)+`;`)
	if s := state(); s.Search != "?q=home" {
		t.Errorf("after the form: %+v", s)
	}
	wantOK(t, "forms again", probe("forms", sink.URL+"/collect"), `"ready"`)
	wantOK(t, "hide submissions from the SDK", probe("bypass"), `"hidden"`)
	clickInApp(t, p, id, "#awaybtn")
	time.Sleep(time.Second) // a request, had one left, would have reached the listener by now
	if n := hits.Load(); n != 0 {
		t.Fatalf("a form reached a listener outside the app %d time(s)", n)
	}
	closeApp(t, p, id)
}
