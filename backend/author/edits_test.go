package author

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestEditFormatExampleParses(t *testing.T) {
	// The prompt's example is what the parser reads: one block, the button made bigger.
	blocks, whole, err := ParseEdit(EditFormat[strings.Index(EditFormat, "Example"):])
	if err != nil || whole != "" {
		t.Fatalf("ParseEdit(EditFormat's example) = %v, %q, %v", blocks, whole, err)
	}
	want := []Block{{
		Search:  "    <button id=\"start\">Start</button>\n",
		Replace: "    <button id=\"start\" class=\"big\">Start</button>\n",
	}}
	if !reflect.DeepEqual(blocks, want) {
		t.Fatalf("blocks = %q, want %q", blocks, want)
	}
	// And the format's own first block, the template, parses too.
	blocks, _, err = ParseEdit(EditFormat[:strings.Index(EditFormat, "- SEARCH")])
	if err != nil || len(blocks) != 1 || blocks[0].Search != "lines copied exactly from the current page\n" {
		t.Fatalf("the format's template = %q, %v", blocks, err)
	}
}

func TestParseEdit(t *testing.T) {
	answer := "I'll make the buttons bigger and add a preset.\n\n```html\n" +
		"<<<<<<< SEARCH\n    button { font-size: 1rem; }\n=======\n    button { font-size: 2rem; padding: 1rem; }\n>>>>>>> REPLACE\n" +
		"```\n\nAnd the preset:\n\n```html\n" +
		"<<<<<<< SEARCH\n  <button id=\"pause\">Pause</button>\n=======\n  <button id=\"pause\">Pause</button>\n  <button id=\"preset\">5 min</button>\n>>>>>>> REPLACE\n" +
		"```\n"
	blocks, whole, err := ParseEdit(answer)
	if err != nil || whole != "" {
		t.Fatalf("ParseEdit = %v, %q, %v", blocks, whole, err)
	}
	want := []Block{
		{"    button { font-size: 1rem; }\n", "    button { font-size: 2rem; padding: 1rem; }\n"},
		{"  <button id=\"pause\">Pause</button>\n", "  <button id=\"pause\">Pause</button>\n  <button id=\"preset\">5 min</button>\n"},
	}
	if !reflect.DeepEqual(blocks, want) {
		t.Fatalf("blocks = %q\nwant %q", blocks, want)
	}
	// The same blocks apply, and the result is still a document CheckPage accepts.
	page, err := ApplyEdit(clockPage, blocks)
	if err != nil {
		t.Fatalf("ApplyEdit: %v", err)
	}
	if !strings.Contains(page, "font-size: 2rem") || !strings.Contains(page, `<button id="preset">5 min</button>`) {
		t.Fatalf("edited page lacks a change:\n%s", page)
	}
	if err := CheckPage(page); err != nil {
		t.Fatalf("CheckPage(edited): %v", err)
	}

	t.Run("CRLF answer, markers with surrounding spaces, an empty REPLACE", func(t *testing.T) {
		blocks, _, err := ParseEdit("<<<<<<< SEARCH  \r\n  <h1>Chess clock</h1>\r\n =======\r\n>>>>>>> REPLACE\r\n")
		if err != nil || !reflect.DeepEqual(blocks, []Block{{"  <h1>Chess clock</h1>\n", ""}}) {
			t.Fatalf("got %q, %v", blocks, err)
		}
	})
	t.Run("a ======= underline outside blocks is prose", func(t *testing.T) {
		blocks, _, err := ParseEdit("Changes\n=======\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n")
		if err != nil || !reflect.DeepEqual(blocks, []Block{{"a\n", "b\n"}}) {
			t.Fatalf("got %q, %v", blocks, err)
		}
	})
	t.Run("a whole document instead of blocks", func(t *testing.T) {
		blocks, whole, err := ParseEdit("I rewrote it:\n```html\n" + clockPage + "```\n")
		if err != nil || blocks != nil || whole != clockPage {
			t.Fatalf("got %q, %q, %v", blocks, clip(whole, 60), err)
		}
	})
}

