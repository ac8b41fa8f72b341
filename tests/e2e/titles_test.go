package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// caseTitlesForDisplay: a shelf app whose <title> carries a right-to-left override and control characters
// shows a neutral title in the tray, on its pop-over and in the Tool Console (the store's displayTitle,
// backend/display), and keeps working.
func caseTitlesForDisplay(t *testing.T, p page, s *server) {
	const raw = "Invoice \u202Egpj.exe\u0007 &#x202E;!"
	const shown = "Invoice gpj.exe !"
	app := `<!doctype html><title>` + raw + `</title><script>
		webMcp.registerTool({name: "hi", description: "", parameters: {type: "object"}, execute: () => "hi"});
		webMcp.ready();</script>`
	file := filepath.Join(s.data, "mini-apps", "bidi-title.html")
	if err := os.WriteFile(file, []byte(app), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(file)
	waitTrue(t, p, 10*time.Second, 50*time.Millisecond, "the app in the tray",
		`return [...document.querySelectorAll("#sqeh-actions .bubble")].some((b) => b.textContent.startsWith("Invoice"));`)
	var r struct {
		Tray, Window, Console, AppID string
	}
	eval(t, p, &r, `
		const b = [...document.querySelectorAll("#sqeh-actions .bubble")].find((x) => x.textContent.startsWith("Invoice"));
		const a = await window.voicebox.launch({ref: b.dataset.appId});
		const win = [...document.querySelectorAll("#mini-app-container .mini-app-window")].find((w) => w.dataset.appId === a.appId);
		let h3 = null;
		for (let i = 0; i < 100 && !h3; i++) {
			h3 = [...document.querySelectorAll("#tool-list .tc-app")].find((x) => x.dataset.appId === a.appId);
			if (!h3) await new Promise((res) => setTimeout(res, 20));
		}
		return {Tray: b.textContent, Window: win.querySelector(".mini-app-title").textContent,
			Console: h3 ? h3.querySelector("h3").firstChild.textContent : "(not listed)", AppID: a.appId};`)
	for where, got := range map[string]string{"tray": r.Tray, "pop-over": r.Window, "tool console": r.Console} {
		if got != shown || strings.ContainsAny(got, "\u202E\u0007") {
			t.Errorf("%s shows %q, want %q", where, got, shown)
		}
	}
	wantOK(t, "the app still answers", callTool(t, p, r.AppID, "hi", map[string]any{}), `"hi"`)
	closeApp(t, p, r.AppID)
}
