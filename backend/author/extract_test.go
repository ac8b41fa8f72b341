package author

import (
	"errors"
	"strings"
	"testing"
)

// clockPage is a small app as a code model writes one.
const clockPage = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Chess clock</title>
  <style>
    body { font-family: system-ui; }
    button { font-size: 1rem; }
  </style>
</head>
<body>
  <h1>Chess clock</h1>
  <div id="white">5:00</div>
  <div id="black">5:00</div>
  <button id="start">Start</button>
  <button id="pause">Pause</button>
  <script>
    let running = false;
    navigator.modelContext.registerTool({
      name: "start_clock",
      description: "Start the clock for the player to move",
      inputSchema: { type: "object", properties: {} },
      execute: async () => { running = true; return { content: [{ type: "text", text: "started" }] }; },
    });
  </script>
</body>
</html>
`

func TestExtractHTMLAccepts(t *testing.T) {
	// A page whose script holds a line of three backticks, so only a longer fence can hold it.
	backtickPage := strings.Replace(clockPage, "let running = false;", "const help = `\n```\nnot a fence\n```\n`;\n    let running = false;", 1)
	tests := []struct{ name, answer, want string }{
		{"bare", clockPage, clockPage},
		{"bare with BOM, blank lines and a comment before the doctype",
			"\uFEFF\n\n<!-- written for Voicebox -->\n" + clockPage + "\n\n", "<!-- written for Voicebox -->\n" + clockPage},
		{"bare with a comment after </html>", clockPage + "<!-- end -->\n", clockPage + "<!-- end -->\n"},
		{"fenced html with prose around",
			"Here is your chess clock. It has start and pause tools.\n\n```html\n" + clockPage + "```\n\nOpen it and say \"start the clock\".",
			clockPage},
		{"fence without a language", "```\n" + clockPage + "```", clockPage},
		{"fence marked HTML with more info", "```HTML title=index.html\n" + clockPage + "```\n", clockPage},
		{"tilde fence", "Sure!\n~~~html\n" + clockPage + "~~~\n", clockPage},
		{"CRLF answer", strings.ReplaceAll("Done:\r\n```html\r\n"+clockPage+"```\r\n", "\r\n", "\r\n"), strings.ReplaceAll(clockPage, "\r\n", "\n")},
		{"indented fence, its indentation removed",
			"Here:\n  ```html\n" + indent(clockPage, "  ") + "  ```\n", clockPage},
		{"a longer fence holds a line of three backticks", "````html\n" + backtickPage + "````\n", backtickPage},
		{"</html> inside a script string is not the end", strings.Replace(clockPage, "let running = false;", `const s = "</html> and more";`, 1),
			strings.Replace(clockPage, "let running = false;", `const s = "</html> and more";`, 1)},
		{"an empty body with a script that builds the page",
			"<!doctype html><html><head><script>document.body.append('hi')</script></head><body></body></html>",
			"<!doctype html><html><head><script>document.body.append('hi')</script></head><body></body></html>\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ExtractHTML(tc.answer)
			if err != nil {
				t.Fatalf("ExtractHTML: %v", err)
			}
			if got != tc.want {
				t.Fatalf("page differs:\n got %q\nwant %q", clip(got, 300), clip(tc.want, 300))
			}
		})
	}
}

func TestExtractHTMLRefuses(t *testing.T) {
	tests := []struct{ name, answer, says string }{
		{"empty", " \n\t", "empty"},
		{"a refusal in prose", "I'm sorry, I can't build that.", "no HTML document"},
		{"prose before a bare document", "Here is the app:\n" + clockPage, "text before the HTML document"},
		{"prose after a bare document", clockPage + "\nThis clock has two tools.", `the text "This clock has two tools."`},
		{"a fence after a bare document", clockPage + "```\n", "after </html>"},
		{"two fenced blocks", "```html\n" + clockPage + "```\nAnd the styles:\n```css\nbody{}\n```\n", "2 fenced code blocks"},
		{"two html blocks", "```html\n" + clockPage + "```\n```html\n" + clockPage + "```\n", "2 fenced code blocks"},
		{"an unclosed fence (cut off)", "Here it is:\n\n```html\n" + clockPage[:200], "opened on line 3 is never closed"},
		{"a block of another language", "```javascript\nconsole.log(1)\n```", `marked "javascript"`},
		{"an empty block", "```html\n\n```", "block is empty"},
		{"a fragment", "```html\n<div id=app>hi</div>\n```", "does not start with <html> (it starts with <div>)"},
		{"a bare fragment", "<button>Start</button>", "does not start with <html> (it starts with <button>)"},
		{"a truncated bare document", clockPage[:len(clockPage)-40], "does not end with </html>"},
		{"no <html> at all, just a doctype", "<!doctype html>", "has no <html> element"},
		{"an empty body and no script", "<!doctype html><html><head><title>x</title></head><body>\n  \n</body></html>", "<body> is empty"},
		{"a frameset instead of a body", "<!doctype html><html><head></head><frameset><frame src=a.html></frameset></html>", "has no <body>"},
		{"invalid UTF-8", "<!doctype html><html><body>\xff</body></html>", "not valid UTF-8"},
		{"a NUL byte", "<!doctype html><html><body>a\x00b</body></html>", "NUL"},
		{"over 64 KiB", "```html\n<!doctype html><html><body><!--" + strings.Repeat("x", MaxPageBytes) + "--></body></html>\n```", "over the 65536-byte bound"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ExtractHTML(tc.answer)
			var f *Failure
			if !errors.As(err, &f) {
				t.Fatalf("ExtractHTML = %q, %v; want a *Failure", clip(got, 80), err)
			}
			if got != "" || f.Code != CodeNotHTML || !strings.Contains(f.Message, tc.says) {
				t.Fatalf("ExtractHTML = %q, %q %q; want code %q saying %q", clip(got, 80), f.Code, f.Message, CodeNotHTML, tc.says)
			}
		})
	}
}

