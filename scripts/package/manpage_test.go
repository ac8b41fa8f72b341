package main

import (
	"strings"
	"testing"
	"time"

	"github.com/voicebox/voicebox/backend/cli"
)

func TestParseUsageReadsTheCLI(t *testing.T) {
	u, err := parseUsage(cli.Usage)
	if err != nil {
		t.Fatal(err)
	}
	if len(u.commands) < 4 || len(u.sections) == 0 || u.sections[0].title != "Environment" {
		t.Fatalf("parsed %+v", u)
	}
	page := string(manPage(u, release{describe: "v1.0.0", date: time.Unix(0, 0).UTC()}))
	for _, want := range []string{".TH VOICEBOX 1 \"1970\\-01\\-01\" \"voicebox v1.0.0\"", ".SH NAME\nvoicebox \\- ",
		`\fBvoicebox\fR serve [\-\-addr`, ".SH ENVIRONMENT\n"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
}

// A usage text of another shape is refused, not half-rendered.
func TestParseUsageRefusesOtherShapes(t *testing.T) {
	for name, text := range map[string]string{
		"no summary":       "Voicebox\n\n  voicebox run\n      runs\n",
		"no commands":      "Voicebox: a room.\n\nEnvironment: X.\n",
		"unexplained form": "Voicebox: a room.\n\n  voicebox run\n  voicebox stop\n      stops\n",
		"stray line":       "Voicebox: a room.\n\n  voicebox run\n      runs\nnot a label\n",
		"indent in label":  "Voicebox: a room.\n\n  voicebox run\n      runs\nEnvironment: X\n    Y\n",
	} {
		if u, err := parseUsage(text); err == nil {
			t.Errorf("%s: parsed %+v, want an error", name, u)
		}
	}
}

// Roff control characters and escapes in the usage text stay text.
func TestRoffText(t *testing.T) {
	for in, want := range map[string]string{`.hidden`: `\&.hidden`, `'x`: `\&'x`, `a\b`: `a\eb`, `--mcp`: `\-\-mcp`} {
		if got := roffText(in); got != want {
			t.Errorf("roffText(%q) = %q, want %q", in, got, want)
		}
	}
}
