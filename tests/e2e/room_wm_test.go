package e2e

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/frontend"
)

// Windows, layout and keyboard (issue 15, "Windows, layout, keyboard"), in every browser against the
// suite's one server. Keys are pressed for real (keys_test.go): the room ignores synthetic ones.

// Apps the suite's earlier cases leave in place (the shelf case trashes the scoreboard).
var sevenApps = []string{"echo.html", "broken.html", "many.html", "plain.html", "comment.html", "quirks.html", "Shelf Echo"}

func closeAll(t *testing.T, p page) {
	t.Helper()
	eval(t, p, nil, `for (const a of window.voicebox.apps()) await window.voicebox.close(a.appId);`)
}

type winBox struct {
	App                string
	L, T, W, H         int
	Hidden, Front, Max bool
}

func windowBoxes(t *testing.T, p page) []winBox {
	t.Helper()
	var out []winBox
	eval(t, p, &out, `return [...document.querySelectorAll("#mini-app-container .mini-app-window")].map((w) => ({app: w.dataset.appId,
		l: w.offsetLeft, t: w.offsetTop, w: w.offsetWidth, h: w.offsetHeight, hidden: w.hidden, front: w.classList.contains("focused"),
		max: w.classList.contains("maximised")}));`)
	return out
}

// caseWindowManager: seven windows that never share a corner; minimise (the window list brings it back),
// maximise and restore, the grip's keyboard resize, Ctrl+` to the next window, and windows re-fitted
// into a stage that shrinks when the Mini-Apps panel shows.
func caseWindowManager(t *testing.T, p page) {
	closeAll(t, p)
	ids := map[string]string{}
	for _, ref := range sevenApps {
		ids[ref] = launch(t, p, ref).AppID
	}
	boxes := windowBoxes(t, p)
	if len(boxes) != 7 {
		t.Fatalf("%d windows, want 7", len(boxes))
	}
	corners := map[string]string{}
	for _, b := range boxes {
		k := fmt.Sprintf("%d,%d", b.L, b.T)
		if other, ok := corners[k]; ok {
			t.Errorf("%s lands exactly on %s at %s", b.App, other, k)
		}
		corners[k] = b.App
	}
	var list []string
	eval(t, p, &list, `return [...document.querySelectorAll("#window-list button")].map((b) => b.textContent);`)
	if len(list) != 7 {
		t.Errorf("the window list shows %v, want the 7 apps", list)
	}

	// Minimise one: it hides and the list marks it; its button there brings it back in front.
	score := ids[sevenApps[1]]
	var st struct{ Hidden, Marked, Back, Front bool }
	eval(t, p, &st, `
		const w = [...document.querySelectorAll(".mini-app-window")].find((x) => x.dataset.appId === %[1]s);
		w.querySelector(".mini-app-min").click();
		const tab = [...document.querySelectorAll("#window-list button")].find((b) => b.dataset.appId === %[1]s);
		const hidden = w.hidden, marked = tab.classList.contains("minimised");
		tab.click();
		return {hidden, marked, back: !w.hidden, front: w.classList.contains("focused")};`, js(score))
	if !st.Hidden || !st.Marked || !st.Back || !st.Front {
		t.Errorf("minimise and the window list: %+v", st)
	}

	// Maximise fills the room for windows; restore puts it back where it was.
	var mx struct {
		Before, Max, After [4]int
		Room               [2]int
	}
	eval(t, p, &mx, `
		const w = [...document.querySelectorAll(".mini-app-window")].find((x) => x.dataset.appId === %[1]s);
		const r = () => [w.offsetLeft, w.offsetTop, w.offsetWidth, w.offsetHeight];
		const before = r();
		w.querySelector(".mini-app-max").click();
		const max = r();
		w.querySelector(".mini-app-max").click();
		const c = document.getElementById("mini-app-container");
		return {before, max, after: r(), room: [c.clientWidth, c.clientHeight]};`, js(score))
	if mx.Max != [4]int{0, 0, mx.Room[0], mx.Room[1]} || mx.After != mx.Before {
		t.Errorf("maximise %v in a room of %v, restore %v from %v", mx.Max, mx.Room, mx.After, mx.Before)
	}

	// The grip shows and resizes from the keyboard.
	var grip struct {
		Shown  bool
		Before int
		At     string // what is at the grip's centre
	}
	// (An earlier case's toast may still show at the foot of the stage, over the windows: dismissed first.)
	eval(t, p, &grip, `
		for (const b of document.querySelectorAll(".notice .notice-close")) b.click();
		const w = [...document.querySelectorAll(".mini-app-window")].find((x) => x.dataset.appId === %[1]s);
		w.style.width = (w.offsetWidth - 64) + "px";
		const g = w.querySelector(".mini-app-grip");
		const r = g.getBoundingClientRect();
		g.focus();
		const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
		return {shown: r.width > 0 && at === g, before: w.offsetWidth, at: at ? at.tagName + "." + at.className + " " + JSON.stringify(at.textContent.slice(0, 80)) : "nothing"};`, js(score))
	press(t, p, "ArrowRight")
	var after int
	eval(t, p, &after, `return [...document.querySelectorAll(".mini-app-window")].find((x) => x.dataset.appId === %s).offsetWidth;`, js(score))
	if !grip.Shown || after != grip.Before+32 {
		t.Errorf("the grip: visible and on top %v (%s there); → made the window %d wide from %d, want +32", grip.Shown, grip.At, after, grip.Before)
	}

	// Ctrl+` brings the next window (in opening order) to the front.
	eval(t, p, nil, `document.getElementById("toggle-panel").focus();`)
	press(t, p, "Ctrl+`")
	var front string
	eval(t, p, &front, `return document.querySelector(".mini-app-window.focused")?.dataset.appId || "";`)
	if front != ids[sevenApps[2]] {
		t.Errorf("Ctrl+` brought %q to the front, want the window opened after %s (%s)", front, score, ids[sevenApps[2]])
	}

	// A window at the stage's right edge, then the Mini-Apps panel shows: the stage shrinks and the window
	// moves in, its ✕ with it.
	var fitted struct {
		Right, Room int
		Hit         bool
	}
	eval(t, p, &fitted, `
		const sidebar = document.getElementById("toggle-sidebar");
		if (sidebar.getAttribute("aria-expanded") === "true") sidebar.click();
		await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
		const c = document.getElementById("mini-app-container");
		const w = [...document.querySelectorAll(".mini-app-window")].find((x) => x.dataset.appId === %[1]s);
		w.style.left = (c.clientWidth - w.offsetWidth) + "px";
		sidebar.click();
		for (let i = 0; i < 50; i++) await new Promise((r) => requestAnimationFrame(r));
		const x = w.querySelector(".mini-app-close").getBoundingClientRect();
		return {right: w.offsetLeft + w.offsetWidth, room: c.clientWidth, hit: document.elementFromPoint(x.left + x.width / 2, x.top + x.height / 2) === w.querySelector(".mini-app-close")};`, js(score))
	if fitted.Right > fitted.Room || !fitted.Hit {
		t.Errorf("after the stage shrank the window ends at %d in a room of %d, its ✕ reachable: %v", fitted.Right, fitted.Room, fitted.Hit)
	}
	closeAll(t, p)
}

