package author

import (
	"fmt"
	"slices"
	"strings"
)

// EditFormat explains the edit format to the code model, as the system prompt shows it: the prompt and
// ParseEdit share this one definition. It is the SEARCH/REPLACE block format of the Aider tool, which
// models already know.
const EditFormat = `To change the page, answer with SEARCH/REPLACE blocks, one per change:

<<<<<<< SEARCH
lines copied exactly from the current page
=======
the lines that replace them
>>>>>>> REPLACE

- SEARCH holds whole lines copied exactly from the current page, indentation included, and enough of them
  that they appear exactly once in the page. Keep each block small: the lines that change and a line or two
  around them.
- Every block is looked up in the current page as it is before any of your blocks apply, so two blocks must
  not touch the same lines. All blocks apply, or none does. An edit that changes nothing is refused.
- To delete lines, leave REPLACE empty. To add lines, SEARCH for a line next to where they go and repeat it
  in REPLACE together with the new lines.
- The three marker lines are written exactly as above, each alone on its line. Text between blocks is
  ignored, and the blocks may sit inside one code block.
- To rewrite the whole page instead, send the complete new document in one ` + "```html" + ` block and no
  SEARCH/REPLACE blocks.

Example, making the start button bigger:

<<<<<<< SEARCH
    <button id="start">Start</button>
=======
    <button id="start" class="big">Start</button>
>>>>>>> REPLACE
`

// The marker lines of a block, compared after trimming surrounding whitespace. A page line that is
// exactly "=======" cannot be part of a SEARCH text: it would end it.
const (
	markSearch  = "<<<<<<< SEARCH"
	markDivider = "======="
	markReplace = ">>>>>>> REPLACE"
)

// NearLines bounds the page lines a MatchFailure shows for one block.
const NearLines = 30

// Block is one SEARCH/REPLACE pair: whole lines of the page and the lines that replace them, "\n"
// separated (a final "\n" is optional; "\r" before a "\n" is ignored).
type Block struct{ Search, Replace string }

// ParseEdit reads a code model's edit answer: the blocks it holds in order, or, when it holds no block, the
// whole document it holds instead (ExtractHTML's rules), as whole.
//
// A block starts at a line "<<<<<<< SEARCH", is divided by a line "=======" and ends at a line
// ">>>>>>> REPLACE" (each compared without surrounding whitespace). Lines outside blocks are ignored: prose,
// fences, a "=======" underline. A malformed block (a second SEARCH or REPLACE before its divider, a second
// divider, a block never closed, a REPLACE with no block open) is a *Failure CodeBadEdit naming the block
// and its line; so is an answer with neither blocks nor a document. The blocks' lines come back "\n"
// separated, each ending in "\n", with a "\r" before the "\n" removed.
func ParseEdit(answer string) (blocks []Block, whole string, err error) {
	const (
		outside = iota
		inSearch
		inReplace
	)
	state, start := outside, 0
	var search, replace strings.Builder
	for i, line := range strings.Split(answer, "\n") {
		line = strings.TrimSuffix(line, "\r")
		n := len(blocks) + 1 // the block being read, counted from 1 as the model reads them
		switch mark := strings.TrimSpace(line); {
		case state == outside && mark == markSearch:
			state, start = inSearch, i+1
			search.Reset()
			replace.Reset()
		case state == outside && mark == markReplace:
			return nil, "", failf(CodeBadEdit, "line %d: a %q line with no %q block open", i+1, markReplace, markSearch)
		case state == outside:
			// prose, fences and anything else between blocks
		case mark == markSearch:
			return nil, "", failf(CodeBadEdit, "block %d (from line %d): a second %q on line %d before the block ended with %q", n, start, markSearch, i+1, markReplace)
		case state == inSearch && mark == markReplace:
			return nil, "", failf(CodeBadEdit, "block %d (from line %d): %q on line %d before any %q", n, start, markReplace, i+1, markDivider)
		case state == inSearch && mark == markDivider:
			state = inReplace
		case state == inSearch:
			search.WriteString(line)
			search.WriteByte('\n')
		case mark == markDivider:
			return nil, "", failf(CodeBadEdit, "block %d (from line %d): a second %q on line %d", n, start, markDivider, i+1)
		case mark == markReplace:
			blocks = append(blocks, Block{Search: search.String(), Replace: replace.String()})
			state = outside
		default:
			replace.WriteString(line)
			replace.WriteByte('\n')
		}
	}
	if state != outside {
		return nil, "", failf(CodeBadEdit, "block %d (from line %d) never ends with %q (the answer looks cut off)", len(blocks)+1, start, markReplace)
	}
	if len(blocks) > 0 {
		return blocks, "", nil
	}
	page, xerr := ExtractHTML(answer)
	if xerr != nil {
		return nil, "", failf(CodeBadEdit, "the answer holds no %q block and no whole document (%s)", markSearch, xerr.(*Failure).Message)
	}
	return nil, page, nil
}

