package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/voicebox/voicebox/backend/author/codemodel"
	"github.com/voicebox/voicebox/backend/author/codemodel/codemodeltest"
	"github.com/voicebox/voicebox/tests/layout"
)

// The assistant writes and changes apps from the room (issue 25; docs/authoring.md, "In the room"): the real
// `voicebox serve` binary asks a protocol-level fake of OpenAI's Responses API (codemodeltest, reached
// through VOICEBOX_OPENAI_API_URL) and the room shows each build as a card, opens the app it wrote in a
// pop-over, changes it in place, lists its versions and restores one; a refused key and a cancelled build
// say so on their card.

const codeKey = "sk-e2e-code-key-0123456789"

// startAuthorServer is a server whose code model is the fake (OpenAI, the default provider, with its key
// from the environment as a person's would be).
func startAuthorServer(t *testing.T) (*codemodeltest.Server, *server) {
	t.Helper()
	if testing.Short() {
		t.Skip("browser end-to-end tests are skipped in -short mode")
	}
	fake := codemodeltest.NewOpenAI(t)
	fake.Key = codeKey
	t.Setenv("OPENAI_API_KEY", codeKey)
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("VOICEBOX_OPENAI_API_URL", fake.URL)
	return fake, startServer(t)
}

func TestAuthoringChromium(t *testing.T) {
	fake, s := startAuthorServer(t)
	p := openChromium(t, s.url)
	authoringCases(t, p, s, fake)
}

func TestAuthoringWebKit(t *testing.T) {
	fake, s := startAuthorServer(t)
	p := openWebKit(t, s.url)
	authoringCases(t, p, s, fake)
}

// buildCard is a build card as the room shows it.
type buildCard struct {
	ID      string   `json:"id"`
	State   string   `json:"state"`
	Heading string   `json:"heading"`
	Badge   string   `json:"badge"`
	Request string   `json:"request"`
	Text    string   `json:"text"`
	Meta    string   `json:"meta"`
	Outcome string   `json:"outcome"`
	Actions []string `json:"actions"`
}

const readCardsJS = `return [...document.querySelectorAll("#build-list .build-card")].map((c) => ({
	id: c.dataset.id, state: c.dataset.state,
	heading: c.querySelector(".build-heading").textContent, badge: c.querySelector(".build-state").textContent,
	request: c.querySelector(".build-request").textContent,
	text: c.querySelector(".build-text").hidden ? "" : c.querySelector(".build-text").textContent,
	meta: c.querySelector(".build-meta").textContent,
	outcome: c.querySelector(".build-outcome").hidden ? "" : c.querySelector(".build-outcome").textContent,
	actions: [...c.querySelectorAll(".build-actions button")].map((b) => b.textContent)}));`

// cardFor is the card of the build asked with request ("" when there is none).
func cardFor(t *testing.T, p page, request string) buildCard {
	t.Helper()
	var cards []buildCard
	eval(t, p, &cards, readCardsJS)
	for _, c := range cards {
		if c.Request == request {
			return c
		}
	}
	return buildCard{}
}

// waitCard waits until request's card is in state.
func waitCard(t *testing.T, p page, request, state string) buildCard {
	t.Helper()
	waitTrue(t, p, 30*time.Second, 50*time.Millisecond, "the card of "+request+" "+state,
		`return [...document.querySelectorAll("#build-list .build-card")].some((c) => c.querySelector(".build-request").textContent === `+js(request)+` && c.dataset.state === `+js(state)+`);`)
	return cardFor(t, p, request)
}

// newApp types a description (and a name) into the side bar's New App field and presses Enter there.
func newApp(t *testing.T, p page, description, name string) {
	t.Helper()
	eval(t, p, nil, `const a = document.getElementById("new-app-text"); a.value = %s; document.getElementById("new-app-name").value = %s; a.focus();`, js(description), js(name))
	press(t, p, "Enter")
}

