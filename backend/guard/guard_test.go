package guard

import (
	"strings"
	"testing"
	"time"
)

func TestNormalizeOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"":                        "wails://wails",
		"wails://wails":           "wails://wails",
		"WAILS://Wails/":          "wails://wails",
		"http://127.0.0.1:34115":  "http://127.0.0.1:34115",
		"https://example.com:443": "https://example.com",
		"http://localhost:80":     "http://localhost",
	} {
		got, err := normalizeOrigin(in)
		if err != nil || got != want {
			t.Errorf("normalizeOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"wails", "wails://wails/index.html", "wails://", "://x", "wails://wa ils", "javascript:alert(1)"} {
		if got, err := normalizeOrigin(bad); err == nil {
			t.Errorf("normalizeOrigin(%q) = %q, want an error", bad, got)
		}
	}
}

func TestWebURL(t *testing.T) {
	for in, ok := range map[string]bool{
		"https://example.com/x?y=1": true,
		"http://example.com":        true,
		"file:///etc/passwd":        false,
		"javascript:alert(1)":       false,
		"-xdg-open-option":          false,
		"https:///nohost":           false,
		"wails://wails/":            false,
	} {
		if _, got := webURL(in); got != ok {
			t.Errorf("webURL(%q) ok = %v, want %v", in, got, ok)
		}
	}
}

func TestDurMS(t *testing.T) {
	if got := durMS(0, 250*time.Millisecond); got != 250 {
		t.Errorf("default: %d", got)
	}
	if got := durMS(-1, time.Second); got != 0 {
		t.Errorf("negative: %d", got)
	}
	if got := durMS(time.Microsecond, time.Second); got != 1 {
		t.Errorf("tiny: %d", got)
	}
	if got := durMS(3*time.Second, time.Second); got != 3000 {
		t.Errorf("3s: %d", got)
	}
}

func TestActiveFalseBeforeInstall(t *testing.T) {
	if Active() {
		t.Fatal("Active() is true in a process that never ran the hook")
	}
}

// The guard's scripts get their arguments as JSON strings: no value can end its string and add code.
func TestScriptsTakeTheirArgumentsAsJSON(t *testing.T) {
	js := scriptsFor("wails://wails")
	if want := `)("wails://wails","voicebox-guard-ipc","voicebox-guard-ipc-mic");` + "\n"; !strings.HasSuffix(js.forwarder, want) {
		t.Errorf("forwarder ends %q, want %q", js.forwarder[len(js.forwarder)-80:], want)
	}
	if want := `)("wails://wails","voicebox-guard-ipc","__voiceboxGuard","voicebox-guard-ipc-mic");` + "\n"; !strings.HasSuffix(js.page, want) {
		t.Errorf("page script ends %q, want %q", js.page[len(js.page)-90:], want)
	}
	if !strings.HasPrefix(js.forwarder, "(// ") || !strings.Contains(js.takeMic, "voiceboxGuardTakeMic()") {
		t.Errorf("scripts: %.40q… %q", js.forwarder, js.takeMic)
	}
	got := applyJS("function (a) {}", `x");alert(1);("`+"\u2028</script>")
	if want := "(function (a) {}\n)(\"x\\\");alert(1);(\\\"\\u2028\\u003c/script\\u003e\");\n"; got != want {
		t.Errorf("applyJS = %q, want %q", got, want)
	}
}
