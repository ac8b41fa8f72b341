package e2e

import "testing"

// caseLaunchBound: the room's own launch (here with a 1 s bound instead of Go's 15 s) of an app that takes
// 5.5 s to become ready rejects with launch-timeout, and the app it was opening is closed: the answer
// matches what happened (before, the launch failed and the app opened anyway).
func caseLaunchBound(t *testing.T, p page) {
	var r struct {
		Code, Message string
		Open          []string
	}
	eval(t, p, &r, `
		const v = window.voicebox;
		let code = "", message = "";
		try { await v.launch("slow-ready.html", {bound: 1000}); } catch (e) { code = e.code; message = e.message; }
		const frames = [...document.querySelectorAll("iframe.mini-app-bridge")].map((f) => f.title);
		return {code, message, open: v.apps().map((a) => a.title).concat(frames)};`)
	if r.Code != "launch-timeout" || r.Message == "" {
		t.Fatalf("launch past its bound: %q %q, want launch-timeout", r.Code, r.Message)
	}
	for _, title := range r.Open { // its frame gone, nothing of it can report ready later
		if title == "Slow Starter" {
			t.Fatalf("the app whose launch failed is open: %v", r.Open)
		}
	}
}