func TestCheckPageBound(t *testing.T) {
	head, tail := "<!doctype html><html><body><!--", "--></body></html>\n"
	exact := head + strings.Repeat("x", MaxPageBytes-len(head)-len(tail)) + tail
	if len(exact) != MaxPageBytes {
		t.Fatalf("test page is %d bytes", len(exact))
	}
	if err := CheckPage(exact); err == nil {
		t.Fatal("CheckPage accepted a page whose body is only a comment") // the body rule, checked here on purpose
	}
	head, tail = "<!doctype html><html><body><p>", "</p></body></html>\n"
	exact = head + strings.Repeat("x", MaxPageBytes-len(head)-len(tail)) + tail
	if len(exact) != MaxPageBytes {
		t.Fatalf("test page is %d bytes", len(exact))
	}
	if err := CheckPage(exact); err != nil {
		t.Fatalf("CheckPage refused a page of exactly MaxPageBytes: %v", err)
	}
	if err := CheckPage(exact + " "); err == nil {
		t.Fatal("CheckPage accepted a page one byte over MaxPageBytes")
	}
}

func TestFencedBlocks(t *testing.T) {
	text := "intro\n```html\na\n```\nmiddle\n~~~~\nb\n~~~\nstill b\n~~~~~\n   ```js x\nc\n```\n    ```\nindented code, not a fence\n"
	got := fencedBlocks(text)
	want := []fence{
		{lang: "html", body: "a\n", closed: true, line: 2},
		{lang: "", body: "b\n~~~\nstill b\n", closed: true, line: 6},
		{lang: "js", body: "c\n", closed: true, line: 11},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d blocks %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("block %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	// A backtick fence's info string may not hold a backtick: "```a`b" is inline code, not a fence.
	if got := fencedBlocks("```a`b\nx\n"); len(got) != 0 {
		t.Errorf("inline code taken for a fence: %+v", got)
	}
	if got := fencedBlocks("```html\nx\n"); len(got) != 1 || got[0].closed {
		t.Errorf("an open fence: %+v, want one unclosed block", got)
	}
}

func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}
