package author

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Codes of the refusals this package gives; each is a *Failure's Code (a *MatchFailure's for CodeNoMatch).
const (
	CodeNotHTML  = "code-model-not-html" // the answer holds no single acceptable HTML document
	CodeBadEdit  = "edit-bad-format"     // an edit answer's blocks are malformed, empty or overlapping
	CodeNoMatch  = "edit-no-match"       // a SEARCH text matched the page 0 or ≥ 2 times
	CodeNoChange = "edit-no-change"      // the edit leaves the page as it was
)

// MaxPageBytes bounds a written page: write_mini_app's html bound, used for every page this package
// accepts or writes.
const MaxPageBytes = 64 << 10

// Failure is a refusal whose Message says what was wrong in words the code model can act on: the lead
// sends it back to the model in a repair round.
type Failure struct {
	Code    string
	Message string
}

func (f *Failure) Error() string { return f.Code + ": " + f.Message }

func failf(code, format string, args ...any) *Failure {
	return &Failure{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ExtractHTML returns the page in a code model's answer, or a *Failure CodeNotHTML saying what was wrong.
//
// The answer is taken in one of two forms, after removing a leading byte-order mark and surrounding
// whitespace:
//
//   - Bare: the answer starts with "<" (a doctype, a comment or the <html> tag). The whole answer is the
//     page, so nothing but whitespace and comments may follow </html>: prose after a bare document is
//     refused, and so is prose before one (the answer then does not start with "<").
//   - Fenced: the answer holds exactly one fenced code block (a line of three or more ` or ~, indented at
//     most three spaces, closed by a line of at least as many of the same character, as CommonMark has it)
//     whose language is html, htm, xhtml or none. Prose before and after the block is ignored (models add
//     a sentence). Two or more blocks are refused as ambiguous, and so is a block left open (an answer cut
//     off) or one marked as another language.
//
// The page found must pass CheckPage. It is returned without surrounding whitespace, ending in one "\n".
func ExtractHTML(answer string) (string, error) {
	if !utf8.ValidString(answer) {
		return "", failf(CodeNotHTML, "the answer is not valid UTF-8 text")
	}
	text := strings.TrimSpace(strings.TrimPrefix(answer, "\uFEFF"))
	if text == "" {
		return "", failf(CodeNotHTML, "the answer is empty; send the whole HTML document")
	}
	var page string
	if text[0] == '<' {
		page = text
	} else {
		blocks := fencedBlocks(text)
		switch {
		case len(blocks) == 0:
			low := strings.ToLower(text)
			if strings.Contains(low, "<html") || strings.Contains(low, "<!doctype") {
				return "", failf(CodeNotHTML, "the answer has text before the HTML document; send the document alone, or in one ```html block")
			}
			return "", failf(CodeNotHTML, "the answer holds no HTML document; send the whole page, starting with <!doctype html>, in one ```html block")
		case len(blocks) > 1:
			return "", failf(CodeNotHTML, "the answer holds %d fenced code blocks; send exactly one ```html block holding the whole page", len(blocks))
		}
		b := blocks[0]
		if !b.closed {
			return "", failf(CodeNotHTML, "the code block opened on line %d is never closed (the answer looks cut off); send the whole page in one closed ```html block", b.line)
		}
		switch b.lang {
		case "", "html", "htm", "xhtml":
		default:
			return "", failf(CodeNotHTML, "the code block is marked %q; send the page as one ```html block", b.lang)
		}
		page = strings.TrimSpace(strings.TrimPrefix(b.body, "\uFEFF"))
		if page == "" {
			return "", failf(CodeNotHTML, "the code block is empty; send the whole page in it")
		}
	}
	page += "\n"
	if err := CheckPage(page); err != nil {
		return "", err
	}
	return page, nil
}

// CheckPage says whether page is a document Voicebox accepts as a written mini-app, or a *Failure
// CodeNotHTML saying why not. A document that parses, here, is:
//
//   - valid UTF-8 without NUL bytes, at most MaxPageBytes;
//   - read by the HTML tokenizer (golang.org/x/net/html), whose first tag is <html> (after an optional
//     byte-order mark, whitespace, comments and the doctype) and whose last is </html>, with only
//     whitespace and comments after it: a fragment or a document with trailing prose is refused;
//   - parsed (html.Parse) into a tree whose <body> holds an element or text, or that holds a <script>
//     anywhere (a page may build its whole interface from a script).
//
// ExtractHTML applies it to what it extracts; apply it to an edited page (ApplyEdit's result) and to
// html handed over whole (write_mini_app) before writing either.
func CheckPage(page string) error {
	if len(page) > MaxPageBytes {
		return failf(CodeNotHTML, "the page is %d bytes, over the %d-byte bound; make it smaller", len(page), MaxPageBytes)
	}
	if !utf8.ValidString(page) {
		return failf(CodeNotHTML, "the page is not valid UTF-8 text")
	}
	if strings.IndexByte(page, 0) >= 0 {
		return failf(CodeNotHTML, "the page holds a NUL byte")
	}
	if err := checkTags(strings.TrimPrefix(page, "\uFEFF")); err != nil {
		return err
	}
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil { // only a reader's error, which a strings.Reader never gives
		return failf(CodeNotHTML, "the page does not parse as HTML: %v", err)
	}
	body := findElement(doc, atom.Body)
	if body == nil {
		return failf(CodeNotHTML, "the page has no <body>")
	}
	if !hasContent(body) && findElement(doc, atom.Script) == nil {
		return failf(CodeNotHTML, "the page's <body> is empty and it has no <script>: there is nothing to show")
	}
	return nil
}

// checkTags holds the page to the tag rules of CheckPage: <html> first, </html> last.
func checkTags(page string) error {
	z := html.NewTokenizer(strings.NewReader(page))
	sawHTML, closed := false, false
	var after string // the first thing after </html> that is not whitespace or a comment
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break // io.EOF: a strings.Reader gives no other error
		}
		tok := z.Token()
		blank := tt == html.CommentToken || (tt == html.TextToken && strings.TrimSpace(tok.Data) == "")
		switch {
		case !sawHTML:
			if blank || tt == html.DoctypeToken {
				continue
			}
			if tt != html.StartTagToken || tok.DataAtom != atom.Html {
				return failf(CodeNotHTML, "the page does not start with <html> (it starts with %s); send a whole document: <!doctype html><html>…</html>", describeToken(tok))
			}
			sawHTML = true
		case closed:
			if !blank && after == "" {
				after = describeToken(tok)
			}
		case tt == html.EndTagToken && tok.DataAtom == atom.Html:
			closed = true
		}
	}
	switch {
	case !sawHTML:
		return failf(CodeNotHTML, "the page has no <html> element; send a whole document: <!doctype html><html>…</html>")
	case !closed:
		return failf(CodeNotHTML, "the page does not end with </html> (it looks cut off)")
	case after != "":
		return failf(CodeNotHTML, "there is %s after </html>; send only the document", after)
	}
	return nil
}

