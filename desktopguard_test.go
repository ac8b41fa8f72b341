package main

import (
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/voicebox/voicebox/backend/guard"
	"github.com/voicebox/voicebox/backend/recovery"
)

func TestExternalQuestion(t *testing.T) {
	q := externalQuestion("https://example.com/a/%25s%25n?q=%25x")
	if !strings.Contains(q, "a web page on example.com in your browser") || !strings.Contains(q, "https://example.com/a/%25s%25n?q=%25x") {
		t.Errorf("question: %q", q)
	}
	long := externalQuestion("https://example.com/" + strings.Repeat("x", 5000))
	if len([]rune(long)) > 600 || !strings.Contains(long, "example.com") || !strings.Contains(long, "…") {
		t.Errorf("a long address is not shortened for display: %d runes", len([]rune(long)))
	}
}

// Wails (Linux) hands the message to gtk_message_dialog_new as a printf format: every "%" must be doubled
// so that the text shows as is and nothing reads the stack.
func TestDialogTextIsNoFormatString(t *testing.T) {
	got := dialogText("50% of https://x.test/%s%n%25")
	want := "50% of https://x.test/%s%n%25"
	if goruntime.GOOS == "linux" {
		want = "50%% of https://x.test/%%s%%n%%25"
	}
	if got != want {
		t.Errorf("dialogText = %q, want %q", got, want)
	}
}

// An app that crashes the web process meets the watchdog's rule (it stops reopening apps after
// recovery.MaxHangs) before the guard's own limit on restarts of a crashing engine.
func TestCrashRestartsOutlastTheWatchdogsRule(t *testing.T) {
	if guard.CrashRestarts <= recovery.MaxHangs {
		t.Fatalf("guard.CrashRestarts = %d, want more than recovery.MaxHangs = %d", guard.CrashRestarts, recovery.MaxHangs)
	}
}

// The watchdog is told the most the web process held over the last samples, once: the next process starts
// from nothing.
func TestMemorySamplesPeak(t *testing.T) {
	var m memorySamples
	for _, v := range []int64{100, 2_600_000_000, 300, 200, 150} { // the oldest falls out of the ring of 4
		m.add(v)
	}
	if got := m.takePeak(); got != 2_600_000_000 {
		t.Errorf("peak %d, want 2.6 GB", got)
	}
	if got := m.takePeak(); got != 0 {
		t.Errorf("peak after it was taken %d, want 0", got)
	}
}