// ApplyEdit applies every block to page, all or none, and returns the new page. Search and Replace are
// whole lines (ParseEdit's blocks are).
//
// Every block is looked up in the ORIGINAL page, not in the page as earlier blocks changed it, so a block's
// meaning does not depend on its neighbours; the lines two blocks match must not overlap (touching is fine),
// or the edit is refused CodeBadEdit. A block matches where its lines equal consecutive lines of the page,
// line endings aside ("\n" and "\r\n" compare equal). Only when a block matches nowhere exactly, lines that
// differ in trailing spaces and tabs alone also match (models often drop them); nothing looser ever does.
// Each block must match exactly once: a block matching 0 or ≥ 2 times makes the error a *MatchFailure that
// lists every such block with the page's nearby lines, to send back to the model. An empty Search is
// refused CodeBadEdit, and a result equal to page CodeNoChange.
//
// Replacement lines take the page's line ending (that of its first line break), and a last line of the
// page without one stays without one. On any error the result is "" and page is as it was. ApplyEdit
// checks text, not HTML: hold its result to CheckPage before writing it.
func ApplyEdit(page string, blocks []Block) (string, error) {
	if len(blocks) == 0 {
		return "", failf(CodeBadEdit, "the edit holds no %q block", markSearch)
	}
	lines := splitPage(page)
	type region struct{ block, from, to int } // page lines [from, to)
	var regions []region
	var misses []Miss
	for bi, b := range blocks {
		want := blockLines(b.Search)
		if len(want) == 0 {
			return "", failf(CodeBadEdit, "block %d has an empty SEARCH part; copy the lines to change into it", bi+1)
		}
		starts := matchLines(page, lines, want, exactLine)
		if len(starts) == 0 {
			starts = matchLines(page, lines, want, looseLine)
		}
		if len(starts) == 1 {
			regions = append(regions, region{bi, starts[0], starts[0] + len(want)})
			continue
		}
		misses = append(misses, miss(page, lines, bi, want, starts))
	}
	if len(misses) > 0 {
		return "", &MatchFailure{Blocks: len(blocks), Misses: misses}
	}
	slices.SortFunc(regions, func(a, b region) int { return a.from - b.from })
	for i := 1; i < len(regions); i++ {
		if p, r := regions[i-1], regions[i]; r.from < p.to {
			a, b := min(p.block, r.block)+1, max(p.block, r.block)+1
			return "", failf(CodeBadEdit, "blocks %d and %d both change line %d; merge them into one block", a, b, r.from+1)
		}
	}
	eol := "\n"
	if i := strings.IndexByte(page, '\n'); i > 0 && page[i-1] == '\r' {
		eol = "\r\n"
	}
	var out strings.Builder
	out.Grow(len(page))
	at := 0 // bytes of page copied so far
	for _, r := range regions {
		first, last := lines[r.from], lines[r.to-1]
		out.WriteString(page[at:first.start])
		repl := blockLines(blocks[r.block].Replace)
		for i, l := range repl {
			out.WriteString(l)
			if i < len(repl)-1 || last.next > last.end { // the last page line may have no line break
				out.WriteString(eol)
			}
		}
		at = last.next
	}
	out.WriteString(page[at:])
	if out.String() == page {
		return "", failf(CodeNoChange, "the edit leaves the page exactly as it was: each REPLACE part must differ from its SEARCH part")
	}
	return out.String(), nil
}

// Miss is one block of an edit that did not match exactly once.
type Miss struct {
	Index   int    // the block's position in the edit, from 0 (the message counts from 1)
	Matches int    // how many times its SEARCH lines are in the page: 0, or 2 and more
	Lines   []int  // Matches ≥ 2: the page line (from 1) where each match starts
	Near    string // the page's lines nearest to the block, numbered "   12| …", at most NearLines lines
}

// MatchFailure is ApplyEdit's refusal when blocks did not match exactly once; nothing was applied. Its
// Message, for the model, lists each such block with the page's actual lines near it. errors.As finds a
// *Failure with CodeNoMatch in it too.
type MatchFailure struct {
	Blocks int // how many blocks the edit had
	Misses []Miss
}

func (m *MatchFailure) Error() string { return CodeNoMatch + ": " + m.Message() }

// Unwrap gives the refusal as a *Failure, so one errors.As handles every code of the package.
func (m *MatchFailure) Unwrap() error { return &Failure{Code: CodeNoMatch, Message: m.Message()} }