func authoringCases(t *testing.T, p page, s *server, fake *codemodeltest.Server) {
	openRoom(t, p)
	src, err := os.ReadFile("testdata/authoring/chess-clock.html")
	if err != nil {
		t.Fatal(err)
	}
	html := string(src)

	t.Run("Ctrl+N puts the keyboard in New App", func(t *testing.T) {
		before, err := p.windowCount()
		if err != nil {
			t.Fatal(err)
		}
		// The Mini-Apps panel hides… (the room reads its list of shortcuts as it boots: the first press may
		// come before it has it)
		var hidden bool
		for deadline := time.Now().Add(10 * time.Second); !hidden && time.Now().Before(deadline); {
			press(t, p, "Ctrl+B")
			eval(t, p, &hidden, `return document.body.classList.contains("sidebar-hidden");`)
		}
		eval(t, p, nil, `document.getElementById("toggle-panel").focus();`)
		press(t, p, "Ctrl+N") // …and New App shows it again
		var r struct {
			Focus  string `json:"focus"`
			Hidden bool   `json:"hidden"`
		}
		eval(t, p, &r, `return {focus: document.activeElement.id, hidden: document.body.classList.contains("sidebar-hidden")};`)
		if !hidden || r.Hidden || r.Focus != "new-app-text" {
			t.Errorf("Ctrl+B hid the side bar: %v; after Ctrl+N it is hidden: %v and the keyboard is on %q, want new-app-text", hidden, r.Hidden, r.Focus)
		}
		if after, _ := p.windowCount(); after != before {
			t.Errorf("Ctrl+N left %d browser windows, was %d", after, before)
		}
	})

	const create = "make me a chess clock with one start button"
	t.Run("New App writes the app: the card streams, then it opens with its tools", func(t *testing.T) {
		fake.Queue(codemodeltest.Text("Here is your chess clock:\n```html\n", html[:len(html)/3], html[len(html)/3:2*len(html)/3], html[2*len(html)/3:], "```\nEnjoy!"))
		// Every state the card is drawn in, with its text and whether the app's window is there yet.
		eval(t, p, nil, `
			window.__cards = [];
			const list = document.getElementById("build-list");
			new MutationObserver(() => { for (const c of list.querySelectorAll(".build-card")) window.__cards.push({state: c.dataset.state,
				text: c.querySelector(".build-text").hidden ? "" : c.querySelector(".build-text").textContent,
				meta: c.querySelector(".build-meta").textContent,
				window: !!document.querySelector('.mini-app-window[aria-label="Chess Clock"]')}); })
				.observe(list, {subtree: true, childList: true, characterData: true, attributes: true});`)
		newApp(t, p, create, "")
		c := waitCard(t, p, create, "done")
		waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "Chess Clock open and ready with start_clock",
			`return window.voicebox.apps().some((a) => a.title === "Chess Clock" && a.ready && a.tools.some((t) => t.name === "start_clock"));`)
		var seen []struct {
			State  string `json:"state"`
			Text   string `json:"text"`
			Meta   string `json:"meta"`
			Window bool   `json:"window"`
		}
		eval(t, p, &seen, `return window.__cards;`)
		streamed := false
		for _, x := range seen {
			if (x.State == "writing" || x.State == "checking") && strings.Contains(x.Text, "read_page") && strings.Contains(x.Meta, "characters") {
				streamed = true
			}
		}
		if !streamed {
			t.Errorf("the card never showed the answer's text while it was written or checked: %+v", seen)
		}
		if len(seen) == 0 || seen[0].Window {
			t.Errorf("the card must show before the app opens: %+v", seen)
		}
		if c.Heading != "New app: Chess Clock" || !strings.Contains(c.Outcome, "Chess Clock is open") || !strings.Contains(c.Outcome, "start_clock") ||
			c.Text != "" || strings.Join(c.Actions, ",") != "Bring to Front,Dismiss" || !strings.Contains(c.Meta, "OpenAI") {
			t.Errorf("the finished card: %+v", c)
		}
		var console string
		eval(t, p, &console, `return document.getElementById("tool-list").textContent;`)
		if !strings.Contains(console, "start_clock") || !strings.Contains(console, "read_page") {
			t.Errorf("the Tool Console does not list the app's tools: %q", console)
		}
		reqs := fake.Requests()
		if len(reqs) != 1 || !strings.Contains(reqs[0].Messages[0].Text, create) || reqs[0].Model != codemodel.DefaultOpenAIModel {
			t.Fatalf("the code model was asked %d times (first: model %q, messages %d)", len(reqs), reqs[0].Model, len(reqs[0].Messages))
		}
	})

	var appID string
	eval(t, p, &appID, `return window.voicebox.apps().find((a) => a.title === "Chess Clock").appId;`)
	readButton := func(t *testing.T) string {
		t.Helper()
		o := callTool(t, p, appID, "read_page", map[string]any{})
		wantOK(t, "read_page", o, "")
		return string(o.Result)
	}

	const change = "make the start button bigger"
	t.Run("Change this app… changes it in place; the Versions list has both", func(t *testing.T) {
		if b := readButton(t); strings.Contains(b, "font-size") {
			t.Fatalf("the first version's button: %s", b)
		}
		eval(t, p, nil, `
			const w = [...document.querySelectorAll(".mini-app-window")].find((x) => x.getAttribute("aria-label") === "Chess Clock");
			window.__win = w;
			w.querySelector(".mini-app-bar .mini-app-change").click();`)
		waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the Change strip with one version",
			`return window.__win.querySelectorAll(".change-versions li[data-version]").length === 1 && !!window.__win.querySelector(".change-text");`)

		// The strip is the room's: with the app holding the keyboard, the focus in the strip takes it back.
		eval(t, p, nil, `window.__win.querySelector(".mini-app-title").focus();`)
		press(t, p, "Enter")
		var inert [2]bool
		eval(t, p, &inert[0], `return window.__win.querySelector(".mini-app-body").inert;`)
		eval(t, p, &inert[1], `window.__win.querySelector(".change-text").focus(); return window.__win.querySelector(".mini-app-body").inert;`)
		if inert[0] || !inert[1] {
			t.Errorf("the app's frame inert with the keyboard handed over: %v, once the Change field has the focus: %v (want false, true)", inert[0], inert[1])
		}

		fake.Queue(codemodeltest.Text("```\n<<<<<<< SEARCH\n<button id=\"start\">Start</button>\n=======\n<button id=\"start\" style=\"font-size:2em\">Start</button>\n>>>>>>> REPLACE\n```\n"))
		eval(t, p, nil, `const a = window.__win.querySelector(".change-text"); a.value = %s; a.focus();`, js(change))
		press(t, p, "Enter")
		c := waitCard(t, p, change, "done")
		if c.Heading != "Change Chess Clock" || !strings.Contains(c.Outcome, "version 2") {
			t.Errorf("the change's card: %+v", c)
		}
		waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the same pop-over reloaded",
			`return window.voicebox.apps().some((a) => a.appId === `+js(appID)+` && a.ready && a.loads >= 2);`)
		var same bool
		eval(t, p, &same, `const ws = [...document.querySelectorAll(".mini-app-window")].filter((x) => x.getAttribute("aria-label") === "Chess Clock");
			return ws.length === 1 && ws[0] === window.__win && window.__win.isConnected;`)
		if !same {
			t.Error("the change did not load in the pop-over the app was in")
		}
		if b := readButton(t); !strings.Contains(b, "font-size:2em") {
			t.Errorf("after the change the button is %s", b)
		}
		reqs := fake.Requests()
		if last := reqs[len(reqs)-1]; !strings.Contains(last.Messages[0].Text, change) || !strings.Contains(last.Messages[0].Text, `<button id="start">Start</button>`) {
			t.Errorf("the edit's request carries no change or page: %q", last.Messages[0].Text)
		}
		waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "two versions, the change's the current one, and its status line",
			`const li = [...window.__win.querySelectorAll(".change-versions li[data-version]")];
			return li.length === 2 && li[0].dataset.version === "2" && li[0].classList.contains("current") && li[0].textContent.includes(`+js(change)+`) &&
				window.__win.querySelector(".change-status").textContent.includes("Chess Clock is open");`)
		var undo string
		eval(t, p, &undo, `return window.__win.querySelector(".change-undo").textContent;`)
		if undo != "Undo (back to version 1)" {
			t.Errorf("Undo says %q", undo)
		}
	})

	t.Run("Restore version 1 brings the page back", func(t *testing.T) {
		var loads int
		eval(t, p, &loads, `return window.voicebox.apps().find((a) => a.appId === %s).loads;`, js(appID))
		eval(t, p, nil, `window.__win.querySelector('.change-versions li[data-version="1"] .version-restore').click();`)
		waitTrue(t, p, 15*time.Second, 50*time.Millisecond, "version 3, a copy of 1, current",
			`const li = [...window.__win.querySelectorAll(".change-versions li[data-version]")];
			return li.length === 3 && li[0].dataset.version === "3" && li[0].textContent.includes("version 1 restored");`)
		waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the pop-over reloaded again",
			`return window.voicebox.apps().some((a) => a.appId === `+js(appID)+` && a.ready && a.loads > `+js(loads)+`);`)
		if b := readButton(t); strings.Contains(b, "font-size") {
			t.Errorf("after restoring version 1 the button is %s", b)
		}
		var same bool
		eval(t, p, &same, `const ws = [...document.querySelectorAll(".mini-app-window")].filter((x) => x.getAttribute("aria-label") === "Chess Clock");
			return ws.length === 1 && ws[0] === window.__win;`)
		if !same {
			t.Error("Restore opened another window")
		}
		eval(t, p, nil, `window.__win.querySelector(".change-close").click();`)
	})

	const refused = "make me a pomodoro timer"
	t.Run("a refused key: the card's sentence and Open Settings; the code model is a setting; Try Again", func(t *testing.T) {
		var windows int
		eval(t, p, &windows, `return document.querySelectorAll(".mini-app-window").length;`)
		fake.Queue(codemodeltest.Status(401, "Incorrect API key provided: "+codeKey+". You can find your API key in your account settings."))
		newApp(t, p, refused, "")
		c := waitCard(t, p, refused, "failed")
		var after int
		eval(t, p, &after, `return document.querySelectorAll(".mini-app-window").length;`)
		if after != windows {
			t.Errorf("a failed build opened a window (%d, was %d)", after, windows)
		}
		if c.Outcome != "OpenAI refused the API key, so the app was not written. Check the key in Settings." ||
			strings.Join(c.Actions, ",") != "Open Settings,Try Again,Dismiss" || strings.Contains(c.Outcome, codeKey) {
			t.Errorf("the failed card: %+v", c)
		}
		var placeholder string
		eval(t, p, &placeholder, `
			[...document.querySelectorAll("#build-list .build-card")].find((c) => c.querySelector(".build-request").textContent === %s)
				.querySelector(".build-settings").click();
			for (let i = 0; i < 100 && !document.getElementById("settings-dialog").open; i++) await new Promise((r) => setTimeout(r, 20));
			if (!document.getElementById("settings-dialog").open) return "no dialog";
			return document.getElementById("settings-openai-code-model").placeholder;`, js(refused))
		if placeholder != codemodel.DefaultOpenAIModel {
			t.Fatalf("Open Settings: the code model field's placeholder is %q, want the default code model", placeholder)
		}
		eval(t, p, nil, `document.getElementById("settings-openai-code-model").value = "gpt-e2e-code"; document.getElementById("settings-save").click();`)
		waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "Settings saved and closed", `return !document.getElementById("settings-dialog").open;`)
		var settings struct {
			OpenAI struct {
				CodeModel string `json:"codeModel"`
			} `json:"openai"`
		}
		s.call(t, &settings, "SettingsService.Get")
		if settings.OpenAI.CodeModel != "gpt-e2e-code" {
			t.Errorf("the code model saved is %q", settings.OpenAI.CodeModel)
		}
		// Try Again asks for the same app again, with the code model now set; it opens.
		fake.Queue(codemodeltest.Text(`<!doctype html><html><head><title>Pomodoro</title></head><body><p>25:00</p><script>
navigator.modelContext.registerTool({ name: "get_time", description: "The time left", inputSchema: { type: "object", properties: {} }, execute: () => ({ left: "25:00" }) });
</script></body></html>`))
		eval(t, p, nil, `[...document.querySelectorAll("#build-list .build-card")].find((c) => c.dataset.state === "failed" && c.querySelector(".build-request").textContent === %s)
			.querySelector(".build-retry").click();`, js(refused))
		waitCard(t, p, refused, "done")
		waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "Pomodoro open", `return window.voicebox.apps().some((a) => a.title === "Pomodoro" && a.ready);`)
		if reqs := fake.Requests(); !strings.Contains(reqs[len(reqs)-1].Messages[0].Text, refused) || reqs[len(reqs)-1].Model != "gpt-e2e-code" {
			t.Errorf("Try Again asked model %q for %q", reqs[len(reqs)-1].Model, reqs[len(reqs)-1].Messages[0].Text)
		}
		eval(t, p, nil, `await window.voicebox.close(window.voicebox.apps().find((a) => a.title === "Pomodoro").appId);`)
		eval(t, p, nil, `for (const c of document.querySelectorAll("#build-list .build-card")) if (c.querySelector(".build-request").textContent === %s) c.querySelector(".build-dismiss").click();`, js(refused))
		if c := cardFor(t, p, refused); c.ID != "" {
			t.Errorf("Dismiss left the card: %+v", c)
		}
	})

	const hang = "make me a stopwatch"
	t.Run("Cancel on a build that hangs: cancelled, nothing opens", func(t *testing.T) {
		var windows int
		eval(t, p, &windows, `return document.querySelectorAll(".mini-app-window").length;`)
		fake.Queue(codemodeltest.Hang("```html\n<!doctype html>\n<html><body>\n<p>waiting for the clock"))
		newApp(t, p, hang, "Stopwatch")
		select {
		case <-fake.Waiting():
		case <-time.After(30 * time.Second):
			t.Fatal("the code model was not asked")
		}
		waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the hanging build's text on its card",
			`return [...document.querySelectorAll("#build-list .build-card")].some((c) => c.querySelector(".build-request").textContent === `+js(hang)+` &&
				c.dataset.state === "writing" && c.querySelector(".build-text").textContent.includes("waiting for the clock"));`)
		c := cardFor(t, p, hang)
		if c.Heading != "New app: Stopwatch" || strings.Join(c.Actions, ",") != "Cancel" {
			t.Errorf("the running card: %+v", c)
		}
		eval(t, p, nil, `[...document.querySelectorAll("#build-list .build-card")].find((c) => c.querySelector(".build-request").textContent === %s)
			.querySelector(".build-cancel").click();`, js(hang))
		c = waitCard(t, p, hang, "cancelled")
		if c.Outcome != "Cancelled; nothing was written." || c.Text != "" {
			t.Errorf("the cancelled card: %+v", c)
		}
		select {
		case <-fake.Gone():
		case <-time.After(10 * time.Second):
			t.Error("the code model's request was not aborted")
		}
		reqs := fake.Requests()
		if m := reqs[len(reqs)-1].Model; m != "gpt-e2e-code" {
			t.Errorf("the build after Settings asked model %q, want the code model saved", m)
		}
		var after struct {
			Windows int  `json:"windows"`
			Open    bool `json:"open"`
		}
		eval(t, p, &after, `return {windows: document.querySelectorAll(".mini-app-window").length, open: window.voicebox.apps().some((a) => a.title === "Stopwatch")};`)
		if after.Windows != windows || after.Open {
			t.Errorf("a cancelled build opened something: %+v (windows were %d)", after, windows)
		}
	})
	if c, ok := p.(*chromiumPage); ok {
		t.Run("layout at 760x480 and 1440x900", func(t *testing.T) { authoringLayout(t, c, appID) })
	}
	if n := fake.Pending(); n != 0 {
		t.Errorf("%d queued answers were never asked for", n)
	}
}