func TestParseEditRefuses(t *testing.T) {
	ok := "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n"
	tests := []struct{ name, answer, says string }{
		{"a SEARCH inside a SEARCH", ok + "<<<<<<< SEARCH\na\n<<<<<<< SEARCH\n", "block 2 (from line 6): a second \"<<<<<<< SEARCH\" on line 8"},
		{"a SEARCH inside a REPLACE", "<<<<<<< SEARCH\na\n=======\nb\n<<<<<<< SEARCH\n", "block 1 (from line 1): a second \"<<<<<<< SEARCH\" on line 5"},
		{"REPLACE before the divider", ok + ok + "<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n", "block 3 (from line 11): \">>>>>>> REPLACE\" on line 13 before any \"=======\""},
		{"two dividers", "<<<<<<< SEARCH\na\n=======\nb\n=======\nc\n>>>>>>> REPLACE\n", "block 1 (from line 1): a second \"=======\" on line 5"},
		{"never closed (cut off)", ok + "<<<<<<< SEARCH\na\n=======\nb\n", "block 2 (from line 6) never ends"},
		{"a REPLACE with no block", "text\n>>>>>>> REPLACE\n", "line 2: a \">>>>>>> REPLACE\" line with no"},
		{"neither blocks nor a document", "Sure, I made the buttons bigger.", "no \"<<<<<<< SEARCH\" block and no whole document (the answer holds no HTML document"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			blocks, whole, err := ParseEdit(tc.answer)
			var f *Failure
			if !errors.As(err, &f) || f.Code != CodeBadEdit || !strings.Contains(f.Message, tc.says) || blocks != nil || whole != "" {
				t.Fatalf("ParseEdit = %q, %q, %v; want %s saying %q", blocks, whole, err, CodeBadEdit, tc.says)
			}
		})
	}
}

