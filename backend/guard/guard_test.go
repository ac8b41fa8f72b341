package guard

import (
	"os"
	"path/filepath"
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

// A download by navigation goes to OnDownload; with none, its bytes and the guard's private folder go.
func TestDownloadWithoutAReceiver(t *testing.T) {
	defer func(o Options) { opts = o }(opts)
	folder := filepath.Join(t.TempDir(), "voicebox-download-1")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(folder, "bytes")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []Download
	opts = Options{OnDownload: func(d Download) { got = append(got, d) }}
	download(Download{Path: file, Name: "a.txt"})
	download(Download{Refused: "needs-gesture", Message: "no click"})
	if len(got) != 2 || got[0].Path != file || got[1].Refused != "needs-gesture" {
		t.Fatalf("OnDownload got %+v", got)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the receiver's file went before it read it: %v", err)
	}
	opts = Options{}
	download(Download{Path: file, Name: "a.txt"})
	if _, err := os.Stat(folder); !os.IsNotExist(err) {
		t.Errorf("with no receiver the guard's folder stays: %v", err)
	}
}

// The program that opens a confirmed URL runs without the variables this process set for its own WebKit
// (OpenerUnset) and with everything else: a real opener (a shell script) writes the environment it got.
func TestOpenerDoesNotInheritTheWindowsGLChoices(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "env")
	opener := filepath.Join(dir, "opener")
	if err := os.WriteFile(opener, []byte("#!/bin/sh\nenv > '"+got+".part' && mv '"+got+".part' '"+got+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VOICEBOX_TEST_WINDOW_GL", "disable")
	t.Setenv("VOICEBOX_TEST_PERSON", "kept")
	saved := opts
	t.Cleanup(func() { opts = saved })
	opts = Options{Opener: opener, OpenerUnset: []string{"VOICEBOX_TEST_WINDOW_GL"}, ConfirmExternal: func(string) bool { return true }}
	external("https://example.com/page")
	var env string
	for deadline := time.Now().Add(10 * time.Second); env == ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the opener never ran")
		}
		b, _ := os.ReadFile(got)
		env = string(b)
	}
	if strings.Contains(env, "VOICEBOX_TEST_WINDOW_GL=") {
		t.Errorf("the opener inherited VOICEBOX_TEST_WINDOW_GL:\n%s", env)
	}
	if !strings.Contains(env, "VOICEBOX_TEST_PERSON=kept\n") {
		t.Errorf("the opener lost the rest of the environment:\n%s", env)
	}
}

func TestEnvironWithout(t *testing.T) {
	got := environWithout([]string{"A=1", "GDK_GL=disable", "AB=2", "GDK_GL_X=3", "B"}, []string{"GDK_GL", "B"})
	if want := []string{"A=1", "AB=2", "GDK_GL_X=3"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("environWithout = %q, want %q", got, want)
	}
}