// Message is the text to send back to the model.
func (m *MatchFailure) Message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of your %d SEARCH/REPLACE blocks did not match the page exactly once, so none was applied.\n", len(m.Misses), m.Blocks)
	for _, ms := range m.Misses {
		switch {
		case ms.Matches >= 2:
			fmt.Fprintf(&b, "\nBlock %d matches %d places (lines %s); add lines around it so that it matches only one:\n", ms.Index+1, ms.Matches, joinInts(ms.Lines))
		case ms.Near == "":
			fmt.Fprintf(&b, "\nBlock %d matches nothing, and no line of the page resembles its first lines.\n", ms.Index+1)
			continue
		default:
			fmt.Fprintf(&b, "\nBlock %d matches nothing. The page's actual lines nearest to it are (the numbers are not part of the page):\n", ms.Index+1)
		}
		b.WriteString(ms.Near)
	}
	b.WriteString("\nSend the blocks again, with SEARCH lines copied exactly from the page.")
	return b.String()
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// pageLine is one line of a page: its text is page[start:end], without the line break; next is where the
// following line starts (end plus the break's length).
type pageLine struct{ start, end, next int }

func splitPage(page string) []pageLine {
	var out []pageLine
	for at := 0; at < len(page); {
		i := strings.IndexByte(page[at:], '\n')
		if i < 0 {
			out = append(out, pageLine{at, len(page), len(page)})
			break
		}
		end := at + i
		if end > at && page[end-1] == '\r' {
			end--
		}
		out = append(out, pageLine{at, end, at + i + 1})
		at += i + 1
	}
	return out
}

// blockLines splits a block's text into lines: a final "\n" ends the last line rather than starting an
// empty one, and a "\r" ending a line is dropped. "" has no lines.
func blockLines(s string) []string {
	if s == "" {
		return nil
	}
	ls := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls
}

func exactLine(a, b string) bool { return a == b }

// looseLine compares lines without their trailing spaces and tabs (and a stray "\r").
func looseLine(a, b string) bool {
	return strings.TrimRight(a, " \t\r") == strings.TrimRight(b, " \t\r")
}

// matchLines returns the first page line of every place (overlapping ones too) where want's lines equal
// consecutive page lines.
func matchLines(page string, lines []pageLine, want []string, eq func(a, b string) bool) []int {
	var starts []int
	for i := 0; i+len(want) <= len(lines); i++ {
		ok := true
		for j, w := range want {
			if l := lines[i+j]; !eq(page[l.start:l.end], w) {
				ok = false
				break
			}
		}
		if ok {
			starts = append(starts, i)
		}
	}
	return starts
}

// miss describes a block that matched len(starts) times (0 or ≥ 2): for several matches, each place with
// two lines around it (at most three places, nine lines each, "…" between); for none, the page's region whose lines most resemble the
// block's first three (by the Dice coefficient of their character pairs, indentation aside), five lines
// around it, at most NearLines in all.
func miss(page string, lines []pageLine, index int, want []string, starts []int) Miss {
	m := Miss{Index: index, Matches: len(starts)}
	var b strings.Builder
	if len(starts) > 0 {
		for k, s := range starts {
			m.Lines = append(m.Lines, s+1)
			if k < 3 {
				if k > 0 {
					b.WriteString("   …\n")
				}
				from := max(0, s-2)
				numberLines(&b, page, lines, from, min(len(lines), s+len(want)+2, from+(NearLines-2)/3)) // with two "…" lines
			}
		}
		m.Near = b.String()
		return m
	}
	head := want[:min(3, len(want))]
	heads := make([][]uint16, len(head))
	for i, w := range head {
		heads[i] = pairsOf(w)
	}
	cache := make([][]uint16, len(lines))
	pairs := func(i int) []uint16 {
		if cache[i] == nil {
			cache[i] = pairsOf(page[lines[i].start:lines[i].end])
		}
		return cache[i]
	}
	best, bestScore := -1, 0.0
	for i := range lines {
		score := 0.0
		for j := range heads {
			if i+j < len(lines) {
				score += dice(heads[j], pairs(i+j))
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return m
	}
	from := max(0, best-5)
	numberLines(&b, page, lines, from, min(len(lines), best+len(want)+5, from+NearLines))
	m.Near = b.String()
	return m
}

// numberLines writes page lines [from, to) with their numbers, each line bounded to 200 bytes.
func numberLines(b *strings.Builder, page string, lines []pageLine, from, to int) {
	for i := from; i < to; i++ {
		fmt.Fprintf(b, "%5d| %s\n", i+1, clip(page[lines[i].start:lines[i].end], 200))
	}
}

// pairsOf returns the sorted character pairs (bytes) of a line without its surrounding whitespace.
func pairsOf(s string) []uint16 {
	s = strings.TrimSpace(s)
	if len(s) < 2 {
		return []uint16{}
	}
	p := make([]uint16, 0, len(s)-1)
	for i := 0; i+1 < len(s); i++ {
		p = append(p, uint16(s[i])<<8|uint16(s[i+1]))
	}
	slices.Sort(p)
	return p
}

// dice is the Dice coefficient of two sorted pair lists: 2·|common| / (|a| + |b|), in [0, 1].
func dice(a, b []uint16) float64 {
	if len(a)+len(b) == 0 {
		return 0
	}
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}