// describeToken names a token for a refusal, bounded: a tag by its name, text by its first words.
func describeToken(t html.Token) string {
	switch t.Type {
	case html.StartTagToken, html.SelfClosingTagToken:
		return "<" + clip(t.Data, 40) + ">"
	case html.EndTagToken:
		return "</" + clip(t.Data, 40) + ">"
	case html.TextToken:
		return fmt.Sprintf("the text %q", clip(strings.TrimSpace(t.Data), 40))
	}
	return "something else"
}

// clip bounds s to n bytes without splitting a character, marking a cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func findElement(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findElement(c, a); f != nil {
			return f
		}
	}
	return nil
}

// hasContent reports whether n holds an element or text other than whitespace.
func hasContent(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode || (c.Type == html.TextNode && strings.TrimSpace(c.Data) != "") {
			return true
		}
	}
	return false
}

// fence is one fenced code block of a Markdown answer.
type fence struct {
	lang   string // the first word of the info string, lower-cased
	body   string // the lines between the fences, the opening fence's indentation removed
	closed bool
	line   int // 1-based line of the opening fence
}

// fencedBlocks finds the fenced code blocks of text, as CommonMark defines them: an opening line of at
// least three backticks or tildes indented at most three spaces (a backtick fence's info string holds no
// backtick), closed by a line of at least as many of the same character and nothing else. A block still
// open at the end is returned with closed false.
func fencedBlocks(text string) []fence {
	var out []fence
	var cur *fence
	var body strings.Builder
	var ch byte
	var width, indent int
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if cur == nil {
			c, w, ind, info, ok := fenceLine(line)
			if !ok || (c == '`' && strings.IndexByte(info, '`') >= 0) {
				continue
			}
			lang, _, _ := strings.Cut(strings.TrimSpace(info), " ")
			out = append(out, fence{lang: strings.ToLower(lang), line: i + 1})
			cur, ch, width, indent = &out[len(out)-1], c, w, ind
			body.Reset()
			continue
		}
		if c, w, _, info, ok := fenceLine(line); ok && c == ch && w >= width && strings.TrimSpace(info) == "" {
			cur.body, cur.closed, cur = body.String(), true, nil
			continue
		}
		for k := 0; k < indent && strings.HasPrefix(line, " "); k++ {
			line = line[1:]
		}
		body.WriteString(line)
		body.WriteByte('\n')
	}
	if cur != nil {
		cur.body = body.String()
	}
	return out
}

// fenceLine reads a possible fence line: its character, run width, indentation and the rest of the line.
func fenceLine(line string) (ch byte, width, indent int, rest string, ok bool) {
	for indent < len(line) && line[indent] == ' ' {
		indent++
	}
	if indent > 3 || indent == len(line) || (line[indent] != '`' && line[indent] != '~') {
		return 0, 0, 0, "", false
	}
	ch = line[indent]
	j := indent
	for j < len(line) && line[j] == ch {
		j++
	}
	if j-indent < 3 {
		return 0, 0, 0, "", false
	}
	return ch, j - indent, indent, line[j:], true
}