// caseViewerStaysReachable: the File Viewer shows over the windows opened before it, and a window opened
// after it starts below its header: its buttons stay the topmost thing at their centre.
func caseViewerStaysReachable(t *testing.T, p page) {
	closeAll(t, p)
	launch(t, p, "echo.html")
	launch(t, p, "many.html")
	eval(t, p, nil, `[...document.querySelectorAll("#page-list button")].find((b) => b.textContent.includes("plain.html")).click();`)
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the File Viewer", `return !document.getElementById("file-viewer").hidden;`)
	launch(t, p, "comment.html")
	var covered []string
	eval(t, p, &covered, `return [...document.querySelectorAll("#file-viewer header button")].filter((b) => {
		const r = b.getBoundingClientRect();
		return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) !== b;
	}).map((b) => b.id);`)
	if len(covered) > 0 {
		t.Errorf("the File Viewer's buttons %v are covered", covered)
	}
	// The person's launch handed the new app the keyboard (its keys are its own): the room takes it back first.
	eval(t, p, nil, `document.getElementById("file-close").focus();`)
	press(t, p, "Escape")
	var hidden bool
	eval(t, p, &hidden, `document.body.focus(); return document.getElementById("file-viewer").hidden;`)
	if !hidden {
		t.Error("Escape did not close the File Viewer")
	}
	closeAll(t, p)
}

