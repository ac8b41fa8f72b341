package sandbox

import (
	"bufio"
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"golang.org/x/net/html"
)

// A prolog is one page of the corpus testdata/prologs.txt (docs/sandbox.md, "Where the confinement goes"):
// the ways a page can begin before its doctype, each with the scripts (<script>PROBE</script>) a browser
// runs from it. tests/e2e reads the same file and runs every page in the browsers.
type prolog struct {
	name    string
	runs    int    // how many of its PROBE scripts a browser runs
	doctype string // the doctype expected before the SDK ("" for none)
	page    string // the bytes served, encoded
}

func readPrologs(t *testing.T) []prolog {
	t.Helper()
	f, err := os.Open("testdata/prologs.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []prolog
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 5 {
			t.Fatalf("prologs.txt: %q: want 5 columns", line)
		}
		runs, err1 := strconv.Atoi(cols[1])
		doctype, err2 := strconv.Unquote(cols[3])
		page, err3 := strconv.Unquote(cols[4])
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("prologs.txt: %q: %v %v %v", line, err1, err2, err3)
		}
		switch cols[2] {
		case "utf-8":
		case "utf-16le", "utf-16be":
			page = encodeUTF16(page, cols[2] == "utf-16be")
		default:
			t.Fatalf("prologs.txt: %q: unknown encoding %q", line, cols[2])
		}
		out = append(out, prolog{cols[0], runs, doctype, page})
	}
	if len(out) < 40 {
		t.Fatalf("prologs.txt holds %d pages", len(out))
	}
	return out
}

// encodeUTF16 is s in UTF-16 with its byte order mark.
func encodeUTF16(s string, bigEndian bool) string {
	var order binary.AppendByteOrder = binary.LittleEndian
	if bigEndian {
		order = binary.BigEndian
	}
	b := order.AppendUint16(nil, 0xfeff)
	for _, u := range utf16.Encode([]rune(s)) {
		b = order.AppendUint16(b, u)
	}
	return string(b)
}

// firstScript is the text of the first script element the HTML parser makes of doc (x/net/html's tree
// builder, which follows the WHATWG algorithm), or "" when it makes none.
func firstScript(t *testing.T, doc string) string {
	t.Helper()
	root, err := html.Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n *html.Node) (string, bool)
	walk = func(n *html.Node) (string, bool) {
		if n.Type == html.ElementNode && n.Data == "script" {
			text := ""
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				text += c.Data
			}
			return text, true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if s, ok := walk(c); ok {
				return s, true
			}
		}
		return "", false
	}
	s, _ := walk(root)
	return s
}

// TestPrologCorpus: for every page of the corpus, the SDK's script is the first script element of the
// document, nothing but white space and the expected doctype stands before it, and no PROBE does. The
// control is the injector before issue 28 (injectBefore28): on the same corpus the page's own script came
// first for the comment forms browsers end early, which the e2e case showed running with WebRTC.
func TestPrologCorpus(t *testing.T) {
	const tag = "<script>SDK</script>"
	oldFailed := map[string]bool{}
	for _, p := range readPrologs(t) {
		body, _ := AppDocument(p.page, tag)
		i := strings.Index(body, tag)
		if i < 0 {
			t.Errorf("%s: no SDK in %q", p.name, body)
			continue
		}
		before := strings.Trim(strings.TrimPrefix(body[:i], "\ufeff"), " \t\n\r\f")
		if before != p.doctype {
			t.Errorf("%s: %q before the SDK, want the doctype %q (%q)", p.name, before, p.doctype, body)
		}
		if strings.Contains(body[:i], "PROBE") {
			t.Errorf("%s: a script of the page before the SDK: %q", p.name, body)
		}
		if got := firstScript(t, body); got != "SDK" {
			t.Errorf("%s: the parser's first script is %q, not the SDK: %q", p.name, got, body)
		}
		if firstScript(t, injectBefore28(fromUTF16(p.page), tag)) != "SDK" {
			oldFailed[p.name] = true
		}
	}
	for _, name := range []string{"abrupt comment <!-->", "abrupt comment <!--->", "incorrectly closed comment --!>"} {
		if !oldFailed[name] {
			t.Errorf("control: the injector before issue 28 kept the SDK first for %q: the corpus does not show the finding", name)
		}
	}
	t.Logf("control: with the injector before issue 28 the page's script came first in %d pages: %v", len(oldFailed), oldFailed)
}

// injectBefore28 is InjectSDK as it was before issue 28 (for the control only): it skipped "<!--" … "-->"
// comments by its own rule, so "<!-->" hid the page's script from it.
func injectBefore28(page string, sdkTag string) string {
	i := 0
	if strings.HasPrefix(page, "\ufeff") {
		i = len("\ufeff")
	}
	start := i
	for {
		for i < len(page) && strings.IndexByte(" \t\n\r\f", page[i]) >= 0 {
			i++
		}
		if strings.HasPrefix(page[i:], "<!--") {
			end := strings.Index(page[i+4:], "-->")
			if end < 0 {
				break
			}
			i += 4 + end + 3
			continue
		}
		break
	}
	if len(page)-i >= 9 && strings.EqualFold(page[i:i+9], "<!doctype") {
		if end := strings.IndexByte(page[i:], '>'); end >= 0 {
			at := i + end + 1
			return page[:at] + sdkTag + page[at:]
		}
	}
	return page[:start] + sdkTag + page[start:]
}
