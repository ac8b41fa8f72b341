package author

import (
	"errors"
	"strings"
	"testing"
)

// FuzzApplyEdit holds ApplyEdit to its promises on any page and blocks: it never panics; on an error the
// result is "" and the error is one of the package's refusals; on success every block's REPLACE lines are
// in the result and the page's lines outside the matched regions are kept. The first block is cut from
// the page itself (lines from..from+n) so that matches, and so successes, are common.
func FuzzApplyEdit(f *testing.F) {
	f.Add(clockPage, "  <h1>Clock</h1>\n", "", "", uint8(11), uint8(1))
	f.Add("a\r\nb\r\nc", "B\n", "c", "C", uint8(1), uint8(1))
	f.Add("a\na\n", "x", "a  \n", "", uint8(0), uint8(1))
	f.Add("a\nb  \nc\n", "", "b\n", "b\n", uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, page, replace, search2, replace2 string, from, n uint8) {
		if len(page) > 4096 || len(replace)+len(search2)+len(replace2) > 4096 {
			return // one iteration stays cheap; larger pages add no new paths
		}
		ls := strings.SplitAfter(page, "\n")
		search := ""
		if int(from)+int(n) <= len(ls) {
			search = strings.Join(ls[from:int(from)+int(n)], "")
		}
		blocks := []Block{{search, replace}}
		if search2 != "" {
			blocks = append(blocks, Block{search2, replace2})
		}
		got, err := ApplyEdit(page, blocks)
		if err != nil {
			var fl *Failure
			if got != "" || !errors.As(err, &fl) {
				t.Fatalf("on error the result is %q and the error %T %v", got, err, err)
			}
			switch fl.Code {
			case CodeBadEdit, CodeNoMatch, CodeNoChange:
			default:
				t.Fatalf("unknown code %q", fl.Code)
			}
			var m *MatchFailure
			if errors.As(err, &m) {
				for _, ms := range m.Misses {
					if strings.Count(ms.Near, "\n") > NearLines {
						t.Fatalf("near has more than %d lines: %q", NearLines, ms.Near)
					}
				}
			}
			return
		}
		if got == page {
			t.Fatal("success without a change")
		}
		for _, b := range blocks {
			for _, l := range blockLines(b.Replace) {
				if !strings.Contains(got, l) {
					t.Fatalf("REPLACE line %q is not in the result %q", l, got)
				}
			}
		}
		// Lines the blocks did not match are kept, in order: the first page line and the last are outside
		// every region unless a block's SEARCH holds them.
		pl := splitPage(page)
		if len(pl) > 0 {
			first := page[pl[0].start:pl[0].end]
			touched := false
			for _, b := range blocks {
				if w := blockLines(b.Search); len(w) > 0 && looseLine(w[0], first) {
					touched = true
				}
			}
			if !touched && !strings.HasPrefix(got, first) {
				t.Fatalf("the untouched first line %q is gone: %q", first, got)
			}
		}
	})
}

// FuzzParseEdit: ParseEdit never panics, refuses only with edit-bad-format, and what it accepts is either
// blocks (each REPLACE and SEARCH made of whole lines) or a whole document CheckPage accepts.
func FuzzParseEdit(f *testing.F) {
	f.Add("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n")
	f.Add("```html\n" + clockPage + "```")
	f.Add("<<<<<<< SEARCH\n=======\n=======\n")
	f.Fuzz(func(t *testing.T, answer string) {
		if len(answer) > 8192 {
			return
		}
		blocks, whole, err := ParseEdit(answer)
		if err != nil {
			var fl *Failure
			if !errors.As(err, &fl) || fl.Code != CodeBadEdit || blocks != nil || whole != "" {
				t.Fatalf("ParseEdit = %q, %q, %v", blocks, whole, err)
			}
			return
		}
		if (len(blocks) == 0) == (whole == "") {
			t.Fatalf("want blocks or a document, got %d blocks and %d bytes", len(blocks), len(whole))
		}
		if whole != "" {
			if err := CheckPage(whole); err != nil {
				t.Fatalf("the whole document fails CheckPage: %v", err)
			}
		}
		for _, b := range blocks {
			for _, s := range []string{b.Search, b.Replace} {
				if s != "" && !strings.HasSuffix(s, "\n") {
					t.Fatalf("a block part does not end a line: %q", s)
				}
			}
		}
	})
}