// lines makes a page of n numbered lines.
func lines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestApplyEdit(t *testing.T) {
	tests := []struct {
		name, page string
		blocks     []Block
		want       string
	}{
		{"one block", "a\nb\nc\n", []Block{{"b\n", "B\n"}}, "a\nB\nc\n"},
		{"several blocks, listed out of page order, all looked up in the original",
			"a\nb\nc\nd\ne\n", []Block{{"d\n", "D\nd2\n"}, {"a\nb\n", "AB\n"}, {"c\n", "b\n"}}, "AB\nb\nD\nd2\ne\n"},
		{"touching blocks are not overlapping", "a\nb\nc\n", []Block{{"a\n", "A\n"}, {"b\n", "B\n"}}, "A\nB\nc\n"},
		{"an empty REPLACE deletes", "a\nb\nc\n", []Block{{"b\n", ""}}, "a\nc\n"},
		{"SEARCH and REPLACE without a final newline", "a\nb\nc\n", []Block{{"b", "B"}}, "a\nB\nc\n"},
		{"the last line without a line break stays without", "a\nb", []Block{{"b\n", "B\nC\n"}}, "a\nB\nC"},
		{"CRLF page: replacement lines take CRLF", "a\r\nb\r\nc\r\n", []Block{{"b\n", "B\nB2\n"}}, "a\r\nB\r\nB2\r\nc\r\n"},
		{"CRLF block on an LF page", "a\nb\nc\n", []Block{{"b\r\n", "B\r\n"}}, "a\nB\nc\n"},
		{"trailing spaces the model dropped", "<p>\n  <h1>Clock</h1>  \t\n</p>\n", []Block{{"  <h1>Clock</h1>\n", "  <h1>Chess clock</h1>\n"}}, "<p>\n  <h1>Chess clock</h1>\n</p>\n"},
		{"trailing spaces the model added", "x\ny\n", []Block{{"y   \n", "Y\n"}}, "x\nY\n"},
		{"an exact match wins over a loose one", "a  \na\n", []Block{{"a\n", "A\n"}}, "a  \nA\n"},
		{"some blocks change nothing, one does", "a\nb\n", []Block{{"a\n", "a\n"}, {"b\n", "c\n"}}, "a\nc\n"},
		{"other lines keep their own line endings", "a\r\nb\nc\r\n", []Block{{"c\n", "C\n"}}, "a\r\nb\nC\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ApplyEdit(tc.page, tc.blocks)
			if err != nil {
				t.Fatalf("ApplyEdit: %v", err)
			}
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestApplyEditRefuses(t *testing.T) {
	tests := []struct {
		name, page string
		blocks     []Block
		code, says string
	}{
		{"no blocks", "a\n", nil, CodeBadEdit, "holds no"},
		{"an empty SEARCH", "a\n", []Block{{"a\n", "b\n"}, {"", "x\n"}}, CodeBadEdit, "block 2 has an empty SEARCH part"},
		{"overlapping blocks", "a\nb\nc\nd\n", []Block{{"c\nd\n", "x\n"}, {"a\nb\nc\n", "y\n"}}, CodeBadEdit, "blocks 1 and 2 both change line 3"},
		{"the same lines twice", "a\nb\n", []Block{{"a\n", "x\n"}, {"a\n", "y\n"}}, CodeBadEdit, "blocks 1 and 2 both change line 1"},
		{"no change", "a\nb\n", []Block{{"b\n", "b\n"}}, CodeNoChange, "exactly as it was"},
		{"no change by loose match", "a\nb  \n", []Block{{"b\n", "b  \n"}}, CodeNoChange, "exactly as it was"},
		{"a partial line does not match", "xx<b>\n", []Block{{"<b>\n", "<i>\n"}}, CodeNoMatch, "Block 1 matches nothing"},
		{"leading whitespace is not forgiven", "  a\n", []Block{{"a\n", "b\n"}}, CodeNoMatch, "Block 1 matches nothing"},
		{"letter case is not forgiven", "Start\n", []Block{{"start\n", "go\n"}}, CodeNoMatch, "Block 1 matches nothing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ApplyEdit(tc.page, tc.blocks)
			var f *Failure
			if !errors.As(err, &f) || f.Code != tc.code || !strings.Contains(f.Message, tc.says) || got != "" {
				t.Fatalf("ApplyEdit = %q, %v; want %s saying %q", got, err, tc.code, tc.says)
			}
		})
	}
}

func TestApplyEditMisses(t *testing.T) {
	t.Run("matching twice lists both places", func(t *testing.T) {
		page := "<ul>\n  <li>x</li>\n</ul>\n<ul>\n  <li>x</li>\n</ul>\n"
		_, err := ApplyEdit(page, []Block{{"  <li>x</li>\n", "  <li>y</li>\n"}})
		var m *MatchFailure
		if !errors.As(err, &m) {
			t.Fatalf("err = %v, want a *MatchFailure", err)
		}
		if m.Blocks != 1 || len(m.Misses) != 1 || m.Misses[0].Matches != 2 || !reflect.DeepEqual(m.Misses[0].Lines, []int{2, 5}) {
			t.Fatalf("misses = %+v", m)
		}
		for _, s := range []string{"Block 1 matches 2 places (lines 2, 5)", "    2|   <li>x</li>", "    5|   <li>x</li>", "none was applied"} {
			if !strings.Contains(m.Message(), s) {
				t.Errorf("message lacks %q:\n%s", s, m.Message())
			}
		}
		// One errors.As for every code: the miss is a *Failure edit-no-match too.
		var f *Failure
		if !errors.As(err, &f) || f.Code != CodeNoMatch || f.Message != m.Message() {
			t.Fatalf("as *Failure: %v", f)
		}
		if !strings.HasPrefix(err.Error(), CodeNoMatch+": ") {
			t.Fatalf("Error() = %q", err.Error())
		}
	})
	t.Run("matching nowhere shows the nearest actual lines; the good block is not applied", func(t *testing.T) {
		blocks := []Block{
			{"  <h1>Chess clock</h1>\n", "  <h1>Clock</h1>\n"},                                        // matches
			{"  <button id=\"start\">Begin</button>\n  <button id=\"pause\">Pause</button>\n", "x\n"}, // the model misremembered "Start"
		}
		got, err := ApplyEdit(clockPage, blocks)
		var m *MatchFailure
		if !errors.As(err, &m) || got != "" {
			t.Fatalf("ApplyEdit = %q, %v; want a *MatchFailure", got, err)
		}
		if m.Blocks != 2 || len(m.Misses) != 1 || m.Misses[0].Index != 1 || m.Misses[0].Matches != 0 || m.Misses[0].Lines != nil {
			t.Fatalf("misses = %+v", m.Misses)
		}
		near := m.Misses[0].Near
		// The region starts five lines before the most similar line (15: the start button) and holds the block.
		wantNear := "   10| </head>\n   11| <body>\n   12|   <h1>Chess clock</h1>\n   13|   <div id=\"white\">5:00</div>\n" +
			"   14|   <div id=\"black\">5:00</div>\n   15|   <button id=\"start\">Start</button>\n   16|   <button id=\"pause\">Pause</button>\n" +
			"   17|   <script>\n   18|     let running = false;\n   19|     navigator.modelContext.registerTool({\n" +
			"   20|       name: \"start_clock\",\n   21|       description: \"Start the clock for the player to move\",\n"
		if near != wantNear {
			t.Fatalf("near =\n%s\nwant\n%s", near, wantNear)
		}
		for _, s := range []string{"1 of your 2 SEARCH/REPLACE blocks", "Block 2 matches nothing", "   15|   <button id=\"start\">Start</button>", "copied exactly"} {
			if !strings.Contains(m.Message(), s) {
				t.Errorf("message lacks %q:\n%s", s, m.Message())
			}
		}
	})
	t.Run("the nearby lines are bounded", func(t *testing.T) {
		page := lines(200)
		search := strings.Replace(lines(50), "line 1\n", "line 1 changed\n", 1) // 50 lines, first one wrong
		_, err := ApplyEdit(page, []Block{{search, "x\n"}})
		var m *MatchFailure
		if !errors.As(err, &m) {
			t.Fatalf("err = %v", err)
		}
		near := m.Misses[0].Near
		if n := strings.Count(near, "\n"); n != NearLines {
			t.Fatalf("near has %d lines, want %d:\n%s", n, NearLines, near)
		}
		if !strings.HasPrefix(near, "    1| line 1\n") {
			t.Fatalf("near does not start at the most similar line:\n%s", near)
		}
	})
	t.Run("a long line is clipped", func(t *testing.T) {
		page := "<script>" + strings.Repeat("x", 5000) + "</script>\n"
		_, err := ApplyEdit(page, []Block{{"<script>" + strings.Repeat("x", 10) + "\n", "y\n"}})
		var m *MatchFailure
		if !errors.As(err, &m) || len(m.Misses[0].Near) > 220 || !strings.HasSuffix(m.Misses[0].Near, "…\n") {
			t.Fatalf("near = %q, %v", m.Misses[0].Near, err)
		}
	})
	t.Run("nothing alike", func(t *testing.T) {
		_, err := ApplyEdit("a\n", []Block{{"zq\n", "y\n"}})
		var m *MatchFailure
		if !errors.As(err, &m) || m.Misses[0].Near != "" || !strings.Contains(m.Message(), "no line of the page resembles") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("many matches list every place, show three", func(t *testing.T) {
		page := strings.Repeat("<br>\n", 6)
		_, err := ApplyEdit(page, []Block{{"<br>\n", "<hr>\n"}})
		var m *MatchFailure
		if !errors.As(err, &m) || m.Misses[0].Matches != 6 || len(m.Misses[0].Lines) != 6 || strings.Count(m.Misses[0].Near, "   …\n") != 2 {
			t.Fatalf("misses = %+v, %v", m, err)
		}
	})
}

func TestDice(t *testing.T) {
	if d := dice(pairsOf("abcd"), pairsOf("  abcd\t")); d != 1 {
		t.Errorf("same line, other indentation: %v, want 1", d)
	}
	if d := dice(pairsOf("abcd"), pairsOf("wxyz")); d != 0 {
		t.Errorf("nothing shared: %v, want 0", d)
	}
	if d := dice(pairsOf("abcd"), pairsOf("abxy")); d != 2.0/6 {
		t.Errorf("one pair of three shared: %v, want 1/3", d)
	}
}