// caseKeyboard: Open File… is a Tab stop and Ctrl+O opens the picker; Ctrl+B and Ctrl+Alt+B hide and show
// the panels; Ctrl+Shift+L puts the keyboard in the activity filter; Shift+F10 on a tray app reads its
// source; Ctrl+/ lists every shortcut of the one list (frontend/room/shortcuts.json) that this room has,
// and Escape closes that list.
func caseKeyboard(t *testing.T, p page) {
	eval(t, p, nil, `
		window.__picked = 0;
		document.getElementById("open-file").addEventListener("click", (e) => { e.preventDefault(); window.__picked++; });
		document.getElementById("toggle-panel").focus();`)
	var stops []string
	for i := 0; i < 8; i++ {
		press(t, p, "Tab")
		var id string
		eval(t, p, &id, `return document.activeElement.id;`)
		stops = append(stops, id)
		if id == "open-file-button" {
			break
		}
	}
	if stops[len(stops)-1] != "open-file-button" {
		t.Errorf("Tab from the panel toggles went %v, never to Open File…", stops)
	}
	press(t, p, "Enter")
	press(t, p, "Ctrl+O")
	var picked int
	eval(t, p, &picked, `return window.__picked;`)
	if picked != 2 {
		t.Errorf("Enter on Open File… and Ctrl+O opened the picker %d times, want 2", picked)
	}

	var panels []string
	const read = `return [document.body.classList.contains("sidebar-hidden"), document.body.classList.contains("panel-hidden")].join(",");`
	const stageWidth = `return document.getElementById("stage").offsetWidth;`
	var wide [2]int
	eval(t, p, &wide[0], stageWidth)
	var s string
	eval(t, p, &s, read)
	panels = append(panels, s)
	for i, k := range []string{"Ctrl+B", "Ctrl+Alt+B", "Ctrl+B", "Ctrl+Alt+B"} {
		press(t, p, k)
		eval(t, p, &s, read)
		panels = append(panels, s)
		if i == 0 {
			eval(t, p, &wide[1], stageWidth)
		}
	}
	if wide[1] <= wide[0] {
		t.Errorf("the stage is %d px wide with the Mini-Apps panel and %d px without: a hidden panel must give the stage its room", wide[0], wide[1])
	}
	if strings.Join(panels, " ") != "false,false true,false true,true false,true false,false" {
		t.Errorf("Ctrl+B, Ctrl+Alt+B twice: panels hidden %v", panels)
	}
	press(t, p, "Ctrl+Shift+L")
	var focus string
	eval(t, p, &focus, `return document.activeElement.id;`)
	if focus != "activity-filter" {
		t.Errorf("Ctrl+Shift+L left the keyboard on %q, want the activity filter", focus)
	}

	eval(t, p, nil, `[...document.querySelectorAll("#sqeh-actions .bubble")].find((x) => x.textContent === "Shelf Echo").focus();`)
	press(t, p, "Shift+F10")
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the tray app's source in the File Viewer",
		`return !document.getElementById("file-viewer").hidden && document.getElementById("file-title").textContent === "Shelf Echo";`)
	press(t, p, "Escape")
	waitTrue(t, p, 5*time.Second, 50*time.Millisecond, "Escape to close the viewer", `return document.getElementById("file-viewer").hidden;`)

	press(t, p, "Ctrl+/")
	waitTrue(t, p, 5*time.Second, 50*time.Millisecond, "the shortcuts dialog", `const d = document.getElementById("shortcuts-dialog"); return !!d && d.open;`)
	var rows []string
	eval(t, p, &rows, `return [...document.querySelectorAll("#shortcuts-dialog tr")].map((r) => r.dataset.id);`)
	list, err := frontend.Shortcuts()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, sc := range list {
		if sc.Only != "desktop" {
			want = append(want, sc.ID)
		}
	}
	sort.Strings(rows)
	sort.Strings(want)
	if strings.Join(rows, ",") != strings.Join(want, ",") {
		t.Errorf("the shortcuts dialog lists %v, want %v", rows, want)
	}
	press(t, p, "Escape")
	var open bool
	eval(t, p, &open, `return document.getElementById("shortcuts-dialog").open;`)
	if open {
		t.Error("Escape did not close the shortcuts dialog")
	}
}
