package display

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain text":                     "plain text",
		"evil\u202Etxt.exe":              "eviltxt.exe",
		"a\u2066b\u2069c\u200Fd\u061Ce":  "abcde",
		"line\nbreak\ttab\r":             "line break tab ",
		"esc\x1b[31mred\x7f\u0085":       "esc[31mred",
		"bad \xff utf-8":                 "bad \uFFFD utf-8",
		"\ufeffbom":                      "bom",
		"emoji 👍🏽 and ZWJ 👩\u200d💻 stay": "emoji 👍🏽 and ZWJ 👩\u200d💻 stay",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCutNeverSplitsACharacter(t *testing.T) {
	s := strings.Repeat("é", 10) // 2 bytes each
	for max := 1; max <= 21; max++ {
		got := Cut(s, max)
		if len(got) > max || !utf8.ValidString(got) || len(got) < max-1 {
			t.Errorf("Cut(%d) = %q (%d bytes)", max, got, len(got))
		}
	}
	if Cut(s, 0) != s {
		t.Error("max 0 bounds nothing")
	}
	if got := Text("  \u202Eabc  ", 2); got != "ab" {
		t.Errorf("Text = %q", got)
	}
}