// authoringLayout: the build cards (a done, a cancelled one) in the side panel and an app with its Change
// strip open, at the desktop's minimum 760×480 and at 1440×900, kept as screenshots and judged by the layout
// rules (tests/layout): every ✕ and bar button in reach (✎ too, in a window at its narrowest, 240 px), the
// cards beside the stage, not over it.
func authoringLayout(t *testing.T, p *chromiumPage, appID string) {
	defer func() { _ = chromedp.Do(p.ctx, chromedp.EmulateReset()) }()
	eval(t, p, nil, `
		const w = window.__win;
		if (!w.querySelector(".mini-app-change-panel")) w.querySelector(".mini-app-bar .mini-app-change").click();`)
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the Change strip", `return !!window.__win.querySelector(".change-versions li[data-version]");`)
	for _, size := range [][2]int{{760, 480}, {1440, 900}} {
		setViewport(t, p, size[0], size[1])
		var r struct {
			Stage  [4]int `json:"stage"`
			Builds [4]int `json:"builds"`
		}
		eval(t, p, &r, `const b = (e) => { const x = e.getBoundingClientRect(); return [x.left, x.top, x.width, x.height].map(Math.round); };
			return {stage: b(document.getElementById("stage")), builds: b(document.getElementById("builds"))};`)
		if r.Builds[2] == 0 || r.Builds[0] < r.Stage[0]+r.Stage[2] {
			t.Errorf("at %dx%d the build cards %v are not beside the stage %v", size[0], size[1], r.Builds, r.Stage)
		}
		shootAndCheck(t, p, "authoring-cards-change", size[0], size[1], layout.Want{MinStageW: 200, MinStageH: 200, Windows: -1})
	}
	// The narrowest window: its bar's buttons, ✎ among them, and its ✕ are still in reach.
	setViewport(t, p, 1440, 900)
	eval(t, p, nil, `window.__win.querySelector(".change-close").click(); window.__win.style.width = "240px";`)
	shootAndCheck(t, p, "authoring-narrow-window", 1440, 900, layout.Want{MinStageW: 700, MinStageH: 700, Windows: -1})
	var bar struct {
		Change, Close [4]int
		Win           [4]int
	}
	eval(t, p, &bar, `const b = (e) => { const x = e.getBoundingClientRect(); return [x.left, x.top, x.width, x.height].map(Math.round); };
		return {Change: b(window.__win.querySelector(".mini-app-change")), Close: b(window.__win.querySelector(".mini-app-close")), Win: b(window.__win)};`)
	if bar.Close[0]+bar.Close[2] > bar.Win[0]+bar.Win[2] || bar.Change[2] == 0 {
		t.Errorf("in a 240 px window the bar's ✎ %v and ✕ %v do not fit the window %v", bar.Change, bar.Close, bar.Win)
	}
}
